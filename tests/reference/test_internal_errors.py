"""INTERNAL: a failing model ends the invocation with an Error, never a crash (ROC-ERR-011), and the batches
that completed before it stay, so a retry runs no approved tool twice (ROC-ERR-012)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from refsupport import answer, assert_schema_valid, frozen, text, use
from roc_reference import Agent, ScriptedModel, ToolContext, tool
from roc_reference.errors import ErrorCode, RocError
from roc_reference.models import ModelTurn
from roc_reference.types import Message

RUNS: list[Any] = []


@tool
def delete(tool_context: ToolContext, path: str) -> Any:
    answer_ = tool_context.interrupt("approve")
    RUNS.append((path, answer_))
    return "deleted"


class FailingAfter(ScriptedModel):
    """A scripted model whose calls fail from call number ``fail_from`` on (a provider outage)."""

    def __init__(self, turns: Sequence[Sequence[Any]], fail_from: int) -> None:
        super().__init__(turns)
        self.fail_from = fail_from

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        if self.calls + 1 >= self.fail_from:
            self.calls += 1
            raise ConnectionError("provider unavailable")
        return super().call(messages)


@pytest.mark.req("ROC-ERR-011", "ROC-ERR-001")
def test_a_failing_first_model_call_is_internal_and_changes_nothing() -> None:
    agent = Agent(FailingAfter([[text("hi")]], fail_from=1))
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INTERNAL
    assert_schema_valid("error", info.value.to_json())
    assert frozen(agent) == before


@pytest.mark.req("ROC-ERR-012")
def test_a_model_failing_after_an_approved_batch_keeps_that_batch() -> None:
    RUNS.clear()
    model = FailingAfter([[use("t1", "delete", path="a.txt")], [text("done")]], fail_from=2)
    agent = Agent(model, tools=[delete])
    paused = agent("clean up")
    with pytest.raises(RocError) as info:
        agent([answer(paused.interrupts[0].id, "yes")])
    assert info.value.code == ErrorCode.INTERNAL
    assert RUNS == [("a.txt", "yes")]
    # The completed batch stayed: idle, its messages in the history, nothing pending to approve again.
    roles = [m.role for m in agent.messages]
    assert roles == ["user", "assistant", "user"]
    assert agent.take_snapshot()["interruptState"]["activated"] is False
    model.fail_from = 99
    assert agent("go on").stop_reason == "end_turn"
    assert RUNS == [("a.txt", "yes")]  # the approved tool ran once
