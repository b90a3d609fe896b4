"""The ready approval hook (profile approval, spec chapter 16): approve, edit or reject a tool call.

``ApprovalHook({"delete_files": True, "send": ["approve", "reject"]})`` opts tools in by name (``True`` = all
three decisions). On ``BeforeToolCall`` of an opted-in tool its callback raises one interrupt named
``approval`` whose reason shows the proposed call, whose ``metadata.kind`` is ``approval`` and whose
``responseSchema`` is derived from the allowed decisions and the tool's input schema (ROC-APPROVE-001..003).
The answer then decides the call: approve runs it as proposed, reject cancels it, edit lets the later
callbacks and the body see the edited input (ROC-APPROVE-006..008). A decline or cancel is not handled
here: the event's default outcome applies (ROC-APPROVE-011, ROC-DECIDE-005).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .approval_data import APPROVAL_KIND, APPROVAL_NAME, DECISIONS, REJECT_TEXT
from .hooks import BeforeToolCallEvent, HookRegistry

Policy = bool | Sequence[str]
"""Per tool: ``True`` (every decision), ``False`` (not opted in) or the allowed decisions."""


def allowed_decisions(policy: Policy) -> list[str]:
    """The allowed decisions in the fixed order approve, edit, reject (an empty list = all three)."""
    if policy is True:
        return list(DECISIONS)
    if policy is False:
        return []
    chosen = set(policy)
    unknown = chosen - set(DECISIONS)
    if unknown:
        raise ValueError(f"unknown approval decisions: {sorted(unknown)}")
    return [d for d in DECISIONS if d in chosen] or list(DECISIONS)


def approval_schema(decisions: Sequence[str], input_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """ROC-APPROVE-003: the response schema of an approval interrupt (``input`` only when edit is allowed;
    ``{"type": "object"}`` for a tool without an input schema)."""
    properties: dict[str, Any] = {"decision": {"enum": list(decisions)}}
    if "edit" in decisions:
        properties["input"] = dict(input_schema) if input_schema is not None else {"type": "object"}
    properties["message"] = {"type": "string"}
    return {
        "type": "object",
        "properties": properties,
        "required": ["decision"],
        "additionalProperties": False,
    }


def approval_reason(
    tool_name: str, tool_input: Mapping[str, Any], decisions: Sequence[str]
) -> dict[str, Any]:
    """ROC-APPROVE-002: ``{"toolName", "input", "decisions"}``: the call as the model proposed it."""
    return {"toolName": tool_name, "input": dict(tool_input), "decisions": list(decisions)}


class ApprovalHook:
    """Per-tool opt-in approval of tool calls (ROC-APPROVE-001). Register it with ``Agent(hooks=[...])``."""

    def __init__(self, policies: Mapping[str, Policy]) -> None:
        self._decisions = {name: allowed_decisions(p) for name, p in policies.items() if p is not False}

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self._before_tool_call)

    def _before_tool_call(self, event: BeforeToolCallEvent) -> None:
        use = event.tool_use
        decisions = self._decisions.get(use.name)
        if decisions is None:  # ROC-APPROVE-001: tools not opted in are not asked about
            return
        tool = event.agent.tool_registry.get(use.name)
        input_schema = None if tool is None else tool.input_schema
        answer = event.interrupt(
            APPROVAL_NAME,
            approval_reason(use.name, use.input, decisions),
            metadata={"kind": APPROVAL_KIND},
            response_schema=approval_schema(decisions, input_schema),
        )  # a decline or cancel escapes: the default outcome of BeforeToolCall (ROC-APPROVE-011)
        decision = answer.get("decision") if isinstance(answer, dict) else None
        if decision == "reject":  # ROC-APPROVE-007: cancelled, the person's message or the fixed text
            message = answer.get("message")
            event.cancel_tool = message if isinstance(message, str) else REJECT_TEXT
        elif decision == "edit" and isinstance(edited := answer.get("input"), dict):
            # ROC-APPROVE-008: the later callbacks see the edited input (so does the body, which the loop
            # gives the effective input from the stored answer, ROC-APPROVE-013)
            event.tool_use = use.model_copy(update={"input": dict(edited)})
