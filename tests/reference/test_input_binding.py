"""The approved input is the input that runs (spec 10.2): nothing a caller holds aliases the agent.

Each test pauses a payment tool for approval of ``amount=5``, lets the caller edit what it holds (the result,
the history, the snapshot it restored from, the model's script) to 999, answers, and checks that the tool ran
with 5 and that every snapshot still carries the digest of the input with 5.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from refsupport import MemorySession, answers, use
from roc_reference import Agent, ScriptedModel, ToolContext, input_digest, tool
from roc_reference.errors import ErrorCode, RocError
from roc_reference.interrupts import InterruptState
from roc_reference.types import ToolUse

RAN: list[Any] = []
APPROVED = {"amount": 5, "to": ["acct", {"iban": "X"}]}


@tool
def pay(tool_context: ToolContext, amount: int, to: list[Any]) -> str:
    tool_context.interrupt("approve", reason={"amount": amount})
    RAN.append({"amount": amount, "to": to})
    return "paid"


def script() -> list[Any]:
    return [[use("t1", "pay", **copy.deepcopy(APPROVED))], [{"text": "done"}]]


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def paused() -> tuple[Agent, Any]:
    agent = Agent(ScriptedModel(script()), tools=[pay])
    result = agent("pay")
    assert result.stop_reason == "interrupt"
    return agent, result


def digest_in(doc: dict[str, Any]) -> str:
    (stored,) = doc["interruptState"]["interrupts"]
    return str(stored["inputDigest"])


def vandalize(tool_input: dict[str, Any]) -> None:
    """Edit a held tool input at the top and deep inside."""
    tool_input["amount"] = 999
    tool_input["to"][1]["iban"] = "ATTACKER"


@pytest.mark.req("ROC-SEC-016", "ROC-SNAP-006")
def test_editing_the_result_message_changes_neither_what_runs_nor_the_digest() -> None:
    agent, result = paused()
    vandalize(result.message.content[0].tool_use.input)
    result.interrupts[0].reason["amount"] = 999  # the reason a snapshot stores is not the caller's either
    doc = agent.take_snapshot()
    assert digest_in(doc) == input_digest(APPROVED)
    assert doc["interruptState"]["interrupts"][0]["reason"] == {"amount": 5}
    assert (
        doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"][0]["toolUse"]["input"]
        == APPROVED
    )
    agent(answers(result, True))
    assert RAN == [APPROVED]


@pytest.mark.req("ROC-SEC-016")
def test_editing_the_history_or_pending_interrupts_changes_nothing() -> None:
    agent, result = paused()
    agent.interrupts[0].reason["amount"] = 999
    assert agent.interrupts[0].reason == {"amount": 5}
    agent(answers(result, True))
    held = agent.messages
    vandalize(held[0 if held[0].role == "assistant" else 1].content[0].tool_use.input)
    uses = [m for m in agent.messages if m.role == "assistant" and m.tool_uses()]
    assert uses[0].tool_uses()[0].input == APPROVED


@pytest.mark.req("ROC-SEC-016")
def test_editing_the_json_history_or_the_last_message_changes_nothing() -> None:
    agent, result = paused()
    agent(answers(result, True))
    held = agent.messages_json()
    assert held == [m.to_json() for m in agent.messages]
    assistant = next(m for m in held if m["role"] == "assistant" and "toolUse" in m["content"][0])
    vandalize(assistant["content"][0]["toolUse"]["input"])
    last = agent.last_message
    assert last is not None
    assert last == agent.messages[-1]
    last.content.clear()
    uses = [m for m in agent.messages if m.role == "assistant" and m.tool_uses()]
    assert uses[0].tool_uses()[0].input == APPROVED
    assert agent.messages[-1].content


@pytest.mark.req("ROC-SEC-016", "ROC-SNAP-013")
def test_editing_the_restored_snapshot_dict_changes_neither_what_runs_nor_the_digest() -> None:
    original, result = paused()
    doc = original.take_snapshot()
    restored = Agent.from_snapshot(doc, model=ScriptedModel(script()), tools=[pay])
    vandalize(
        doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"][0]["toolUse"]["input"]
    )
    assert digest_in(restored.take_snapshot()) == input_digest(APPROVED)
    restored(answers(result, True))
    assert RAN == [APPROVED]


@pytest.mark.req("ROC-SEC-016")
def test_editing_the_models_script_after_the_stop_changes_nothing() -> None:
    model = ScriptedModel(script())
    agent = Agent(model, tools=[pay])
    result = agent("pay")
    vandalize(model.turns[0].content[0].tool_use.input)  # type: ignore[union-attr]
    agent(answers(result, True))
    assert RAN == [APPROVED]


@pytest.mark.req("ROC-SEC-016")
def test_an_answer_the_caller_edits_after_sending_is_not_what_the_tool_gets() -> None:
    seen: list[Any] = []

    @tool
    def ask(tool_context: ToolContext) -> str:
        seen.append(copy.deepcopy(tool_context.interrupt("q")))
        return "ok"

    session = MemorySession()
    agent = Agent(
        ScriptedModel([[use("t1", "ask")], [use("t2", "ask")], [{"text": "done"}]]),
        tools=[ask],
        session=session,
    )
    result = agent("go")
    answer = {"approved": [True]}
    agent(answers(result, answer))
    answer["approved"].append(False)
    assert seen == [{"approved": [True]}]


@pytest.mark.req("ROC-SEC-017", "ROC-SNAP-013")
def test_the_digest_is_taken_at_the_stop_and_checked_before_the_tool_runs() -> None:
    """Defence in depth: even when the pending input changes in memory, the tool does not run with it."""
    agent, result = paused()
    state: InterruptState = agent._interrupts
    assert state.pending is not None
    forged = state.pending.assistant_message.model_copy(
        update={
            "content": [
                state.pending.assistant_message.content[0].model_copy(
                    update={
                        "tool_use": ToolUse(tool_use_id="t1", name="pay", input={**APPROVED, "amount": 999})
                    }
                )
            ]
        }
    )
    state.pending = state.pending.model_copy(update={"assistant_message": forged})
    # The snapshot keeps the digest of the approved input, so a loader refuses the forged document.
    assert digest_in(agent.take_snapshot()) == input_digest(APPROVED)
    with pytest.raises(RocError) as raised:
        agent(answers(result, True))
    assert raised.value.code is ErrorCode.SNAPSHOT_INVALID
    assert RAN == []
    assert agent.is_interrupted  # the failed invocation left the agent as it was
