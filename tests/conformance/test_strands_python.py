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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
    code, output = smoke([str(VENV_PYTHON), str(ADAPTER), "--port", "0"])
    assert code == 0, output
    assert "ADAPTER OK" in output, output
    assert "Describe: strands-agents 1.62.0" in output, output


@pytest.fixture(scope="module")
def strands() -> Iterator[HarnessClient]:
    with connected([str(VENV_PYTHON), str(ADAPTER), "--port", "0"], "strands-python") as client:
        yield client


def _tool_starts(out: dict[str, Any]) -> list[str]:
    return [e["toolUseId"] for e in out["trace"] if e["kind"] == "tool_start"]


def test_snapshot_translates_the_paused_agent(strands: HarnessClient) -> None:
    _, agent, out = paused(strands)
    doc = snapshot_of(strands, agent)
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
    assert seen["pendingAssistantMessage"] == out["result"]["message"]
    assert strip_volatile(snapshot_of(strands, restored["agent"])) == strip_volatile(doc)
    there = strands.invoke(restored["agent"], answer_all(out, "yes"))
    here = strands.invoke(agent, answer_all(out, "yes"))
    assert there["result"]["stopReason"] == "end_turn", there
    assert _tool_starts(there) == ["t1"]  # the preserved result of t2 is not run again
    for key in ("result", "messages", "state"):
        assert there[key] == here[key], key


def test_restore_refuses_invalid_documents(strands: HarnessClient) -> None:
    spec, agent, _ = paused(strands)
    doc = snapshot_of(strands, agent)
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
    spec, agent, _ = paused(strands)
    doc = snapshot_of(strands, agent)
    doc["interruptState"]["interrupts"][0]["id"] = "elsewhere/7f3a:approve"
    restored = strands.restore_agent(doc, spec, model_turn_offset=1)
    seen = strands.inspect(restored["agent"])
    assert [(i["id"], i["source"]) for i in seen["interrupts"]] == [
        ("elsewhere/7f3a:approve", {"kind": "tool", "toolUseId": "t1", "toolName": "ask"})
    ]
    assert strip_volatile(snapshot_of(strands, restored["agent"])) == strip_volatile(doc)


def test_reference_continues_a_strands_snapshot_as_its_own(strands: HarnessClient) -> None:
    """Strands -> reference: the reference continues this document exactly as it continues its own."""
    spec, agent, out = paused(strands, agent_id="portable")
    theirs = reference_continues(snapshot_of(strands, agent), spec, answer_all(out, "yes"))
    assert theirs[0]["stopReason"] == "end_turn", theirs
    assert theirs == reference_own_continuation(spec, "yes")
