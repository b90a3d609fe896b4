"""JSON <-> protobuf of the harness messages: the scenario language and trace survive the wire unchanged."""

from __future__ import annotations

import pytest
from roc_conformance import wire
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.pb.roc.v1 import error_pb2

FULL_SPEC = {
    "agentId": "a1",
    "executor": "concurrent",
    "model": {
        "turns": [
            {
                "content": [
                    {"text": "hi"},
                    {"toolUse": {"toolUseId": "t1", "name": "x", "input": {"n": 1, "f": 2.5}}},
                ]
            }
        ]
    },
    "tools": [
        {
            "name": "x",
            "steps": [
                {"interrupt": {"name": "q", "reason": {"a": [1, None, True]}}},
                {"setState": {"key": "k", "fromAnswer": True}},
                {"skipIfState": {"key": "k", "equals": 0}},
                {"fail": {"message": "no"}},
                {"return": {"value": None}},
            ],
        }
    ],
    "hooks": [
        {"event": "BeforeTools", "steps": [{"cancel": {"message": "m"}}]},
        {
            "event": "BeforeToolCall",
            "toolName": "x",
            "steps": [
                {"cancelIf": {"answerNotIn": ["y", False, 0], "message": "m"}},
                {"setState": {"key": "k", "value": {"deep": [1]}}},
            ],
        },
        {"event": "AfterToolCall", "steps": []},
        {"event": "AfterTools", "toolName": "x", "steps": []},
    ],
    "state": {"s": "v"},
}


def test_agent_spec_round_trips_exactly():
    assert wire.agent_spec_from_proto(wire.agent_spec_to_proto(FULL_SPEC)) == FULL_SPEC


def test_enum_spellings_follow_the_spec():
    proto = wire.agent_spec_to_proto(FULL_SPEC)
    assert proto.executor == hpb.EXECUTOR_KIND_CONCURRENT
    assert proto.hooks[1].event == hpb.HOOK_EVENT_BEFORE_TOOL_CALL
    err = jsonmap.to_proto("Error", {"code": "INTERRUPT_PENDING", "message": "m"})
    assert isinstance(err, error_pb2.Error)
    assert err.code == error_pb2.ERROR_CODE_INTERRUPT_PENDING
    assert jsonmap.from_proto(err) == {"code": "INTERRUPT_PENDING", "message": "m"}


def test_integral_numbers_come_back_as_int_and_fractions_as_float():
    back = wire.agent_spec_from_proto(wire.agent_spec_to_proto(FULL_SPEC))
    tool_input = back["model"]["turns"][0]["content"][1]["toolUse"]["input"]
    assert tool_input == {"n": 1, "f": 2.5}
    assert type(tool_input["n"]) is int
    assert type(tool_input["f"]) is float


def test_true_is_not_one_on_the_wire():
    back = wire.agent_spec_from_proto(wire.agent_spec_to_proto(FULL_SPEC))
    assert back["hooks"][1]["steps"][0]["cancelIf"]["answerNotIn"] == ["y", False, 0]
    assert type(back["hooks"][1]["steps"][0]["cancelIf"]["answerNotIn"][1]) is bool


def test_unknown_members_and_values_are_refused():
    with pytest.raises(JsonMappingError):
        wire.agent_spec_to_proto({**FULL_SPEC, "surprise": 1})
    with pytest.raises(JsonMappingError):
        wire.agent_spec_to_proto({**FULL_SPEC, "executor": "parallel"})
    with pytest.raises(JsonMappingError):
        wire.agent_spec_to_proto({**FULL_SPEC, "hooks": [{"event": "before_tool_call", "steps": []}]})


MALFORMED_BODIES = [
    {"interruptId": 5, "response": 1},
    {"response": 1},
    {"interruptId": "x", "response": 1, "extra": 2},
    {"interruptId": "x"},
    {"interruptId": ""},
    "not an object",
    None,
    [],
]


@pytest.mark.parametrize(
    "inp",
    [
        {"prompt": "hello"},
        {"content": [{"text": "a"}, {"interruptResponse": {"interruptId": "i", "response": "y"}}]},
        {"content": [{"interruptResponse": {"interruptId": 7}}, {"text": "a", "extra": 1}, 3, None]},
        {"content": []},
        {
            "interruptResponses": [
                {"interruptId": "i", "response": None},
                {"interruptId": "j", "response": False},
            ]
        },
        {"interruptResponses": []},
        {"interruptResponses": [{"interruptId": "i"}]},
        {"interruptResponses": MALFORMED_BODIES},
        {"directToolCall": {"name": "x", "input": {"a": 1}}},
        {"directToolCall": {"name": "x", "input": {}}},
    ],
)
def test_invoke_inputs_round_trip(inp):
    assert wire.invoke_input(wire.invoke_request("h", inp)) == inp


@pytest.mark.parametrize("body", MALFORMED_BODIES)
def test_a_malformed_response_body_crosses_the_wire_as_sent(body):
    """Protocol 2: the bodies are raw JSON, so a missing member stays missing and a number stays a number
    (protocol 1's typed InterruptResponse turned a missing id into "" and could not carry extra members)."""
    req = wire.invoke_request("h", {"interruptResponses": [body]})
    assert req.WhichOneof("input") == "interrupt_responses"
    assert jsonmap.from_proto(req.interrupt_responses) == [body]
    assert wire.resume_blocks(wire.invoke_input(req)["interruptResponses"]) == [{"interruptResponse": body}]


def test_raw_inputs_are_list_values_not_typed_blocks():
    fields = hpb.InvokeRequest.DESCRIPTOR.fields_by_name
    for name in ("content", "interrupt_responses"):
        assert fields[name].message_type.full_name == "google.protobuf.ListValue"
    assert hpb.DirectToolCall.DESCRIPTOR.fields_by_name["input"].message_type.full_name == (
        "google.protobuf.Struct"
    )


@pytest.mark.parametrize("tool_input", [[1, 2], "text", 3, None, True])
def test_a_direct_tool_call_input_is_a_json_object(tool_input):
    with pytest.raises(JsonMappingError):
        wire.invoke_request("h", {"directToolCall": {"name": "x", "input": tool_input}})


def test_null_answer_and_missing_answer_stay_distinct():
    null = wire.invoke_request("h", {"interruptResponses": [{"interruptId": "i", "response": None}]})
    missing = wire.invoke_request("h", {"interruptResponses": [{"interruptId": "i"}]})
    assert jsonmap.from_proto(null.interrupt_responses) == [{"interruptId": "i", "response": None}]
    assert jsonmap.from_proto(missing.interrupt_responses) == [{"interruptId": "i"}]


def test_an_empty_resume_list_is_still_a_resume_input():
    req = wire.invoke_request("h", {"interruptResponses": []})
    assert req.WhichOneof("input") == "interrupt_responses"
    assert wire.invoke_input(req) == {"interruptResponses": []}


def test_an_inspection_round_trips():
    inspection = {
        "activated": True,
        "interrupts": [
            {
                "id": "i1",
                "name": "q",
                "reason": {"why": [1, None]},
                "source": {"kind": "tool", "toolUseId": "t1", "toolName": "x"},
                "answered": True,
                "response": False,
            },
            {"id": "i2", "name": "r", "source": {"kind": "before_tools"}, "answered": False},
        ],
        "preservedToolUseIds": ["t0"],
        "pendingAssistantMessage": {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}}],
        },
        "messages": [{"role": "user", "content": [{"text": "go"}]}],
        "state": {"k": 1},
    }
    doc = {"inspection": inspection}
    assert jsonmap.from_proto(jsonmap.to_proto("roc.conformance.v1.InspectAgentResponse", doc)) == doc


def test_an_agent_spec_without_hooks_or_tools_omits_them():
    spec = {"agentId": "a", "executor": "sequential", "model": {"turns": []}, "state": {}}
    assert wire.agent_spec_from_proto(wire.agent_spec_to_proto({**spec, "hooks": [], "tools": []})) == spec


def test_an_invoke_input_has_exactly_one_kind():
    with pytest.raises(JsonMappingError):
        wire.invoke_request("h", {"prompt": "a", "content": []})
    with pytest.raises(JsonMappingError):
        wire.invoke_request("h", {})


TRACE = [
    {"kind": "invocation_start"},
    {"kind": "model_call", "turn": 0},
    {"kind": "before_tools", "toolUseIds": ["t1", "t2"]},
    {"kind": "before_tool_call", "toolUseId": "t1"},
    {"kind": "hook_callback", "event": "BeforeToolCall", "hookIndex": 2, "toolUseId": "t1"},
    {"kind": "hook_callback", "event": "AfterTools", "hookIndex": 0},
    {"kind": "tool_start", "toolUseId": "t1", "name": "x"},
    {"kind": "tool_end", "toolUseId": "t1", "outcome": "interrupted"},
    {"kind": "after_tool_call", "toolUseId": "t2", "status": "error"},
    {"kind": "after_tools", "toolUseIds": ["t2"]},
    {"kind": "message_added", "role": "assistant"},
    {"kind": "invocation_end", "stopReason": "interrupt"},
    {"kind": "before_invocation"},
    {"kind": "after_invocation"},
    {"kind": "before_model_call"},
    {"kind": "after_model_call"},
    {"kind": "node_start", "nodeId": "a", "visit": 1},
    {"kind": "node_end", "nodeId": "a", "visit": 1, "outcome": "cancelled"},
    {"kind": "hook_callback", "event": "BeforeNodeCall", "nodeId": "a", "visit": 2, "hookIndex": 0},
    {"kind": "tool_start", "toolUseId": "t1", "name": "x", "input": {"path": "/tmp/y"}},
    {
        "kind": "streamed_interrupt",
        "interrupt": {
            "id": "i1",
            "name": "q",
            "source": {"kind": "tool", "toolUseId": "t1", "toolName": "x"},
        },
    },
    {
        "kind": "resume_guard",
        "responses": [{"interruptId": "i1", "response": "y", "metadata": {"answeredBy": "ann"}}],
        "kept": [{"interruptId": "i0", "metadata": {"answeredBy": "bob"}}],
    },
]


def test_every_trace_event_kind_round_trips():
    kinds = {f.name for f in hpb.TraceEvent.DESCRIPTOR.oneofs_by_name["event"].fields}
    assert kinds == {e["kind"] for e in TRACE}
    for event in TRACE:
        assert jsonmap.from_proto(jsonmap.to_proto("TraceEvent", event)) == event


def test_unknown_trace_kind_is_refused():
    with pytest.raises(JsonMappingError):
        jsonmap.to_proto("TraceEvent", {"kind": "teleport"})
