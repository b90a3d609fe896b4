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


# The frozen format 2.0 fixtures, byte for byte: every reader of major version 2 keeps accepting these.
FROZEN_2_0 = {
    "completed-not-activated": "6d2bbeb4ce8c92616b54647ef5a51229b80132b93bdacee588170738b634791a",
    "partially-answered": "52ae439885f780d07a942b45081db1dc0577e08ae097beb8ffe1ff1881398c1f",
    "paused-before-tool-call-fan-out": "ba94f672792a442a624ffd4a11a5b959e5662ce458c6479634fe5ee2d303d861",
    "paused-before-tools": "6410108888d747696ec32c4e0a81da0d4d47fa3593b8f623f9e2b4be3d14dbcd",
    "paused-second-question-signed": "c0b9ffd641aa43cadc8dcf068f7f74759d4c68b73261e3b33b15ef3fcfd6401c",
    "paused-tool-interrupt-preserved-result": (
        "efef810098e3f51a1e16fafa0fb10924b3b1b9ad7938c6fbebe38f7487e378e7"
    ),
}
# Fixtures of format 2.1 (spec 1.1) end in "-2-1"; the README says so.
FORMAT_2_1 = sorted(p.stem for p in VALID.glob("*-2-1.json"))
# Format 2.2 (spec 1.2): frozen like those of 2.0 from the release that introduced them.
FROZEN_2_2 = {
    "completed-sub-agent-2-2": "251e8ebb44a7aed3facd03f5517e7cdc8bca815ac632807299a318e5dc2526ee",
    "kept-sub-agent-2-2": "f48db7d0e2f7b2d75b801371c9fe4455c3931c75bbca16db19e6e2ecb0961dfd",
}
# Format 2.3 (spec 1.3): frozen from the release that introduced it.
FROZEN_2_3 = {
    "audited-answer-2-3": "ed827bb2fbb05751b740b93d7fa31fbd41d428baae1d1ab8c863f3c1fb51695d",
    "kept-sub-agent-audited-2-3": "637970fc4b1343ff77cf763380ee54c9b6f7eda7a2ea1b5ef8990cd1a449f4a1",
}


@pytest.mark.req("ROC-VER-002")
def test_fixtures_carry_the_versions_of_their_format() -> None:
    for path in sorted(VALID.glob("*.json")):
        expected = ("2.1", "1.1") if path.stem in FORMAT_2_1 else ("2.0", "1.0")
        if path.stem in FROZEN_2_2:
            expected = ("2.2", "1.2")
        if path.stem in FROZEN_2_3:
            expected = ("2.3", "1.3")
        snapshot = load_json(path)
        assert (snapshot["schemaVersion"], snapshot["specVersion"]) == expected, path.name


def test_frozen_fixtures_never_change() -> None:
    on_disk = {p.stem for p in VALID.glob("*.json")} - set(FORMAT_2_1)
    assert on_disk == set(FROZEN_2_0) | set(FROZEN_2_2) | set(FROZEN_2_3)
    for name, digest in {**FROZEN_2_0, **FROZEN_2_2, **FROZEN_2_3}.items():
        assert hashlib.sha256((VALID / f"{name}.json").read_bytes()).hexdigest() == digest, name


def test_format_2_1_has_fixtures_for_each_new_member() -> None:
    members: set[str] = set()
    for name in FORMAT_2_1:
        state = _fixture(name)["interruptState"]
        members |= {m for i in state["interrupts"] for m in ("decision", "message", "onExpiry") if m in i}
        members |= {"consumed"} & set(state)
    assert members == {"decision", "message", "onExpiry", "consumed"}


@pytest.mark.req("ROC-AGENT-008")
def test_format_2_2_has_fixtures_for_a_paused_and_a_completed_sub_agent() -> None:
    kept = [_fixture(name)["interruptState"]["children"] for name in FROZEN_2_2]
    children = [child for group in kept for child in group.values()]
    assert {"result" in child for child in children} == {True, False}
    assert any(child["interruptState"]["activated"] for child in children)
    inner = [
        i["source"]["inner"]
        for name in FROZEN_2_2
        for i in _fixture(name)["interruptState"]["interrupts"]
        if "inner" in i["source"]
    ]
    assert inner
    assert all(i["agentId"] == "cleaner" for i in inner)


@pytest.mark.req("ROC-AUDIT-003")
def test_format_2_3_has_a_fixture_with_kept_response_metadata() -> None:
    stored = _fixture("audited-answer-2-3")["interruptState"]["interrupts"]
    [answered] = [i for i in stored if "response" in i]
    assert set(answered["responseMetadata"]) == {"answeredBy", "answeredAt", "x-acme-channel"}


@pytest.mark.req("ROC-AUDIT-003", "ROC-AGENT-008")
def test_format_2_3_has_a_fixture_whose_kept_sub_agent_keeps_the_routed_metadata() -> None:
    state = _fixture("kept-sub-agent-audited-2-3")["interruptState"]
    [outer] = [i for i in state["interrupts"] if "response" in i]
    [inner] = [i for i in state["children"]["t1"]["interruptState"]["interrupts"] if "response" in i]
    assert outer["source"]["inner"]["interruptId"] == inner["id"]
    assert outer["responseMetadata"] == inner["responseMetadata"]
    assert set(inner["responseMetadata"]) == {"answeredBy", "answeredAt"}


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
