"""The scenario's scripted model behind the ``strands.models.Model`` interface.

Each call takes the next turn of the kit's ``ScriptedModel`` (which records ``model_call``) and streams it as
the events a Strands model provider yields: ``messageStart``, one ``contentBlockStart/Delta/Stop`` per
block, ``messageStop`` with the stop reason, then ``metadata``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from roc_conformance.adapter import ScriptedModel
from strands.models import Model


class StrandsScriptedModel(Model):
    """A Strands model that answers the scenario's turns in order (no network, no randomness)."""

    def __init__(self, script: ScriptedModel) -> None:
        self.script = script

    def update_config(self, **model_config: Any) -> None:
        """Nothing to configure: the script is the whole model."""

    def get_config(self) -> Any:
        return {}

    def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: Any = None, **kwargs: Any
    ) -> Any:
        raise NotImplementedError("the scripted model has no structured output")

    async def stream(
        self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        reply = self.script.next_reply()
        for event in _events(reply.content, reply.stop_reason):
            yield event


def _events(content: list[Any], stop_reason: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for block in content:
        if "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"name": use["name"], "toolUseId": use["toolUseId"]}}
            events.append({"contentBlockStart": {"start": start}})
            events.append(
                {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(use.get("input", {}))}}}}
            )
        elif "text" in block:
            events.append({"contentBlockStart": {"start": {}}})
            events.append({"contentBlockDelta": {"delta": {"text": block["text"]}}})
        else:
            # A Strands model stream carries only text, tool use and reasoning deltas.
            raise ValueError(f"the scripted model cannot stream a {sorted(block)} block")
        events.append({"contentBlockStop": {}})
    events.append({"messageStop": {"stopReason": stop_reason}})
    events.append(
        {
            "metadata": {
                "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
                "metrics": {"latencyMs": 0},
            }
        }
    )
    return events


def check_turns(turns: tuple[list[Any], ...]) -> str | None:
    """Why the script cannot be streamed by a Strands model, or ``None`` when every block can."""
    for index, turn in enumerate(turns):
        for block in turn:
            if not isinstance(block, dict) or not ({"text", "toolUse"} & set(block)):
                return f"turn {index}: a Strands model streams text and toolUse blocks only, not {block!r}"
    return None
