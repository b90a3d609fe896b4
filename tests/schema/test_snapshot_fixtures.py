"""The frozen snapshot fixtures describe the situations the spec names, consistently with the data model."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from schemakit import EXAMPLES_DIR, load_json, validator
from structural_rules import EXAMPLE_KEYS, input_digest, snapshot_mac, snapshot_violations

VALID = EXAMPLES_DIR / "Snapshot" / "valid"


def _fixture(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = load_json(VALID / f"{name}.json")
    return doc


def _all() -> list[dict[str, Any]]:
    return [load_json(path) for path in sorted(VALID.glob("*.json"))]


def test_paused_on_a_tool_interrupt_with_a_preserved_result() -> None:
    state = _fixture("paused-tool-interrupt-preserved-result")["interruptState"]
    assert state["activated"] is True
    [interrupt] = state["interrupts"]
    assert interrupt["source"]["kind"] == "tool"
    assert "response" not in interrupt
    [preserved] = state["pendingToolExecution"]["completedToolResults"]
    assert preserved["toolUseId"] != interrupt["source"]["toolUseId"]


def test_paused_on_a_before_tools_interrupt() -> None:
    state = _fixture("paused-before-tools")["interruptState"]
    assert [i["source"]["kind"] for i in state["interrupts"]] == ["before_tools"]
    # No tool of the batch ran.
    assert state["pendingToolExecution"]["completedToolResults"] == []


def test_partially_answered() -> None:
    interrupts = _fixture("partially-answered")["interruptState"]["interrupts"]
    answered = [i for i in interrupts if "response" in i]
    assert answered
    assert len(answered) < len(interrupts)


def test_completed_and_not_activated() -> None:
    snapshot = _fixture("completed-not-activated")
    assert snapshot["interruptState"] == {"activated": False, "interrupts": [], "pendingToolExecution": None}
    assert any("toolUse" in block for m in snapshot["agent"]["messages"] for block in m["content"])


@pytest.mark.req("ROC-SNAP-010")
def test_pending_assistant_message_is_not_yet_in_the_transcript() -> None:
    for snapshot in _all():
        pending = snapshot["interruptState"]["pendingToolExecution"]
        if pending is not None:
            assert pending["assistantMessage"] not in snapshot["agent"]["messages"]
        last = snapshot["agent"]["messages"][-1]
        assert not any("toolUse" in block for block in last["content"])


@pytest.mark.req("ROC-VER-002")
def test_fixtures_carry_the_current_versions() -> None:
    for snapshot in _all():
        assert (snapshot["schemaVersion"], snapshot["specVersion"]) == ("2.0", "1.0")


@pytest.mark.req("ROC-SEC-002", "ROC-SNAP-008")
def test_signed_fixture_verifies_and_any_change_breaks_it() -> None:
    signed = _fixture("paused-second-question-signed")
    key = EXAMPLE_KEYS[signed["integrity"]["keyId"]]
    assert snapshot_mac(signed, key) == signed["integrity"]["mac"]
    tampered = copy.deepcopy(signed)
    tampered["interruptState"]["interrupts"][0]["response"] = 5001
    assert validator("snapshot.schema.json").is_valid(tampered)
    assert [v.rule for v in snapshot_violations(tampered, EXAMPLE_KEYS)] == ["integrity-mac-mismatch"]


@pytest.mark.req("ROC-SNAP-008")
def test_input_digests_follow_the_canonical_json() -> None:
    # Key order and non-ASCII text do not change the digest input beyond the canonical form.
    assert input_digest({"b": 1, "a": "é"}) == input_digest({"a": "é", "b": 1})
    assert (
        input_digest({"b": 1, "a": "é"}) == "sha256:" + hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()
    )


@pytest.mark.req("ROC-SNAP-006", "ROC-SNAP-008")
@pytest.mark.parametrize("name", [p.stem for p in sorted(VALID.glob("*.json"))])
def test_fixture_digests_match_their_tool_inputs(name: str) -> None:
    state = _fixture(name)["interruptState"]
    pending = state["pendingToolExecution"]
    inputs = (
        {}
        if pending is None
        else {
            b["toolUse"]["toolUseId"]: b["toolUse"]["input"]
            for b in pending["assistantMessage"]["content"]
            if "toolUse" in b
        }
    )
    for interrupt in state["interrupts"]:
        if "inputDigest" in interrupt:
            assert interrupt["inputDigest"] == input_digest(inputs[interrupt["source"]["toolUseId"]])
