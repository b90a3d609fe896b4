"""Builders for AgentSpec scenarios (conformance/README.md, "The scenario language").

The explicit checks and the tests build their fixed scenarios here, so the JSON shape of a scenario is
written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

JSON = Any
_ABSENT: Any = object()


def executor_for(profiles: Iterable[str]) -> str:
    """The executor a check runs under: sequential when the implementation claims it, else concurrent."""
    return "sequential" if "sequential-executor" in set(profiles) else "concurrent"


def text(value: str) -> dict[str, JSON]:
    return {"text": value}


def tool_use(tool_use_id: str, name: str, tool_input: JSON = None) -> dict[str, JSON]:
    return {
        "toolUse": {"toolUseId": tool_use_id, "name": name, "input": {} if tool_input is None else tool_input}
    }


def turn(*blocks: dict[str, JSON]) -> dict[str, JSON]:
    """One scripted model turn."""
    return {"content": list(blocks)}


def interrupt(
    name: str,
    reason: JSON = _ABSENT,
    *,
    handle_decision: bool = False,
    expires_at: str | None = None,
    on_expiry: Mapping[str, JSON] | None = None,
) -> dict[str, JSON]:
    """An interrupt step. ``handle_decision``: a decline or cancel becomes the last answer
    (``{"decision", "message"?}``) instead of the default outcome; ``expires_at`` / ``on_expiry`` are passed
    to the raise as they are (harness protocol 4)."""
    step: dict[str, JSON] = {"name": name}
    if reason is not _ABSENT:
        step["reason"] = reason
    if expires_at is not None:
        step["expiresAt"] = expires_at
    if on_expiry is not None:
        step["onExpiry"] = dict(on_expiry)
    if handle_decision:
        step["handleDecision"] = True
    return {"interrupt": step}


def answer(
    interrupt_id: str, response: JSON, *, metadata: Mapping[str, JSON] | None = None
) -> dict[str, JSON]:
    """An interruptResponse body that answers."""
    body: dict[str, JSON] = {"interruptId": interrupt_id, "response": response}
    if metadata is not None:
        body["metadata"] = dict(metadata)
    return body


def _decision(
    kind: str, interrupt_id: str, message: str | None, metadata: Mapping[str, JSON] | None
) -> dict[str, JSON]:
    body: dict[str, JSON] = {"interruptId": interrupt_id, "decision": kind}
    if message is not None:
        body["message"] = message
    if metadata is not None:
        body["metadata"] = dict(metadata)
    return body


def decline(
    interrupt_id: str, message: str | None = None, *, metadata: Mapping[str, JSON] | None = None
) -> dict[str, JSON]:
    """An interruptResponse body that declines (profile decisions)."""
    return _decision("decline", interrupt_id, message, metadata)


def cancel_interrupt(
    interrupt_id: str, message: str | None = None, *, metadata: Mapping[str, JSON] | None = None
) -> dict[str, JSON]:
    """An interruptResponse body that cancels (profile decisions). (``cancel`` is the hook step.)"""
    return _decision("cancel", interrupt_id, message, metadata)


def resume(*bodies: dict[str, JSON]) -> dict[str, JSON]:
    """The Invoke input for response bodies."""
    return {"interruptResponses": list(bodies)}


def abandon(message: str | None = None, continue_model: bool = False) -> dict[str, JSON]:
    """The Invoke input that abandons the pending batch (profile abandon)."""
    body: dict[str, JSON] = {}
    if message is not None:
        body["message"] = message
    if continue_model:
        body["continueModel"] = True
    return {"abandon": body}


def returns(value: JSON = _ABSENT) -> dict[str, JSON]:
    return {"return": {} if value is _ABSENT else {"value": value}}


def cancel(message: str | None = None) -> dict[str, JSON]:
    """Cancel; without a message, cancel with ``true``."""
    return {"cancel": {} if message is None else {"message": message}}


def tool(name: str, *steps: dict[str, JSON]) -> dict[str, JSON]:
    return {"name": name, "steps": list(steps)}


def hook(event: str, *steps: dict[str, JSON], tool_name: str | None = None) -> dict[str, JSON]:
    doc: dict[str, JSON] = {"event": event}
    if tool_name is not None:
        doc["toolName"] = tool_name
    doc["steps"] = list(steps)
    return doc


def agent_spec(
    agent_id: str,
    *,
    executor: str = "sequential",
    turns: Iterable[dict[str, JSON]] = (),
    tools: Iterable[dict[str, JSON]] = (),
    hooks: Iterable[dict[str, JSON]] = (),
    state: Mapping[str, JSON] | None = None,
) -> dict[str, JSON]:
    return {
        "agentId": agent_id,
        "executor": executor,
        "model": {"turns": list(turns)},
        "tools": list(tools),
        "hooks": list(hooks),
        "state": dict(state or {}),
    }


def one_question(
    agent_id: str,
    *,
    executor: str = "sequential",
    lead: str = "checking",
    tool_input: JSON = None,
    reason: JSON = _ABSENT,
    value: JSON = "ok",
    before: Iterable[tuple[str, str, JSON, JSON]] = (),
    state: Mapping[str, JSON] | None = None,
) -> dict[str, JSON]:
    """A model turn whose tool use ``t1`` (tool ``ask``) asks ``approve`` once, then a closing ``done``.

    ``before`` adds tool uses ahead of ``t1`` as (toolUseId, tool name, input, returned value); each runs
    a tool that returns at once.
    """
    extra = list(before)
    ask_input = {"path": "a.txt"} if tool_input is None else tool_input
    ask_reason = {"why": "test"} if reason is _ABSENT else reason
    uses = [tool_use(use_id, name, inp) for use_id, name, inp, _ in extra]
    return agent_spec(
        agent_id,
        executor=executor,
        turns=[turn(text(lead), *uses, tool_use("t1", "ask", ask_input)), turn(text("done"))],
        tools=[
            tool("ask", interrupt("approve", ask_reason), returns(value)),
            *(tool(name, returns(val)) for _, name, _, val in extra),
        ],
        state=state,
    )
