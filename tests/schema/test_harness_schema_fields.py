"""The harness schemas (AgentSpec, TraceEvent) and harness.proto name the same members, both directions.

jsonmap writes every proto field under its JSON name, so a field the schema lacks would make a valid wire
message an invalid document, and a schema member the proto lacks could never cross the wire. Fields with
explicit presence in proto (``optional`` scalars) can be absent, so the schema must not require them.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from roc_conformance.pb import jsonmap
from schemakit import schemas

AGENT_SPEC = schemas()["agent-spec.schema.json"]
TRACE_EVENT = schemas()["trace-event.schema.json"]
PKG = "roc.conformance.v1."

# proto message -> the schema object describing its JSON form ("" = the AgentSpec root).
AGENT_SPEC_NODES = {
    "AgentSpec": "",
    "IntegrityConfig": "integrity",
    "SessionBinding": "session",
    "ScriptedModel": "model",
    "ModelTurn": "turn",
    "ToolSpec": "tool",
    "HookSpec": "hook",
    # Harness protocol 5 (profile multi-agent): the scenario of an orchestrator, in the same schema's $defs.
    "OrchestratorSpec": "orchestratorSpec",
    "NodeSpec": "nodeSpec",
    "Edge": "edge",
    "NodeHookSpec": "nodeHook",
}


def _descriptor(name: str) -> Descriptor:
    return cast(Descriptor, jsonmap.message_class(PKG + name).DESCRIPTOR)


def _body(field: FieldDescriptor) -> Descriptor:
    assert field.message_type is not None, field.full_name
    return field.message_type


def _node(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    node: dict[str, Any] = schema["$defs"][ref] if ref else schema
    return node


def _has_presence(field: FieldDescriptor) -> bool:
    # Optional scalars are the fields whose absence the JSON form keeps; messages are covered per node.
    return field.message_type is None and not field.is_repeated and field.has_presence


def _assert_same_members(
    message: Descriptor, node: dict[str, Any], skip: frozenset[str] = frozenset()
) -> None:
    proto = {f.json_name for f in message.fields}
    schema = set(node.get("properties", {})) - skip
    assert schema == proto, (
        f"{message.full_name}: only in schema {schema - proto}, only in proto {proto - schema}"
    )
    optional = {f.json_name for f in message.fields if _has_presence(f)}
    assert not optional & set(node.get("required", [])), f"{message.full_name}: requires an optional field"


@pytest.mark.parametrize("message", sorted(AGENT_SPEC_NODES))
def test_agent_spec_object_has_the_proto_members(message: str) -> None:
    _assert_same_members(_descriptor(message), _node(AGENT_SPEC, AGENT_SPEC_NODES[message]))


def _step_defs() -> dict[str, dict[str, Any]]:
    """Step member name -> the schema of its body, from every step list of the schema."""
    refs = {
        item["$ref"].removeprefix("#/$defs/")
        for name in ("toolStep", "hookStep", "stateStep")
        for item in AGENT_SPEC["$defs"][name]["oneOf"]
    }
    out: dict[str, dict[str, Any]] = {}
    for ref in refs:
        ((member, body),) = AGENT_SPEC["$defs"][ref]["properties"].items()
        out[member] = body
    return out


def test_every_step_of_the_proto_is_a_schema_step_and_back() -> None:
    step = _descriptor("Step")
    assert set(_step_defs()) == {f.json_name for f in step.fields}


@pytest.mark.parametrize("member", sorted(f.json_name for f in _descriptor("Step").fields))
def test_step_body_has_the_proto_members(member: str) -> None:
    field = _descriptor("Step").fields_by_camelcase_name[member]
    _assert_same_members(_body(field), _step_defs()[member])


def test_cancel_without_message_is_allowed() -> None:
    # CancelStep.message is optional in proto: absent means "cancel with true".
    assert "message" not in _step_defs()["cancel"].get("required", [])


def _arms() -> dict[str, FieldDescriptor]:
    return {f.name: f for f in _descriptor("TraceEvent").fields if f.containing_oneof is not None}


def _variant(kind: str) -> dict[str, Any]:
    for branch in TRACE_EVENT["allOf"]:
        if branch["if"]["properties"]["kind"]["const"] == kind:
            node: dict[str, Any] = TRACE_EVENT["$defs"][branch["then"]["$ref"].removeprefix("#/$defs/")]
            return node
    raise AssertionError(f"no variant for kind {kind!r}")


def test_trace_kinds_are_the_proto_arms() -> None:
    assert set(TRACE_EVENT["properties"]["kind"]["enum"]) == set(_arms())


@pytest.mark.parametrize("kind", sorted(_arms()))
def test_trace_variant_has_the_proto_members(kind: str) -> None:
    # agentPath (harness protocol 5) is a member of every event, outside the oneof: checked below.
    _assert_same_members(_body(_arms()[kind]), _variant(kind), skip=frozenset({"kind", "agentPath"}))


def test_trace_event_members_outside_the_oneof_are_allowed_in_every_variant() -> None:
    outside = {f.json_name for f in _descriptor("TraceEvent").fields if f.containing_oneof is None}
    assert outside == {"agentPath"}
    assert outside <= set(TRACE_EVENT["properties"])
    for kind in _arms():
        assert outside <= set(_variant(kind)["properties"]), kind
