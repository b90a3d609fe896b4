"""Streaming an invocation (spec chapter 17, profile streaming): the events of ``Agent.stream``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from refsupport import answer, frozen, text, use, validator
from roc_reference import (
    Agent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    SequentialExecutor,
    ToolContext,
    tool,
)
from roc_reference.errors import RocError
from roc_reference.streaming import ErrorEvent, InterruptEvent, ResultEvent, StreamEvent
from roc_reference.types import AgentResult

STREAM = validator("stream-event")

RELEASED = threading.Event()
"""Set by a consumer when it receives the interrupt named ``q`` (see ``waits_for_q``)."""
WAITED: list[bool] = []


@tool
def ask(tool_context: ToolContext, q: str = "q") -> Any:
    return tool_context.interrupt(q, reason={"ask": q})


@tool
def waits_for_q() -> str:
    # Ends only once the consumer has seen the sibling's question: a runtime that held the event until every
    # sibling ended would make this wait run into its timeout (ROC-STREAM-005).
    WAITED.append(RELEASED.wait(timeout=10))
    return "waited"


@tool
def ok() -> str:
    return "ok"


TOOLS = [ask, waits_for_q, ok]


@pytest.fixture(autouse=True)
def _reset() -> None:
    RELEASED.clear()
    WAITED.clear()


def collect(
    agent: Agent, prompt: Any, on_event: Callable[[StreamEvent], None] | None = None
) -> list[StreamEvent]:
    async def run() -> list[StreamEvent]:
        events: list[StreamEvent] = []
        async for event in agent.stream(prompt):
            if on_event is not None:
                on_event(event)
            events.append(event)
        return events

    return asyncio.run(run())


def release_on_q(event: StreamEvent) -> None:
    if isinstance(event, InterruptEvent) and event.interrupt.name == "q":
        RELEASED.set()


def invoked(agent: Agent, prompt: Any) -> dict[str, Any]:
    """The last event ``invoke`` stands for: its result or its error, as JSON."""
    try:
        return {"result": agent.invoke(prompt).to_json()}
    except RocError as error:
        return {"error": error.to_json()}


def twins(
    turns: list[list[dict[str, Any]]], *, concurrent: bool = False, hooks: Any = ()
) -> tuple[Agent, Agent]:
    def make() -> Agent:
        executor = ConcurrentExecutor() if concurrent else SequentialExecutor()
        return Agent(ScriptedModel(turns), tools=TOOLS, hooks=list(hooks), executor=executor)

    return make(), make()


def check_shape(events: list[StreamEvent]) -> AgentResult | None:
    """ROC-STREAM-001..003 for one stream; the result when the last event is one."""
    for event in events:
        STREAM.validate(event.to_json())
    *early, last = events
    assert all(isinstance(e, InterruptEvent) for e in early)
    assert isinstance(last, ResultEvent | ErrorEvent)
    if isinstance(last, ErrorEvent):
        return None
    streamed = [e.to_json()["interrupt"] for e in early if isinstance(e, InterruptEvent)]
    reported = [i.to_json() for i in last.result.interrupts]
    assert len({i["id"] for i in streamed}) == len(streamed)  # exactly once
    assert sorted(streamed, key=lambda i: i["id"]) == sorted(reported, key=lambda i: i["id"])
    return last.result


@pytest.mark.req("ROC-STREAM-001", "ROC-STREAM-004")
def test_a_completed_invocation_streams_its_result_alone_as_invoke_gives_it() -> None:
    streamed, plain = twins([[text("t"), use("t1", "ok")], [text("done")]])
    events = collect(streamed, "go")
    assert [type(e) for e in events] == [ResultEvent]
    assert events[-1].to_json() == invoked(plain, "go")
    assert frozen(streamed) == frozen(plain)
    assert streamed.messages_json() == plain.messages_json()


@pytest.mark.req("ROC-STREAM-001", "ROC-STREAM-002", "ROC-STREAM-003", "ROC-STREAM-004")
def test_an_interrupt_is_streamed_once_before_the_result_and_the_resume_matches_invoke() -> None:
    streamed, plain = twins([[text("t"), use("t1", "ask", q="a")], [text("done")]])
    events = collect(streamed, "go")
    result = check_shape(events)
    assert result is not None
    assert [type(e) for e in events] == [InterruptEvent, ResultEvent]
    assert events[-1].to_json() == invoked(plain, "go")
    assert frozen(streamed) == frozen(plain)
    reply = [answer(result.interrupts[0].id, "yes")]
    events = collect(streamed, reply)
    assert [type(e) for e in events] == [ResultEvent]
    assert events[-1].to_json() == invoked(plain, reply)
    assert streamed.messages_json() == plain.messages_json()


@pytest.mark.req("ROC-STREAM-005", "ROC-STREAM-002")
def test_concurrent_question_is_streamed_before_a_running_sibling_ends() -> None:
    streamed, plain = twins(
        [[text("t"), use("t1", "ask", q="q"), use("t2", "waits_for_q")], [text("done")]], concurrent=True
    )
    events = collect(streamed, "go", release_on_q)
    assert WAITED == [True]  # the sibling saw the event while it still ran
    result = check_shape(events)
    assert result is not None
    assert result.stop_reason == "interrupt"
    RELEASED.set()  # the twin's sibling must not wait: invoke streams nothing
    assert events[-1].to_json() == invoked(plain, "go")


@pytest.mark.req("ROC-STREAM-002", "ROC-STREAM-003")
def test_carried_over_interrupts_are_streamed_at_the_stop() -> None:
    turns = [
        [text("t"), use("t1", "ask", q="a"), use("t2", "ask", q="b"), use("t3", "ask", q="c")],
        [text("done")],
    ]
    first = Agent(ScriptedModel(turns), tools=TOOLS, executor=ConcurrentExecutor())
    stopped = first("go")
    doc = first.take_snapshot()
    b = next(i for i in stopped.interrupts if i.name == "b")

    def restored() -> Agent:  # sequential: t1 asks again and the cycle stops before t2 and t3 run
        model = ScriptedModel(turns)
        return Agent.from_snapshot(doc, model=model, tools=TOOLS, executor=SequentialExecutor())

    streamed, plain = restored(), restored()
    reply = [answer(b.id, "B")]
    events = collect(streamed, reply)
    result = check_shape(events)
    assert result is not None
    assert {i.name for i in result.interrupts} == {"a", "c"}
    # "a" was raised again by t1's body; "c" (its unit did not run) comes when the invocation stops.
    assert [e.interrupt.name for e in events if isinstance(e, InterruptEvent)] == ["a", "c"]
    assert events[-1].to_json() == invoked(plain, reply)


class BatchQuestion:
    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolsEvent, lambda e: e.interrupt("batch", reason="all of them?"))


@pytest.mark.req("ROC-STREAM-002")
def test_a_batch_interrupt_is_streamed_before_the_result() -> None:
    streamed, plain = twins([[text("t"), use("t1", "ok")], [text("done")]], hooks=[BatchQuestion()])
    events = collect(streamed, "go")
    result = check_shape(events)
    assert result is not None
    assert [i.name for i in result.interrupts] == ["batch"]
    assert events[-1].to_json() == invoked(plain, "go")


@pytest.mark.req("ROC-STREAM-001", "ROC-STREAM-004")
def test_a_refused_input_ends_the_stream_with_invokes_error_and_changes_nothing() -> None:
    streamed, plain = twins([[text("t"), use("t1", "ask", q="a")], [text("done")]])
    collect(streamed, "go")
    plain("go")
    before = frozen(streamed)
    events = collect(streamed, "another prompt")
    assert [type(e) for e in events] == [ErrorEvent]
    assert events[-1].to_json() == invoked(plain, "another prompt")
    assert events[-1].to_json()["error"]["code"] == "INTERRUPT_PENDING"
    assert frozen(streamed) == before


@pytest.mark.req("ROC-STREAM-004")
def test_a_consumer_that_stops_early_leaves_the_agent_as_invoke_does() -> None:
    streamed, plain = twins(
        [[text("t"), use("t1", "ask", q="q"), use("t2", "waits_for_q")], [text("done")]], concurrent=True
    )

    async def first_only() -> StreamEvent:
        async for event in streamed.stream("go"):
            RELEASED.set()
            return event
        raise AssertionError("no event")

    first = asyncio.run(first_only())
    assert isinstance(first, InterruptEvent)
    with streamed._lock:  # the invocation ends on its own thread; the lock waits for it
        pass
    invoked(plain, "go")
    assert frozen(streamed) == frozen(plain)


def test_each_event_matches_the_stream_event_schema() -> None:
    assert not STREAM.is_valid({"interrupt": {"id": "x"}, "result": {}})
    assert not STREAM.is_valid({})
    assert not STREAM.is_valid({"progress": 1})


@pytest.mark.req("ROC-STREAM-002", "ROC-STREAM-003")
def test_a_sub_agents_question_is_streamed_once_as_the_outer_tool_uses_own() -> None:
    inner = Agent(
        ScriptedModel([[text("t"), use("c1", "ask", q="inner")], [text("inner done")]]), tools=TOOLS
    )
    inner_twin = Agent(
        ScriptedModel([[text("t"), use("c1", "ask", q="inner")], [text("inner done")]]), tools=TOOLS
    )

    def outer(sub: Agent) -> Agent:
        turns = [[text("t"), use("t1", "helper", prompt="clean up")], [text("done")]]
        return Agent(ScriptedModel(turns), tools=[sub.as_tool("helper")])

    streamed, plain = outer(inner), outer(inner_twin)
    events = collect(streamed, "go")
    result = check_shape(events)
    assert result is not None
    assert [i.source.kind for i in result.interrupts] == ["agent_as_tool"]
    assert events[-1].to_json() == invoked(plain, "go")
    reply = [answer(result.interrupts[0].id, "yes")]
    events = collect(streamed, reply)
    assert [type(e) for e in events] == [ResultEvent]
    assert events[-1].to_json() == invoked(plain, reply)
