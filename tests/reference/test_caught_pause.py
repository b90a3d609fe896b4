"""A unit that catches its own pause does not undo it (ROC-REPLAY-009): the interrupt stands and what the
unit then returned, or how it failed, is discarded."""

from __future__ import annotations

from typing import Any

import pytest
from refsupport import answer, text, use
from roc_reference import Agent, BeforeToolCallEvent, HookRegistry, ScriptedModel, ToolContext, tool


@tool
def stubborn(tool_context: ToolContext) -> Any:
    try:
        got = tool_context.interrupt("approve")
    except BaseException:
        return "ran anyway"
    return f"approved: {got}"


@tool
def stubborn_failing(tool_context: ToolContext) -> Any:
    try:
        tool_context.interrupt("approve")
    except BaseException:
        raise RuntimeError("gave up") from None
    return "never"


class SwallowingHook:
    def register_hooks(self, registry: HookRegistry, **_: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.before)

    def before(self, event: BeforeToolCallEvent) -> None:
        try:
            event.interrupt("gate")
        except BaseException:
            return


@pytest.mark.req("ROC-REPLAY-009")
@pytest.mark.parametrize("body", [stubborn, stubborn_failing], ids=["returns", "fails"])
def test_a_tool_that_catches_its_pause_still_pauses(body: Any) -> None:
    agent = Agent(ScriptedModel([[use("t1", body.name)], [text("done")]]), tools=[body])
    paused = agent("go")
    assert paused.stop_reason == "interrupt"
    assert [i.name for i in paused.interrupts] == ["approve"]
    assert agent.messages[-1].role == "user"  # no result of the batch entered the history
    if body is stubborn:
        done = agent([answer(paused.interrupts[0].id, "yes")])
        assert done.stop_reason == "end_turn"
        results = [b for m in agent.messages for b in m.to_json()["content"] if "toolResult" in b]
        assert results[0]["toolResult"]["content"] == [{"text": "approved: yes"}]


@pytest.mark.req("ROC-REPLAY-009")
def test_a_callback_that_catches_its_pause_still_pauses() -> None:
    ran: list[str] = []

    @tool
    def act() -> str:
        ran.append("act")
        return "acted"

    agent = Agent(ScriptedModel([[use("t1", "act")], [text("done")]]), tools=[act], hooks=[SwallowingHook()])
    paused = agent("go")
    assert paused.stop_reason == "interrupt"
    assert [i.name for i in paused.interrupts] == ["gate"]
    assert ran == []  # ROC-HOOK-018: the body never ran
