"""Hook events: order, pairing, fan-out, names (spec chapter 4)."""

from __future__ import annotations

from typing import Any

import pytest
from refsupport import Callbacks, Tracer, answer, answers, frozen, text, use
from roc_reference import (
    AfterInvocationEvent,
    AfterModelCallEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    Agent,
    BeforeInvocationEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    ToolContext,
    tool,
)
from roc_reference.errors import ErrorCode, RocError


@tool
def ok(n: int = 0) -> str:
    return f"ok{n}"


@tool
def boom() -> str:
    raise RuntimeError("boom failed")


@tool
def ask(tool_context: ToolContext) -> Any:
    return tool_context.interrupt("ask")


def make(
    turns: list[list[dict[str, Any]]], *hooks: Any, tools: Any = (ok, boom, ask), **kw: Any
) -> tuple[Agent, Tracer]:
    tracer = Tracer()
    agent = Agent(ScriptedModel(turns), tools=list(tools), hooks=[tracer, *hooks], **kw)
    return agent, tracer


@pytest.mark.req(
    "ROC-HOOK-001",
    "ROC-HOOK-002",
    "ROC-HOOK-003",
    "ROC-HOOK-004",
    "ROC-HOOK-005",
    "ROC-HOOK-006",
    "ROC-HOOK-024",
)
def test_event_order_of_a_prompt_invocation() -> None:
    agent, tracer = make([[use("t1", "ok")], [text("done")]])
    agent("go")
    assert tracer.events == [
        ("invocation_start",),
        ("message_added", "user"),
        ("model_call",),
        ("before_tools", ("t1",)),
        ("before_tool_call", "t1"),
        ("after_tool_call", "t1", "success"),
        ("after_tools", ("t1",)),
        ("message_added", "assistant"),
        ("message_added", "user"),
        ("model_call",),
        ("message_added", "assistant"),
        ("invocation_end", "end_turn"),
    ]


@pytest.mark.req("ROC-HOOK-005")
def test_before_and_after_model_call_pair_each_call() -> None:
    seen: list[str] = []
    hooks = Callbacks(
        (BeforeModelCallEvent, lambda e: seen.append("before")),
        (AfterModelCallEvent, lambda e: seen.append(f"after:{e.stop_reason}")),
    )
    agent, _ = make([[use("t1", "ok")], [text("done")]], hooks)
    agent("go")
    assert seen == ["before", "after:tool_use", "before", "after:end_turn"]


@pytest.mark.req("ROC-HOOK-001", "ROC-HOOK-002", "ROC-ERR-006")
def test_after_invocation_fires_on_an_error_too_and_the_agent_rolls_back() -> None:
    ends: list[Any] = []

    @tool
    def dup(tool_context: ToolContext) -> str:
        tool_context.agent.state.set("touched", True)
        tool_context.interrupt("x")
        return "never"

    class Twice:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, lambda e: e.interrupt("same"))
            registry.add_callback(BeforeToolCallEvent, lambda e: e.interrupt("same"))
            registry.add_callback(AfterInvocationEvent, lambda e: ends.append((e.result, e.error)))

    agent, tracer = make([[use("t1", "dup")], [text("done")]], Twice(), tools=[dup])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.DUPLICATE_INTERRUPT_NAME
    assert tracer.events[0] == ("invocation_start",)
    assert len(ends) == 1
    assert ends[0][0] is None
    assert ends[0][1] is info.value
    assert frozen(agent) == before


@pytest.mark.req("ROC-HOOK-007", "ROC-HOOK-008", "ROC-HOOK-011", "ROC-TOOL-011")
def test_resume_cycle_sees_full_batch_and_skips_preserved_tools() -> None:
    agent, tracer = make([[use("t1", "ok"), use("t2", "ask"), use("t3", "ok", n=3)], [text("done")]])
    first = agent("go")
    assert tracer.kinds("before_tool_call") == [("before_tool_call", "t1"), ("before_tool_call", "t2")]
    tracer.clear()
    agent(answers(first, "y"))
    assert tracer.kinds("before_tools") == [("before_tools", ("t1", "t2", "t3"))]
    assert tracer.kinds("before_tool_call") == [("before_tool_call", "t2"), ("before_tool_call", "t3")]
    assert [e[1] for e in tracer.kinds("after_tool_call")] == ["t2", "t3"]
    assert tracer.kinds("model_call") == [("model_call",)]


@pytest.mark.req(
    "ROC-HOOK-009", "ROC-HOOK-009", "ROC-HOOK-010", "ROC-HOOK-011", "ROC-HOOK-012", "ROC-EXEC-005"
)
def test_after_tool_call_and_after_tools_with_failure_cancel_and_interrupts() -> None:
    def gate(e: BeforeToolCallEvent) -> None:
        if e.tool_use.tool_use_id == "t3":
            e.cancel_tool = "no t3"
        if e.tool_use.tool_use_id == "t4":
            e.interrupt("gate")

    batch = [use("t1", "ok"), use("t2", "boom"), use("t3", "ok"), use("t4", "ok"), use("t5", "ask")]
    agent, tracer = make(
        [batch, [text("done")]], Callbacks((BeforeToolCallEvent, gate)), executor=ConcurrentExecutor()
    )
    first = agent("go")
    assert sorted(tracer.kinds("after_tool_call")) == [
        ("after_tool_call", "t1", "success"),
        ("after_tool_call", "t2", "error"),
        ("after_tool_call", "t3", "error"),
    ]
    assert tracer.kinds("after_tools") == [("after_tools", ("t1", "t2", "t3"))]
    last_after_tool_call = max(i for i, e in enumerate(tracer.events) if e[0] == "after_tool_call")
    assert tracer.events.index(("after_tools", ("t1", "t2", "t3"))) > last_after_tool_call
    tracer.clear()
    agent(answers(first, "y"))
    # AfterTools of the resume cycle: preserved and new results, tool-use order, each once
    assert tracer.kinds("after_tools") == [("after_tools", ("t1", "t2", "t3", "t4", "t5"))]


@pytest.mark.req("ROC-HOOK-010", "ROC-HOOK-019", "ROC-HOOK-020")
def test_before_tools_interrupt_blocks_the_batch_and_reruns_on_resume() -> None:
    runs: list[int] = []

    def batch_gate(e: BeforeToolsEvent) -> None:
        runs.append(1)
        e.interrupt("batch")

    agent, tracer = make(
        [[use("t1", "ok"), use("t2", "ok")], [text("done")]], Callbacks((BeforeToolsEvent, batch_gate))
    )
    first = agent("go")
    assert first.interrupts[0].source.kind == "before_tools"
    assert tracer.count("before_tool_call") == 0
    assert tracer.count("after_tools") == 0
    result = agent(answers(first, "y"))
    assert result.stop_reason == "end_turn"
    assert len(runs) == 2
    assert tracer.count("before_tool_call") == 2
    assert tracer.count("after_tools") == 1


@pytest.mark.req("ROC-HOOK-013", "ROC-HOOK-014")
def test_callback_order_before_in_order_after_in_reverse() -> None:
    order: list[str] = []

    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            for ev in (BeforeInvocationEvent, BeforeModelCallEvent, BeforeToolsEvent, BeforeToolCallEvent):
                registry.add_callback(ev, lambda e, ev=ev: order.append(f"{ev.__name__}:{self.name}"))
            for ev in (AfterModelCallEvent, AfterToolCallEvent, AfterToolsEvent, AfterInvocationEvent):
                registry.add_callback(ev, lambda e, ev=ev: order.append(f"{ev.__name__}:{self.name}"))

    agent = Agent(ScriptedModel([[use("t1", "ok")], [text("x")]]), tools=[ok], hooks=[Named("A"), Named("B")])
    agent("go")
    for ev in ("BeforeInvocationEvent", "BeforeModelCallEvent", "BeforeToolsEvent", "BeforeToolCallEvent"):
        assert [o for o in order if o.startswith(ev + ":")][:2] == [f"{ev}:A", f"{ev}:B"]
    for ev in ("AfterModelCallEvent", "AfterToolCallEvent", "AfterToolsEvent", "AfterInvocationEvent"):
        assert [o for o in order if o.startswith(ev + ":")][:2] == [f"{ev}:B", f"{ev}:A"]


@pytest.mark.req("ROC-HOOK-016", "ROC-HOOK-017", "ROC-HOOK-018", "ROC-CANCEL-007")
def test_fan_out_every_callback_runs_and_interrupt_outranks_cancel() -> None:
    ran: list[str] = []

    def first(e: BeforeToolCallEvent) -> None:
        ran.append("first")
        e.interrupt("first")

    def canceller(e: BeforeToolCallEvent) -> None:
        ran.append("canceller")
        e.cancel_tool = "cancelled"

    def third(e: BeforeToolCallEvent) -> None:
        ran.append("third")
        e.interrupt("third")

    body_runs: list[int] = []

    @tool
    def t() -> str:
        body_runs.append(1)
        return "ran"

    agent, tracer = make(
        [[use("t1", "t")], [text("x")]],
        Callbacks(
            (BeforeToolCallEvent, first), (BeforeToolCallEvent, canceller), (BeforeToolCallEvent, third)
        ),
        tools=[t],
    )
    result = agent("go")
    assert ran == ["first", "canceller", "third"]
    assert [i.name for i in result.interrupts] == ["first", "third"]
    assert body_runs == []
    assert tracer.count("after_tool_call") == 0
    assert agent.take_snapshot()["interruptState"]["pendingToolExecution"]["completedToolResults"] == []


@pytest.mark.req("ROC-HOOK-021")
def test_same_name_from_two_callbacks_in_one_firing() -> None:
    cbs = Callbacks(
        (BeforeToolsEvent, lambda e: e.interrupt("n")), (BeforeToolsEvent, lambda e: e.interrupt("n"))
    )
    agent, _ = make([[use("t1", "ok")], [text("x")]], cbs)
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.DUPLICATE_INTERRUPT_NAME
    assert frozen(agent) == before


@pytest.mark.req("ROC-HOOK-021")
def test_same_name_from_another_callback_in_a_later_cycle_of_the_batch() -> None:
    def a(e: BeforeToolCallEvent) -> None:
        if e.tool_use.tool_use_id == "t1" and e.agent.state.get("a-done") is None:
            e.agent.state.set("a-done", e.interrupt("n"))

    def b(e: BeforeToolCallEvent) -> None:
        if e.tool_use.tool_use_id == "t1" and e.agent.state.get("a-done") is not None:
            e.interrupt("n")  # A's name: must not silently receive A's answer

    agent, _ = make(
        [[use("t1", "ok"), use("t2", "ask")], [text("x")]],
        Callbacks((BeforeToolCallEvent, a), (BeforeToolCallEvent, b)),
        executor=ConcurrentExecutor(),
    )
    first = agent("go")
    n = next(i for i in first.interrupts if i.name == "n")
    ask_i = next(i for i in first.interrupts if i.name == "ask")
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent([answer(n.id, "A's answer")])
    assert info.value.code == ErrorCode.DUPLICATE_INTERRUPT_NAME
    assert frozen(agent) == before
    assert ask_i.id in {i.id for i in agent.interrupts}


@pytest.mark.req("ROC-HOOK-022")
def test_one_callback_raising_the_same_name_twice() -> None:
    def twice(e: BeforeToolCallEvent) -> None:
        e.interrupt("n")
        e.interrupt("n")

    agent, _ = make([[use("t1", "ok")], [text("x")]], Callbacks((BeforeToolCallEvent, twice)))
    first = agent("go")
    with pytest.raises(RocError) as info:
        agent(answers(first, "y"))
    assert info.value.code == ErrorCode.DUPLICATE_INTERRUPT_NAME


@pytest.mark.req("ROC-HOOK-023", "ROC-TOOL-015")
def test_same_name_in_different_scopes_is_no_clash() -> None:
    @tool
    def same(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("approve")

    def gate(e: BeforeToolCallEvent) -> None:
        if e.tool_use.tool_use_id == "t1":
            e.interrupt("approve")

    agent, _ = make(
        [[use("t1", "same"), use("t2", "same"), use("t3", "same")], [text("x")]],
        Callbacks((BeforeToolCallEvent, gate)),
        tools=[same],
        executor=ConcurrentExecutor(),
    )
    r = agent("go")
    assert [(i.source.kind, i.source.tool_use_id) for i in r.interrupts] == [
        ("before_tool_call", "t1"),
        ("tool", "t2"),
        ("tool", "t3"),
    ]
    r = agent(answers(r, "yes"))
    assert [(i.source.kind, i.source.tool_use_id) for i in r.interrupts] == [("tool", "t1")]
    assert len({i.id for i in r.interrupts} | {i.id for i in agent.interrupts}) == 1
    r = agent(answers(r, "yes"))
    assert r.stop_reason == "end_turn"


def test_interrupt_outside_of_callbacks_is_refused() -> None:
    event = BeforeToolsEvent(agent=None, message=None)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        event.interrupt("x")


@pytest.mark.req("ROC-HOOK-015")
def test_only_before_tools_and_before_tool_call_are_interruptible() -> None:
    from roc_reference import InterruptibleEvent, MessageAddedEvent

    interruptible = {BeforeToolsEvent, BeforeToolCallEvent}
    for event_type in (
        BeforeInvocationEvent,
        AfterInvocationEvent,
        BeforeModelCallEvent,
        AfterModelCallEvent,
        MessageAddedEvent,
        AfterToolCallEvent,
        AfterToolsEvent,
        BeforeToolsEvent,
        BeforeToolCallEvent,
    ):
        assert issubclass(event_type, InterruptibleEvent) == (event_type in interruptible)
        assert hasattr(event_type, "interrupt") == (event_type in interruptible)
