"""Raise and stop, replay, partial answers and consumption (spec chapter 3)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pytest
import rfc8785
from refsupport import Tracer, answer, answers, frozen, text, use
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    SequentialExecutor,
    Tool,
    ToolContext,
    tool,
)
from roc_reference.errors import ErrorCode, RocError


class Asker:
    """A tool that asks its questions in order, logging runs and answers; returns the answers."""

    def __init__(self, name: str, *questions: str, reason: Any = None) -> None:
        self.name = name
        self.questions = questions
        self.reason = reason
        self.runs = 0
        self.finished = 0
        self.received: list[Any] = []

    def body(self, tool_context: ToolContext, **_: Any) -> Any:
        self.runs += 1
        got = []
        for q in self.questions:
            got.append(tool_context.interrupt(q, reason=self.reason if self.reason is not None else {"q": q}))
        self.received.append(got)
        self.finished += 1
        return got

    def tool(self) -> Tool:
        return Tool(self.name, self.body, context=True)


def model_for(*uses: dict[str, Any]) -> ScriptedModel:
    return ScriptedModel([[text("working"), *uses], [text("done")]])


class HookAsk:
    """A BeforeToolCall callback asking ``name`` for tool ``tool_name``; records what it received."""

    def __init__(self, tool_name: str, name: str) -> None:
        self.tool_name = tool_name
        self.name = name
        self.runs = 0
        self.received: list[Any] = []

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.cb)

    def cb(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use.name != self.tool_name:
            return
        self.runs += 1
        self.received.append(event.interrupt(self.name, reason=self.name))


# --- 3.2 raising and stopping ----------------------------------------------------------------------


@pytest.mark.req("ROC-STOP-001", "ROC-STOP-004", "ROC-STOP-005")
def test_unanswered_interrupt_stops_without_further_model_calls() -> None:
    a = Asker("a", "q1")
    model = model_for(use("t1", "a"))
    agent = Agent(model, tools=[a.tool()])
    result = agent("go")
    assert result.stop_reason == "interrupt"
    assert model.calls == 1
    assert result.message.to_json() == model.turns[0].to_json()
    assert [m.role for m in agent.messages] == ["user"]


@pytest.mark.req("ROC-STOP-002", "ROC-STOP-003", "ROC-STOP-010", "ROC-EXEC-005")
def test_every_unanswered_interrupt_of_the_cycle_once_with_distinct_ids_in_tool_use_order() -> None:
    a, b = Asker("a", "same"), Asker("b", "same")
    hook1, hook2 = HookAsk("c", "h1"), HookAsk("c", "h2")
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "b"), use("t3", "c")),
        tools=[a.tool(), b.tool(), tool(name="c")(lambda: "c")],
        hooks=[hook1, hook2],
        executor=ConcurrentExecutor(),
    )
    result = agent("go")
    assert [(i.source.tool_use_id, i.name) for i in result.interrupts] == [
        ("t1", "same"),
        ("t2", "same"),
        ("t3", "h1"),
        ("t3", "h2"),
    ]
    assert len({i.id for i in result.interrupts}) == 4


@pytest.mark.req("ROC-STOP-002", "ROC-ANSWER-001", "ROC-ANSWER-002", "ROC-REPLAY-004")
def test_partial_answer_reports_only_the_unanswered_with_the_same_identity() -> None:
    a, b = Asker("a", "qa"), Asker("b", "qb")
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "b")), tools=[a.tool(), b.tool()], executor=ConcurrentExecutor()
    )
    first = agent("go")
    ia, ib = first.interrupts
    second = agent([answer(ia.id, "yes")])
    assert second.stop_reason == "interrupt"
    assert [i.to_json() for i in second.interrupts] == [ib.to_json()]
    assert a.finished == 1
    assert b.finished == 0
    third = agent([answer(ib.id, "ok")])
    assert third.stop_reason == "end_turn"
    assert a.runs == 2  # raised in cycle 1, completed in cycle 2, preserved in cycle 3
    assert b.received == [["ok"]]


@pytest.mark.req("ROC-STOP-006")
def test_reported_name_and_reason_and_absent_reason() -> None:
    @tool
    def t(tool_context: ToolContext) -> str:
        tool_context.interrupt("plain")
        return "x"

    reason = {"paths": ["a", "b"], "n": 1.5, "ok": False, "nested": [None, {"k": "v"}]}
    a = Asker("a", "with-reason", reason=reason)
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "t")), tools=[a.tool(), t], executor=ConcurrentExecutor()
    )
    r1, r2 = agent("go").interrupts
    assert r1.name == "with-reason"
    assert r1.reason == reason
    assert r2.name == "plain"
    assert "reason" not in r2.to_json()


@pytest.mark.req("ROC-STOP-007", "ROC-ERR-001")
@pytest.mark.parametrize("bad_name", ["", None, 3])
def test_bad_interrupt_name_fails_the_invocation_with_invalid_reason(bad_name: Any) -> None:
    @tool
    def t(tool_context: ToolContext) -> str:
        tool_context.interrupt(bad_name)
        return "x"

    agent = Agent(model_for(use("t1", "t")), tools=[t])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON
    assert frozen(agent) == before


@pytest.mark.req("ROC-STOP-008")
@pytest.mark.parametrize("bad_reason", [math.nan, math.inf, {1: "int key"}, object(), {"s": {1, 2}}])
def test_non_json_reason_fails_with_invalid_reason(bad_reason: Any) -> None:
    @tool
    def t(tool_context: ToolContext) -> str:
        tool_context.interrupt("q", reason=bad_reason)
        return "x"

    agent = Agent(model_for(use("t1", "t")), tools=[t])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON
    assert frozen(agent) == before


def test_cyclic_reason_is_invalid() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)

    @tool
    def t(tool_context: ToolContext) -> str:
        tool_context.interrupt("q", reason=cyclic)
        return "x"

    agent = Agent(model_for(use("t1", "t")), tools=[t])
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON


@pytest.mark.req("ROC-STOP-009")
def test_interrupt_is_not_turned_into_an_error_by_a_broad_except() -> None:
    @tool
    def careless(tool_context: ToolContext) -> str:
        try:
            return str(tool_context.interrupt("q"))
        except Exception:  # a body that "handles" every error must not swallow the pause
            return "swallowed"

    agent = Agent(model_for(use("t1", "careless")), tools=[careless])
    result = agent("go")
    assert result.stop_reason == "interrupt"
    result = agent(answers(result, "yes"))
    assert agent.messages[2].tool_results()[0].to_json()["content"] == [{"text": "yes"}]


# --- 3.3 replay --------------------------------------------------------------------------------------


@pytest.mark.req("ROC-REPLAY-001", "ROC-REPLAY-003", "ROC-REPLAY-005")
def test_body_replays_from_its_start_and_receives_the_answer() -> None:
    log: list[str] = []

    @tool
    def t(tool_context: ToolContext) -> Any:
        log.append("start")
        got = tool_context.interrupt("q")
        log.append("after")
        return got

    agent = Agent(model_for(use("t1", "t")), tools=[t])
    result = agent("go")
    assert log == ["start"]  # nothing after the raise point ran
    response = {"approved": True, "items": [1, "two", None], "note": ""}
    agent([answer(result.interrupts[0].id, response)])
    assert log == ["start", "start", "after"]
    assert agent.messages[2].tool_results()[0].to_json()["content"] == [{"json": response}]


@pytest.mark.req("ROC-REPLAY-002")
def test_answered_callbacks_run_again_on_resume() -> None:
    h1, h2 = HookAsk("a", "h1"), HookAsk("a", "h2")
    agent = Agent(model_for(use("t1", "a")), tools=[tool(name="a")(lambda: "ran")], hooks=[h1, h2])
    first = agent("go")
    i1, i2 = first.interrupts
    agent([answer(i1.id, "one")])
    assert (h1.runs, h2.runs) == (2, 2)
    agent([answer(i2.id, "two")])
    assert (h1.runs, h2.runs) == (3, 3)
    assert h1.received == ["one", "one"]
    assert h2.received == ["two"]


@pytest.mark.req("ROC-REPLAY-006", "ROC-REPLAY-007")
def test_one_at_a_time_then_the_next_with_its_own_answers() -> None:
    a = Asker("a", "q1", "q2", "q3")
    agent = Agent(model_for(use("t1", "a")), tools=[a.tool()])
    seen_ids: list[str] = []
    result = agent("go")
    for reply in ["r1", "r2", "r3"]:
        assert len(result.interrupts) == 1  # one at a time
        seen_ids.append(result.interrupts[0].id)
        result = agent(answers(result, reply))
    assert result.stop_reason == "end_turn"
    assert len(set(seen_ids)) == 3
    assert a.received == [["r1", "r2", "r3"]]
    assert a.runs == 4


@pytest.mark.req("ROC-REPLAY-008")
def test_state_changes_before_the_raise_are_kept() -> None:
    @tool
    def t(tool_context: ToolContext) -> str:
        count = tool_context.agent.state.get("runs", 0)
        tool_context.agent.state.set("runs", count + 1)
        tool_context.interrupt("q")
        return "x"

    agent = Agent(model_for(use("t1", "t")), tools=[t])
    result = agent("go")
    assert agent.state.get("runs") == 1
    agent(answers(result, "y"))
    assert agent.state.get("runs") == 2


@pytest.mark.req("ROC-STOP-011", "ROC-REPLAY-004")
def test_reason_is_fixed_at_first_raise() -> None:
    runs: list[int] = []

    @tool
    def drifting(tool_context: ToolContext) -> Any:
        runs.append(1)
        return tool_context.interrupt("q", reason={"run": len(runs)})

    other = Asker("other", "o")
    agent = Agent(
        model_for(use("t1", "drifting"), use("t2", "other")),
        tools=[drifting, other.tool()],
        executor=ConcurrentExecutor(),
    )
    first = agent("go")
    q = next(i for i in first.interrupts if i.name == "q")
    o = next(i for i in first.interrupts if i.name == "o")
    second = agent([answer(o.id, "x")])  # q stays unanswered; its unit replays with a new reason
    assert len(runs) == 2
    assert [i.to_json() for i in second.interrupts] == [q.to_json()]
    assert q.reason == {"run": 1}


# --- 3.5 / 3.6 partial answers and consumption -------------------------------------------------------


@pytest.mark.req("ROC-ANSWER-003", "ROC-EXEC-002")
def test_answer_stays_stored_until_the_batch_completes() -> None:
    a = Asker("a", "qa")
    gate = HookAsk("b", "gate-b")
    b = Asker("b", "qb")
    agent = Agent(model_for(use("t1", "a"), use("t2", "b")), tools=[a.tool(), b.tool()], hooks=[gate])
    r1 = agent("go")  # sequential: a interrupts, b not started
    assert [i.name for i in r1.interrupts] == ["qa"]
    r2 = agent(answers(r1, "A"))  # a completes; b's gate interrupts
    assert [i.name for i in r2.interrupts] == ["gate-b"]
    r3 = agent(answers(r2, "G"))  # gate answered; b's body asks
    assert [i.name for i in r3.interrupts] == ["qb"]
    r4 = agent(answers(r3, "B"))
    assert r4.stop_reason == "end_turn"
    assert gate.received == ["G", "G"]  # the gate got its stored answer again without it being re-sent
    assert a.runs == 2


@pytest.mark.req("ROC-ANSWER-004")
def test_response_to_an_answered_interrupt_is_unknown() -> None:
    a, b = Asker("a", "qa"), Asker("b", "qb")
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "b")), tools=[a.tool(), b.tool()], executor=ConcurrentExecutor()
    )
    ia, _ib = agent("go").interrupts
    agent([answer(ia.id, "A")])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent([answer(ia.id, "A again")])
    assert info.value.code == ErrorCode.UNKNOWN_INTERRUPT
    assert frozen(agent) == before


@pytest.mark.req("ROC-ANSWER-005")
def test_interrupt_not_raised_again_is_withdrawn() -> None:
    class Conditional:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, self.first)
            registry.add_callback(BeforeToolCallEvent, self.second)

        def first(self, event: BeforeToolCallEvent) -> None:
            event.agent.state.set("trusted", event.interrupt("trust?"))

        def second(self, event: BeforeToolCallEvent) -> None:
            if event.agent.state.get("trusted") != "t":
                event.interrupt("approve?")

    agent = Agent(model_for(use("t1", "x")), tools=[tool(name="x")(lambda: "x")], hooks=[Conditional()])
    trust, approve = agent("go").interrupts
    result = agent([answer(trust.id, "t")])  # now the second callback does not ask again
    assert result.stop_reason == "end_turn"
    with pytest.raises(RocError) as info:
        agent([answer(approve.id, "y")])
    assert info.value.code == ErrorCode.NOT_INTERRUPTED


@pytest.mark.req("ROC-ANSWER-005")
def test_withdrawn_interrupt_is_not_reported_nor_answerable_while_still_interrupted() -> None:
    class Conditional:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, self.cb)

        def cb(self, event: BeforeToolCallEvent) -> None:
            if event.tool_use.name == "x" and event.agent.state.get("skip") is None:
                event.interrupt("approve-x")

    y, z = Asker("y", "qy"), Asker("z", "qz")
    agent = Agent(
        model_for(use("t1", "x"), use("t2", "y"), use("t3", "z")),
        tools=[tool(name="x")(lambda: "x"), y.tool(), z.tool()],
        hooks=[Conditional()],
        executor=ConcurrentExecutor(),
    )
    approve, qy, qz = agent("go").interrupts
    agent.state.set("skip", True)
    second = agent([answer(qy.id, "Y")])  # x's gate no longer asks: approve-x is withdrawn
    assert [i.id for i in second.interrupts] == [qz.id]
    assert [i.id for i in agent.interrupts] == [qz.id]
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent([answer(approve.id, "y")])
    assert info.value.code == ErrorCode.UNKNOWN_INTERRUPT
    assert frozen(agent) == before
    assert agent([answer(qz.id, "Z")]).stop_reason == "end_turn"


@pytest.mark.req("ROC-ANSWER-006")
def test_responses_matched_by_id_not_position() -> None:
    a, b = Asker("a", "q"), Asker("b", "q")
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "b")), tools=[a.tool(), b.tool()], executor=ConcurrentExecutor()
    )
    ia, ib = agent("go").interrupts
    agent([answer(ib.id, "for-b"), answer(ia.id, "for-a")])
    assert a.received == [["for-a"]]
    assert b.received == [["for-b"]]


@pytest.mark.req("ROC-ANSWER-007", "ROC-ANSWER-008")
def test_answers_consumed_when_the_batch_completes() -> None:
    a = Asker("a", "q")
    model = model_for(use("t1", "a"))
    agent = Agent(model, tools=[a.tool()])
    first = agent("go")
    agent(answers(first, "y"))
    snap = agent.take_snapshot()
    # ROC-RESEND-003: only the digest of what the completed batch consumed stays (format 2.1)
    digest = "sha256:" + hashlib.sha256(rfc8785.dumps({"decision": "answer", "response": "y"})).hexdigest()
    consumed = [{"interruptId": first.interrupts[0].id, "answerDigest": digest}]
    assert snap["interruptState"] == {
        "activated": False,
        "interrupts": [],
        "pendingToolExecution": None,
        "consumed": consumed,
    }
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent(answers(first, "y"))
    assert info.value.code == ErrorCode.NOT_INTERRUPTED
    assert info.value.details == {"alreadyAnswered": [first.interrupts[0].id]}  # ROC-RESEND-001
    assert frozen(agent) == before
    assert a.runs == 2
    assert model.calls == 2


@pytest.mark.req("ROC-ANSWER-009", "ROC-ANSWER-010", "ROC-MODEL-008")
def test_consumed_answer_never_reaches_a_later_batch_with_the_same_raise_point() -> None:
    a = Asker("a", "q")
    # the model reuses toolUseId t1 in a later batch: same kind, toolUseId and name
    model = ScriptedModel([[use("t1", "a")], [use("t1", "a")], [text("done")]])
    agent = Agent(model, tools=[a.tool()])
    first = agent("go")
    second = agent(answers(first, "old"))
    assert second.stop_reason == "interrupt"  # the old answer was not delivered to the new batch
    assert second.interrupts[0].id != first.interrupts[0].id
    with pytest.raises(RocError) as info:
        agent(answers(first, "old"))
    assert info.value.code == ErrorCode.UNKNOWN_INTERRUPT
    third = agent(answers(second, "new"))
    assert third.stop_reason == "end_turn"
    assert a.received == [["old"], ["new"]]


@pytest.mark.req("ROC-STOP-002")
def test_sequential_reports_only_the_first_interrupted_tool() -> None:
    a, b = Asker("a", "qa"), Asker("b", "qb")
    agent = Agent(
        model_for(use("t1", "a"), use("t2", "b")), tools=[a.tool(), b.tool()], executor=SequentialExecutor()
    )
    tracer = Tracer()
    agent.hooks.add_hook(tracer)
    result = agent("go")
    assert [i.name for i in result.interrupts] == ["qa"]
    assert b.runs == 0
