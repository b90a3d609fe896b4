"""Hypothesis properties over random tool batches, hooks, executors, answers and restores."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refsupport import answer, history_is_whole, text
from roc_reference import (
    AfterToolsEvent,
    Agent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    SequentialExecutor,
    Tool,
    ToolContext,
)

ANSWERS = st.sampled_from(["yes", "no", 0, False, "", {"k": [1]}, [], 2.5])


@dataclass
class ToolSpec:
    asks: list[str]
    fails: bool


@dataclass
class Scenario:
    batches: list[list[ToolSpec]]
    gated: set[str]  # toolUseIds gated by BeforeToolCall callbacks 0 and 1
    double_gated: set[str]
    batch_gated: set[int]
    concurrent: bool

    def uses(self, b: int) -> list[dict[str, Any]]:
        return [
            {
                "toolUse": {
                    "toolUseId": f"b{b}t{i}",
                    "name": "prog",
                    "input": {"asks": s.asks, "fails": s.fails},
                }
            }
            for i, s in enumerate(self.batches[b])
        ]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    batches = draw(
        st.lists(
            st.lists(
                st.builds(
                    ToolSpec, st.lists(st.sampled_from(["q1", "q2"]), max_size=2, unique=True), st.booleans()
                ),
                min_size=1,
                max_size=4,
            ),
            min_size=1,
            max_size=2,
        )
    )
    ids = [f"b{b}t{i}" for b, batch in enumerate(batches) for i in range(len(batch))]
    gated = draw(st.sets(st.sampled_from(ids)))
    double = draw(st.sets(st.sampled_from(ids)))
    batch_gated = draw(st.sets(st.sampled_from(range(len(batches)))))
    return Scenario(batches, gated, double, batch_gated, draw(st.booleans()))


@dataclass
class Observed:
    completions: Counter[str] = field(default_factory=Counter)
    after_tools: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def build_parts(sc: Scenario, seen: Observed) -> tuple[list[Tool], list[Any]]:
    def prog(tool_context: ToolContext, asks: list[str], fails: bool) -> Any:
        got = [tool_context.interrupt(q, reason={"q": q}) for q in asks]
        with seen.lock:
            seen.completions[tool_context.tool_use.tool_use_id] += 1
        if fails:
            raise RuntimeError("failed")
        return got

    class Hooks:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolsEvent, self.batch)
            registry.add_callback(BeforeToolCallEvent, self.gate0)
            registry.add_callback(BeforeToolCallEvent, self.gate1)
            registry.add_callback(AfterToolsEvent, self.after)

        def batch(self, e: BeforeToolsEvent) -> None:
            b = int(e.message.tool_uses()[0].tool_use_id[1:].split("t")[0])
            if b in sc.batch_gated and e.interrupt("batch") == "no":
                e.cancel = "batch refused"

        def gate0(self, e: BeforeToolCallEvent) -> None:
            if e.tool_use.tool_use_id in sc.gated and e.interrupt("gate") == "no":
                e.cancel_tool = "refused"

        def gate1(self, e: BeforeToolCallEvent) -> None:
            if e.tool_use.tool_use_id in sc.double_gated:
                e.interrupt("audit")

        def after(self, e: AfterToolsEvent) -> None:
            with seen.lock:
                seen.after_tools.append(
                    (
                        tuple(u.tool_use_id for u in e.assistant_message.tool_uses()),
                        tuple(r.tool_use_id for r in e.message.tool_results()),
                    )
                )

    return [Tool("prog", prog, context=True)], [Hooks()]


def make_agent(sc: Scenario, seen: Observed, doc: dict[str, Any] | None = None) -> Agent:
    turns = [sc.uses(b) for b in range(len(sc.batches))] + [[text("done")]]
    tools, hooks = build_parts(sc, seen)
    executor = ConcurrentExecutor() if sc.concurrent else SequentialExecutor()
    if doc is not None:
        return Agent.from_snapshot(
            doc, model=ScriptedModel(turns), tools=tools, hooks=hooks, executor=executor
        )
    return Agent(ScriptedModel(turns), tools=tools, hooks=hooks, executor=executor)


def drive(sc: Scenario, data: st.DataObject, *, restores: bool) -> tuple[Agent, Observed, int]:
    seen = Observed()
    agent = make_agent(sc, seen)
    model_calls = 0
    result = agent("go")
    model_calls += agent.model.calls  # type: ignore[attr-defined]
    rounds = 0
    while result.stop_reason == "interrupt":
        rounds += 1
        assert rounds < 40
        ids = [i.id for i in result.interrupts]
        assert len(set(ids)) == len(ids)
        assert history_is_whole(agent.messages)
        if restores and data.draw(st.booleans(), label="restore"):
            agent = make_agent(sc, seen, agent.take_snapshot())
        chosen = data.draw(st.lists(st.sampled_from(ids), min_size=1, unique=True), label="answered")
        before = agent.model.calls  # type: ignore[attr-defined]
        result = agent([answer(i, data.draw(ANSWERS, label="response")) for i in chosen])
        model_calls += agent.model.calls - before  # type: ignore[attr-defined]
    return agent, seen, model_calls


def check(sc: Scenario, agent: Agent, seen: Observed, model_calls: int) -> None:
    # no toolUse without toolResult, and the run finished the script
    assert history_is_whole(agent.messages)
    assert agent.messages[-1].to_json() == {"role": "assistant", "content": [{"text": "done"}]}
    # model call count = scripted turns used (one per batch, plus the final text turn)
    assert model_calls == len(sc.batches) + 1
    # completed tools never run twice
    assert all(n == 1 for n in seen.completions.values()), seen.completions
    # each AfterTools result is in tool-use order, unique, and keeps every earlier result of its batch
    last: dict[tuple[str, ...], set[str]] = {}
    for uses, results in seen.after_tools:
        assert len(set(results)) == len(results)
        assert list(results) == [u for u in uses if u in results]
        assert last.get(uses, set()) <= set(results)
        last[uses] = set(results)
    for uses, results in last.items():
        assert set(results) == set(uses)  # the batch's final AfterTools carries every result


@pytest.mark.req(
    "ROC-TOOL-006", "ROC-TOOL-011", "ROC-HOOK-011", "ROC-STOP-003", "ROC-STOP-004", "ROC-TOOL-013"
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=scenarios(), data=st.data())
def test_random_runs_keep_the_invariants(sc: Scenario, data: st.DataObject) -> None:
    agent, seen, calls = drive(sc, data, restores=False)
    check(sc, agent, seen, calls)


@pytest.mark.req("ROC-SESSION-001", "ROC-SESSION-005")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=scenarios(), data=st.data())
def test_random_runs_with_restores_keep_the_invariants(sc: Scenario, data: st.DataObject) -> None:
    agent, seen, calls = drive(sc, data, restores=True)
    check(sc, agent, seen, calls)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
    max_leaves=4,
)


@st.composite
def resume_inputs(draw: st.DrawFn, ids: list[str]) -> Any:
    block = st.one_of(
        st.builds(lambda i, r: answer(i, r), st.sampled_from([*ids, "nope"]), JSONISH),
        st.just({"text": "hi"}),
        st.just({"interruptResponse": {"response": "y"}}),
        st.builds(lambda i: {"interruptResponse": {"interruptId": i}}, st.sampled_from(ids)),
    )
    return draw(st.one_of(st.lists(block, max_size=4), st.text(max_size=3)))


def expected_code(value: Any, pending: set[str]) -> str | None:
    """The oracle of spec 3.4: the first fault in the order of ROC-RESUME-014, or None when valid."""
    if not isinstance(value, list):
        return "INTERRUPT_PENDING"
    if any("interruptResponse" not in b for b in value):
        return "INTERRUPT_PENDING"
    if not value:
        return "INVALID_RESUME"
    bodies = [b["interruptResponse"] for b in value]
    if any("interruptId" not in b for b in bodies):
        return "INVALID_RESUME"
    if any(b.get("response") is None for b in bodies):
        return "INVALID_RESPONSE"
    ids = [b["interruptId"] for b in bodies]
    if len(set(ids)) != len(ids):
        return "DUPLICATE_RESPONSE"
    if not set(ids) <= pending:
        return "UNKNOWN_INTERRUPT"
    return None


@pytest.mark.req("ROC-RESUME-010", "ROC-RESUME-014", "ROC-ERR-006")
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_random_resume_inputs_are_accepted_or_change_nothing(data: st.DataObject) -> None:
    from refsupport import frozen
    from roc_reference import RocError

    def ask(tool_context: ToolContext, q: str) -> Any:
        return tool_context.interrupt(q)

    turns = [
        [{"toolUse": {"toolUseId": t, "name": "ask", "input": {"q": t}}} for t in ("a", "b")],
        [text("x")],
    ]
    agent = Agent(ScriptedModel(turns), tools=[Tool("ask", ask, context=True)], executor=ConcurrentExecutor())
    ids = [i.id for i in agent("go").interrupts]
    value = data.draw(resume_inputs(ids))
    before = frozen(agent)
    code = expected_code(value, set(ids))
    if code is not None:
        with pytest.raises(RocError) as info:
            agent(value)
        assert info.value.code.value == code
        assert frozen(agent) == before
    else:
        assert agent(value).stop_reason in ("interrupt", "end_turn")
