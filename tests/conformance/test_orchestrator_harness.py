"""Harness protocol 5, profile multi-agent: orchestrators over real gRPC against the reference adapter.

The JSON <-> proto forms of an OrchestratorSpec, an OrchestratorResult and the node trace events; the kit's
parsing of an OrchestratorSpec; the reference adapter building graphs and swarms (node events, node agents'
agentPath, a scripted hand-off through the reserved tool name, results in the orchestrator's order), and
refusing what an orchestrator handle does not take; and the multi-agent checks: one per requirement, all
passed by the reference with nothing recorded as a consequence.
"""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance import scenarios as sc
from roc_conformance.adapter import HANDOFF_TOOL, ScenarioError, parse_orchestrator
from roc_conformance.checks import Status, all_checks
from roc_conformance.client import SPEC_1_2_PROFILES
from roc_conformance.errors import AdapterError
from roc_conformance.pb import jsonmap
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.registry import load_registry
from roc_conformance.runner import run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target
from roc_harness_support import client_for, serving
from roc_reference.harness.server import HarnessServicer

GRAPH_IDS = [f"ROC-GRAPH-{n:03d}" for n in range(1, 18)]


def asker(agent_id: str) -> dict[str, Any]:
    return sc.agent_spec(
        agent_id,
        turns=[sc.turn(sc.tool_use("c1", "ask", {})), sc.turn(sc.text(f"{agent_id} done"))],
        tools=[sc.tool("ask", sc.interrupt("approve"), sc.returns("asked"))],
    )


def plain(agent_id: str) -> dict[str, Any]:
    return sc.agent_spec(agent_id, turns=[sc.turn(sc.text(f"{agent_id} done"))])


def graph_spec() -> dict[str, Any]:
    """a (asks) and b (answers at once) in one step, c after both; a BeforeNodeCall callback for c."""
    return {
        "kind": "graph",
        "nodes": [
            {"nodeId": "a", "agent": asker("agent-a")},
            {"nodeId": "b", "agent": plain("agent-b")},
            {"nodeId": "c", "agent": plain("agent-c")},
        ],
        "edges": [{"from": "a", "to": "c"}, {"from": "b", "to": "c"}],
        "hooks": [
            {"event": "BeforeNodeCall", "nodeId": "c", "steps": [{"setState": {"key": "c", "value": 1}}]},
            {"event": "AfterNodeCall", "steps": []},
        ],
    }


# --- JSON <-> proto ------------------------------------------------------------------------------


MINIMAL = {"agentId": "n", "executor": "sequential", "model": {"turns": []}, "state": {}}
"""A node AgentSpec in the form the mapping writes back (no tools, no hooks)."""


def test_an_orchestrator_spec_round_trips_with_edges_as_from_and_to():
    spec = {
        **graph_spec(),
        "nodes": [{"nodeId": n, "agent": MINIMAL} for n in ("a", "b", "c")],
        "entry": "",
        "maxHandoffs": 0,
    }
    message = jsonmap.to_proto("roc.conformance.v1.OrchestratorSpec", spec)
    assert isinstance(message, hpb.OrchestratorSpec)
    assert message.kind == hpb.ORCHESTRATOR_KIND_GRAPH
    assert [(e.from_node, e.to_node) for e in message.edges] == [("a", "c"), ("b", "c")]
    assert message.hooks[0].event == hpb.HOOK_EVENT_BEFORE_NODE_CALL
    assert jsonmap.from_proto(message) == spec


def test_a_swarm_spec_omits_its_empty_edges_and_hooks():
    spec = {"kind": "swarm", "nodes": [{"nodeId": "x", "agent": MINIMAL}], "entry": "x", "maxHandoffs": 3}
    back = jsonmap.from_proto(jsonmap.to_proto("roc.conformance.v1.OrchestratorSpec", spec))
    assert back == spec


def test_an_orchestrator_result_and_the_node_events_round_trip():
    reply = {
        "orchestratorResult": {
            "stopReason": "completed",
            "interrupts": [],
            "results": [
                {
                    "nodeId": "a",
                    "visit": 2,
                    "result": {
                        "stopReason": "end_turn",
                        "message": {"role": "assistant", "content": [{"text": "a done"}]},
                        "interrupts": [],
                    },
                }
            ],
            "cancelled": {"b": "not now"},
        },
        "trace": [
            {"kind": "invocation_start"},
            {"kind": "node_start", "nodeId": "a", "visit": 2},
            {"kind": "hook_callback", "event": "BeforeNodeCall", "hookIndex": 0, "nodeId": "a", "visit": 2},
            {"kind": "model_call", "turn": 0, "agentPath": ["node:a"]},
            {"kind": "node_end", "nodeId": "a", "visit": 2, "outcome": "completed"},
            {"kind": "hook_callback", "event": "AfterNodeCall", "hookIndex": 1, "nodeId": "a", "visit": 2},
        ],
        "messages": [],
        "state": {},
    }
    message = jsonmap.to_proto("roc.conformance.v1.InvokeResponse", reply)
    assert message.WhichOneof("outcome") == "orchestrator_result"
    assert message.trace[4].node_end.outcome == hpb.NODE_OUTCOME_COMPLETED
    back = jsonmap.from_proto(message)
    assert back["orchestratorResult"] == reply["orchestratorResult"]
    assert [{k: e[k] for k in sorted(e)} for e in back["trace"]] == [
        {k: e[k] for k in sorted(e)} for e in reply["trace"]
    ]


# --- the kit -----------------------------------------------------------------------------------------


def test_the_kit_parses_an_orchestrator_spec():
    parsed = parse_orchestrator(graph_spec())
    assert parsed.kind == "graph"
    assert [n.node_id for n in parsed.nodes] == ["a", "b", "c"]
    assert parsed.nodes[0].scenario.agent_id == "agent-a"
    assert parsed.edges == (("a", "c"), ("b", "c"))
    assert [(h.index, h.event, h.node_id, h.interruptible) for h in parsed.hooks] == [
        (0, "BeforeNodeCall", "c", True),
        (1, "AfterNodeCall", None, False),
    ]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"kind": "tree"}, "kind"),
        ({"nodes": []}, "at least one node"),
        (
            {"nodes": [{"nodeId": "a", "agent": plain("a")}, {"nodeId": "a", "agent": plain("b")}]},
            "duplicate",
        ),
        ({"entry": "a"}, "no entry"),
        ({"hooks": [{"event": "BeforeToolCall", "steps": []}]}, "not a node event"),
        ({"hooks": [{"event": "AfterNodeCall", "steps": [{"interrupt": {"name": "x"}}]}]}, "interrupt"),
        (
            {"nodes": [{"nodeId": "a", "agent": {**plain("a"), "tools": [sc.tool(HANDOFF_TOOL)]}}]},
            "reserved",
        ),
    ],
)
def test_the_kit_refuses_what_the_scenario_language_does_not_allow(change: dict[str, Any], problem: str):
    with pytest.raises(ScenarioError, match=problem):
        parse_orchestrator({**graph_spec(), **change})


def test_a_swarm_needs_an_entry_and_no_edges():
    nodes = [{"nodeId": "x", "agent": plain("x")}]
    with pytest.raises(ScenarioError, match="entry"):
        parse_orchestrator({"kind": "swarm", "nodes": nodes})
    with pytest.raises(ScenarioError, match="edges"):
        parse_orchestrator(
            {"kind": "swarm", "nodes": nodes, "entry": "x", "edges": [{"from": "x", "to": "x"}]}
        )


# --- the reference adapter ---------------------------------------------------------------------------


@pytest.mark.req("ROC-GRAPH-007", "ROC-GRAPH-009", "ROC-GRAPH-012", "ROC-GRAPH-016")
def test_the_reference_adapter_builds_and_runs_a_graph():
    with serving() as (address, _), client_for(address) as client:
        assert "multi-agent" in client.describe().profiles
        handle = client.create_orchestrator(graph_spec())
        first = client.invoke(handle, {"prompt": "task"})
        result = first["orchestratorResult"]
        assert result["stopReason"] == "interrupt"
        assert [i["source"]["nodeId"] for i in result["interrupts"]] == ["a"]
        assert [r["nodeId"] for r in result["results"]] == ["b"]
        kinds = [(e["kind"], e.get("nodeId"), e.get("outcome")) for e in first["trace"] if "nodeId" in e]
        assert kinds == [
            ("node_start", "a", None),
            ("node_end", "a", "interrupted"),
            ("node_start", "b", None),
            ("node_end", "b", "completed"),
            ("hook_callback", "b", None),
        ]
        assert {tuple(e["agentPath"]) for e in first["trace"] if "agentPath" in e} == {
            ("node:a",),
            ("node:b",),
        }
        assert "invocation_end" not in [e["kind"] for e in first["trace"]]
        second = client.invoke(handle, sc.resume(sc.answer(result["interrupts"][0]["id"], "y")))
        done = second["orchestratorResult"]
        assert done["stopReason"] == "completed"
        assert [(r["nodeId"], r["visit"]) for r in done["results"]] == [("a", 1), ("b", 1), ("c", 1)]
        # a was resumed (its tool ran before its model), c started after its BeforeNodeCall callback.
        at_a = [e["kind"] for e in second["trace"] if e.get("agentPath") == ["node:a"]]
        assert at_a.index("tool_start") < at_a.index("model_call")
        assert second["state"] == {"c": 1}
        assert second["messages"] == []


@pytest.mark.req("ROC-GRAPH-017")
def test_a_scripted_hand_off_reaches_the_reference_swarm():
    def hops(agent_id: str, target: str | None) -> dict[str, Any]:
        turns = [sc.turn(sc.tool_use("h1", HANDOFF_TOOL, {"node": target}))] if target else []
        return sc.agent_spec(agent_id, turns=[*turns, sc.turn(sc.text(f"{agent_id} done"))])

    spec = {
        "kind": "swarm",
        "nodes": [{"nodeId": "y", "agent": hops("y", None)}, {"nodeId": "x", "agent": hops("x", "y")}],
        "entry": "x",
    }
    with serving() as (address, _), client_for(address) as client:
        out = client.invoke(client.create_orchestrator(spec), {"prompt": "task"})
    result = out["orchestratorResult"]
    assert [(r["nodeId"], r["visit"]) for r in result["results"]] == [("x", 1), ("y", 1)]
    ends = [(e["nodeId"], e["outcome"]) for e in out["trace"] if e["kind"] == "node_end"]
    assert ends == [("x", "completed"), ("y", "completed")]


def test_an_orchestrator_handle_takes_only_a_task_or_answers():
    with serving() as (address, _), client_for(address) as client:
        handle = client.create_orchestrator(graph_spec())
        with pytest.raises(AdapterError, match="prompt or interruptResponses"):
            client.invoke(handle, {"content": [{"text": "x"}]})
        client.reset_latch()
        with pytest.raises(AdapterError, match="no snapshot"):
            client.take_snapshot(handle)


def test_create_agent_needs_exactly_one_of_spec_and_orchestrator():
    servicer = HarnessServicer()
    both = hpb.CreateAgentRequest(
        spec=jsonmap.to_proto("AgentSpec", plain("a")),
        orchestrator=jsonmap.to_proto("roc.conformance.v1.OrchestratorSpec", graph_spec()),
    )
    assert "exactly one" in servicer.CreateAgent(both, None).harness_error.message  # type: ignore[arg-type]
    assert "exactly one" in servicer.CreateAgent(hpb.CreateAgentRequest(), None).harness_error.message  # type: ignore[arg-type]


def test_a_graph_the_runtime_refuses_is_a_harness_error():
    cyclic = {**graph_spec(), "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}
    with serving() as (address, _), client_for(address) as client, pytest.raises(AdapterError, match="cycle"):
        client.create_orchestrator(cyclic)


def test_multi_agent_is_a_protocol_5_profile():
    assert "multi-agent" in SPEC_1_2_PROFILES


# --- the checks ----------------------------------------------------------------------------------------

CHECKS = [c for c in all_checks() if c.name.startswith("explicit:ROC-GRAPH-")]


def test_one_check_per_requirement_named_after_it_in_the_profile():
    assert sorted(c.name for c in CHECKS) == sorted(f"explicit:{rid}" for rid in GRAPH_IDS)
    known = load_registry().by_id()
    for check in CHECKS:
        assert check.requirements == (check.name.removeprefix("explicit:"),)
        assert "multi-agent" in check.profiles
        assert known[check.requirements[0]].profile == "multi-agent"


@pytest.mark.req(*GRAPH_IDS)
def test_the_reference_passes_every_multi_agent_check_without_consequences():
    settings = RunSettings(
        name="graph", derandomize=True, max_examples=1, stateful_step_count=1, shrink_seconds=0
    )
    with serving() as (address, _):
        result = run_suite(Target(address=address, label="reference"), CHECKS, load_registry(), settings)
    for check in result.checks:
        assert check.status is Status.PASS, (check.name, check.message)
        assert not check.consequences, (check.name, [c.message for c in check.consequences])
        assert not check.blocked, (check.name, check.blocked)
