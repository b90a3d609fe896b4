"""RoC 1.1 inputs through a file session: a decision and an abandon are claimed, saved and recovered exactly
like a resume (ROC-SESSION-018..021), so a second agent on the same session can never act on the batch twice.

Uses ``claimapp``: one BeforeTools approval for two transfers; declining it cancels the batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claimapp import build, executions, fail_end_save
from roc_reference import ABANDON_TEXT, DECLINE_TEXT
from roc_reference.errors import SessionConflictError
from roc_reference.sessions import FileSessionManager, FileSessionStore


def _pause(root: Path) -> str:
    root.mkdir()
    result = build(root)("pay")
    assert result.stop_reason == "interrupt"
    (only,) = result.interrupts
    return only.id


def _stored(root: Path) -> dict[str, Any]:
    doc = FileSessionManager("claims", FileSessionStore(root)).load()
    assert doc is not None
    return doc


def _decline(interrupt_id: str) -> list[dict[str, Any]]:
    return [{"interruptResponse": {"interruptId": interrupt_id, "decision": "decline"}}]


def _results(doc: dict[str, Any]) -> list[str]:
    return [
        block["toolResult"]["content"][0]["text"]
        for message in doc["agent"]["messages"]
        for block in message["content"]
        if "toolResult" in block
    ]


@pytest.mark.parametrize("how", ["decline", "abandon"])
def test_an_agent_loaded_before_the_first_one_finished_is_refused(tmp_path: Path, how: str) -> None:
    root = tmp_path / "s"
    interrupt_id = _pause(root)
    first, second = build(root), build(root)
    if how == "decline":
        assert first(_decline(interrupt_id)).stop_reason == "end_turn"
    else:
        assert first.abandon().stop_reason == "abandoned"
    # ROC-SESSION-012: the second agent built on the revision the first one replaced
    with pytest.raises(SessionConflictError):
        second.abandon()
    with pytest.raises(SessionConflictError):
        second(_decline(interrupt_id))
    assert executions(root) == []  # no transfer ran, in any agent
    doc = _stored(root)
    assert doc["interruptState"]["activated"] is False
    shown = DECLINE_TEXT if how == "decline" else ABANDON_TEXT
    assert _results(doc) == [shown, shown]
    # a fresh agent sees the finished session: nothing to abandon
    assert not build(root).is_interrupted


@pytest.mark.parametrize("how", ["decline", "abandon-continue"])
def test_a_failed_end_save_is_recovered_with_the_claimed_input(tmp_path: Path, how: str) -> None:
    root = tmp_path / "s"
    interrupt_id = _pause(root)
    agent = build(root)
    fail_end_save(agent)

    def send() -> object:
        if how == "decline":
            return agent(_decline(interrupt_id))
        return agent.abandon("gone", then="continue")

    with pytest.raises(OSError, match="No space left"):
        send()
    assert agent.is_interrupted  # rolled back to the claimed revision
    other = build(root)
    with pytest.raises(SessionConflictError):  # the claim stands until it is recovered
        other.abandon()
    # ROC-SESSION-021: recovery runs the claimed input again, the decision or the abandon it recorded
    result = other.recover()
    assert result is not None
    assert result.stop_reason == "end_turn"
    shown = DECLINE_TEXT if how == "decline" else "gone"
    assert _results(_stored(root)) == [shown, shown]
    assert executions(root) == []
