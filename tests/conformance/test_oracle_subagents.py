"""The oracle's model of sub-agents used as tools (spec chapter 12, profile agent-as-tool).

Three kinds of evidence: expectations written out by hand from the chapter's text (not read back from the
oracle); the oracle in lockstep with the reference runtime, through its harness, at depth 1 and 3; and the
state machine, drawing sub-agents under agent-as-tool, catching broken runtimes on their requirement.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from roc_conformance.errors import ConformanceViolation
from roc_conformance.machine import make_machine
from roc_conformance.oracle import Driver, OracleAgent, Prompt, parse_spec
from roc_conformance.oracle.check import IdBinder, check_result, key_of
from roc_conformance.oracle.engine import MISSING, Key, Response, Resume
from roc_conformance.oracle.fake import FakeImplementation
from roc_conformance.oracle.scenario import ScenarioError
from roc_conformance.oracle.subagents import interrupt_name, propagated_key
from roc_harness_support import client_for, serving

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "conformance" / "fixtures" / "broken"
PROFILES = frozenset({"core", "hooks", "sequential-executor", "agent-as-tool", "decisions"})


def use(tuid: str, name: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": tuid, "name": name, "input": {}}}


def spec(
    agent_id: str,
    turns: list[list[dict[str, Any]]],
    tools: dict[str, list[dict[str, Any]]],
    executor: str = "sequential",
) -> dict[str, Any]:
    return {
        "agentId": agent_id,
        "executor": executor,
        "model": {"turns": [{"content": t} for t in turns] + [{"content": [{"text": f"{agent_id} done"}]}]},
        "tools": [{"name": n, "steps": s} for n, s in tools.items()],
        "hooks": [],
        "state": {},
    }


def run(agent: dict[str, Any], *after: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"runAgent": {"agent": agent, "prompt": "find"}}, *after]


def ask(name: str, reason: Any = None) -> dict[str, Any]:
    return {"interrupt": {"name": name} if reason is None else {"name": name, "reason": reason}}


# A researcher that asks twice in one batch (the same name from two tool uses), then answers.
RESEARCHER = spec(
    "researcher",
    [[use("q1", "ask_budget"), use("q2", "ask_budget")]],
    {"ask_budget": [ask("budget", ["b", 1]), {"return": {"value": "ok"}}]},
    "concurrent",
)


def planner(
    *after: dict[str, Any], uses: tuple[str, ...] = ("s1",), executor: str = "sequential"
) -> OracleAgent:
    doc = spec(
        "planner",
        [[use(u, "research") for u in uses]],
        {"research": run(RESEARCHER, *after)},
        executor,
    )
    return OracleAgent(parse_spec(doc), PROFILES)


def key(outer: str, inner_tool_use: str, name: str = "budget") -> Key:
    return propagated_key(outer, ("tool", inner_tool_use, name))


def answer(*pairs: tuple[Key, Any]) -> Resume:
    return Resume(tuple(Response(k, v) for k, v in pairs))


def results(a: OracleAgent) -> dict[str, Any]:
    last = a.messages[-2]["content"]
    return {b["toolResult"]["toolUseId"]: b["toolResult"] for b in last if "toolResult" in b}


# ---- the oracle's predictions, by hand -------------------------------------------------------------------


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-003")
def test_a_stopped_sub_agent_stops_its_tool_use_with_one_interrupt_per_inner_one():
    a = planner()
    out = a.invoke(Prompt([{"text": "go"}]))
    assert out.stop_reason == "interrupt"
    assert [i.key for i in out.interrupts] == [key("s1", "q1"), key("s1", "q2")]
    first = out.interrupts[0]
    assert first.name == "budget"
    assert first.reason == ["b", 1]
    assert first.source == {
        "kind": "agent_as_tool",
        "toolUseId": "s1",
        "toolName": "research",
        "inner": {
            "agentId": "researcher",
            "source": {"kind": "tool", "toolUseId": "q1", "toolName": "ask_budget"},
        },
    }
    # The outer tool use records no result while its sub-agent waits (ROC-TOOL-010).
    assert a.messages == [{"role": "user", "content": [{"text": "go"}]}]
    nested = [e for e in out.trace if e.get("agentPath")]
    assert {tuple(e["agentPath"]) for e in nested} == {("s1",)}
    assert [e["turn"] for e in nested if e["kind"] == "model_call"] == [0]


@pytest.mark.req("ROC-AGENT-002", "ROC-AGENT-010")
def test_two_tool_uses_running_one_definition_have_distinct_keys_and_instances():
    a = planner(uses=("s1", "s2"), executor="concurrent")
    out = a.invoke(Prompt([{"text": "go"}]))
    keys = [i.key for i in out.interrupts]
    assert keys == [key("s1", "q1"), key("s1", "q2"), key("s2", "q1"), key("s2", "q2")]
    assert set(a.children) == {"s1", "s2"}
    assert a.children["s1"].agent is not a.children["s2"].agent
    # Answering s1's sub-agent alone completes s1 and leaves s2's interrupts as they were.
    out = a.invoke(answer((key("s1", "q1"), "y"), (key("s1", "q2"), "n")))
    assert [i.key for i in out.interrupts] == [key("s2", "q1"), key("s2", "q2")]
    assert a.completed["s1"]["content"] == [{"json": {"answers": ["researcher done"], "value": None}}]


@pytest.mark.req("ROC-AGENT-004", "ROC-AGENT-005", "ROC-AGENT-006")
def test_answers_are_routed_to_the_kept_sub_agent_which_is_resumed_not_prompted():
    a = planner(uses=("s1", "s2"), executor="concurrent")
    a.invoke(Prompt([{"text": "go"}]))
    out = a.invoke(answer((key("s1", "q2"), "y")))
    # s1's sub-agent resumed: it runs q2 (answered) and stops again with q1; no model call (ROC-AGENT-005).
    assert out.agent_paths == {("s1",): "resumed", ("s2",): "not_resumed"}
    s1 = [e for e in out.trace if e.get("agentPath") == ["s1"]]
    assert not [e for e in s1 if e["kind"] == "model_call"]
    assert [(e["toolUseId"], e["outcome"]) for e in s1 if e["kind"] == "tool_end"] == [
        ("q1", "interrupted"),
        ("q2", "returned"),
    ]
    # s2's got nothing new: nothing of it runs, its interrupts come again (ROC-AGENT-006).
    assert not [e for e in out.trace if e.get("agentPath") == ["s2"]]
    assert [i.key for i in out.interrupts] == [key("s1", "q1"), key("s2", "q1"), key("s2", "q2")]
    # The inner interrupt got exactly the answer given to its propagated one (ROC-AGENT-004).
    inner = a.children["s1"].agent
    assert inner.interrupts[("tool", "q2", "budget")].response == "y"
    assert not inner.interrupts[("tool", "q1", "budget")].answered


@pytest.mark.req("ROC-AGENT-004")
def test_a_decision_travels_to_the_inner_interrupt():
    a = planner(ask("confirm"))  # the outer tool use stays pending, so the completed sub-agent is kept
    a.invoke(Prompt([{"text": "go"}]))
    a.invoke(Resume((Response(key("s1", "q1"), "y"), Response(key("s1", "q2"), MISSING, "decline", "no"))))
    inner = a.children["s1"].agent
    # The declined inner tool got the decision's message as its error result (ROC-DECIDE-004, one level down).
    inner_results = {b["toolResult"]["toolUseId"]: b["toolResult"] for b in inner.messages[2]["content"]}
    assert inner_results["q2"] == {"toolUseId": "q2", "status": "error", "content": [{"text": "no"}]}
    assert inner_results["q1"]["status"] == "success"


@pytest.mark.req("ROC-AGENT-007")
def test_a_completed_sub_agent_is_not_run_again_when_its_body_replays():
    a = planner(ask("confirm"), {"return": {"value": "v"}})
    a.invoke(Prompt([{"text": "go"}]))
    out = a.invoke(answer((key("s1", "q1"), 1), (key("s1", "q2"), 2)))
    assert [i.key for i in out.interrupts] == [("tool", "s1", "confirm")]
    assert a.children["s1"].result == "researcher done"
    out = a.invoke(answer((("tool", "s1", "confirm"), "yes")))
    assert out.agent_paths == {("s1",): "completed"}
    assert not [e for e in out.trace if e.get("agentPath")]
    assert results(a)["s1"]["content"] == [{"json": {"answers": ["researcher done", "yes"], "value": "v"}}]
    assert a.children == {}  # kept until the outer batch completes (ROC-AGENT-008)


@pytest.mark.req("ROC-AGENT-011")
def test_a_second_sub_agent_call_in_one_run_fails_the_body():
    quick = spec("quick", [], {})
    doc = spec("planner", [[use("s1", "two")]], {"two": [*run(quick), *run(quick)]})
    a = OracleAgent(parse_spec(doc), PROFILES)
    out = a.invoke(Prompt([{"text": "go"}]))
    assert out.stop_reason == "end_turn"
    assert not out.interrupts
    assert results(a)["s1"]["status"] == "error"
    assert "s1" in a.free_content  # the failure's text is the runtime's


@pytest.mark.req("ROC-AGENT-008")
def test_a_copy_of_the_oracle_carries_its_kept_sub_agents():
    a = planner(uses=("s1", "s2"), executor="concurrent")
    a.invoke(Prompt([{"text": "go"}]))
    b = a.copy()
    assert b.children["s1"].agent is not a.children["s1"].agent
    a.invoke(answer((key("s1", "q1"), "y")))
    assert b.children["s1"].agent.pending_keys() == [("tool", "q1", "budget"), ("tool", "q2", "budget")]
    out = b.invoke(answer((key("s1", "q2"), "n")))
    assert [i.key for i in out.interrupts] == [key("s1", "q1"), key("s2", "q1"), key("s2", "q2")]


def test_keys_of_propagated_interrupts_come_from_the_inner_chain():
    observed = {
        "id": "opaque",
        "name": "budget",
        "source": {
            "kind": "agent_as_tool",
            "toolUseId": "t1",
            "toolName": "research",
            "inner": {
                "agentId": "mid",
                "interruptId": "x",
                "source": {
                    "kind": "agent_as_tool",
                    "toolUseId": "m1",
                    "toolName": "deeper",
                    "inner": {
                        "agentId": "leaf",
                        "interruptId": "y",
                        "source": {"kind": "tool", "toolUseId": "q1", "toolName": "ask"},
                    },
                },
            },
        },
    }
    k = key_of(observed)
    assert k == propagated_key("t1", propagated_key("m1", ("tool", "q1", "budget")))
    assert interrupt_name(k) == "budget"


def test_a_nested_name_with_the_key_mark_is_refused():
    bad = spec("sub", [[use("q1", "x")]], {"x": [ask("a@b")]})
    with pytest.raises(ScenarioError):
        parse_spec(spec("top", [[use("t1", "r")]], {"r": run(bad)}))


@pytest.mark.req("ROC-AGENT-002", "ROC-AGENT-003")
def test_the_checker_binds_inner_ids_and_judges_the_inner_source():
    a = planner()
    out = a.invoke(Prompt([{"text": "go"}]))
    fake = FakeImplementation(tuple(PROFILES))
    handle = fake.create_agent(spec("planner", [[use("s1", "research")]], {"research": run(RESEARCHER)}))
    observed = fake.invoke(handle, {"prompt": "go"})
    assert check_result(out, observed, IdBinder(), "sequential") == []
    wrong = observed["result"]["interrupts"][0]["source"]["inner"]
    wrong["agentId"] = "someone-else"
    found = check_result(out, observed, IdBinder(), "sequential")
    assert {r for v in found for r in v.requirements} == {"ROC-AGENT-003"}
    # One id for two propagated interrupts: not unique (ROC-AGENT-002).
    items = observed["result"]["interrupts"]
    items[1]["id"] = items[0]["id"]
    wrong["agentId"] = "researcher"
    found = check_result(out, observed, IdBinder(), "sequential")
    assert "ROC-AGENT-002" in {r for v in found for r in v.requirements}


# ---- the oracle in lockstep with the reference runtime -----------------------------------------------


def leaf(agent_id: str) -> dict[str, Any]:
    return spec(
        agent_id,
        [[use("q1", "ask"), use("q2", "ask")]],
        {"ask": [ask("budget", [1]), {"return": {"value": 3}}]},
        "concurrent",
    )


def chain(agent_id: str, tool_use_id: str, sub: dict[str, Any]) -> dict[str, Any]:
    return spec(agent_id, [[use(tool_use_id, "deeper")]], {"deeper": run(sub, {"return": {"value": "d"}})})


def lockstep(doc: dict[str, Any], answers_per_step: int = 1, restore: bool = False) -> Driver:
    """Drive the reference and the oracle together, answering the first pending interrupts each step."""
    with serving() as (address, _), client_for(address) as client:
        d = Driver(client, doc, profiles=PROFILES | {"concurrent-executor", "sessions"})
        assert d.invoke({"prompt": "go"}, Prompt([{"text": "go"}])) == []
        for n in range(12):
            pending = d.pending()
            if not pending:
                break
            if restore and n % 2:
                assert d.restore() == []
            wire, inp = d.resume_input([(k, f"a{n}") for k in pending[:answers_per_step]])
            assert d.invoke(wire, inp) == [], d.transcript()
        assert not d.pending()
        assert d.warnings == []
        assert d.oracle.messages[-1] == {"role": "assistant", "content": [{"text": "planner done"}]}
        d.dispose()
        return d


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-002", "ROC-AGENT-004", "ROC-AGENT-005", "ROC-AGENT-006")
def test_depth_1_predictions_equal_the_reference():
    doc = spec(
        "planner",
        [[use("s1", "research"), use("s2", "research")]],
        {"research": run(RESEARCHER, ask("confirm"), {"return": {"value": "v"}})},
        "concurrent",
    )
    d = lockstep(doc)
    assert len([s for s in d.steps if s[1] is not None]) >= 6


DEPTH_3 = spec(
    "planner",
    [[use("t1", "research"), use("t2", "research")]],
    {"research": run(chain("m", "m1", chain("n", "n1", leaf("leaf"))))},
    "concurrent",
)


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-004", "ROC-AGENT-005", "ROC-AGENT-006")
def test_depth_3_predictions_equal_the_reference():
    for per_step in (1, 2):
        d = lockstep(DEPTH_3, answers_per_step=per_step)
        observed = {
            tuple(e["agentPath"])
            for exchange in d.log
            for e in (exchange.response.get("trace") or [])
            if e.get("agentPath")
        }
        assert {("t1",), ("t1", "m1"), ("t1", "m1", "n1"), ("t2", "m1", "n1")} <= observed


@pytest.mark.req("ROC-AGENT-008", "ROC-AGENT-009")
def test_depth_3_predictions_equal_the_reference_across_restores():
    lockstep(DEPTH_3, restore=True)


@pytest.mark.req("ROC-AGENT-007", "ROC-AGENT-009")
def test_depth_2_with_a_completed_sub_agent_beside_a_pending_interrupt():
    """A sub-agent whose own sub-agent completed beside a pending interrupt is resumed (its answered
    propagated interrupt of a tool use with a result needs no kept sub-agent)."""
    mid = spec(
        "mid",
        [[use("m1", "deeper"), use("m2", "ask")]],
        {"deeper": run(spec("leaf", [[use("q1", "ask")]], {"ask": [ask("budget")]})), "ask": [ask("ok")]},
    )
    lockstep(spec("planner", [[use("t1", "research")]], {"research": run(mid)}))


# ---- the state machine catches broken runtimes on their requirement ------------------------------------


def _broken(name: str) -> Any:
    if str(BROKEN) not in sys.path:
        sys.path.insert(0, str(BROKEN))
    spec_ = importlib.util.spec_from_file_location(f"roc_broken_{name}", BROKEN / f"{name}.py")
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    return module


MACHINE = settings(
    max_examples=100,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)


def _machine_findings(fixture: str | None, executor: str, examples: int = 100) -> set[str] | None:
    profiles = frozenset({"core", "hooks", executor, "agent-as-tool", "sessions"})
    run = settings(MACHINE, max_examples=examples)
    patch = _broken(fixture).patch() if fixture else _nothing()
    with patch, serving() as (address, _), client_for(address) as client:
        machine = make_machine(lambda: client, profiles, run, name="SubAgentMachine")
        try:
            run_state_machine_as_test(machine, settings=run)
        except ConformanceViolation as exc:
            return set(exc.requirements)
    return None


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-002", "ROC-AGENT-004", "ROC-AGENT-005", "ROC-AGENT-007")
@pytest.mark.parametrize("executor", ["sequential-executor", "concurrent-executor"])
def test_the_machine_passes_the_reference_with_sub_agents(executor):
    assert _machine_findings(None, executor) is None


@pytest.mark.parametrize(
    ("fixture", "executor"),
    [
        ("sub_agent_reprompted", "sequential-executor"),
        ("propagated_id_collides", "concurrent-executor"),
        ("answer_routed_to_every_child", "concurrent-executor"),
        ("completed_sub_agent_rerun", "concurrent-executor"),
    ],
)
def test_the_machine_catches_a_broken_sub_agent_rule_on_its_requirement(fixture, executor):
    """Caught by the machine under one of the executors (the first named, else the other, else the first
    with more examples), on the
    requirement the fixture breaks. (Which examples Hypothesis draws depends on what ran before in the
    process, so one executor alone is not a stable witness.)"""
    breaks = set(_broken(fixture).BREAKS)
    other = "sequential-executor" if executor == "concurrent-executor" else "concurrent-executor"
    seen: list[set[str] | None] = []
    for ex, examples in ((executor, 100), (other, 100), (executor, 400)):
        found = _machine_findings(fixture, ex, examples)
        seen.append(found)
        if found is not None and breaks <= found:
            return
    pytest.fail(f"{fixture} (breaks {sorted(breaks)}) was not caught on it: {seen}")


def test_the_machine_with_sub_agents_stays_in_sync_with_the_conforming_fake_and_exercises_chapter_12():
    from roc_conformance.machine import MachineLedger

    ledger = MachineLedger()
    fake = settings(MACHINE, max_examples=200)
    # Both executors: which examples Hypothesis draws depends on what ran before in the process.
    for executor in ("concurrent-executor", "sequential-executor"):
        profiles = ("core", "hooks", executor, "sessions", "agent-as-tool", "decisions")
        machine = make_machine(
            lambda p=profiles: FakeImplementation(p),
            frozenset(profiles),
            fake,
            name="FakeSubAgents",
            ledger=ledger,
        )
        run_state_machine_as_test(machine, settings=fake)
    assert ledger.exercised_in_sync == ledger.exercised_any
    chapter = {r for r in ledger.exercised_in_sync if r.startswith("ROC-AGENT-")}
    want = {f"ROC-AGENT-{n:03d}" for n in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)}
    assert want <= chapter, sorted(want - chapter)
