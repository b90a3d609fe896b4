"""The rules of the JSON <-> proto binding (spec 2.7), one test per rule and refusal."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from roc_conformance.pb import jsonmap
from roc_conformance.pb.roc.conformance.v1 import harness_pb2
from roc_conformance.pb.roc.v1 import agent_result_pb2, interrupt_pb2, message_pb2, resume_pb2, snapshot_pb2

SNAPSHOT: dict[str, Any] = {
    "schemaVersion": "2.0",
    "specVersion": "1.0",
    "createdAt": "2026-01-01T00:00:00.120Z",
    "revision": 2**32 - 1,
    "agent": {"agentId": "a1", "messages": [], "state": {}},
    "interruptState": {"activated": False, "interrupts": [], "pendingToolExecution": None},
}


def test_enum_values_are_converted_both_ways():
    doc = {
        "stopReason": "end_turn",
        "message": {"role": "assistant", "content": [{"text": ""}]},
        "interrupts": [],
    }
    message = jsonmap.to_proto("AgentResult", doc)
    assert isinstance(message, agent_result_pb2.AgentResult)
    assert message.stop_reason == agent_result_pb2.STOP_REASON_END_TURN
    assert message.message.role == message_pb2.ROLE_ASSISTANT
    assert jsonmap.from_proto(message) == doc


def test_error_codes_keep_upper_case():
    message = jsonmap.to_proto("Error", {"code": "SESSION_CONFLICT", "message": "stale"})
    assert jsonmap.from_proto(message) == {"code": "SESSION_CONFLICT", "message": "stale"}


def test_unspecified_enum_has_no_json_form():
    with pytest.raises(jsonmap.JsonMappingError, match="no JSON form"):
        jsonmap.from_proto(message_pb2.Message(content=[message_pb2.ContentBlock(text="x")]))


def test_defaults_are_written_and_absent_optionals_stay_absent():
    back = jsonmap.from_proto(jsonmap.to_proto("Snapshot", SNAPSHOT))
    assert back == SNAPSHOT  # activated false, empty lists, state {} all kept; no integrity added
    assert back["revision"] == 2**32 - 1
    assert isinstance(back["revision"], int)


def test_revision_is_a_json_number_within_uint32():
    # spec 2.7: revision is uint32, which ProtoJSON writes as a number (a 64-bit integer would be quoted).
    message = jsonmap.to_proto("Snapshot", SNAPSHOT)
    assert '"revision": 4294967295' in json_format.MessageToJson(message)
    with pytest.raises(jsonmap.JsonMappingError):
        jsonmap.to_proto("Snapshot", {**SNAPSHOT, "revision": 2**32})
    with pytest.raises(jsonmap.JsonMappingError):
        jsonmap.to_proto("Snapshot", {**SNAPSHOT, "revision": -1})


_BASE_INTERRUPT: dict[str, Any] = {"id": "i", "name": "n", "source": {"kind": "before_tools"}}


def test_interrupt_without_reason_has_no_reason_member():
    assert "reason" not in jsonmap.from_proto(jsonmap.to_proto("Interrupt", _BASE_INTERRUPT))


@pytest.mark.parametrize(
    ("type_name", "doc"),
    [
        ("Interrupt", {**_BASE_INTERRUPT, "reason": None}),
        ("StoredInterrupt", {**_BASE_INTERRUPT, "response": None}),
        ("InterruptResponse", {"interruptId": "i", "response": None}),
    ],
)
def test_null_for_a_never_null_value_member_is_refused(type_name: str, doc: dict[str, Any]) -> None:
    # Rule 8: the schema forbids null in these members, so the JSON document has no proto form.
    with pytest.raises(jsonmap.JsonMappingError, match="null is not allowed"):
        jsonmap.to_proto(type_name, doc)


def _null() -> struct_pb2.Value:
    return struct_pb2.Value(null_value=struct_pb2.NULL_VALUE)


@pytest.mark.parametrize(
    "message",
    [
        interrupt_pb2.Interrupt(
            id="i", name="n", source=interrupt_pb2.InterruptSource(kind=3), reason=_null()
        ),
        interrupt_pb2.Interrupt(
            id="i", name="n", source=interrupt_pb2.InterruptSource(kind=3), response=_null()
        ),
        resume_pb2.InterruptResponse(interrupt_id="i", response=_null()),
        harness_pb2.InspectedInterrupt(
            id="i", name="n", source=interrupt_pb2.InterruptSource(kind=3), reason=_null()
        ),
    ],
    ids=["reason", "stored-response", "answer", "inspected-reason"],
)
def test_a_value_holding_null_value_has_no_json_form(message: Any) -> None:
    # Rule 8, the other direction: a null reason is no reason, so a producer leaves the field unset; a set
    # null_value is refused rather than written as the schema-invalid "reason": null or silently dropped.
    with pytest.raises(jsonmap.JsonMappingError, match="no JSON form"):
        jsonmap.from_proto(message)


def test_metadata_round_trips_as_an_object():
    interrupt = {**_BASE_INTERRUPT, "metadata": {"ui": {"style": "danger"}, "n": 1}}
    assert jsonmap.from_proto(jsonmap.to_proto("Interrupt", interrupt)) == interrupt
    answer = {"interruptId": "i", "response": False, "metadata": {"approver": "ada"}}
    assert jsonmap.from_proto(jsonmap.to_proto("InterruptResponse", answer)) == answer
    with pytest.raises(jsonmap.JsonMappingError):
        jsonmap.to_proto("InterruptResponse", {**answer, "metadata": "ada"})


def test_tool_use_input_is_an_object():
    use = {"toolUseId": "t", "name": "x", "input": {}}
    assert jsonmap.from_proto(jsonmap.to_proto("ToolUse", use)) == use
    for not_an_object in ("hello", [1], 1, True):
        with pytest.raises(jsonmap.JsonMappingError):
            jsonmap.to_proto("ToolUse", {**use, "input": not_an_object})


def test_nullable_pending_tool_execution_is_written_as_null():
    state = snapshot_pb2.InterruptState(activated=False)
    assert jsonmap.from_proto(state) == {"activated": False, "interrupts": [], "pendingToolExecution": None}


def test_null_for_other_message_members_is_refused():
    with pytest.raises(jsonmap.JsonMappingError, match="null is not allowed"):
        jsonmap.to_proto("AgentResult", {"stopReason": "end_turn", "message": None, "interrupts": []})


def test_resume_input_is_a_bare_array():
    doc = [{"interruptResponse": {"interruptId": "i1", "response": 0}}]
    message = jsonmap.to_proto("ResumeInput", doc)
    assert isinstance(message, resume_pb2.ResumeInput)
    assert len(message.responses) == 1
    assert jsonmap.from_proto(message) == doc
    with pytest.raises(jsonmap.JsonMappingError, match="JSON array"):
        jsonmap.to_proto("ResumeInput", {"responses": doc})


@pytest.mark.parametrize("answer", [False, 0, "", {}, [], 1.5, -0.0])
def test_falsy_and_fractional_answers_survive(answer: Any):
    doc = {"interruptResponse": {"interruptId": "i1", "response": answer}}
    back = jsonmap.from_proto(jsonmap.to_proto("InterruptResponseContent", doc))
    assert jsonmap.json_equal(back, doc)
    assert type(back["interruptResponse"]["response"]) is type(answer)


def test_integral_doubles_come_back_as_integers():
    doc = {"toolUse": {"toolUseId": "t", "name": "x", "input": {"n": 3.0, "big": 2.0**53, "list": [1, 2.5]}}}
    back = jsonmap.from_proto(jsonmap.to_proto("ContentBlock", doc))
    assert back["toolUse"]["input"] == {"n": 3, "big": 2.0**53, "list": [1, 2.5]}
    assert isinstance(back["toolUse"]["input"]["n"], int)
    assert isinstance(back["toolUse"]["input"]["big"], float)  # beyond the safe range: left a double


@pytest.mark.parametrize("bad", [2**53, -(2**53), float("nan"), float("inf")])
def test_unrepresentable_numbers_are_refused(bad: Any):
    with pytest.raises(jsonmap.JsonMappingError):
        jsonmap.to_proto("Error", {"code": "EXPIRED", "message": "m", "details": {"n": bad}})


@pytest.mark.parametrize(
    ("type_name", "doc", "match"),
    [
        ("Error", {"code": "EXPIRED", "message": "m", "extra": 1}, "unknown member"),
        ("AgentResult", {"stop_reason": "end_turn"}, "unknown member"),  # proto names are not JSON names
        ("Error", {"code": "ERROR_CODE_EXPIRED", "message": "m"}, "not a JSON value"),
        ("Error", {"code": 14, "message": "m"}, "not a JSON value"),
        ("Message", {"role": "user", "content": [{"text": "a", "toolUse": None}]}, "null is not allowed"),
        ("Message", {"role": "user", "content": [{"text": "\ud800"}]}, "surrogate"),
        ("Interrupt", [], "expected an object"),
        ("NoSuchType", {}, "unknown type"),
    ],
)
def test_refusals_are_mapping_errors(type_name: str, doc: Any, match: str):
    with pytest.raises(jsonmap.JsonMappingError, match=match):
        jsonmap.to_proto(type_name, doc)


def test_trace_events_are_flat():
    doc = {"kind": "hook_callback", "event": "BeforeToolCall", "hookIndex": 0, "toolUseId": "t1"}
    message = jsonmap.to_proto("TraceEvent", doc)
    assert message.WhichOneof("event") == "hook_callback"
    assert jsonmap.from_proto(message) == doc
    assert jsonmap.from_proto(jsonmap.to_proto("TraceEvent", {"kind": "invocation_start"})) == {
        "kind": "invocation_start"
    }
    with pytest.raises(jsonmap.JsonMappingError, match="kind"):
        jsonmap.to_proto("TraceEvent", {"kind": "event"})


def test_agent_spec_optional_arrays_are_omitted_when_empty():
    doc = {"agentId": "a", "executor": "sequential", "model": {"turns": []}}
    assert jsonmap.from_proto(jsonmap.to_proto("AgentSpec", doc)) == doc


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (1, 1.0, True),
        ({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]}, True),
        (True, 1, False),
        (0, False, False),
        ([1, 2], [2, 1], False),
        ({"a": 1}, {"a": 1, "b": None}, False),
        ("1", 1, False),
        (None, None, True),
    ],
)
def test_json_equal_compares_numbers_as_numbers_only(left: Any, right: Any, equal: bool):
    assert jsonmap.json_equal(left, right) is equal
    assert jsonmap.json_equal(right, left) is equal
