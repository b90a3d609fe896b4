"""Audit through a file session (spec 10.7): the metadata of a claimed resume input is recorded with the
claim, so an invocation recovered after a failed end save keeps it with the answers as the first run would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claimapp import fail_end_save
from roc_reference import Agent, ConcurrentExecutor, ScriptedModel, ToolContext, tool
from roc_reference.errors import SessionConflictError
from roc_reference.sessions import FileSessionManager, FileSessionStore

WHO = {"answeredBy": "alice", "answeredAt": "2026-12-06T06:30:00Z"}


@tool
def ask(tool_context: ToolContext, q: str) -> Any:
    return tool_context.interrupt(q)


def build(root: Path) -> Agent:
    turns = [[{"toolUse": {"toolUseId": f"t{i}", "name": "ask", "input": {"q": f"q{i}"}}} for i in (0, 1)]]
    return Agent(
        ScriptedModel([*turns, [{"text": "done"}]]),
        tools=[ask],
        executor=ConcurrentExecutor(),
        session=FileSessionManager("audit", FileSessionStore(root)),
    )


def _stored(root: Path) -> dict[str, dict[str, Any]]:
    doc = FileSessionManager("audit", FileSessionStore(root)).load()
    assert doc is not None
    return {i["id"]: i for i in doc["interruptState"]["interrupts"]}


@pytest.mark.req("ROC-AUDIT-003", "ROC-SESSION-021")
def test_a_recovered_invocation_keeps_the_metadata_of_its_claimed_input(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    first = build(root)("go")
    q0 = first.interrupts[0].id
    agent = build(root)
    fail_end_save(agent)
    block = [{"interruptResponse": {"interruptId": q0, "response": "yes", "metadata": WHO}}]
    with pytest.raises(OSError, match="No space left"):
        agent(block)
    other = build(root)
    with pytest.raises(SessionConflictError):
        other(block)
    result = other.recover()
    assert result is not None
    assert result.stop_reason == "interrupt"
    assert _stored(root)[q0]["responseMetadata"] == WHO
