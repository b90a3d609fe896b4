"""The reference adapter records MessageAdded only once the history holds the message (ROC-HOOK-003).

The spec asks for the event after the append. A recorder that copied the event's message would record an
event fired too early just the same, so the adapter checks the history at the moment the callback runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from roc_reference.agent import Agent
from roc_reference.harness.build import build_agent
from roc_reference.hooks import MessageAddedEvent

SPEC: dict[str, Any] = {
    "agentId": "message-added",
    "executor": "sequential",
    "model": {
        "turns": [
            {"content": [{"toolUse": {"toolUseId": "t1", "name": "plain", "input": {}}}]},
            {"content": [{"text": "done"}]},
        ]
    },
    "tools": [{"name": "plain", "steps": [{"return": {"value": 1}}]}],
}


def _roles(trace: list[dict[str, Any]]) -> list[Any]:
    return [e["role"] for e in trace if e["kind"] == "message_added"]


def test_every_append_is_recorded_in_order() -> None:
    built = build_agent(SPEC)
    built.agent.invoke("go")
    assert _roles(built.trace.take()) == [m.role for m in built.agent.messages]


def test_an_event_fired_before_its_append_is_not_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    def early(self: Agent, message: Any) -> None:
        self.hooks.invoke(MessageAddedEvent(self, message))
        self._messages.append(message)

    monkeypatch.setattr(Agent, "_append", early)
    built = build_agent(SPEC)
    built.agent.invoke("go")
    assert len(built.agent.messages) == 4
    assert _roles(built.trace.take()) == []
