"""Model providers: the ``Model`` protocol and ``ScriptedModel``, a fixed script of turns for tests."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .types import ContentBlock, Message, StopReason, TextBlock, ToolUseBlock

EXHAUSTED_TEXT = "script exhausted"


@dataclass(frozen=True)
class ModelTurn:
    """One model answer: an assistant message and why the model stopped."""

    message: Message
    stop_reason: StopReason


class Model(Protocol):
    """What the agent loop needs from a model: the next assistant turn for a history."""

    def call(self, messages: Sequence[Message]) -> ModelTurn: ...


class ScriptedModel:
    """Answers from a fixed list of turns.

    The turn used is the number of assistant messages in the history it is given. With deferred
    appends every earlier model call left exactly one assistant message behind, so call ``i`` uses
    ``turns[i]`` — also after the agent was restored into a fresh process with a fresh model.
    A turn with a toolUse ends with ``tool_use``, otherwise ``end_turn``. Past the end of the script
    the model answers ``[{"text": "script exhausted"}]`` (``end_turn``), so an extra call is visible.
    """

    def __init__(self, turns: Sequence[Sequence[ContentBlock | dict[str, Any]] | Message]) -> None:
        self.turns: list[Message] = [
            t if isinstance(t, Message) else Message.model_validate({"role": "assistant", "content": list(t)})
            for t in turns
        ]
        self.calls = 0
        self.turn_indexes: list[int] = []
        self._lock = threading.Lock()

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        index = sum(1 for m in messages if m.role == "assistant")
        with self._lock:
            self.calls += 1
            self.turn_indexes.append(index)
        if index >= len(self.turns):
            return ModelTurn(Message(role="assistant", content=[TextBlock(text=EXHAUSTED_TEXT)]), "end_turn")
        message = self.turns[index]
        uses_tools = any(isinstance(b, ToolUseBlock) for b in message.content)
        return ModelTurn(message, "tool_use" if uses_tools else "end_turn")
