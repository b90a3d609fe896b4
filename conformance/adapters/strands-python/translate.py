"""Translation between Strands 1.62 values and RoC JSON: messages, results and errors.

Mapping tables: conformance/README.md, "Mapping onto Strands Agents" and "Mapping runtime errors".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from strands.types.exceptions import EventLoopException

# A RoC message is {role, content, metadata?}; Strands adds tracking_id and a usage metadata member, which
# are dropped here (the suite never judges metadata, and role and content pass through unchanged).
_MESSAGE_KEYS = ("role", "content")


def message_json(message: Mapping[str, Any]) -> dict[str, Any]:
    return {key: message[key] for key in _MESSAGE_KEYS if key in message}


def messages_json(messages: list[Any]) -> list[Any]:
    return [message_json(m) for m in messages]


def interrupt_json(interrupt: Any, source: Mapping[str, Any] | None) -> dict[str, Any]:
    """A Strands ``Interrupt`` as RoC Interrupt JSON; ``source`` is from the raise-point record."""
    out: dict[str, Any] = {"id": interrupt.id, "name": interrupt.name}
    if interrupt.reason is not None:  # 1.62 keeps no distinction between "no reason" and a null reason
        out["reason"] = interrupt.reason
    out["source"] = dict(source) if source is not None else {"kind": _kind_from_id(interrupt.id)}
    return out


def _kind_from_id(interrupt_id: str) -> str:
    # Fallback only: the id prefix names the raise point (research notes, interrupt id derivation).
    for prefix, kind in (
        ("v1:tool_call:", "tool"),
        ("v1:before_tool_call:", "before_tool_call"),
        ("v1:before_tools:", "before_tools"),
    ):
        if interrupt_id.startswith(prefix):
            return kind
    return "tool"


def result_json(result: Any, sources: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    interrupts = result.interrupts or []  # None unless the stop reason is "interrupt"
    return {
        "stopReason": str(result.stop_reason),
        "message": message_json(result.message),
        "interrupts": [interrupt_json(i, sources.get(i.id)) for i in interrupts],
    }


_UNKNOWN_ID = re.compile(r"interrupt_id=<(?P<id>.*)> \| no interrupt found")


def error_json(exc: BaseException) -> dict[str, Any] | None:
    """The RoC Error for a Strands refusal, by exception type and documented message; ``None``: a crash."""
    if isinstance(exc, EventLoopException) and exc.original_exception is not None:
        exc = exc.original_exception
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    text = str(text)
    if isinstance(exc, TypeError) and "must resume from interrupt with list of interruptResponse" in text:
        return _error("INTERRUPT_PENDING", text)
    if isinstance(exc, KeyError):
        match = _UNKNOWN_ID.search(text)
        if match:
            return _error("UNKNOWN_INTERRUPT", text, {"interruptId": match.group("id")})
        return None
    if (
        isinstance(exc, ValueError)
        and "Received interrupt responses but agent is not in interrupt state" in text
    ):
        return _error("NOT_INTERRUPTED", text)
    if isinstance(exc, ValueError) and "interrupt name used more than once" in text:
        return _error("DUPLICATE_INTERRUPT_NAME", text)
    if isinstance(exc, RuntimeError) and "cannot raise interrupt in direct tool call" in text:
        return _error("DIRECT_CALL_INTERRUPT", text)
    if isinstance(exc, RuntimeError) and "cannot directly call tool during interrupt" in text:
        return _error("INTERRUPT_PENDING", text)
    return None


def _error(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"code": code, "message": message}
    if details:
        out["details"] = details
    return out


def inspect_json(agent: Any, sources: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The ``AgentInspection`` JSON of a Strands agent, read from ``agent._interrupt_state`` as it is.

    The SDK's public API shows only the interrupts of the last result; the answered ones and the preserved
    results live in the private ``_interrupt_state`` (strands-agents 1.62, ``strands/interrupt.py``). Every
    interrupt it holds is reported, activated or not: one the SDK keeps after its batch is what the suite
    wants to see. ``answered`` is the SDK's own test, a ``response`` that is not ``None``.
    """
    state = agent._interrupt_state
    pending = state.pending_tool_execution
    interrupts = []
    for interrupt in state.interrupts.values():
        entry = interrupt_json(interrupt, sources.get(interrupt.id))
        entry["answered"] = interrupt.response is not None
        if interrupt.response is not None:
            entry["response"] = interrupt.response
        interrupts.append(entry)
    doc: dict[str, Any] = {
        "activated": bool(state.activated),
        "interrupts": interrupts,
        "preservedToolUseIds": [r["toolUseId"] for r in (pending.completed_tool_results if pending else [])],
        "messages": messages_json(agent.messages),
        "state": dict(agent.state.get() or {}),
    }
    if pending is not None:
        doc["pendingAssistantMessage"] = message_json(pending.assistant_message)
    return doc
