"""The Strands Agents (TypeScript) adapter (conformance/adapters/strands-typescript): its type check, its
``roc-conformance smoke``, and what the adapter itself must get right, driven through the harness: the
trace order, error results, raise points, inspect, and the snapshot translation (profiles sessions and
portable-snapshot: what the document holds, what a restored agent holds, what the loader refuses, what the
reference continues from it).

Needs Node.js 20+ and npm (skipped with the reason otherwise). The adapter's locked dependencies, and the
kit's it imports, are installed with ``npm ci`` when node_modules is missing or older than the lock file
(what ``make strands-typescript`` does). Smoke judges the adapter, not the SDK: known divergences of
@strands-agents/sdk show up as RUNTIME lines and still end in ADAPTER OK; the suite reports them.
"""

from __future__ import annotations

import copy
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from node_kit import ready_node
from roc_conformance.canonical import input_digest
from roc_conformance.checks.snapshot_support import CANONICAL_PROBE, strip_volatile
from roc_conformance.client import HarnessClient
from strands_support import (
    answer_all,
    connected,
    paused,
    reference_continues,
    reference_own_continuation,
    smoke,
    snapshot_of,
)

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
    code, output = smoke([str(TSX), str(MAIN), "--port", "0"])
    assert code == 0, output
    assert "ADAPTER OK" in output, output
    assert "Describe: @strands-agents/sdk 1.19.0" in output, output


@pytest.fixture(scope="module")
def strands(installed: str) -> Iterator[HarnessClient]:
    with connected([str(TSX), str(MAIN), "--port", "0"], "strands-typescript") as client:
        yield client


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


# --- sessions: the snapshot translation -------------------------------------------------------------------


def _pending_message(spec: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": spec["model"]["turns"][0]["content"]}


def test_snapshot_translates_the_paused_agent(strands: HarnessClient) -> None:
    spec, agent, out = paused(strands)
    doc = snapshot_of(strands, agent)
    state = doc["interruptState"]
    assert (doc["schemaVersion"], doc["specVersion"], doc["revision"]) == ("2.0", "1.0", 0)
    assert state["activated"] is True
    [stored] = state["interrupts"]
    assert stored["id"] == out["result"]["interrupts"][0]["id"]
    assert stored["source"] == {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}
    assert stored["reason"] == {"path": "a.txt"}
    assert "response" not in stored
    assert stored["inputDigest"] == input_digest(CANONICAL_PROBE)  # the suite's canonical JSON
    # The SDK appends the paused batch's messages only when it completes: the document holds it as pending.
    assert state["pendingToolExecution"]["assistantMessage"] == _pending_message(spec)
    assert [r["toolUseId"] for r in state["pendingToolExecution"]["completedToolResults"]] == ["t2"]
    assert doc["agent"] == {"agentId": "snap", "messages": out["messages"], "state": {"user": "u1"}}


def test_restored_agent_continues_like_the_original(strands: HarnessClient) -> None:
    spec, agent, out = paused(strands)
    doc = snapshot_of(strands, agent)
    restored = strands.restore_agent(doc, spec, model_turn_offset=1)
    assert restored.get("trace") == [], restored  # restoring runs nothing (ROC-SESSION-006)
    seen = strands.inspect(restored["agent"])
    assert seen["activated"] is True
    assert seen["preservedToolUseIds"] == ["t2"]
    assert [(i["id"], i["answered"]) for i in seen["interrupts"]] == [
        (out["result"]["interrupts"][0]["id"], False)
    ]
    assert strip_volatile(snapshot_of(strands, restored["agent"])) == strip_volatile(doc)
    there = strands.invoke(restored["agent"], answer_all(out, "yes"))
    here = strands.invoke(agent, answer_all(out, "yes"))
    assert there["result"]["stopReason"] == "end_turn", there
    assert [e["toolUseId"] for e in there["trace"] if e["kind"] == "tool_start"] == ["t1"]  # t2 is preserved
    for key in ("result", "messages", "state"):
        assert there[key] == here[key], key


def test_restore_refuses_invalid_documents(strands: HarnessClient) -> None:
    spec, agent, _ = paused(strands)
    doc = snapshot_of(strands, agent)
    tampered = copy.deepcopy(doc)
    tampered["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"][-1]["toolUse"][
        "input"
    ] = {}
    answered = copy.deepcopy(doc)
    answered["interruptState"]["interrupts"][0]["response"] = "y"
    cases: list[tuple[str, dict[str, Any] | str, dict[str, Any], str]] = [
        ("input changed after the fact", tampered, spec, "SNAPSHOT_INVALID"),
        ("activated with every interrupt answered", answered, spec, "SNAPSHOT_INVALID"),
        ("another agent's snapshot", doc, {**spec, "agentId": "other"}, "SNAPSHOT_INVALID"),
        ("not JSON", "{not json", spec, "SNAPSHOT_INVALID"),
        ("a repeated member", '{"schemaVersion": "2.0", "schemaVersion": "2.0"}', spec, "SNAPSHOT_INVALID"),
        ("a member 2.0 does not define", {**doc, "extra": 1}, spec, "SNAPSHOT_INVALID"),
        ("a later major version", {**doc, "schemaVersion": "3.0"}, spec, "SNAPSHOT_VERSION_UNSUPPORTED"),
        ("created in month 13", {**doc, "createdAt": "2026-13-01T00:00:00Z"}, spec, "SNAPSHOT_INVALID"),
    ]
    for what, document, definition, code in cases:
        out = strands.restore_agent(document, definition, model_turn_offset=1)
        assert out.get("error", {}).get("code") == code, (what, out)
    later_minor = strands.restore_agent(
        {**doc, "schemaVersion": "2.7", "extra": 1}, spec, model_turn_offset=1
    )
    assert "agent" in later_minor, later_minor  # members of a later minor are ignored (ROC-VER-007)


def test_reference_continues_a_strands_snapshot_as_its_own(strands: HarnessClient) -> None:
    """TypeScript SDK -> reference: the reference continues this document exactly as it continues its own
    snapshot of the same scenario (the reference keeps foreign ids; the way back is the SDK's problem)."""
    spec, agent, out = paused(strands, agent_id="portable")
    theirs = reference_continues(snapshot_of(strands, agent), spec, answer_all(out, "yes"))
    assert theirs[0]["stopReason"] == "end_turn", theirs
    assert theirs == reference_own_continuation(spec, "yes")
