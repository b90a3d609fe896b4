"""Harness protocol 6, profile questions: the kit's ``ask`` step and ``AgentSpec.builtinTools``, and the
reference adapter that puts them on the runtime's question API and its built-in ``ask_user`` tool."""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.adapter import ScenarioError, StateView, parse_scenario
from roc_conformance.adapter.programs import HOOK_OPS, TOOL_OPS, parse_steps, run_program
from roc_conformance.scenarios import agent_spec, text, tool, tool_use, turn
from roc_conformance.wire import agent_spec_from_proto, agent_spec_to_proto
from roc_reference.harness.build import build_agent

QUESTION = {"question": "Go ahead?", "options": [{"label": "yes"}, {"label": "no"}]}


def _state() -> StateView:
    store: dict[str, Any] = {}
    return StateView(get=store.get, has=lambda k: k in store, put=store.__setitem__)


@pytest.mark.req("ROC-ASK-001")
def test_ask_is_a_step_of_tools_and_interruptible_hooks() -> None:
    assert "ask" in TOOL_OPS
    assert "ask" in HOOK_OPS
    (step,) = parse_steps([{"ask": {"name": "q", "question": QUESTION}}], TOOL_OPS, "steps")
    assert step.op == "ask"
    with pytest.raises(ScenarioError):
        parse_steps([{"ask": {"name": "q"}}], TOOL_OPS, "steps")
    with pytest.raises(ScenarioError):
        parse_steps([{"ask": {"question": QUESTION}}], TOOL_OPS, "steps")


@pytest.mark.req("ROC-ASK-005")
def test_an_ask_step_collects_the_answer_like_an_interrupt_step() -> None:
    asked: list[tuple[str, Any]] = []

    def ask(name: str, question: Any) -> Any:
        asked.append((name, question))
        return {"selected": ["yes"]}

    steps = parse_steps([{"ask": {"name": "q", "question": QUESTION}}, {"return": {}}], TOOL_OPS, "steps")
    run = run_program(steps, interrupt=None, state=_state(), ask=ask)
    assert asked == [("q", QUESTION)]
    assert run.answers == [{"selected": ["yes"]}]
    with pytest.raises(ScenarioError):
        run_program(steps, interrupt=None, state=_state())  # an adapter without a question API


@pytest.mark.req("ROC-ASK-006")
def test_builtin_tools_are_parsed_and_checked() -> None:
    spec = agent_spec("a", turns=[turn(text("hi"))], tools=[tool("x", {"return": {}})])
    assert parse_scenario(spec).builtin_tools == ()
    assert parse_scenario({**spec, "builtinTools": ["ask_user"]}).builtin_tools == ("ask_user",)
    for bad in (["ask_user", "ask_user"], ["x"], [""], "ask_user"):
        with pytest.raises(ScenarioError):
            parse_scenario({**spec, "builtinTools": bad})


@pytest.mark.req("ROC-ASK-006")
def test_the_reference_adapter_offers_ask_user_and_refuses_other_names() -> None:
    spec = agent_spec(
        "a",
        turns=[turn(tool_use("t1", "ask_user", {"questions": [QUESTION]})), turn(text("done"))],
    )
    built = build_agent({**spec, "builtinTools": ["ask_user"]})
    result = built.agent("go")
    assert [i.name for i in result.interrupts] == ["q1"]
    assert [e["kind"] for e in built.trace.take() if e["kind"].startswith("tool_")] == [
        "tool_start",
        "tool_end",
    ]
    with pytest.raises(ScenarioError):
        build_agent({**spec, "builtinTools": ["web_search"]})


def test_the_wire_carries_ask_steps_and_builtin_tools() -> None:
    spec = agent_spec(
        "a", turns=[turn(text("hi"))], tools=[tool("x", {"ask": {"name": "q", "question": QUESTION}})]
    )
    doc = {**spec, "builtinTools": ["ask_user"]}
    message = agent_spec_to_proto(doc)
    assert list(message.builtin_tools) == ["ask_user"]
    assert message.tools[0].steps[0].ask.name == "q"
    back = agent_spec_from_proto(message)
    assert back["builtinTools"] == ["ask_user"]
    assert back["tools"][0]["steps"][0] == {"ask": {"name": "q", "question": QUESTION}}
