"""The harness side of profile approval (protocol 6): ``AgentSpec.approval`` and ``ToolSpec.inputSchema`` in
the kit's scenario, their proto form, the reference adapter installing the ready hook, and ``tool_start``
carrying the input the body received (spec 16.5)."""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance import scenarios as sc
from roc_conformance import wire
from roc_conformance.adapter import ScenarioError, parse_scenario
from roc_reference.harness.build import build_agent

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def _spec(approval: Any, *, schema: Any = SCHEMA) -> dict[str, Any]:
    spec = sc.agent_spec(
        "approval-harness",
        turns=[sc.turn(sc.tool_use("t1", "delete", {"path": "/tmp/x"})), sc.turn(sc.text("done"))],
        tools=[sc.tool("delete", sc.returns("ran"))],
    )
    if schema is not None:
        spec["tools"][0]["inputSchema"] = schema
    if approval is not None:
        spec["approval"] = approval
    return spec


@pytest.mark.req("ROC-APPROVE-001")
def test_the_kit_reads_approval_and_input_schemas() -> None:
    scenario = parse_scenario(_spec({"delete": {}, "send": {"decisions": ["reject", "approve"]}}))
    assert scenario.approval == {"delete": ("approve", "edit", "reject"), "send": ("approve", "reject")}
    assert scenario.tools[0].input_schema == SCHEMA
    assert parse_scenario(_spec(None, schema=None)).approval == {}


@pytest.mark.parametrize(
    "approval",
    [{"delete": {"decisions": ["maybe"]}}, {"delete": {"decisions": ["edit", "edit"]}}, {"delete": []}, []],
)
def test_the_kit_refuses_a_malformed_approval(approval: Any) -> None:
    with pytest.raises(ScenarioError):
        parse_scenario(_spec(approval))


def test_approval_and_input_schema_survive_the_proto_form() -> None:
    spec = _spec({"delete": {"decisions": ["edit"]}})
    back = wire.agent_spec_from_proto(wire.agent_spec_to_proto(spec))
    assert back["approval"] == {"delete": {"decisions": ["edit"]}}
    assert back["tools"][0]["inputSchema"] == SCHEMA


def test_the_reference_adapter_refuses_an_input_schema_outside_the_subset() -> None:
    with pytest.raises(ScenarioError):
        build_agent(_spec(None, schema={"type": "object", "properties": {"p": {"pattern": "^a"}}}))


@pytest.mark.req("ROC-APPROVE-008")
def test_tool_start_carries_the_input_the_body_received() -> None:
    built = build_agent(_spec({"delete": {}}))
    first = built.agent("go")
    assert [i.name for i in first.interrupts] == ["approval"]
    assert not [e for e in built.trace.take() if e["kind"] == "tool_start"]
    edit = {"decision": "edit", "input": {"path": "/tmp/y"}}
    built.agent([{"interruptResponse": {"interruptId": first.interrupts[0].id, "response": edit}}])
    starts = [e for e in built.trace.take() if e["kind"] == "tool_start"]
    assert starts == [
        {"kind": "tool_start", "toolUseId": "t1", "name": "delete", "input": {"path": "/tmp/y"}}
    ]
