"""Harness protocol 5 over real gRPC against the reference adapter: the handshake (a protocol 4 adapter is
accepted only while it claims no RoC 1.2 profile), runAgent steps (a nested scenario run as the tool use's
sub-agent, its final text received like an answer, at depth 1 and 3, kept across TakeSnapshot/RestoreAgent),
the trace's agentPath, the JSON <-> proto form of both, and the kit's parsing of the new step."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from roc_conformance.adapter import ScenarioError, StateView, Trace, assistant_turns, parse_scenario
from roc_conformance.adapter.programs import run_program
from roc_conformance.client import (
    HARNESS_PROTOCOL_VERSION,
    PROTOCOL_CHANGES,
    SPEC_1_1_PROFILES,
    SPEC_1_2_PROFILES,
)
from roc_conformance.errors import ProtocolMismatch
from roc_conformance.pb import jsonmap
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.scenarios import (
    agent_spec,
    answer,
    interrupt,
    resume,
    returns,
    text,
    tool,
    tool_use,
    turn,
)
from roc_harness_support import client_for, serving
from roc_reference.harness.server import HarnessServicer


class OlderServicer(HarnessServicer):
    """The reference adapter answering the handshake with an older protocol, claiming ``profiles``."""

    def __init__(self, version: int, profiles: tuple[str, ...]) -> None:
        super().__init__(profiles)
        self.version = version

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        reply = super().Describe(request, context)
        reply.harness_protocol_version = self.version
        return reply


def run_agent(spec: dict[str, Any], prompt: str = "go") -> dict[str, Any]:
    return {"runAgent": {"agent": spec, "prompt": prompt}}


def leaf() -> dict[str, Any]:
    return agent_spec(
        "leaf",
        turns=[turn(tool_use("c1", "delete", {"path": "/tmp/x"})), turn(text("leaf "), text("done"))],
        tools=[tool("delete", interrupt("approve", {"path": "/tmp/x"}), returns("deleted"))],
    )


def middle(inner: dict[str, Any]) -> dict[str, Any]:
    return agent_spec(
        "mid",
        turns=[turn(tool_use("m1", "cleaner")), turn(text("mid done"))],
        tools=[tool("cleaner", run_agent(inner, "clean"), returns("cleaned"))],
    )


def top(sub: dict[str, Any], executor: str = "sequential", uses: tuple[str, ...] = ("t1",)) -> dict[str, Any]:
    return agent_spec(
        "top",
        executor=executor,
        turns=[turn(*(tool_use(u, "sub") for u in uses)), turn(text("all done"))],
        tools=[tool("sub", run_agent(sub), returns("sub"))],
    )


def _answers(out: dict[str, Any], tool_use_id: str) -> Any:
    (found,) = [
        block["toolResult"]
        for message in out["messages"]
        for block in message["content"]
        if "toolResult" in block and block["toolResult"]["toolUseId"] == tool_use_id
    ]
    return found["content"][0]["json"]["answers"]


def test_the_suite_and_the_reference_speak_protocol_6_and_the_reference_claims_agent_as_tool(client):
    assert HARNESS_PROTOCOL_VERSION == 6
    desc = client.describe()
    assert desc.harness_protocol_version == 6
    assert {"1.2", "1.3"} <= set(desc.spec_versions)
    assert desc.profiles >= SPEC_1_1_PROFILES | SPEC_1_2_PROFILES


def test_a_protocol_5_adapter_is_accepted_until_it_claims_a_spec_1_3_profile():
    with serving(OlderServicer(5, ("core", "agent-as-tool"))) as (address, _), client_for(address) as c:
        assert c.describe().harness_protocol_version == 5
    with (
        serving(OlderServicer(5, ("core", "response-schema"))) as (address, _),
        client_for(address) as c,
        pytest.raises(ProtocolMismatch) as caught,
    ):
        c.describe()
    message = str(caught.value)
    assert "protocol 5 cannot drive the profiles it claims (response-schema)" in message
    assert all(change in message for change in PROTOCOL_CHANGES[6])


def test_a_protocol_4_adapter_that_claims_no_spec_1_2_profile_is_accepted():
    servicer = OlderServicer(4, ("core", "hooks", "decisions"))
    with serving(servicer) as (address, _), client_for(address) as c:
        assert c.describe().harness_protocol_version == 4


def test_a_protocol_4_adapter_that_claims_agent_as_tool_is_refused_with_what_changed():
    servicer = OlderServicer(4, ("core", "agent-as-tool"))
    with (
        serving(servicer) as (address, _),
        client_for(address) as c,
        pytest.raises(ProtocolMismatch) as caught,
    ):
        c.describe()
    message = str(caught.value)
    assert "protocol 4 cannot drive the profiles it claims (agent-as-tool)" in message
    assert all(change in message for change in PROTOCOL_CHANGES[5])
    assert all(change in message for change in PROTOCOL_CHANGES[6])
    assert not any(change in message for change in PROTOCOL_CHANGES[4])


def test_a_protocol_3_adapter_claiming_profiles_of_1_1_and_1_2_is_refused_naming_both():
    servicer = OlderServicer(3, ("core", "abandon", "agent-as-tool"))
    with (
        serving(servicer) as (address, _),
        client_for(address) as c,
        pytest.raises(ProtocolMismatch) as caught,
    ):
        c.describe()
    assert "(abandon, agent-as-tool)" in str(caught.value)


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-003", "ROC-AGENT-005")
def test_a_run_agent_step_runs_the_sub_agent_and_its_events_carry_the_agent_path(client):
    agent = client.create_agent(top(leaf()))
    first = client.invoke(agent, {"prompt": "go"})
    (pending,) = first["result"]["interrupts"]
    assert pending["source"]["kind"] == "agent_as_tool"
    assert (pending["source"]["toolUseId"], pending["source"]["inner"]["agentId"]) == ("t1", "leaf")
    at_leaf = [e for e in first["trace"] if e.get("agentPath") == ["t1"]]
    kinds = {e["kind"] for e in at_leaf}
    assert {"model_call", "tool_start", "tool_end", "message_added"} <= kinds
    assert [e["turn"] for e in at_leaf if e["kind"] == "model_call"] == [0]
    # The top agent's events carry no agentPath at all (omitted, not an empty list).
    assert all("agentPath" not in e for e in first["trace"] if e not in at_leaf)
    out = client.invoke(agent, resume(answer(pending["id"], "y")))
    assert out["result"]["stopReason"] == "end_turn"
    assert _answers(out, "t1") == ["leaf done"]  # the sub-agent's text blocks, joined
    resumed = [e["turn"] for e in out["trace"] if e.get("agentPath") == ["t1"] and e["kind"] == "model_call"]
    assert resumed == [1]  # turn = the assistant messages in its history: resumed, not prompted again


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-008")
def test_depth_3_across_take_snapshot_and_restore_agent(client):
    spec = top(middle(leaf()))
    agent = client.create_agent(spec)
    first = client.invoke(agent, {"prompt": "go"})
    assert {tuple(e["agentPath"]) for e in first["trace"] if "agentPath" in e} == {("t1",), ("t1", "m1")}
    (pending,) = first["result"]["interrupts"]
    snapshot = client.take_snapshot(agent)["snapshot"]
    assert set(snapshot["interruptState"]["children"]) == {"t1"}
    restored = client.restore_agent(snapshot, spec, model_turn_offset=1)["agent"]
    out = client.invoke(restored, resume(answer(pending["id"], "y")))
    assert out["result"]["message"]["content"] == [{"text": "all done"}]
    assert _answers(out, "t1") == ["mid done"]
    turns = [
        (tuple(e["agentPath"]), e["turn"])
        for e in out["trace"]
        if "agentPath" in e and e["kind"] == "model_call"
    ]
    assert sorted(turns) == [(("t1",), 1), (("t1", "m1"), 1)]


@pytest.mark.req("ROC-AGENT-010")
def test_two_tool_uses_of_one_definition_get_an_instance_each(client):
    agent = client.create_agent(top(leaf(), "concurrent", ("t1", "t2")))
    first = client.invoke(agent, {"prompt": "go"})
    ids = {i["source"]["toolUseId"]: i["id"] for i in first["result"]["interrupts"]}
    assert set(ids) == {"t1", "t2"}
    assert ids["t1"] != ids["t2"]
    one = client.invoke(agent, resume(answer(ids["t1"], "y")))
    assert not [e for e in one["trace"] if e.get("agentPath") == ["t2"]]
    assert [i["id"] for i in one["result"]["interrupts"]] == [ids["t2"]]


def test_run_agent_and_agent_path_round_trip_through_proto():
    nested = {k: v for k, v in leaf().items() if k != "hooks"}  # rule 7: empty hooks are omitted
    step = run_agent(nested, "clean")
    assert jsonmap.from_proto(jsonmap.to_proto("roc.conformance.v1.Step", step)) == step
    for event in (
        {"kind": "tool_start", "toolUseId": "c1", "name": "delete", "agentPath": ["t1", "m1"]},
        {"kind": "model_call", "turn": 0},
    ):
        assert jsonmap.from_proto(jsonmap.to_proto("TraceEvent", event)) == event
    assert list(jsonmap.to_proto("TraceEvent", {"kind": "invocation_start"}).agent_path) == []


def test_the_kit_parses_the_nested_scenario_and_needs_a_runner_for_the_step():
    scenario = parse_scenario(top(leaf()))
    (step, _) = scenario.tools[0].steps
    assert step.op == "runAgent"
    assert step.args["agent"].agent_id == "leaf"
    view = StateView(get=lambda _k: None, has=lambda _k: False, put=lambda _k, _v: None)
    with pytest.raises(ScenarioError, match="runAgent"):
        run_program(scenario.tools[0].steps, interrupt=None, state=view)
    seen: list[tuple[str, str]] = []

    def runner(nested: Any, prompt: str) -> str:
        seen.append((nested.agent_id, prompt))
        return "done"

    run = run_program(scenario.tools[0].steps, interrupt=None, state=view, run_agent=runner)
    assert (seen, run.answers, run.value) == ([("leaf", "go")], ["done"], "sub")


@pytest.mark.parametrize(
    "step",
    [
        {"runAgent": {"prompt": "go"}},
        {"runAgent": {"agent": leaf()}},
        {"runAgent": {"agent": "leaf", "prompt": "go"}},
        {"runAgent": {"agent": {"agentId": "x", "executor": "sideways"}, "prompt": "go"}},
    ],
)
def test_malformed_run_agent_steps_are_scenario_errors(step: dict[str, Any]):
    with pytest.raises(ScenarioError):
        parse_scenario(agent_spec("bad", tools=[tool("x", step)]))


def test_nested_recorders_write_one_trace_and_a_sub_agents_turn_is_its_history():
    trace = Trace()
    trace.emit("invocation_start")
    trace.nested("t1").nested("m1").tool_start("c1", "delete")
    assert trace.take() == [
        {"kind": "invocation_start"},
        {"kind": "tool_start", "toolUseId": "c1", "name": "delete", "agentPath": ["t1", "m1"]},
    ]
    history = [{"role": "user"}, {"role": "assistant"}, {"role": "user"}]
    assert assistant_turns(history) == 1
