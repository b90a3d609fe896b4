"""Graph and swarm orchestration: gates, node interrupts, routing, resume, result order (spec chapter 13)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from refsupport import Callbacks, answer, assert_schema_valid, text, use
from roc_reference import Agent, HookRegistry, ScriptedModel, ToolContext, tool
from roc_reference.decisions import DECLINE_TEXT
from roc_reference.errors import ErrorCode, RocError
from roc_reference.interrupts import interrupt_id
from roc_reference.orchestration import (
    AfterNodeCallEvent,
    BeforeNodeCallEvent,
    Graph,
    Swarm,
)
from roc_reference.types import Interrupt, ToolResult, ToolResultBlock

RUNS: Counter[str] = Counter()
"""Tool body runs by tool name (reset by the autouse fixture)."""


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    RUNS.clear()


@tool
def ask(tool_context: ToolContext) -> Any:
    RUNS["ask"] += 1
    return tool_context.interrupt("approve", {"q": 1}, metadata={"ui": "button"})


@tool
def work() -> str:
    RUNS["work"] += 1
    return "worked"


def node(agent_id: str, *turns: list[dict[str, Any]]) -> Agent:
    return Agent(ScriptedModel(list(turns)), tools=[ask, work], agent_id=agent_id)


def asking(agent_id: str, final: str) -> Agent:
    """A node agent whose first turn calls ``ask`` (tool use ``t1``), then answers ``final``."""
    return node(agent_id, [use("t1", "ask")], [text(final)])


def answering(agent_id: str, final: str) -> Agent:
    return node(agent_id, [text(final)])


def model_of(agent: Agent) -> ScriptedModel:
    model = agent.model
    assert isinstance(model, ScriptedModel)
    return model


def user_prompts(agent: Agent) -> list[str]:
    """The text of every user message that is a prompt (not a tool-result message)."""
    return [b.text for m in agent.messages if m.role == "user" for b in m.content if hasattr(b, "text")]


def tool_results(agent: Agent) -> list[ToolResult]:
    return [b.tool_result for m in agent.messages for b in m.content if isinstance(b, ToolResultBlock)]


def decide(interrupt_id_: str, kind: str, message: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"interruptId": interrupt_id_, "decision": kind}
    if message is not None:
        body["message"] = message
    return {"interruptResponse": body}


class NodeTrace:
    """Records BeforeNodeCall and AfterNodeCall firings as ``(event, node id, visit)``."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, int]] = []

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeNodeCallEvent, self._before)
        registry.add_callback(AfterNodeCallEvent, self._after)

    def _before(self, event: BeforeNodeCallEvent) -> None:
        self.events.append(("before", event.node_id, event.visit))

    def _after(self, event: AfterNodeCallEvent) -> None:
        self.events.append(("after", event.node_id, event.visit))


def error_code(call: Any) -> ErrorCode:
    with pytest.raises(RocError) as caught:
        call()
    return caught.value.code


# --- inside a node -------------------------------------------------------------------------


@pytest.mark.req("ROC-GRAPH-007", "ROC-GRAPH-011", "ROC-GRAPH-012", "ROC-GRAPH-014", "ROC-GRAPH-015")
def test_graph_node_interrupt_resumes_the_node_agent_and_keeps_completed_nodes() -> None:
    a = node("agent-a", [use("w1", "work")], [text("a done")])
    b = asking("agent-b", "b done")
    c = answering("agent-c", "c done")
    trace = NodeTrace()
    graph = Graph({"a": a, "b": b, "c": c}, [("a", "c"), ("b", "c")], hooks=[trace])

    first = graph.invoke("the task")

    assert first.stop_reason == "interrupt"
    assert list(first.results) == ["a"]
    [wrapped] = first.interrupts
    [inner] = b.interrupts
    assert wrapped.source.kind == "node"
    assert wrapped.source.node_id == "b"
    assert wrapped.source.inner is not None
    assert wrapped.source.inner.agent_id == "agent-b"
    assert wrapped.source.inner.interrupt_id == inner.id
    assert wrapped.source.inner.source == inner.source
    assert (wrapped.name, wrapped.reason, wrapped.metadata) == (inner.name, inner.reason, inner.metadata)
    # ROC-GRAPH-015: AfterNodeCall fired for a, not for the interrupted b, and c never started
    assert trace.events == [("before", "a", 1), ("after", "a", 1), ("before", "b", 1)]
    assert model_of(c).calls == 0

    second = graph.invoke([answer(wrapped.id, "yes")])

    assert second.stop_reason == "completed"
    assert second.interrupts == []
    assert {k: r.message.content[0].text for k, r in second.results.items()} == {  # type: ignore[union-attr]
        "a": "a done",
        "b": "b done",
        "c": "c done",
    }
    # ROC-GRAPH-014: a completed node never runs again: one model turn pair, one tool run, one gate
    assert model_of(a).turn_indexes == [0, 1]
    assert RUNS["work"] == 1
    # ROC-GRAPH-012: b was resumed (its model continued at turn 1), never prompted again
    assert model_of(b).turn_indexes == [0, 1]
    assert user_prompts(b) == ["the task"]
    assert RUNS["ask"] == 2  # the replayed body: the raise, then the answer
    assert [r.content[0].text for r in tool_results(b)] == ["yes"]  # type: ignore[union-attr]
    assert trace.events == [
        ("before", "a", 1),
        ("after", "a", 1),
        ("before", "b", 1),
        ("after", "b", 1),
        ("before", "c", 1),
        ("after", "c", 1),
    ]
    assert user_prompts(c) == ["the task\n\nInput from a:\na done\n\nInput from b:\nb done"]
    assert not graph.is_interrupted


@pytest.mark.req("ROC-GRAPH-008", "ROC-GRAPH-009", "ROC-GRAPH-011", "ROC-GRAPH-013")
def test_two_nodes_with_the_same_inner_id_get_distinct_ids_and_partial_answers_resume_one() -> None:
    left, right = asking("twin", "left done"), asking("twin", "right done")
    graph = Graph({"left": left, "right": right}, [])

    first = graph.invoke("task")

    # ROC-GRAPH-009: both nodes of the step ran although the first one stopped
    assert [i.source.node_id for i in first.interrupts] == ["left", "right"]
    [inner_left], [inner_right] = left.interrupts, right.interrupts
    assert inner_left.id == inner_right.id  # the same agent id and tool use: the same inner id
    ids = [i.id for i in first.interrupts]
    assert ids == [
        interrupt_id("node", 1, ("left",), "agent", inner_left.id),
        interrupt_id("node", 1, ("right",), "agent", inner_right.id),
    ]
    assert len(set(ids)) == 2

    # ROC-GRAPH-011: the answer reaches the left agent only; ROC-GRAPH-013: the right one is not invoked
    second = graph.invoke([answer(ids[0], "L")])

    assert second.stop_reason == "interrupt"
    assert [i.id for i in second.interrupts] == [ids[1]]  # the same id again
    assert list(second.results) == ["left"]
    assert not left.is_interrupted
    assert right.is_interrupted
    assert [i.id for i in right.interrupts] == [inner_right.id]
    assert model_of(right).calls == 1
    assert [r.content[0].text for r in tool_results(left)] == ["L"]  # type: ignore[union-attr]

    third = graph.invoke([answer(ids[1], "R")])

    assert third.stop_reason == "completed"
    assert [r.content[0].text for r in tool_results(right)] == ["R"]  # type: ignore[union-attr]
    assert model_of(left).calls == 2
    assert model_of(right).calls == 2


@pytest.mark.req("ROC-GRAPH-011")
def test_a_decline_of_a_node_interrupt_reaches_the_node_agent_as_a_decision() -> None:
    b = asking("agent-b", "b went on")
    graph = Graph({"b": b}, [])
    [wrapped] = graph.invoke("task").interrupts

    result = graph.invoke([decide(wrapped.id, "decline")])

    assert result.stop_reason == "completed"
    [declined] = tool_results(b)
    assert declined.status == "error"
    assert declined.content[0].text == DECLINE_TEXT  # type: ignore[union-attr]
    assert result.results["b"].message.content[0].text == "b went on"  # type: ignore[union-attr]


@pytest.mark.req("ROC-GRAPH-016")
def test_graph_results_are_in_declaration_order_whatever_the_completion_order() -> None:
    # "late" depends on "early", so early completes first; and "slow" interrupts while "quick" completes.
    late, early = answering("l", "late"), answering("e", "early")
    slow, quick = asking("s", "slow"), answering("q", "quick")
    graph = Graph({"late": late, "slow": slow, "early": early, "quick": quick}, [("early", "late")])

    first = graph.invoke("task")
    assert list(first.results) == ["early", "quick"]  # the declaration order of what completed
    result = graph.invoke([answer(first.interrupts[0].id, "ok")])

    assert result.stop_reason == "completed"
    assert list(result.results) == ["late", "slow", "early", "quick"]


# --- before a node runs --------------------------------------------------------------------


@pytest.mark.req("ROC-GRAPH-001", "ROC-GRAPH-002", "ROC-GRAPH-006", "ROC-GRAPH-008")
def test_before_node_call_fans_out_one_interrupt_per_callback_and_replays_with_answers() -> None:
    got: list[tuple[str, Any]] = []

    def gate(name: str) -> Any:
        def callback(event: BeforeNodeCallEvent) -> None:
            if event.node_id == "a":
                got.append((name, event.interrupt(name, f"may {name}?")))

        return callback

    a = answering("agent-a", "a done")
    graph = Graph(
        {"a": a}, [], hooks=[Callbacks((BeforeNodeCallEvent, gate("x")), (BeforeNodeCallEvent, gate("y")))]
    )

    first = graph.invoke("task")

    assert first.stop_reason == "interrupt"
    assert [(i.name, i.source.kind, i.source.node_id) for i in first.interrupts] == [
        ("x", "before_node_call", "a"),
        ("y", "before_node_call", "a"),
    ]
    x_id, y_id = (i.id for i in first.interrupts)
    assert x_id == interrupt_id("before_node_call", 1, ("a",), "0", "x")
    assert y_id == interrupt_id("before_node_call", 1, ("a",), "1", "y")
    assert model_of(a).calls == 0  # ROC-GRAPH-002: the agent is not invoked while the gate waits

    # partial: x answered, y raised again with its id; the answer of x stays stored for the next replay
    second = graph.invoke([answer(x_id, "X")])
    assert [i.id for i in second.interrupts] == [y_id]
    assert model_of(a).calls == 0
    assert got == [("x", "X")]

    third = graph.invoke([answer(y_id, "Y")])

    assert third.stop_reason == "completed"
    assert got == [("x", "X"), ("x", "X"), ("y", "Y")]  # ROC-GRAPH-006: the stored answer again
    assert model_of(a).calls == 1


@pytest.mark.req("ROC-GRAPH-003")
def test_two_callbacks_raising_one_name_fail_and_change_nothing() -> None:
    def raiser(event: BeforeNodeCallEvent) -> None:
        event.interrupt("same")

    a = answering("agent-a", "a done")
    graph = Graph(
        {"a": a}, [], hooks=[Callbacks((BeforeNodeCallEvent, raiser), (BeforeNodeCallEvent, raiser))]
    )

    assert error_code(lambda: graph.invoke("task")) == ErrorCode.DUPLICATE_INTERRUPT_NAME
    assert not graph.is_interrupted
    assert model_of(a).calls == 0


@pytest.mark.req("ROC-GRAPH-003")
def test_the_same_gate_name_for_two_nodes_is_no_clash() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        event.interrupt("approve")

    graph = Graph(
        {"a": answering("a", "a"), "b": answering("b", "b")},
        [],
        hooks=[Callbacks((BeforeNodeCallEvent, gate))],
    )

    result = graph.invoke("task")

    assert [i.source.node_id for i in result.interrupts] == ["a", "b"]
    assert len({i.id for i in result.interrupts}) == 2


@pytest.mark.req("ROC-GRAPH-004", "ROC-GRAPH-015")
def test_cancel_node_skips_the_node_and_its_successors() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        if event.node_id == "b":
            event.cancel_node = "not b"

    a, b, c, d = (answering(n, f"{n} done") for n in "abcd")
    trace = NodeTrace()
    graph = Graph(
        {"a": a, "b": b, "c": c, "d": d},
        [("a", "b"), ("b", "c"), ("a", "d")],
        hooks=[trace, Callbacks((BeforeNodeCallEvent, gate))],
    )

    result = graph.invoke("task")

    assert result.stop_reason == "completed"
    assert list(result.results) == ["a", "d"]
    assert result.cancelled == {"b": "not b"}
    assert model_of(b).calls == 0
    assert model_of(c).calls == 0
    assert ("after", "b", 1) not in trace.events  # ROC-GRAPH-015: not for a cancelled node
    assert ("before", "c", 1) not in trace.events


@pytest.mark.req("ROC-GRAPH-005", "ROC-GRAPH-004")
def test_a_declined_gate_cancels_the_node_with_the_decision_text() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        if event.node_id == "b":
            event.interrupt("run b?")

    a, b, c = (answering(n, f"{n} done") for n in "abc")
    graph = Graph({"a": a, "b": b, "c": c}, [("b", "c")], hooks=[Callbacks((BeforeNodeCallEvent, gate))])
    [gated] = graph.invoke("task").interrupts

    result = graph.invoke([decide(gated.id, "decline", "not today")])

    assert result.stop_reason == "completed"
    assert result.cancelled == {"b": "not today"}
    assert list(result.results) == ["a"]
    assert model_of(b).calls == 0
    assert model_of(c).calls == 0


# --- resume validation ---------------------------------------------------------------------


def _state(graph: Graph, *agents: Agent) -> Any:
    return (
        graph.is_interrupted,
        graph.pending_interrupts(),
        [(a.messages_json(), a.pending_interrupts(), model_of(a).calls) for a in agents],
        dict(RUNS),
    )


@pytest.mark.req("ROC-GRAPH-010")
def test_rejected_resume_inputs_change_nothing() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        if event.node_id == "g":
            event.interrupt("go?")

    b, g = asking("agent-b", "b done"), answering("agent-g", "g done")
    clock = [datetime(2030, 1, 1, tzinfo=UTC)]
    graph = Graph(
        {"b": b, "g": g}, [], hooks=[Callbacks((BeforeNodeCallEvent, gate))], clock=lambda: clock[0]
    )
    first = graph.invoke("task")
    node_id, gate_id = (i.id for i in first.interrupts)
    before = _state(graph, b, g)

    rejected: dict[ErrorCode, list[Any]] = {
        ErrorCode.INTERRUPT_PENDING: ["another task", [text("hello")], [answer(node_id, 1), text("x")]],
        ErrorCode.INVALID_RESUME: [
            [],
            [decide(node_id, "decline") | {"extra": 1}],
            [decide(node_id, "maybe")],
        ],
        ErrorCode.INVALID_RESPONSE: [[answer(node_id, None)]],
        ErrorCode.DUPLICATE_RESPONSE: [[answer(node_id, 1), answer(node_id, 2)]],
        ErrorCode.UNKNOWN_INTERRUPT: [[answer(node_id, 1), answer("roc1:node:1:b:agent:nope", 2)]],
    }
    for code, inputs in rejected.items():
        for bad in inputs:
            assert error_code(lambda bad=bad: graph.invoke(bad)) == code, bad
            assert _state(graph, b, g) == before

    result = graph.invoke([answer(node_id, "yes"), answer(gate_id, "go")])
    assert result.stop_reason == "completed"
    assert error_code(lambda: graph.invoke([answer(node_id, "again")])) == ErrorCode.NOT_INTERRUPTED


@pytest.mark.req("ROC-GRAPH-010")
def test_an_answer_to_an_expired_interrupt_is_refused_and_changes_nothing() -> None:
    @tool
    def deadline(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("approve", expires_at="2030-01-01T00:00:00Z")

    b = Agent(ScriptedModel([[use("t1", "deadline")], [text("b done")]]), tools=[deadline], agent_id="b")
    now = [datetime(2029, 1, 1, tzinfo=UTC)]
    graph = Graph({"b": b}, [], clock=lambda: now[0])
    [wrapped] = graph.invoke("task").interrupts
    assert wrapped.expires_at == "2030-01-01T00:00:00Z"
    now[0] = datetime(2031, 1, 1, tzinfo=UTC)
    before = _state(graph, b)

    assert error_code(lambda: graph.invoke([answer(wrapped.id, "late")])) == ErrorCode.EXPIRED
    assert _state(graph, b) == before


# --- swarm ---------------------------------------------------------------------------------


@pytest.mark.req("ROC-GRAPH-007", "ROC-GRAPH-012", "ROC-GRAPH-014", "ROC-GRAPH-017")
def test_swarm_handoff_target_interrupts_and_resumes_without_rerunning_the_handing_node() -> None:
    x = node("agent-x", [use("h1", "handoff_to", node="y")], [text("x done")])
    y = asking("agent-y", "y done")
    swarm = Swarm({"x": x, "y": y}, entry="x")

    first = swarm.invoke("task")

    assert first.stop_reason == "interrupt"
    [wrapped] = first.interrupts
    assert (wrapped.source.kind, wrapped.source.node_id) == ("node", "y")
    assert [r.node_id for r in first.results] == ["x"]
    assert user_prompts(y) == ["task\n\nInput from x:\nx done"]

    result = swarm.invoke([answer(wrapped.id, "ok")])

    assert result.stop_reason == "completed"
    assert [(r.node_id, r.visit) for r in result.results] == [("x", 1), ("y", 1)]
    assert model_of(x).turn_indexes == [0, 1]  # the handing node did not run again
    assert model_of(y).turn_indexes == [0, 1]  # resumed, not re-prompted
    assert user_prompts(y) == ["task\n\nInput from x:\nx done"]


@pytest.mark.req("ROC-GRAPH-017", "ROC-GRAPH-008")
def test_swarm_results_are_in_execution_order_with_a_visit_per_run() -> None:
    x = node("agent-x", [use("h1", "handoff_to", node="y")], [text("x first")], [text("x second")])
    y = node("agent-y", [use("h2", "handoff_to", node="x")], [text("y done")])
    swarm = Swarm({"y": y, "x": x}, entry="x")

    result = swarm.invoke("task")

    assert result.stop_reason == "completed"
    assert [(r.node_id, r.visit) for r in result.results] == [("x", 1), ("y", 1), ("x", 2)]
    assert [r.result.message.content[0].text for r in result.results] == [  # type: ignore[union-attr]
        "x first",
        "y done",
        "x second",
    ]


@pytest.mark.req("ROC-GRAPH-017")
def test_swarm_stops_following_handoffs_at_its_limit_and_refuses_unknown_targets() -> None:
    x = node(
        "agent-x", [use("h0", "handoff_to", node="nobody")], [use("h1", "handoff_to", node="y")], [text("x")]
    )
    y = node("agent-y", [use("h2", "handoff_to", node="x")], [text("y")])
    swarm = Swarm({"x": x, "y": y}, entry="x", max_handoffs=1)

    result = swarm.invoke("task")

    assert [r.node_id for r in result.results] == ["x", "y"]
    assert result.unfollowed_handoff == "x"
    refused = tool_results(x)[0]
    assert refused.status == "error"
    assert "nobody" in refused.content[0].text  # type: ignore[union-attr]


@pytest.mark.req("ROC-GRAPH-007")
def test_orchestrator_interrupts_are_valid_interrupt_documents() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        if event.node_id == "g":
            event.interrupt("go?", {"why": "check"})

    graph = Graph(
        {"b": asking("agent-b", "b"), "g": answering("agent-g", "g")},
        [],
        hooks=[Callbacks((BeforeNodeCallEvent, gate))],
    )
    wrapped, gated = graph.invoke("task").interrupts
    for interrupt in (wrapped, gated):
        doc = interrupt.to_json()
        assert_schema_valid("interrupt", doc)
        assert Interrupt.model_validate(doc) == interrupt
    assert wrapped.to_json()["source"]["inner"] == {
        "agentId": "agent-b",
        "interruptId": "roc1:tool:1:t1:body:approve",
        "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"},
    }
    assert gated.to_json()["source"] == {"kind": "before_node_call", "nodeId": "g"}


@pytest.mark.req("ROC-GRAPH-008", "ROC-GRAPH-002")
def test_a_gate_on_a_second_visit_has_an_id_of_its_own() -> None:
    def gate(event: BeforeNodeCallEvent) -> None:
        if event.node_id == "x" and event.visit == 2:
            event.interrupt("again?")

    x = node("agent-x", [use("h1", "handoff_to", node="y")], [text("x first")], [text("x second")])
    y = node("agent-y", [use("h2", "handoff_to", node="x")], [text("y done")])
    swarm = Swarm({"x": x, "y": y}, entry="x", hooks=[Callbacks((BeforeNodeCallEvent, gate))])

    first = swarm.invoke("task")

    [gated] = first.interrupts
    assert gated.id == interrupt_id("before_node_call", 2, ("x",), "0", "again?")
    assert [(r.node_id, r.visit) for r in first.results] == [("x", 1), ("y", 1)]
    assert model_of(x).calls == 2  # the second visit's agent call waits for the gate

    result = swarm.invoke([answer(gated.id, True)])

    assert [(r.node_id, r.visit) for r in result.results] == [("x", 1), ("y", 1), ("x", 2)]
    assert model_of(y).calls == 2


@pytest.mark.req("ROC-GRAPH-010")
def test_a_node_agent_resumed_behind_the_orchestrators_back_refuses_the_routed_answer() -> None:
    b = asking("agent-b", "b done")
    graph = Graph({"b": b}, [])
    [wrapped] = graph.invoke("task").interrupts
    [inner] = b.interrupts
    b.invoke([answer(inner.id, "direct")])  # the node agent is no longer paused
    before = _state(graph, b)

    assert error_code(lambda: graph.invoke([answer(wrapped.id, "late")])) == ErrorCode.UNKNOWN_INTERRUPT
    assert _state(graph, b) == before


@pytest.mark.req("ROC-GRAPH-010")
def test_a_task_while_interrupted_lists_the_orchestrators_pending_interrupts() -> None:
    graph = Graph({"b": asking("agent-b", "b")}, [])
    [wrapped] = graph.invoke("task").interrupts

    with pytest.raises(RocError) as caught:
        graph.invoke("another task")

    assert caught.value.code == ErrorCode.INTERRUPT_PENDING
    assert caught.value.details == {"pending": [wrapped.to_json()]}


@pytest.mark.req("ROC-GRAPH-008")
def test_a_new_task_makes_new_visits_and_new_ids() -> None:
    b = node("agent-b", [use("t1", "ask")], [text("b1")], [use("t2", "ask")], [text("b2")])
    graph = Graph({"b": b}, [])
    [first] = graph.invoke("task one").interrupts
    assert graph.invoke([answer(first.id, 1)]).stop_reason == "completed"

    [second] = graph.invoke("task two").interrupts

    assert first.id.startswith("roc1:node:1:b:")
    assert second.id.startswith("roc1:node:2:b:")


@pytest.mark.req("ROC-GRAPH-010")
def test_a_node_agent_that_refuses_its_routed_answers_leaves_the_orchestrator_as_it_was() -> None:
    refusals = [1]

    def guard(interrupts: list[Interrupt], responses: list[Any]) -> None:
        if refusals:
            refusals.pop()
            raise ValueError("not yet")

    b = Agent(ScriptedModel([[use("t1", "ask")], [text("b done")]]), tools=[ask], resume_guard=guard)
    graph = Graph({"a": answering("agent-a", "a done"), "b": b}, [])
    [wrapped] = graph.invoke("task").interrupts
    before = _state(graph, b)

    with pytest.raises(ValueError, match="not yet"):
        graph.invoke([answer(wrapped.id, "yes")])

    assert _state(graph, b) == before
    result = graph.invoke([answer(wrapped.id, "yes")])
    assert result.stop_reason == "completed"
    assert list(result.results) == ["a", "b"]
