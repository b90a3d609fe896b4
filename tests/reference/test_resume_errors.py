"""Resume input validation and errors as values that change nothing (spec 3.4 and chapter 7)."""

from __future__ import annotations

from typing import Any

import pytest
from refsupport import Tracer, answer, answers, assert_schema_valid, frozen, text, use
from roc_reference import Agent, ConcurrentExecutor, InterruptResponseBlock, ScriptedModel, ToolContext, tool
from roc_reference.errors import ErrorCode, RocError

RUNS: list[Any] = []


@tool
def ask(tool_context: ToolContext, q: str) -> Any:
    got = tool_context.interrupt(q)
    RUNS.append(got)
    return got


def interrupted(n: int = 2) -> tuple[Agent, list[str], ScriptedModel, Tracer]:
    RUNS.clear()
    tracer = Tracer()
    model = ScriptedModel([[use(f"t{i}", "ask", q=f"q{i}") for i in range(n)], [text("done")]])
    agent = Agent(model, tools=[ask], hooks=[tracer], executor=ConcurrentExecutor())
    result = agent("go")
    tracer.clear()
    return agent, [i.id for i in result.interrupts], model, tracer


def rejected(agent: Agent, tracer: Tracer, model: ScriptedModel, bad: Any) -> RocError:
    """Send ``bad``; assert the agent did not change and nothing ran; return the error."""
    before = frozen(agent)
    calls = model.calls
    with pytest.raises(RocError) as info:
        agent(bad)
    assert frozen(agent) == before
    assert model.calls == calls
    assert tracer.events == []  # no hook event, no callback, no body
    assert RUNS == []
    err = info.value.to_json()
    assert_schema_valid("error", err)
    assert err["message"]
    return info.value


@pytest.mark.req("ROC-RESUME-002", "ROC-RESUME-010", "ROC-RESUME-011", "ROC-ERR-001", "ROC-ERR-003")
def test_string_prompt_while_interrupted() -> None:
    agent, _, model, tracer = interrupted()
    assert rejected(agent, tracer, model, "hello").code == ErrorCode.INTERRUPT_PENDING


@pytest.mark.req("ROC-RESUME-002", "ROC-RESUME-010", "ROC-RESUME-011")
@pytest.mark.parametrize("kind", ["text", "mixed", "toolResult", "not-a-block"])
def test_other_content_while_interrupted(kind: str) -> None:
    agent, ids, model, tracer = interrupted()
    bad: list[Any] = {
        "text": [{"text": "hi"}],
        "mixed": [answer(ids[0], "y"), {"text": "hi"}],
        "toolResult": [{"toolResult": {"toolUseId": "t0", "status": "success", "content": []}}],
        "not-a-block": [answer(ids[0], "y"), "y"],
    }[kind]
    assert rejected(agent, tracer, model, bad).code == ErrorCode.INTERRUPT_PENDING


@pytest.mark.req("ROC-RESUME-003")
def test_empty_list_while_interrupted() -> None:
    agent, _, model, tracer = interrupted()
    assert rejected(agent, tracer, model, []).code == ErrorCode.INVALID_RESUME


@pytest.mark.req("ROC-RESUME-004")
@pytest.mark.parametrize(
    "body",
    [
        {"response": "y"},
        {"interruptId": 7, "response": "y"},
        {"interruptId": "", "response": "y"},
        {"interruptId": "ID", "response": "y", "status": "resolved"},
        "not-an-object",
    ],
)
def test_malformed_interrupt_response(body: Any) -> None:
    agent, ids, model, tracer = interrupted()
    if isinstance(body, dict) and body.get("interruptId") == "ID":
        body = {**body, "interruptId": ids[0]}
    assert rejected(agent, tracer, model, [{"interruptResponse": body}]).code == ErrorCode.INVALID_RESUME


def test_block_with_extra_member_is_malformed() -> None:
    agent, ids, model, tracer = interrupted()
    bad = [{**answer(ids[0], "y"), "text": "extra"}]
    assert rejected(agent, tracer, model, bad).code == ErrorCode.INVALID_RESUME


@pytest.mark.req("ROC-RESUME-005", "ROC-ERR-005")
@pytest.mark.parametrize("missing", [False, True])
def test_null_or_missing_response(missing: bool) -> None:
    agent, ids, model, tracer = interrupted()
    block: dict[str, Any] = (
        {"interruptResponse": {"interruptId": ids[0]}} if missing else answer(ids[0], None)
    )
    err = rejected(agent, tracer, model, [block])
    assert err.code == ErrorCode.INVALID_RESPONSE
    assert err.details == {"interruptId": ids[0]}


@pytest.mark.req("ROC-RESUME-007", "ROC-ERR-005")
def test_unknown_id() -> None:
    agent, ids, model, tracer = interrupted()
    err = rejected(agent, tracer, model, [answer(ids[0], "y"), answer("nope", "y")])
    assert err.code == ErrorCode.UNKNOWN_INTERRUPT
    assert err.details == {"interruptId": "nope"}


@pytest.mark.req("ROC-RESUME-008", "ROC-ERR-005")
def test_same_id_twice_even_with_equal_responses() -> None:
    agent, ids, model, tracer = interrupted()
    err = rejected(agent, tracer, model, [answer(ids[0], "y"), answer(ids[0], "y")])
    assert err.code == ErrorCode.DUPLICATE_RESPONSE
    assert err.details == {"interruptId": ids[0]}


@pytest.mark.req("ROC-RESUME-009", "ROC-RESUME-001", "ROC-ANSWER-006")
@pytest.mark.parametrize("falsy", [False, 0, "", {}, []])
def test_falsy_answers_are_answers(falsy: Any) -> None:
    agent, ids, _, _ = interrupted(1)
    result = agent([answer(ids[0], falsy)])
    assert result.stop_reason == "end_turn"
    assert [falsy] == RUNS
    assert type(RUNS[0]) is type(falsy)


def test_typed_interrupt_response_blocks_are_accepted() -> None:
    agent, ids, _, _ = interrupted(1)
    block = InterruptResponseBlock.model_validate(answer(ids[0], "typed"))
    assert agent([block]).stop_reason == "end_turn"
    assert RUNS == ["typed"]


@pytest.mark.req("ROC-RESUME-012", "ROC-RESUME-013")
@pytest.mark.parametrize("bad", [[answer("x", "y")], [{"text": "hi"}, answer("x", "y")], [answer("x", None)]])
def test_answers_to_an_idle_agent(bad: Any) -> None:
    RUNS.clear()
    tracer = Tracer()
    model = ScriptedModel([[text("hi")], [text("again")]])
    agent = Agent(model, hooks=[tracer])
    agent("hello")
    tracer.clear()
    assert rejected(agent, tracer, model, bad).code == ErrorCode.NOT_INTERRUPTED


@pytest.mark.req("ROC-RESUME-013")
def test_resume_input_is_never_appended() -> None:
    agent, ids, _, _ = interrupted(1)
    agent([answer(ids[0], "y")])
    assert [m.role for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert not any(
        "interruptResponse" in b for m in agent.take_snapshot()["agent"]["messages"] for b in m["content"]
    )


@pytest.mark.req("ROC-RESUME-014")
@pytest.mark.parametrize(
    ("make_bad", "code"),
    [
        (lambda ids: [{"text": "x"}, {"interruptResponse": {}}], ErrorCode.INTERRUPT_PENDING),
        (lambda ids: [{"interruptResponse": {}}, answer(ids[0], None)], ErrorCode.INVALID_RESUME),
        (
            lambda ids: [answer(ids[0], "a"), answer(ids[0], "b"), answer("nope", None)],
            ErrorCode.INVALID_RESPONSE,
        ),
        (
            lambda ids: [answer("nope", "a"), answer(ids[0], "b"), answer(ids[0], "c")],
            ErrorCode.DUPLICATE_RESPONSE,
        ),
    ],
)
def test_multi_fault_inputs_report_the_first_code_in_order(make_bad: Any, code: ErrorCode) -> None:
    agent, ids, model, tracer = interrupted()
    assert rejected(agent, tracer, model, make_bad(ids)).code == code


@pytest.mark.req("ROC-ERR-002", "ROC-ERR-004", "ROC-ERR-007")
def test_error_values_are_closed_and_exclusive() -> None:
    agent, _, model, tracer = interrupted()
    err = rejected(agent, tracer, model, "x")
    assert err.code in set(ErrorCode)
    doc = err.to_json()
    assert set(doc) <= {"code", "message", "details"}
    assert "details" not in doc or isinstance(doc["details"], dict)


@pytest.mark.req("ROC-ERR-009")
def test_expired_answer_is_refused() -> None:
    agent, ids, _, _ = interrupted(1)
    doc = agent.take_snapshot()
    doc["interruptState"]["interrupts"][0]["expiresAt"] = "2000-01-01T00:00:00Z"
    restored = Agent.from_snapshot(doc, model=ScriptedModel([[text("done")]]), tools=[ask])
    before = frozen(restored)
    with pytest.raises(RocError) as info:
        restored([answer(ids[0], "late")])
    assert info.value.code == ErrorCode.EXPIRED
    assert frozen(restored) == before


@pytest.mark.req("ROC-ERR-010")
def test_invalid_prompt_to_an_idle_agent_is_refused_without_change() -> None:
    agent = Agent(ScriptedModel([[text("hi")]]))
    before = frozen(agent)
    for bad in ([], [{"toolUse": {"toolUseId": "t", "name": "x", "input": {}}}], [{}], [{"text": 5}], 42):
        with pytest.raises(RocError) as info:
            agent(bad)
        assert info.value.code == ErrorCode.INVALID_INPUT
    assert frozen(agent) == before


def test_answers_after_partial_resume_keep_the_answered_ones() -> None:
    agent, ids, _, _ = interrupted(2)
    second = agent([answer(ids[1], "B")])
    assert [i.id for i in second.interrupts] == [ids[0]]
    result = agent(answers(second, "A"))
    assert result.stop_reason == "end_turn"
    assert sorted(RUNS) == ["A", "B"]


@pytest.mark.req("ROC-SEC-001")
def test_resume_guard_can_refuse_before_any_answer_is_stored() -> None:
    seen: list[Any] = []

    def guard(interrupts: list[Any], responses: list[Any]) -> None:
        seen.append(([i.name for i in interrupts], [r.response for r in responses]))
        if any(r.response == "forged" for r in responses):
            raise PermissionError("not allowed to answer")

    RUNS.clear()
    model = ScriptedModel([[use("t0", "ask", q="q0")], [text("done")]])
    agent = Agent(model, tools=[ask], resume_guard=guard)
    first = agent("go")
    before = frozen(agent)
    with pytest.raises(PermissionError):
        agent(answers(first, "forged"))
    assert frozen(agent) == before
    assert RUNS == []
    assert agent(answers(first, "fine")).stop_reason == "end_turn"
    assert seen == [(["q0"], ["forged"]), (["q0"], ["fine"])]


@pytest.mark.req("ROC-SEC-009")
def test_resume_input_size_bound() -> None:
    RUNS.clear()
    model = ScriptedModel([[use("t0", "ask", q="q0"), use("t1", "ask", q="q1")], [text("done")]])
    agent = Agent(model, tools=[ask], executor=ConcurrentExecutor(), max_resume_blocks=1)
    first = agent("go")
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent(answers(first, "y"))
    assert info.value.code == ErrorCode.INVALID_RESUME
    assert frozen(agent) == before


@pytest.mark.req("ROC-RESUME-006")
@pytest.mark.parametrize("bad", [float("nan"), {1: "x"}, object()])
def test_non_json_response(bad: Any) -> None:
    agent, ids, model, tracer = interrupted()
    assert rejected(agent, tracer, model, [answer(ids[0], bad)]).code == ErrorCode.INVALID_RESPONSE


@pytest.mark.req("ROC-ERR-001")
def test_a_direct_call_with_an_input_that_is_not_json_is_invalid_input() -> None:
    agent = Agent(ScriptedModel([[text("hi")]]), tools=[ask])
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent.tool.ask(q=float("nan"))
    assert info.value.code == ErrorCode.INVALID_INPUT
    assert frozen(agent) == before
