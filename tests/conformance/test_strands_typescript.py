"""The Strands Agents (TypeScript) adapter (conformance/adapters/strands-typescript): its type check, its
``roc-conformance smoke``, and what the adapter itself must get right, driven through the harness.

Needs Node.js 20+ and npm (skipped with the reason otherwise). The adapter's locked dependencies, and the
kit's it imports, are installed with ``npm ci`` when node_modules is missing or older than the lock file
(what ``make strands-typescript`` does). Smoke judges the adapter, not the SDK: known divergences of
@strands-agents/sdk show up as RUNTIME lines and still end in ADAPTER OK; the suite reports them.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from node_kit import ready_node
from roc_conformance.client import HarnessClient
from roc_conformance.target import start_managed

ROOT = Path(__file__).resolve().parents[2]
ADAPTER_DIR = ROOT / "conformance" / "adapters" / "strands-typescript"
LOCK = ADAPTER_DIR / "package-lock.json"
INSTALLED = ADAPTER_DIR / "node_modules" / ".package-lock.json"
TSX = ADAPTER_DIR / "node_modules" / ".bin" / "tsx"
MAIN = ADAPTER_DIR / "src" / "main.ts"

pytestmark = pytest.mark.slow


def _run(command: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            command, cwd=ADAPTER_DIR, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(command)} did not finish in {timeout} s: {exc.stdout!r}\n{exc.stderr!r}")


@pytest.fixture(scope="module")
def installed() -> str:
    """npm, with the kit's and the adapter's locked dependencies in place; skips without Node.js 20+."""
    ready_node()  # the kit's dependencies: the adapter imports the kit's sources
    npm = "npm"
    if not INSTALLED.is_file() or INSTALLED.stat().st_mtime < LOCK.stat().st_mtime:
        done = _run([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    return npm


def test_typecheck(installed: str) -> None:
    done = _run([installed, "run", "--silent", "typecheck"], timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_smoke_says_adapter_ok(installed: str) -> None:
    target = f"cmd:{TSX} {MAIN} --port 0"
    smoke = [sys.executable, "-m", "roc_conformance.cli", "smoke", "--target", target]
    try:
        done = subprocess.run(smoke, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"smoke did not finish in 300 s: {exc.stdout!r}\n{exc.stderr!r}")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "ADAPTER OK" in output, output
    assert "Describe: @strands-agents/sdk 1.19.0" in output, output


@pytest.fixture(scope="module")
def strands(installed: str) -> Iterator[HarnessClient]:
    target = start_managed([str(TSX), str(MAIN), "--port", "0"], "strands-typescript")
    client = HarnessClient.connect(target.address)
    try:
        yield client
    finally:
        client.close()
        target.stop()


def _spec(agent_id: str, turns: list[list[dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    return {
        "agentId": agent_id,
        "executor": extra.pop("executor", "sequential"),
        "model": {"turns": [{"content": content} for content in turns]},
        "state": {},
        **extra,
    }


def _use(tool_use_id: str, name: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": tool_use_id, "name": name, "input": {}}}


def test_after_recorders_run_before_the_scenario_callbacks(strands: HarnessClient) -> None:
    """The SDK runs After* callbacks in reverse; the recorders' order option still puts them first."""
    spec = _spec(
        "after-order",
        [[_use("t1", "x")], [{"text": "done"}]],
        tools=[{"name": "x", "steps": [{"return": {"value": 1}}]}],
        hooks=[
            {"event": "AfterToolCall", "steps": [{"setState": {"key": "a", "value": 1}}]},
            {"event": "AfterToolCall", "steps": [{"setState": {"key": "b", "value": 2}}]},
            {"event": "AfterTools", "steps": [{"setState": {"key": "c", "value": 3}}]},
        ],
    )
    out = strands.invoke(strands.create_agent(spec), {"prompt": "go"})
    kinds = [(e["kind"], e.get("hookIndex")) for e in out["trace"]]
    after_call = kinds.index(("after_tool_call", None))
    after_tools = kinds.index(("after_tools", None))
    assert after_call < kinds.index(("hook_callback", 0))
    assert after_call < kinds.index(("hook_callback", 1))
    assert after_tools < kinds.index(("hook_callback", 2))
    # Reverse registration order among the scenario's own callbacks, as the SDK runs them.
    assert kinds.index(("hook_callback", 1)) < kinds.index(("hook_callback", 0))
    assert out["state"] == {"a": 1, "b": 2, "c": 3}


def test_a_fail_step_is_an_error_result_with_its_exact_text(strands: HarnessClient) -> None:
    spec = _spec(
        "fail-text",
        [[_use("t1", "broken")], [{"text": "done"}]],
        tools=[{"name": "broken", "steps": [{"fail": {"message": "disk full"}}]}],
    )
    out = strands.invoke(strands.create_agent(spec), {"prompt": "go"})
    results = [b["toolResult"] for m in out["messages"] for b in m["content"] if "toolResult" in b]
    assert results == [{"toolUseId": "t1", "status": "error", "content": [{"text": "disk full"}]}]


def test_interrupts_carry_the_raise_point_and_inspect_reads_the_sdk_state(strands: HarnessClient) -> None:
    spec = _spec(
        "sources",
        [[_use("t1", "plain"), _use("t2", "ask")], [{"text": "done"}]],
        tools=[
            {"name": "plain", "steps": [{"return": {"value": "p"}}]},
            {"name": "ask", "steps": [{"interrupt": {"name": "q", "reason": {"path": "a"}}}]},
        ],
        hooks=[{"event": "BeforeToolCall", "toolName": "plain", "steps": [{"interrupt": {"name": "ok?"}}]}],
    )
    agent = strands.create_agent(spec)
    out = strands.invoke(agent, {"prompt": "go"})
    assert out["result"]["stopReason"] == "interrupt", out
    assert [(i["id"], i["source"]) for i in out["result"]["interrupts"]] == [
        ("hook:beforeToolCall:t1:ok?", {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "plain"})
    ]
    again = strands.invoke(
        agent, {"interruptResponses": [{"interruptId": "hook:beforeToolCall:t1:ok?", "response": "y"}]}
    )
    assert [(i["id"], i["reason"], i["source"]) for i in again["result"]["interrupts"]] == [
        ("tool:t2:q", {"path": "a"}, {"kind": "tool", "toolUseId": "t2", "toolName": "ask"})
    ]
    seen = strands.inspect(agent)
    assert seen["activated"] is True
    assert seen["preservedToolUseIds"] == ["t1"]
    assert seen["pendingAssistantMessage"]["content"] == [_use("t1", "plain"), _use("t2", "ask")]
    answered = {i["id"]: (i["answered"], i.get("response")) for i in seen["interrupts"]}
    assert answered == {"hook:beforeToolCall:t1:ok?": (True, "y"), "tool:t2:q": (False, None)}
