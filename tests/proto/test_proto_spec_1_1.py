"""The RoC 1.1 members of roc.v1 and the harness protocol 4 messages cross JSON -> proto -> JSON unchanged,
and the binding's rules hold for them: an empty ``consumed`` is omitted (a 2.0 snapshot round-trips
exactly), a stored answer is never null, and enum values are spelled as the schemas spell them."""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.v1 import agent_result_pb2, resume_pb2

SOURCE = {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}
DIGEST = "sha256:" + "ab" * 32


def _round_trip(type_name: str, doc: Any) -> Any:
    return jsonmap.from_proto(jsonmap.to_proto(type_name, doc))


@pytest.mark.parametrize(
    ("type_name", "doc"),
    [
        ("InterruptResponse", {"interruptId": "i1", "decision": "decline"}),
        ("InterruptResponse", {"interruptId": "i1", "decision": "cancel", "message": ""}),
        ("InterruptResponse", {"interruptId": "i1", "decision": "answer", "response": False}),
        ("InterruptResponse", {"interruptId": "i1", "response": {"ok": 1}, "metadata": {"by": "ada"}}),
        (
            "Interrupt",
            {
                "id": "i1",
                "name": "q",
                "source": SOURCE,
                "expiresAt": "2999-01-01T00:00:00+02:00",
                "onExpiry": {"decision": "cancel", "message": "late"},
            },
        ),
        (
            "StoredInterrupt",
            {"id": "i1", "name": "q", "source": SOURCE, "decision": "decline", "message": "no"},
        ),
        ("PendingInterrupt", {"id": "i1", "name": "q", "source": SOURCE}),
        (
            "PendingInterrupt",
            {
                "id": "i1",
                "name": "q",
                "reason": [1, "x"],
                "source": SOURCE,
                "metadata": {"ui": "red"},
                "onExpiry": {"decision": "decline"},
                "answer": {"decision": "answer", "response": 0},
            },
        ),
        ("PendingAnswer", {"decision": "cancel", "message": "gone"}),
        ("AbandonInput", {"abandon": {}}),
        ("AbandonInput", {"abandon": {"message": "stop", "then": "continue"}}),
        (
            "InterruptState",
            {
                "activated": False,
                "interrupts": [],
                "pendingToolExecution": None,
                "consumed": [{"interruptId": "i1", "answerDigest": DIGEST}],
            },
        ),
        ("InterruptState", {"activated": False, "interrupts": [], "pendingToolExecution": None}),
        (
            "AgentResult",
            {
                "stopReason": "abandoned",
                "message": {"role": "assistant", "content": [{"text": "x"}]},
                "interrupts": [],
            },
        ),
    ],
)
def test_spec_1_1_documents_round_trip(type_name: str, doc: Any) -> None:
    assert _round_trip(type_name, doc) == doc


def test_the_new_enum_values_are_spelled_as_the_schemas_spell_them() -> None:
    assert jsonmap.enum_to_json("roc.v1.StopReason", agent_result_pb2.STOP_REASON_ABANDONED) == "abandoned"
    spelled = {jsonmap.enum_to_json("roc.v1.Decision", v) for v in (1, 2, 3)}
    assert spelled == {"answer", "decline", "cancel"}
    assert jsonmap.enum_to_proto("roc.v1.Decision", "decline") == resume_pb2.DECISION_DECLINE
    assert jsonmap.enum_to_json("roc.v1.AbandonThen", 2) == "continue"


@pytest.mark.parametrize(
    ("type_name", "doc"),
    [
        ("PendingAnswer", {"decision": "answer", "response": None}),
        ("PendingInterrupt", {"id": "i", "name": "q", "source": SOURCE, "reason": None}),
        ("InterruptResponse", {"interruptId": "i", "decision": "maybe"}),
        ("AbandonInput", {"abandon": {"then": "later"}}),
    ],
)
def test_what_the_binding_refuses(type_name: str, doc: Any) -> None:
    with pytest.raises(JsonMappingError):
        jsonmap.to_proto(type_name, doc)


@pytest.mark.parametrize(
    ("type_name", "doc"),
    [
        (
            "roc.conformance.v1.InvokeRequest",
            {"agent": "a", "abandon": {"message": "stop", "continueModel": True}},
        ),
        ("roc.conformance.v1.InvokeRequest", {"agent": "a", "abandon": {}}),
        (
            "roc.conformance.v1.InvokeRequest",
            {
                "agent": "a",
                "interruptResponses": [{"interruptId": "i", "decision": "decline", "message": "no"}],
            },
        ),
        ("roc.conformance.v1.ListPendingRequest", {"agent": "a"}),
        (
            "roc.conformance.v1.ListPendingRequest",
            {"snapshot": {"snapshotJson": "{}", "spec": {"agentId": "x", "executor": "sequential"}}},
        ),
        (
            "roc.conformance.v1.ListPendingResponse",
            {"pending": [{"id": "i", "answer": {"decision": "decline"}}]},
        ),
        ("roc.conformance.v1.ListPendingResponse", {"pending": []}),
        ("roc.conformance.v1.ListPendingResponse", {"error": {"code": "SNAPSHOT_INVALID", "message": "bad"}}),
        (
            "roc.conformance.v1.InterruptStep",
            {
                "name": "q",
                "expiresAt": "not a time",
                "onExpiry": {"decision": "answer", "message": "x"},
                "handleDecision": True,
            },
        ),
        ("roc.conformance.v1.InterruptStep", {"name": "q", "handleDecision": False}),
    ],
)
def test_harness_protocol_4_messages_round_trip(type_name: str, doc: Any) -> None:
    got = _round_trip(type_name, doc)
    if type_name.endswith("InvokeRequest") and "abandon" in doc:
        # continue_model has no presence: false is written, as for every plain field (rule 2).
        assert got == {**doc, "abandon": {"continueModel": False, **doc["abandon"]}}
    else:
        assert got == doc


def test_an_interrupt_step_without_the_protocol_4_members_stays_as_it_was() -> None:
    # handle_decision has presence, so a protocol 3 scenario gains no member on its way through the harness.
    assert _round_trip("roc.conformance.v1.InterruptStep", {"name": "q"}) == {"name": "q"}
