"""The Strands Agents (Python) adapter (conformance/adapters/strands-python): ``roc-conformance smoke``, and
its snapshot translation (profiles sessions and portable-snapshot) driven through the harness.

The adapter runs in its own virtualenv with strands-agents 1.62.0 (``make strands-python``); CI never builds
it, so the tests are skipped, with the reason, when that virtualenv is missing. Smoke judges the adapter, not
the SDK: known divergences of strands-agents show up as RUNTIME lines and still end in ADAPTER OK. The
session tests judge the translation (what the document holds, what a restored agent holds, what another
implementation continues from it), not the SDK's own divergences, which the suite reports.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from roc_conformance.canonical import input_digest
from roc_conformance.checks.snapshot_support import CANONICAL_PROBE, strip_volatile, two_tool_scenario
from roc_conformance.client import HarnessClient
from roc_conformance.target import start_managed
from roc_reference.harness.build import build_agent, restore_agent

ROOT = Path(__file__).resolve().parents[2]
ADAPTER_DIR = ROOT / "conformance" / "adapters" / "strands-python"
VENV_PYTHON = ADAPTER_DIR / ".venv" / "bin" / "python"
ADAPTER = ADAPTER_DIR / "strands_adapter.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not VENV_PYTHON.exists(),
        reason=f"no Strands adapter virtualenv at {VENV_PYTHON.parent.parent}: run `make strands-python`",
    ),
]


def test_smoke_says_adapter_ok() -> None:
    target = f"cmd:{VENV_PYTHON} {ADAPTER} --port 0"
    smoke = [sys.executable, "-m", "roc_conformance.cli", "smoke", "--target", target]
    try:
        done = subprocess.run(smoke, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"smoke did not finish in 300 s: {exc.stdout!r}\n{exc.stderr!r}")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "ADAPTER OK" in output, output
    assert "Describe: strands-agents 1.62.0" in output, output


@pytest.fixture(scope="module")
def strands() -> Iterator[HarnessClient]:
    target = start_managed([str(VENV_PYTHON), str(ADAPTER), "--port", "0"], "strands-python")
    client = HarnessClient.connect(target.address)
    try:
        yield client
    finally:
        client.close()
        target.stop()


def _answer(out: dict[str, Any], value: Any) -> dict[str, Any]:
    ids = [i["id"] for i in out["result"]["interrupts"]]
    return {"interruptResponses": [{"interruptId": i, "response": value} for i in ids]}


def _paused(client: HarnessClient, agent_id: str = "snap") -> tuple[dict[str, Any], str, dict[str, Any]]:
    spec = two_tool_scenario(agent_id=agent_id)
    agent = client.create_agent(spec)
    out = client.invoke(agent, {"prompt": "go"})
    assert out["result"]["stopReason"] == "interrupt", out
    return spec, agent, out


def _snapshot(client: HarnessClient, agent: str) -> dict[str, Any]:
    taken = client.take_snapshot(agent)
    assert taken.get("snapshot") is not None, taken
    doc: dict[str, Any] = taken["snapshot"]
    return doc


def _tool_starts(out: dict[str, Any]) -> list[str]:
    return [e["toolUseId"] for e in out["trace"] if e["kind"] == "tool_start"]


def test_snapshot_translates_the_paused_agent(strands: HarnessClient) -> None:
    _, agent, out = _paused(strands)
    doc = _snapshot(strands, agent)
    state = doc["interruptState"]
    paused_message = out["result"]["message"]
    assert (doc["schemaVersion"], doc["specVersion"], doc["revision"]) == ("2.0", "1.0", 0)
    assert state["activated"] is True
    assert [i["id"] for i in state["interrupts"]] == [i["id"] for i in out["result"]["interrupts"]]
    stored = state["interrupts"][0]
    assert stored["source"] == {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}
    assert stored["reason"] == {"path": "a.txt"}
    assert "response" not in stored
    assert stored["inputDigest"] == input_digest(CANONICAL_PROBE)  # the suite's canonical JSON
    assert state["pendingToolExecution"]["assistantMessage"] == paused_message
    assert [r["toolUseId"] for r in state["pendingToolExecution"]["completedToolResults"]] == ["t2"]
    # The SDK's history ends with the paused assistant message; the document holds it once, as pending.
    assert out["messages"][-1] == paused_message
    assert doc["agent"] == {"agentId": "snap", "messages": out["messages"][:-1], "state": {"user": "u1"}}


def test_restored_agent_continues_like_the_original(strands: HarnessClient) -> None:
    spec, agent, out = _paused(strands)
    doc = _snapshot(strands, agent)
    restored = strands.restore_agent(doc, spec, model_turn_offset=1)
    assert restored.get("trace") == [], restored  # restoring runs nothing (ROC-SESSION-006)
    seen = strands.inspect(restored["agent"])
    assert seen["activated"] is True
    assert seen["preservedToolUseIds"] == ["t2"]
    assert [(i["id"], i["answered"]) for i in seen["interrupts"]] == [
        (out["result"]["interrupts"][0]["id"], False)
    ]
    assert seen["pendingAssistantMessage"] == out["result"]["message"]
    assert strip_volatile(_snapshot(strands, restored["agent"])) == strip_volatile(doc)
    there = strands.invoke(restored["agent"], _answer(out, "yes"))
    here = strands.invoke(agent, _answer(out, "yes"))
    assert there["result"]["stopReason"] == "end_turn", there
    assert _tool_starts(there) == ["t1"]  # the preserved result of t2 is not run again
    for key in ("result", "messages", "state"):
        assert there[key] == here[key], key


def test_restore_refuses_invalid_documents(strands: HarnessClient) -> None:
    spec, agent, _ = _paused(strands)
    doc = _snapshot(strands, agent)
    tampered = copy.deepcopy(doc)
    tampered["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"][-1]["toolUse"][
        "input"
    ] = {}
    later_major = {**doc, "schemaVersion": "3.0"}
    cases: list[tuple[str, dict[str, Any] | str, dict[str, Any], str]] = [
        ("input changed after the fact", tampered, spec, "SNAPSHOT_INVALID"),
        ("another agent's snapshot", doc, {**spec, "agentId": "other"}, "SNAPSHOT_INVALID"),
        ("not JSON", "{not json", spec, "SNAPSHOT_INVALID"),
        ("a repeated member", '{"schemaVersion": "2.0", "schemaVersion": "2.0"}', spec, "SNAPSHOT_INVALID"),
        ("a later major version", later_major, spec, "SNAPSHOT_VERSION_UNSUPPORTED"),
    ]
    for what, document, definition, code in cases:
        out = strands.restore_agent(document, definition, model_turn_offset=1)
        assert out.get("error", {}).get("code") == code, (what, out)


def test_foreign_ids_are_stored_as_written(strands: HarnessClient) -> None:
    spec, agent, _ = _paused(strands)
    doc = _snapshot(strands, agent)
    doc["interruptState"]["interrupts"][0]["id"] = "elsewhere/7f3a:approve"
    restored = strands.restore_agent(doc, spec, model_turn_offset=1)
    seen = strands.inspect(restored["agent"])
    assert [(i["id"], i["source"]) for i in seen["interrupts"]] == [
        ("elsewhere/7f3a:approve", {"kind": "tool", "toolUseId": "t1", "toolName": "ask"})
    ]
    assert strip_volatile(_snapshot(strands, restored["agent"])) == strip_volatile(doc)


def _reference_continues(snapshot: dict[str, Any], spec: dict[str, Any], answers: dict[str, Any]) -> Any:
    built = restore_agent(snapshot, spec, model_turn_offset=1)
    result = built.agent.invoke([{"interruptResponse": r} for r in answers["interruptResponses"]])
    return result.to_json(), built.agent.messages_json(), built.agent.state.to_dict()


def test_reference_continues_a_strands_snapshot_as_its_own(strands: HarnessClient) -> None:
    """Strands -> reference: the reference continues this document exactly as it continues its own."""
    spec, agent, out = _paused(strands, agent_id="portable")
    theirs = _reference_continues(_snapshot(strands, agent), spec, _answer(out, "yes"))
    assert theirs[0]["stopReason"] == "end_turn", theirs
    own = _reference_own_snapshot(spec)
    answers = {"interruptResponses": [{"interruptId": i["id"], "response": "yes"} for i in _pending(own)]}
    assert theirs == _reference_continues(own, spec, answers)


def _reference_own_snapshot(spec: dict[str, Any]) -> dict[str, Any]:
    built = build_agent(spec)
    built.agent.invoke("go")
    return built.agent.take_snapshot()


def _pending(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in doc["interruptState"]["interrupts"] if "response" not in i]
