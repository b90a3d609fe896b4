"""Tool cycle, preserved results, executors, direct calls and cancel (spec chapters 5 and 6)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import ValidationError
from refsupport import Tracer, answers, frozen, history_is_whole, text, use
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    Message,
    ModelTurn,
    ScriptedModel,
    SequentialExecutor,
    TextBlock,
    ToolContext,
    tool,
)
from roc_reference.errors import ErrorCode, RocError
from roc_reference.hooks import DEFAULT_CANCEL_MESSAGE, DEFAULT_CANCEL_TOOL_MESSAGE

RUNS: list[str] = []


@pytest.fixture(autouse=True)
def _reset() -> None:
    RUNS.clear()


@tool
def ok(n: int = 0) -> str:
    RUNS.append(f"ok{n}")
    return f"ok{n}"


@tool
def boom() -> str:
    RUNS.append("boom")
    raise RuntimeError("disk on fire")


@tool
def ask(tool_context: ToolContext, q: str = "q") -> Any:
    RUNS.append(f"ask:{q}")
    return tool_context.interrupt(q)


TOOLS = [ok, boom, ask]


class Hooks:
    def __init__(self, *pairs: tuple[type, Any]) -> None:
        self.pairs = pairs

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        for event_type, fn in self.pairs:
            registry.add_callback(event_type, fn)


def agent_for(
    turns: list[list[dict[str, Any]]], *hooks: Any, executor: Any = None
) -> tuple[Agent, Tracer, ScriptedModel]:
    tracer = Tracer()
    model = ScriptedModel(turns)
    return Agent(model, tools=TOOLS, hooks=[tracer, *hooks], executor=executor), tracer, model


# --- 5.1 the tool cycle ------------------------------------------------------------------------------


class MaxTokensModel:
    def call(self, messages: Sequence[Message]) -> ModelTurn:
        return ModelTurn(Message(role="assistant", content=[TextBlock(text="trunc")]), "max_tokens")


@pytest.mark.req("ROC-TOOL-001")
def test_turn_without_tool_use_is_appended_and_ends_with_its_stop_reason() -> None:
    agent = Agent(MaxTokensModel())
    result = agent("go")
    assert result.stop_reason == "max_tokens"
    assert [m.to_json() for m in agent.messages] == [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"text": "trunc"}]},
    ]


@pytest.mark.req("ROC-TOOL-002", "ROC-TOOL-003", "ROC-TOOL-004", "ROC-TOOL-007")
def test_completed_batch_appends_assistant_then_results_in_tool_use_order_then_calls_model() -> None:
    seen: list[int] = []

    class Recording(ScriptedModel):
        def call(self, messages: Sequence[Message]) -> ModelTurn:
            seen.append(len(messages))
            return super().call(messages)

    @tool
    def slow() -> str:
        time.sleep(0.05)
        return "slow"

    model = Recording([[text("t"), use("t1", "slow"), use("t2", "ok")], [text("done")]])
    agent = Agent(model, tools=[slow, ok], executor=ConcurrentExecutor())
    agent("go")
    assert seen == [1, 3]  # the second call sees the assistant message and its results
    assistant, results = agent.messages[1], agent.messages[2]
    assert assistant.to_json() == model.turns[0].to_json()
    assert results.role == "user"
    assert [b.to_json() for b in results.content] == [
        {"toolResult": {"toolUseId": "t1", "status": "success", "content": [{"text": "slow"}]}},
        {"toolResult": {"toolUseId": "t2", "status": "success", "content": [{"text": "ok0"}]}},
    ]


@pytest.mark.req("ROC-TOOL-005", "ROC-TOOL-006")
def test_pending_batch_is_not_in_the_history() -> None:
    agent, _, _ = agent_for([[use("t1", "ok"), use("t2", "ask")], [text("done")]])
    first = agent("go")
    assert [m.role for m in agent.messages] == ["user"]
    assert history_is_whole(agent.messages)
    pending = agent.take_snapshot()["interruptState"]["pendingToolExecution"]
    assert pending["assistantMessage"] == first.message.to_json()
    assert [r["toolUseId"] for r in pending["completedToolResults"]] == ["t1"]
    agent(answers(first, "y"))
    assert history_is_whole(agent.messages)


@pytest.mark.req("ROC-TOOL-008")
def test_failing_body_gives_an_error_result_and_the_batch_goes_on() -> None:
    agent, _, _ = agent_for([[use("t1", "boom"), use("t2", "ok")], [text("done")]])
    result = agent("go")
    assert result.stop_reason == "end_turn"
    r1, r2 = agent.messages[2].tool_results()
    assert r1.to_json() == {"toolUseId": "t1", "status": "error", "content": [{"text": "disk on fire"}]}
    assert r2.status == "success"


@pytest.mark.req("ROC-TOOL-009")
def test_unknown_tool_gets_an_error_result() -> None:
    agent, _, _ = agent_for([[use("t1", "nope"), use("t2", "ok")], [text("done")]])
    assert agent("go").stop_reason == "end_turn"
    r1, r2 = agent.messages[2].tool_results()
    assert r1.status == "error"
    assert r2.status == "success"


def test_a_non_json_return_gives_an_error_result() -> None:
    @tool
    def weird() -> Any:
        return {1, 2}

    agent = Agent(ScriptedModel([[use("t1", "ok"), use("t2", "weird")], [text("x")]]), tools=[ok, weird])
    agent("go")
    assert [r.status for r in agent.messages[2].tool_results()] == ["success", "error"]


def test_a_tool_use_input_is_a_json_object() -> None:
    # spec 2.3: ToolUse.input is an object, so a model turn with any other input is refused where it enters.
    with pytest.raises(ValidationError):
        ScriptedModel([[{"toolUse": {"toolUseId": "t1", "name": "ok", "input": [1]}}]])


@pytest.mark.req("ROC-TOOL-010", "ROC-STOP-001")
def test_interrupted_body_leaves_no_result() -> None:
    agent, _, _ = agent_for([[use("t1", "ask")], [text("done")]])
    agent("go")
    assert agent.take_snapshot()["interruptState"]["pendingToolExecution"]["completedToolResults"] == []


# --- 5.2 preserved results ----------------------------------------------------------------------------


@pytest.mark.req("ROC-TOOL-011", "ROC-TOOL-012", "ROC-TOOL-013", "ROC-EXEC-003", "ROC-EXEC-004")
def test_preserved_results_never_rerun_and_appear_unchanged() -> None:
    agent, tracer, model = agent_for(
        [
            [use("t1", "boom"), use("t2", "ok", n=2), use("t3", "ask", q="a"), use("t4", "ask", q="b")],
            [text("done")],
        ]
    )
    r1 = agent("go")
    preserved = agent.take_snapshot()["interruptState"]["pendingToolExecution"]["completedToolResults"]
    assert [p["toolUseId"] for p in preserved] == ["t1", "t2"]
    r2 = agent(answers(r1, "A"))
    assert model.calls == 1  # no model call while the batch still lacks results
    assert [i.name for i in r2.interrupts] == ["b"]
    agent(answers(r2, "B"))
    assert RUNS == ["boom", "ok2", "ask:a", "ask:a", "ask:b", "ask:b"]
    final = [r.to_json() for r in agent.messages[2].tool_results()]
    assert final[:2] == preserved
    assert [e[1] for e in tracer.kinds("before_tool_call")] == ["t1", "t2", "t3", "t3", "t4", "t4"]
    assert model.calls == 2


@pytest.mark.req("ROC-TOOL-014")
def test_one_body_run_raising_a_name_twice_fails() -> None:
    @tool
    def twice(tool_context: ToolContext) -> Any:
        tool_context.interrupt("n")
        return tool_context.interrupt("n")

    agent = Agent(ScriptedModel([[use("t1", "twice")], [text("x")]]), tools=[twice])
    first = agent("go")
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent(answers(first, "y"))
    assert info.value.code == ErrorCode.DUPLICATE_INTERRUPT_NAME
    assert frozen(agent) == before


def test_swallowed_misuse_still_fails_the_invocation() -> None:
    @tool
    def sloppy(tool_context: ToolContext) -> str:
        with contextlib.suppress(Exception):
            tool_context.interrupt("")
        return "carried on"

    agent = Agent(ScriptedModel([[use("t1", "sloppy")], [text("x")]]), tools=[sloppy])
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON


# --- 5.4 executors --------------------------------------------------------------------------------------


@pytest.mark.req("ROC-EXEC-001", "ROC-EXEC-002")
def test_sequential_runs_in_order_and_stops_at_the_first_interrupt() -> None:
    agent, tracer, _ = agent_for(
        [[use("t1", "ok", n=1), use("t2", "ask"), use("t3", "ok", n=3)], [text("done")]],
        executor=SequentialExecutor(),
    )
    agent("go")
    assert [e for e in tracer.events if e[0] in ("before_tool_call", "after_tool_call")] == [
        ("before_tool_call", "t1"),
        ("after_tool_call", "t1", "success"),
        ("before_tool_call", "t2"),
    ]
    assert RUNS == ["ok1", "ask:q"]


@pytest.mark.req("ROC-EXEC-005", "ROC-EXEC-007", "ROC-EXEC-008")
def test_concurrent_bodies_really_overlap() -> None:
    barrier = threading.Barrier(2, timeout=5)

    @tool
    def left() -> str:
        barrier.wait()  # returns only when `right` is running at the same time
        return "left"

    @tool
    def right(tool_context: ToolContext) -> Any:
        barrier.wait()
        return tool_context.interrupt("r")

    agent = Agent(
        ScriptedModel([[use("t1", "left"), use("t2", "right")], [text("x")]]),
        tools=[left, right],
        executor=ConcurrentExecutor(),
    )
    result = agent("go")
    assert not barrier.broken
    assert [i.name for i in result.interrupts] == ["r"]
    completed = agent.take_snapshot()["interruptState"]["pendingToolExecution"]["completedToolResults"]
    assert completed == [{"toolUseId": "t1", "status": "success", "content": [{"text": "left"}]}]


def test_sequential_does_not_overlap() -> None:
    barrier = threading.Barrier(2, timeout=0.2)

    @tool
    def waits() -> str:
        barrier.wait()
        return "x"

    agent = Agent(ScriptedModel([[use("t1", "waits"), use("t2", "waits")], [text("x")]]), tools=[waits])
    agent("go")
    assert [r.status for r in agent.messages[2].tool_results()] == ["error", "error"]  # BrokenBarrierError


@pytest.mark.req("ROC-EXEC-006", "ROC-EXEC-009")
def test_concurrent_reports_every_interrupt_and_keeps_per_tool_order() -> None:
    log: list[tuple[str, str]] = []
    lock = threading.Lock()

    def before(e: BeforeToolCallEvent) -> None:
        with lock:
            log.append(("before", e.tool_use.tool_use_id))

    @tool
    def body(tool_context: ToolContext, q: str) -> Any:
        with lock:
            log.append(("body", tool_context.tool_use.tool_use_id))
        if q.startswith("ask"):
            return tool_context.interrupt(q)
        return q

    from roc_reference import AfterToolCallEvent

    def after(e: AfterToolCallEvent) -> None:
        with lock:
            log.append(("after", e.tool_use.tool_use_id))

    uses = [use(f"t{i}", "body", q=("ask" if i % 2 else "done") + str(i)) for i in range(1, 7)]
    agent = Agent(
        ScriptedModel([uses, [text("x")]]),
        tools=[body],
        hooks=[Hooks((BeforeToolCallEvent, before), (AfterToolCallEvent, after))],
        executor=ConcurrentExecutor(),
    )
    result = agent("go")
    assert [i.name for i in result.interrupts] == ["ask1", "ask3", "ask5"]
    for i in range(1, 7):
        mine = [k for k, tid in log if tid == f"t{i}"]
        assert mine == (["before", "body"] if i % 2 else ["before", "body", "after"])


# --- 5.5 direct tool calls -------------------------------------------------------------------------------


@pytest.mark.req("ROC-DIRECT-001", "ROC-DIRECT-003", "ROC-DIRECT-005", "ROC-DIRECT-006", "ROC-DIRECT-007")
def test_direct_call_cannot_interrupt_and_leaves_the_agent_unchanged() -> None:
    @tool
    def sets_then_asks(tool_context: ToolContext) -> Any:
        tool_context.agent.state.set("touched", True)
        return tool_context.interrupt("q")

    model = ScriptedModel([[text("x")]])
    agent = Agent(model, tools=[sets_then_asks, ok])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent.tool.sets_then_asks()
    assert info.value.code == ErrorCode.DIRECT_CALL_INTERRUPT
    assert frozen(agent) == before
    assert not agent.is_interrupted
    result = agent.tool.ok(n=7)
    assert result.to_json() == {"toolUseId": "direct:ok", "status": "success", "content": [{"text": "ok7"}]}
    assert model.calls == 0
    assert agent.messages == []  # direct calls are not recorded in the history


@pytest.mark.req("ROC-DIRECT-004")
def test_direct_call_refused_while_interrupted() -> None:
    agent, _, _ = agent_for([[use("t1", "ask")], [text("x")]])
    agent("go")
    RUNS.clear()
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent.tool.ok()
    assert info.value.code == ErrorCode.INTERRUPT_PENDING
    assert RUNS == []
    assert frozen(agent) == before


def test_direct_call_of_unknown_tool() -> None:
    agent = Agent(ScriptedModel([]), tools=[ok])
    with pytest.raises(AttributeError):
        agent.tool.nope()
    assert agent.call_tool_directly("nope", {}).status == "error"
    assert "ok" in dir(agent.tool)


# --- chapter 6: cancel -----------------------------------------------------------------------------------


@pytest.mark.req("ROC-CANCEL-001", "ROC-CANCEL-002", "ROC-CANCEL-009")
def test_cancel_tool_with_a_message() -> None:
    def refuse(e: BeforeToolCallEvent) -> None:
        if e.tool_use.tool_use_id == "t1":
            e.cancel_tool = "not allowed"

    agent, tracer, model = agent_for(
        [[use("t1", "ok"), use("t2", "ok", n=2)], [text("done")]], Hooks((BeforeToolCallEvent, refuse))
    )
    result = agent("go")
    assert result.stop_reason == "end_turn"
    assert model.calls == 2
    assert RUNS == ["ok2"]
    assert agent.messages[2].tool_results()[0].to_json()["content"] == [{"text": "not allowed"}]
    assert ("after_tool_call", "t1", "error") in tracer.events


@pytest.mark.req("ROC-CANCEL-003", "ROC-CANCEL-004")
@pytest.mark.parametrize(("value", "message"), [(True, DEFAULT_CANCEL_TOOL_MESSAGE), ("", "")])
def test_cancel_tool_true_and_empty_string(value: Any, message: str) -> None:
    def refuse(e: BeforeToolCallEvent) -> None:
        e.cancel_tool = value

    agent, _, _ = agent_for([[use("t1", "ok")], [text("done")]], Hooks((BeforeToolCallEvent, refuse)))
    agent("go")
    assert RUNS == []
    assert agent.messages[2].tool_results()[0].to_json() == {
        "toolUseId": "t1",
        "status": "error",
        "content": [{"text": message}],
    }
    assert DEFAULT_CANCEL_TOOL_MESSAGE


@pytest.mark.req("ROC-CANCEL-005", "ROC-CANCEL-006", "ROC-HOOK-010")
def test_batch_cancel_refuses_every_tool_without_per_tool_events() -> None:
    def refuse(e: BeforeToolsEvent) -> None:
        e.cancel = True

    agent, tracer, _ = agent_for(
        [[use("t1", "ok"), use("t2", "boom")], [text("done")]], Hooks((BeforeToolsEvent, refuse))
    )
    agent("go")
    assert RUNS == []
    assert tracer.count("before_tool_call") == 0
    assert tracer.count("after_tool_call") == 0
    assert tracer.kinds("after_tools") == [("after_tools", ("t1", "t2"))]
    for r in agent.messages[2].tool_results():
        assert r.to_json()["content"] == [{"text": DEFAULT_CANCEL_MESSAGE}]


def test_batch_cancel_on_resume_keeps_preserved_results() -> None:
    def refuse_on_resume(e: BeforeToolsEvent) -> None:
        if e.agent.state.get("resumed"):
            e.cancel = "batch refused"

    def mark(e: BeforeToolCallEvent) -> None:
        e.agent.state.set("resumed", True)

    agent, _, _ = agent_for(
        [[use("t1", "ok"), use("t2", "ask")], [text("done")]],
        Hooks((BeforeToolsEvent, refuse_on_resume), (BeforeToolCallEvent, mark)),
    )
    first = agent("go")
    agent(answers(first, "y"))
    r1, r2 = agent.messages[2].tool_results()
    assert r1.status == "success"
    assert r2.to_json()["content"] == [{"text": "batch refused"}]


@pytest.mark.req("ROC-CANCEL-007", "ROC-CANCEL-007", "ROC-CANCEL-008")
def test_interrupt_outranks_cancel_and_cancel_does_not_carry_over() -> None:
    def asks(e: BeforeToolsEvent) -> None:
        e.interrupt("batch")

    def cancels_first_time(e: BeforeToolsEvent) -> None:
        if not e.agent.state.get("seen"):
            e.agent.state.set("seen", True)
            e.cancel = "refused"

    agent, _tracer, _ = agent_for(
        [[use("t1", "ok")], [text("done")]],
        Hooks((BeforeToolsEvent, asks), (BeforeToolsEvent, cancels_first_time)),
    )
    first = agent("go")
    assert first.stop_reason == "interrupt"
    assert agent.take_snapshot()["interruptState"]["pendingToolExecution"]["completedToolResults"] == []
    agent(answers(first, "y"))
    assert RUNS == ["ok0"]  # the cancel of the interrupted firing did not carry over
    assert agent.messages[2].tool_results()[0].status == "success"
