"""The documented enum mapping, and agreement of proto enums with the schemas' value sets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import descriptor_pool
from proto_strategies import SCHEMA_DIR
from roc_conformance.pb import jsonmap
from roc_reference.errors import ErrorCode as ReferenceErrorCode


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def _json_values(enum_name: str) -> set[str]:
    enum = descriptor_pool.Default().FindEnumTypeByName(enum_name)
    return {jsonmap.enum_to_json(enum_name, v.number) for v in enum.values if v.number != 0}


@pytest.fixture(autouse=True)
def _loaded():
    jsonmap.message_class("Snapshot")  # loads every generated module into the pool


# The rows of proto/README.md, "1. Enums".
DOCUMENTED = [
    ("roc.v1.StopReason", "STOP_REASON_END_TURN", "end_turn"),
    ("roc.v1.StopReason", "STOP_REASON_GUARDRAIL_INTERVENED", "guardrail_intervened"),
    ("roc.v1.InterruptSourceKind", "INTERRUPT_SOURCE_KIND_TOOL", "tool"),
    ("roc.v1.InterruptSourceKind", "INTERRUPT_SOURCE_KIND_BEFORE_TOOL_CALL", "before_tool_call"),
    ("roc.v1.Role", "ROLE_USER", "user"),
    ("roc.v1.Role", "ROLE_ASSISTANT", "assistant"),
    ("roc.v1.ToolResultStatus", "TOOL_RESULT_STATUS_SUCCESS", "success"),
    ("roc.v1.ToolResultStatus", "TOOL_RESULT_STATUS_ERROR", "error"),
    ("roc.v1.ErrorCode", "ERROR_CODE_INTERRUPT_PENDING", "INTERRUPT_PENDING"),
    ("roc.conformance.v1.ExecutorKind", "EXECUTOR_KIND_SEQUENTIAL", "sequential"),
    ("roc.conformance.v1.ToolOutcome", "TOOL_OUTCOME_INTERRUPTED", "interrupted"),
    ("roc.conformance.v1.HookEvent", "HOOK_EVENT_BEFORE_TOOL_CALL", "BeforeToolCall"),
]


@pytest.mark.parametrize(("enum_name", "proto_name", "json_value"), DOCUMENTED)
def test_documented_mapping(enum_name: str, proto_name: str, json_value: str):
    number = descriptor_pool.Default().FindEnumTypeByName(enum_name).values_by_name[proto_name].number
    assert jsonmap.enum_to_json(enum_name, number) == json_value
    assert jsonmap.enum_to_proto(enum_name, json_value) == number


def test_every_enum_has_unspecified_zero_and_prefixed_values():
    jsonmap.message_class("roc.conformance.v1.AgentSpec")
    pool = descriptor_pool.Default()
    files = [
        pool.FindFileByName(n)
        for n in (
            "roc/v1/interrupt.proto",
            "roc/v1/message.proto",
            "roc/v1/agent_result.proto",
            "roc/v1/error.proto",
            "roc/conformance/v1/harness.proto",
        )
    ]
    enums = [e for f in files for e in f.enum_types_by_name.values()]
    assert len(enums) >= 8
    for enum in enums:
        zero = enum.values_by_number[0].name
        assert zero.endswith("_UNSPECIFIED"), enum.full_name
        prefix = zero.removesuffix("UNSPECIFIED")
        assert all(v.name.startswith(prefix) for v in enum.values), enum.full_name
        with pytest.raises(jsonmap.JsonMappingError):
            jsonmap.enum_to_json(enum.full_name, 0)


def test_error_codes_mirror_the_reference_runtime():
    assert _json_values("roc.v1.ErrorCode") == {code.value for code in ReferenceErrorCode}


def test_enums_match_the_schemas():
    interrupt = _schema("interrupt.schema.json")
    agent_spec = _schema("agent-spec.schema.json")
    expected = {
        "roc.v1.StopReason": set(_schema("stop-reason.schema.json")["enum"]),
        "roc.v1.ErrorCode": set(_schema("error.schema.json")["properties"]["code"]["enum"]),
        "roc.v1.InterruptSourceKind": set(interrupt["$defs"]["source"]["properties"]["kind"]["enum"]),
        "roc.v1.Role": set(_schema("message.schema.json")["properties"]["role"]["enum"]),
        "roc.v1.ToolResultStatus": set(_schema("tool-result.schema.json")["properties"]["status"]["enum"]),
        "roc.conformance.v1.ExecutorKind": set(agent_spec["properties"]["executor"]["enum"]),
        # One enum serves an agent's callbacks and an orchestrator's node callbacks (harness protocol 5).
        "roc.conformance.v1.HookEvent": set(agent_spec["$defs"]["hook"]["properties"]["event"]["enum"])
        | set(agent_spec["$defs"]["nodeHook"]["properties"]["event"]["enum"]),
    }
    for enum_name, values in expected.items():
        assert _json_values(enum_name) == values, enum_name


def test_trace_event_kinds_match_the_schema():
    kinds = set(_schema("trace-event.schema.json")["properties"]["kind"]["enum"])
    event = jsonmap.message_class("TraceEvent").DESCRIPTOR
    assert {f.name for f in event.oneofs_by_name["event"].fields} == kinds


@pytest.mark.parametrize("value", ["END_TURN", "STOP_REASON_END_TURN", "unspecified", 1, None, "EndTurn"])
def test_only_the_documented_spelling_is_accepted(value: Any):
    with pytest.raises(jsonmap.JsonMappingError):
        jsonmap.enum_to_proto("roc.v1.StopReason", value)
