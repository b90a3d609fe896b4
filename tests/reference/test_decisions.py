"""RoC 1.1 in the reference runtime: every way an agent is interrupted, driven to idle by each input.

Layers: a tool body, a BeforeToolCall callback, BeforeTools callbacks; executors: sequential and concurrent.
Inputs: answer, decline, cancel (with and without message), abandon (end, continue), expiry. Also partial
inputs and continuing after restore from a snapshot. Every rejected input leaves the agent exactly as it was.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest
from decisionkit import (
    EXECUTORS,
    EXPIRES_AT,
    LATE_OUTCOME,
    LAYERS,
    Layer,
    World,
    decide,
    drive,
    index_of,
    results_of,
)
from refsupport import answer, assert_schema_valid, frozen
from roc_reference import (
    ABANDON_TEXT,
    CANCEL_TEXT,
    DECLINE_TEXT,
    EXPIRY_TEXT,
    Agent,
    AgentResult,
    ConcurrentExecutor,
    InterruptDeclined,
    ScriptedModel,
    ToolContext,
    pending_interrupts_of,
    tool,
)
from roc_reference.errors import ErrorCode, RocError

CASES = [(layer, executor) for layer in LAYERS for executor in EXECUTORS]


def _start(layer: Layer, executor: str, **kwargs: Any) -> tuple[World, Agent, AgentResult]:
    world = World(layer, executor, **kwargs)
    agent = world.agent()
    first = agent("go")
    assert first.stop_reason == "interrupt"
    # a sequential executor stops at the first interrupted tool use (ROC-EXEC); otherwise both are reported
    assert len(first.interrupts) == (1 if layer != "before_tools" and executor == "sequential" else 2)
    return world, agent, first


def _ids(result: AgentResult) -> list[str]:
    return [i.id for i in result.interrupts]


def _finished(agent: Agent, result: AgentResult) -> None:
    assert result.stop_reason == "end_turn"
    assert not agent.is_interrupted
    assert agent.pending_interrupts() == []
    assert agent.last_message is not None
    assert agent.last_message.content[0].model_dump() == {"text": "finished"}


def _rejected(agent: Agent, action: Any, code: ErrorCode) -> RocError:
    """``action`` is refused with ``code`` and the agent is exactly as it was (ROC-RESUME-010)."""
    before = frozen(agent)
    pending = agent.pending_interrupts()
    with pytest.raises(RocError) as info:
        action()
    assert info.value.code == code, info.value
    assert frozen(agent) == before
    assert agent.pending_interrupts() == pending
    return info.value


def _first_pending(agent: Agent) -> dict[str, Any]:
    return agent.pending_interrupts()[0]


# --- answer, decline, cancel -------------------------------------------------------------------


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_answers_complete_the_batch(layer: Layer, executor: str) -> None:
    world, agent, first = _start(layer, executor)
    _finished(agent, drive(agent, first, lambda n, i: answer(i.id, "y")))
    assert results_of(agent) == world.expected_results([None, None])
    assert dict(world.completed) == {"t1": 1, "t2": 1}


@pytest.mark.parametrize(("layer", "executor"), CASES)
@pytest.mark.parametrize(
    ("decision", "message", "shown"),
    [
        ("decline", None, DECLINE_TEXT),
        ("decline", "no, not these files", "no, not these files"),
        ("decline", "", ""),  # ROC-DECIDE-007: an empty message is the message
        ("cancel", None, CANCEL_TEXT),
        ("cancel", "later", "later"),
    ],
)
def test_decisions_give_the_default_outcome_of_the_layer(
    layer: Layer, executor: str, decision: str, message: str | None, shown: str
) -> None:
    world, agent, first = _start(layer, executor)
    _finished(agent, drive(agent, first, lambda n, i: decide(i.id, decision, message)))
    assert results_of(agent) == world.expected_results([shown, shown])
    assert sum(world.completed.values()) == 0  # no body ran for a refused tool use
    if layer == "before_tool_call":  # ROC-DECIDE-005: AfterToolCall fires as for a cancelled tool
        assert [e[2] for e in world.tracer.kinds("after_tool_call")] == ["error", "error"]
    if layer == "before_tools":  # ROC-CANCEL-005: a cancelled batch fires no per-tool event
        assert world.tracer.count("after_tool_call") == 0


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_answers_and_decisions_mix(layer: Layer, executor: str) -> None:
    world, agent, first = _start(layer, executor)
    plan = lambda n, i: answer(i.id, "y") if n == 0 else decide(i.id, "decline", "not t2")  # noqa: E731
    _finished(agent, drive(agent, first, plan))
    assert results_of(agent) == world.expected_results([None, "not t2"])


def _decide_first_only(agent: Agent, first: AgentResult) -> tuple[str, AgentResult]:
    """Cancel the first interrupt alone: the agent stops again with the second one (ROC-DECIDE-001)."""
    one = first.interrupts[0].id
    again = agent([decide(one, "cancel")])
    assert again.stop_reason == "interrupt"
    assert [index_of(i) for i in again.interrupts] == [1]
    return one, again


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_partial_decision_keeps_the_rest_pending(layer: Layer, executor: str) -> None:
    world, agent, first = _start(layer, executor)
    one, again = _decide_first_only(agent, first)
    (two,) = _ids(again)
    listed = agent.pending_interrupts()  # ROC-PENDING-001/002: the decided one is still pending, decided
    assert [(p["id"], p.get("answer")) for p in listed] == [(one, {"decision": "cancel"}), (two, None)]
    for entry in listed:
        assert_schema_valid("pending-interrupt", entry)
    # ROC-DECIDE-008: a decided interrupt is no longer unanswered
    error = _rejected(agent, lambda: agent([answer(one, "y")]), ErrorCode.UNKNOWN_INTERRUPT)
    assert "alreadyAnswered" not in (error.details or {})  # ROC-RESEND-002: a different block
    error = _rejected(agent, lambda: agent([decide(one, "cancel")]), ErrorCode.UNKNOWN_INTERRUPT)
    assert error.details == {"interruptId": one, "alreadyAnswered": [one]}  # ROC-RESEND-001
    _finished(agent, agent([answer(two, "y")]))
    assert results_of(agent) == world.expected_results([CANCEL_TEXT, None])
    assert all(n == 1 for n in world.completed.values())
    # ROC-RESEND-001: after completion, both consumed blocks are recognised; a bogus one is not
    resend = [decide(one, "cancel"), answer(two, "y"), answer(two, "n"), answer("bogus", "y")]
    error = _rejected(agent, lambda: agent(resend), ErrorCode.NOT_INTERRUPTED)
    assert error.details == {"alreadyAnswered": [one, two]}


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_decisions_continue_after_restore(layer: Layer, executor: str) -> None:
    world, agent, first = _start(layer, executor)
    one, again = _decide_first_only(agent, first)
    doc = agent.take_snapshot()
    assert doc["schemaVersion"] == "2.3"
    assert doc["specVersion"] == "1.3"
    assert_schema_valid("snapshot", doc)
    stored = {i["id"]: i for i in doc["interruptState"]["interrupts"]}
    assert stored[one]["decision"] == "cancel"
    assert "response" not in stored[one]
    assert "message" not in stored[one]
    # ROC-PENDING-004: the stored document lists what the writer lists, without restoring it
    assert pending_interrupts_of(copy.deepcopy(doc)) == agent.pending_interrupts()
    restored = world.restore(doc)
    assert restored.pending_interrupts() == agent.pending_interrupts()
    _finished(restored, drive(restored, again, lambda n, i: answer(i.id, "y")))
    assert results_of(restored) == world.expected_results([CANCEL_TEXT, None])
    # ROC-RESEND-003: the consumed record survives snapshot and restore
    twice = world.restore(restored.take_snapshot())
    error = _rejected(twice, lambda: twice([decide(one, "cancel")]), ErrorCode.NOT_INTERRUPTED)
    assert error.details == {"alreadyAnswered": [one]}


# --- abandon -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("layer", "executor"), CASES)
@pytest.mark.parametrize("message", [None, "stop everything"])
def test_abandon_end(layer: Layer, executor: str, message: str | None) -> None:
    world, agent, first = _start(layer, executor)
    agent([decide(_ids(first)[0], "decline")])  # ROC-ABANDON-001: whatever the pending interrupts are
    world.tracer.clear()
    result = agent.abandon(message)
    # ROC-ABANDON-005
    assert result.stop_reason == "abandoned"
    assert result.interrupts == []
    assert result.message.tool_uses() == first.message.tool_uses()
    assert not agent.is_interrupted
    assert agent.pending_interrupts() == []
    assert_schema_valid("agent-result", result.to_json())
    shown = ABANDON_TEXT if message is None else message
    # ROC-ABANDON-003: a preserved result stays; every other tool use gets the abandon text
    expected = [("error", shown), ("error", shown)]
    if layer != "before_tools":
        expected[0] = ("error", DECLINE_TEXT)
    assert results_of(agent) == expected
    # ROC-ABANDON-004: no tool body, no tool hook, no model call
    assert [e[0] for e in world.tracer.events] == [
        "invocation_start",
        "message_added",
        "message_added",
        "invocation_end",
    ]
    assert sum(world.completed.values()) == 0
    # the next prompt is an ordinary one
    assert agent("again").stop_reason == "end_turn"


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_abandon_continue_calls_the_model(layer: Layer, executor: str) -> None:
    world, agent, _ = _start(layer, executor)
    world.tracer.clear()
    result = agent.abandon(then="continue")
    _finished(agent, result)
    assert results_of(agent) == [("error", ABANDON_TEXT)] * 2
    assert world.tracer.count("model_call") == 1
    assert world.tracer.count("before_tool_call") == 0
    assert world.tracer.count("before_tools") == 0


@pytest.mark.req("ROC-ABANDON-002", "ROC-ABANDON-006")
def test_abandon_refusals_change_nothing() -> None:
    world = World("tool")
    agent = world.agent()
    _rejected(agent, lambda: agent.abandon(), ErrorCode.NOT_INTERRUPTED)  # ROC-ABANDON-002
    agent("go")
    _rejected(agent, lambda: agent.abandon(3), ErrorCode.INVALID_INPUT)  # type: ignore[arg-type]
    _rejected(agent, lambda: agent.abandon(then="later"), ErrorCode.INVALID_INPUT)  # type: ignore[arg-type]
    assert agent.abandon().stop_reason == "abandoned"
    _rejected(agent, lambda: agent.abandon(), ErrorCode.NOT_INTERRUPTED)


def test_abandon_after_restore() -> None:
    world = World("before_tool_call", "concurrent")
    agent = world.agent()
    agent("go")
    restored = world.restore(agent.take_snapshot())
    assert restored.abandon("gone").stop_reason == "abandoned"
    assert results_of(restored) == [("error", "gone")] * 2


# --- expiry --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("layer", "executor"), CASES)
def test_expiry_resolves_what_the_input_leaves_open(layer: Layer, executor: str) -> None:
    world, agent, result = _start(layer, executor, expiring=True)
    world.clock.pass_expiry()
    expiry_texts = {0: EXPIRY_TEXT, 1: "too late"}
    outcomes: dict[int, str] = {}
    while result.stop_reason == "interrupt":
        for interrupt in result.interrupts:
            # ROC-EXPIRY-001/002: reported unchanged
            assert interrupt.expires_at == EXPIRES_AT
            expected = LATE_OUTCOME if index_of(interrupt) == 1 else None
            assert interrupt.on_expiry == expected
            assert interrupt.to_json().get("onExpiry") == expected
            # ROC-EXPIRY-004: an answer to an expired interrupt is EXPIRED and changes nothing
            error = _rejected(agent, lambda i=interrupt: agent([answer(i.id, "y")]), ErrorCode.EXPIRED)
            assert error.details == {"interruptId": interrupt.id}
        head, *rest = result.interrupts
        outcomes[index_of(head)] = DECLINE_TEXT
        for other in rest:  # ROC-EXPIRY-005: what the input leaves open resolves by its expiry outcome
            outcomes[index_of(other)] = expiry_texts[index_of(other)]
        result = agent([decide(head.id, "decline")])  # ROC-DECIDE-009: accepted although expired
    _finished(agent, result)
    assert results_of(agent) == world.expected_results([outcomes[0], outcomes[1]])


@pytest.mark.parametrize("layer", LAYERS)
def test_expiry_default_outcome(layer: Layer) -> None:
    world, agent, first = _start(layer, "concurrent", expiring=True)
    _one, two = _ids(first)
    world.clock.pass_expiry()
    listed = agent.pending_interrupts()
    assert all("answer" not in p for p in listed)  # ROC-PENDING-003: listing resolves nothing
    _finished(agent, agent([decide(two, "cancel", "by hand")]))
    assert results_of(agent) == world.expected_results([EXPIRY_TEXT, "by hand"])


def test_expiry_outcome_stays_stored_and_listed_while_the_batch_is_pending() -> None:
    world = World("tool")

    @tool(name="act")
    def act(n: int, tool_context: ToolContext) -> str:
        if n == 1:
            return str(tool_context.interrupt("plain"))
        try:
            return str(tool_context.interrupt("first", expires_at=EXPIRES_AT))
        except InterruptDeclined as declined:  # handled: ask something else
            return f"{declined.text} / {tool_context.interrupt('second')}"

    turns = [[{"toolUse": {"toolUseId": f"t{n}", "name": "act", "input": {"n": n}}} for n in (0, 1)]]
    model = ScriptedModel([*turns, [{"text": "finished"}]])
    agent = Agent(model, tools=[act], executor=ConcurrentExecutor(), clock=world.clock)
    _first, plain = _ids(agent("go"))
    world.clock.pass_expiry()
    again = agent([answer(plain, "y")])
    assert [i.name for i in again.interrupts] == ["second"]
    listed = {p["name"]: p.get("answer") for p in agent.pending_interrupts()}
    assert listed == {
        "first": {"decision": "decline", "message": EXPIRY_TEXT},  # ROC-EXPIRY-005, ROC-PENDING-002
        "plain": {"decision": "answer", "response": "y"},
        "second": None,
    }
    _finished(agent, agent([answer(again.interrupts[0].id, "ok")]))
    assert results_of(agent) == [("success", f"{EXPIRY_TEXT} / ok"), ("success", "y")]


@pytest.mark.parametrize(
    ("kwargs", "bad"),
    [
        ({"expires_at": "2030-01-01T00:00:00"}, "no zone"),
        ({"expires_at": "2030-13-01T00:00:00Z"}, "month 13"),
        ({"expires_at": "tomorrow"}, "not a date"),
        ({"expires_at": 5}, "not a string"),
        ({"on_expiry": {"decision": "answer"}}, "answer"),
        ({"on_expiry": {"decision": "decline", "message": 3}}, "message not a string"),
        ({"on_expiry": {"decision": "decline", "extra": 1}}, "extra member"),
        ({"on_expiry": {}}, "no decision"),
        ({"on_expiry": "decline"}, "not an object"),
    ],
)
def test_bad_expiry_at_the_raise_is_invalid_reason(kwargs: dict[str, Any], bad: str) -> None:
    @tool(name="act")
    def act(tool_context: ToolContext) -> str:
        tool_context.interrupt("q", **kwargs)
        return "x"

    agent = Agent(
        ScriptedModel([[{"toolUse": {"toolUseId": "t1", "name": "act", "input": {}}}]]), tools=[act]
    )
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON, bad
    assert frozen(agent) == before


# --- resume validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"decision": "refuse"}, ErrorCode.INVALID_RESUME),
        ({"decision": None}, ErrorCode.INVALID_RESUME),
        ({"decision": "decline", "response": "y"}, ErrorCode.INVALID_RESUME),
        ({"decision": "cancel", "response": None}, ErrorCode.INVALID_RESUME),
        ({"response": "y", "message": "m"}, ErrorCode.INVALID_RESUME),
        ({"decision": "answer", "response": "y", "message": "m"}, ErrorCode.INVALID_RESUME),
        ({"decision": "decline", "message": 3}, ErrorCode.INVALID_RESUME),
        ({"decision": "decline", "message": None}, ErrorCode.INVALID_RESUME),
        ({"decision": "answer"}, ErrorCode.INVALID_RESPONSE),
        ({"decision": "decline", "metadata": []}, ErrorCode.INVALID_RESPONSE),
    ],
)
def test_malformed_decisions(body: dict[str, Any], code: ErrorCode) -> None:
    _, agent, first = _start("tool", "sequential")
    block = {"interruptResponse": {"interruptId": first.interrupts[0].id, **body}}
    _rejected(agent, lambda: agent([block]), code)  # ROC-DECIDE-002


def test_precedence_inside_one_input() -> None:
    # ROC-RESUME-014: INVALID_RESUME (a malformed decision) before INVALID_RESPONSE, DUPLICATE, UNKNOWN
    _, agent, first = _start("tool", "sequential")
    one = first.interrupts[0].id
    bad = {"interruptResponse": {"interruptId": one, "decision": "decline", "response": 1}}
    _rejected(agent, lambda: agent([answer("nope", None), bad]), ErrorCode.INVALID_RESUME)
    _rejected(
        agent, lambda: agent([decide(one, "decline"), decide(one, "cancel")]), ErrorCode.DUPLICATE_RESPONSE
    )
    _rejected(
        agent, lambda: agent([decide("nope", "decline"), answer(one, None)]), ErrorCode.INVALID_RESPONSE
    )


def test_decision_with_metadata_is_accepted_and_metadata_not_stored() -> None:
    _, agent, first = _start("tool", "concurrent")
    one, _ = _ids(first)
    agent([decide(one, "decline", "m", metadata={"who": "ana"})])
    assert agent.pending_interrupts()[0]["answer"] == {"decision": "decline", "message": "m"}


def test_interrupt_pending_lists_the_pending_interrupts() -> None:
    _, agent, first = _start("before_tool_call", "sequential")
    agent([decide(_ids(first)[0], "cancel")])
    error = _rejected(agent, lambda: agent("hello"), ErrorCode.INTERRUPT_PENDING)
    assert error.details == {"pending": agent.pending_interrupts()}  # ROC-PENDING-005
    error = _rejected(agent, lambda: agent.tool.act(n=1), ErrorCode.INTERRUPT_PENDING)
    assert error.details == {"pending": agent.pending_interrupts()}


def test_unit_that_handles_the_decision_goes_on() -> None:
    seen: list[tuple[str, str | None, str, str, str, str]] = []

    @tool(name="act")
    def act(tool_context: ToolContext) -> str:
        try:
            return str(tool_context.interrupt("q"))
        except InterruptDeclined as declined:  # ROC-DECIDE-003: kind and message reach the unit
            seen.append(
                (
                    declined.decision,
                    declined.message,
                    declined.text,
                    str(declined),
                    declined.name,
                    declined.interrupt_id,
                )
            )
            return "skipped"

    model = ScriptedModel([[{"toolUse": {"toolUseId": "t1", "name": "act", "input": {}}}]])
    agent = Agent(model, tools=[act])
    (only,) = agent("go").interrupts
    agent([decide(only.id, "decline")])
    assert seen == [("decline", None, DECLINE_TEXT, DECLINE_TEXT, "q", only.id)]
    assert results_of(agent) == [("success", "skipped")]


def test_a_naive_clock_reads_utc() -> None:
    @tool(name="act")
    def act(tool_context: ToolContext) -> str:
        return str(tool_context.interrupt("q", expires_at="2030-01-01T12:00:00+02:00"))  # 10:00 UTC

    model = ScriptedModel([[{"toolUse": {"toolUseId": "t1", "name": "act", "input": {}}}]])
    for hour, code in ((9, None), (10, ErrorCode.EXPIRED)):  # ROC-EXPIRY-003: "at or before" expires
        agent = Agent(model, tools=[act], clock=lambda hour=hour: datetime(2030, 1, 1, hour))
        (only,) = agent("go").interrupts
        if code is None:
            assert agent([answer(only.id, "y")]).stop_reason == "end_turn"
        else:
            _rejected(agent, lambda agent=agent, only=only: agent([answer(only.id, "y")]), code)


@pytest.mark.parametrize("layer", LAYERS)
def test_the_pending_list_keeps_the_raise_order_when_a_later_one_is_answered_first(layer: Layer) -> None:
    # ROC-PENDING-001 ordered as ROC-STOP-010: by tool use, then by the callbacks' registration order
    _, agent, first = _start(layer, "concurrent")
    one, two = _ids(first)
    again = agent([decide(two, "cancel")])
    if layer == "before_tools":  # the batch stops again before any tool
        assert _ids(again) == [one]
    assert [p["id"] for p in agent.pending_interrupts()] == [one, two]
