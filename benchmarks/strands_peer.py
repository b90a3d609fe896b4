"""The optional peer, strands-agents: importing it when installed, and a scripted model for it.

Only ``.venv-bench`` (``make bench``) installs strands-agents; elsewhere ``package()`` is ``None`` and the
benchmarks measure the reference alone.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

Reply = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
"""The content blocks of the next assistant turn, given the conversation so far."""


def package() -> Any | None:
    """The strands-agents package, or ``None`` when the optional peer is not installed."""
    try:
        import strands  # type: ignore[import-not-found]  # optional peer: only .venv-bench has it
    except ImportError:
        return None
    return strands


def scripted_model(base: type[Any], reply: Reply) -> Any:
    """A strands ``Model`` (``base``: ``strands.models.Model``) streaming what ``reply`` gives, offline."""

    class Scripted(base):  # type: ignore[misc]
        def update_config(self, **model_config: Any) -> None:
            """Nothing to configure."""

        def get_config(self) -> Any:
            return {}

        def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
            for event in stream_events(reply(messages)):
                yield event

    return Scripted()


def stream_events(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The provider events strands assembles into one assistant message of ``content``."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for block in content:
        if "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"name": use["name"], "toolUseId": use["toolUseId"]}}
            events.append({"contentBlockStart": {"start": start}})
            events.append({"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(use["input"])}}}})
        else:
            events.append({"contentBlockStart": {"start": {}}})
            events.append({"contentBlockDelta": {"delta": {"text": block["text"]}}})
        events.append({"contentBlockStop": {}})
    uses_tools = any("toolUse" in block for block in content)
    events.append({"messageStop": {"stopReason": "tool_use" if uses_tools else "end_turn"}})
    usage = {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    events.append({"metadata": {"usage": usage, "metrics": {"latencyMs": 0}}})
    return events
