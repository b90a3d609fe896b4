"""The scripted model of the harness (conformance/README.md, "The scenario language").

Call ``i`` of an agent's model answers ``turns[offset + i]`` (``offset`` is a RestoreAgent's
``model_turn_offset``). A turn with a ``toolUse`` block stops with ``tool_use``, any other with
``end_turn``; past the end of the script the model answers ``[{"text": "script exhausted"}]`` with
``end_turn``. Every call records ``model_call{turn}`` before it answers. An adapter wraps ``ScriptedModel``
in whatever model interface its runtime expects, converting ``ModelReply.content`` (JSON) to its own types.
A sub-agent's model (a ``runAgent`` step, harness protocol 5) answers ``turns[n]`` for a history of ``n``
assistant messages instead (``reply_at(assistant_turns(history))``).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from roc_conformance.adapter.trace import Trace

EXHAUSTED_TEXT = "script exhausted"


@dataclass(frozen=True)
class ModelReply:
    """One answer of the scripted model: the assistant content (JSON blocks) and its stop reason."""

    turn: int
    content: list[Any]
    stop_reason: str  # "tool_use" | "end_turn"
    exhausted: bool = False  # past the script: content is the exhausted text


def assistant_turns(messages: Sequence[Any]) -> int:
    """How many assistant messages a history (JSON messages) holds: a sub-agent's next script index."""
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def uses_tools(content: Sequence[Any]) -> bool:
    """Whether assistant content asks for a tool (has a ``toolUse`` block)."""
    return any(isinstance(block, dict) and "toolUse" in block for block in content)


class ScriptedModel:
    """Answers the scenario's turns in order, from ``offset``; safe to call from several threads."""

    def __init__(self, turns: Sequence[Sequence[Any]], trace: Trace, offset: int = 0) -> None:
        self.turns = [list(t) for t in turns]
        self.trace = trace
        self._next = offset
        self._lock = threading.Lock()

    @property
    def next_turn(self) -> int:
        """The script index the next call answers."""
        with self._lock:
            return self._next

    def next_reply(self) -> ModelReply:
        """Take the next turn, recording ``model_call``. The content is a fresh copy each call."""
        with self._lock:
            index = self._next
            self._next += 1
        return self.reply_at(index)

    def reply_at(self, index: int) -> ModelReply:
        """Answer turn ``index`` without moving the script, recording ``model_call``.

        A sub-agent's model (harness protocol 5) reads its place from the history it is called with, as a
        real model would: turn ``n`` for a history holding ``n`` assistant messages
        (``assistant_turns``), so a resumed or restored sub-agent needs no offset and instances of one
        definition never share a position.
        """
        self.trace.model_call(index)
        if index >= len(self.turns):
            return ModelReply(index, [{"text": EXHAUSTED_TEXT}], "end_turn", exhausted=True)
        content = copy.deepcopy(self.turns[index])  # the runtime may keep or change what it is given
        return ModelReply(index, content, "tool_use" if uses_tools(content) else "end_turn")
