"""Translation between the strands-agents 1.62 session snapshot and the RoC snapshot (spec chapter 8).

The SDK's own persisted form is ``Agent.take_snapshot(preset="session")`` (``strands/types/_snapshot.py``,
schema ``"1.0"``): ``data`` holds ``messages``, ``state``, ``conversation_manager_state``,
``interrupt_state`` (the SDK's ``_InterruptState.to_dict()``) and ``model_state``. ``to_roc`` writes a RoC
format 2.0 document from it; ``from_roc`` turns a validated RoC document into that SDK form, which the
adapter loads with ``Agent.load_snapshot``.

The rules, both directions:

- ``agent.agentId`` is the Strands ``agent_id``; ``agent.state`` is ``data.state``.
- Messages keep ``role`` and ``content``. Strands' ``tracking_id`` and usage ``metadata`` are not written;
  a RoC message's ``metadata`` is not given to the SDK (its ``Message`` carries usage there, not
  implementation data), so it does not come back.
- While paused, the SDK's history ends with the assistant message of the pending batch, which its
  ``pending_tool_execution.assistant_message`` holds as well. A RoC snapshot holds that message once, in
  ``pendingToolExecution.assistantMessage``: written, the last history message is left out when it equals
  the pending one (any other history is written as it is); read, the pending message is appended to the
  history again, where the SDK keeps it. The SDK's live history (what the suite judges for ROC-TOOL-005)
  is untouched either way.
- Interrupts: Strands' ``Interrupt`` is ``{id, name, reason, response}``. ``source`` is not in the SDK's
  state: written, it comes from the adapter's raise-point record (or the restored document); read, it is
  kept by the adapter beside the agent. ``metadata``, ``responseSchema`` and ``expiresAt`` have no place in
  the SDK and are dropped on reading. A ``response`` of ``None`` is the SDK's "not answered", so an answer
  of JSON ``null`` cannot be stored (the RoC loader refuses a null ``response`` anyway). A ``reason`` of
  ``None`` is written as no reason.
- Ids are kept exactly as they are: a foreign id is stored under its own text. The SDK derives an id from
  the raise point (``v1:tool_call:<toolUseId>:<uuid5(name)>``), so a unit raising again looks up its own
  id, not a foreign one; that is the SDK's behaviour (ROC-SESSION-015) and is not remapped here.
- ``inputDigest`` is not in the SDK's state: written, it is computed from the pending tool use's input
  with the suite's canonical JSON (``roc_conformance.canonical.input_digest``); read, the loader has
  checked it and it is not carried into the SDK.
- Not written, and set to the fresh agent's own on reading: ``conversation_manager_state``,
  ``model_state``, ``interrupt_state.context`` (it holds the last resume's responses, which the SDK reads
  only for agents-as-tools), the SDK's ``created_at`` and ``app_data``.
- ``revision``: the SDK has no revision; the adapter keeps 0 for a created agent and the restored
  document's revision for a restored one. ``integrity`` is never written (the SDK signs nothing).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from roc_conformance.canonical import input_digest
from roc_reference.errors import SnapshotInvalidError
from roc_reference.snapshot import parse_snapshot
from translate import message_json

SCHEMA_VERSION = "2.0"
SPEC_VERSION = "1.0"
STRANDS_SCHEMA_VERSION = "1.0"
_TOOL_RESULT_KEYS = ("toolUseId", "status", "content")


def _tool_uses(message: Mapping[str, Any] | None) -> dict[str, Any]:
    if message is None:
        return {}
    return {b["toolUse"]["toolUseId"]: b["toolUse"] for b in message.get("content", []) if "toolUse" in b}


def _stored_interrupt(
    raw: Mapping[str, Any], source: Mapping[str, Any] | None, uses: Mapping[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": raw["id"], "name": raw["name"]}
    if raw.get("reason") is not None:
        out["reason"] = raw["reason"]
    out["source"] = dict(source) if source is not None else {"kind": _kind_from_id(raw["id"])}
    if raw.get("response") is not None:
        out["response"] = raw["response"]
    use = uses.get(out["source"].get("toolUseId", ""))
    if use is not None:
        out["inputDigest"] = input_digest(use.get("input"))
    return out


def _kind_from_id(interrupt_id: str) -> str:
    # Only for an interrupt the adapter did not see raised (none in practice): the SDK's id prefix.
    for prefix, kind in (("v1:before_tool_call:", "before_tool_call"), ("v1:before_tools:", "before_tools")):
        if interrupt_id.startswith(prefix):
            return kind
    return "tool"


def to_roc(
    strands_snapshot: Mapping[str, Any],
    *,
    agent_id: str,
    sources: Mapping[str, Mapping[str, Any]],
    revision: int,
    created_at: str,
) -> dict[str, Any]:
    """The RoC snapshot of a Strands ``Snapshot.to_dict()`` taken with the ``session`` preset."""
    data = strands_snapshot["data"]
    raw_state = data.get("interrupt_state") or {}
    pending = raw_state.get("pending_tool_execution")
    messages = [message_json(m) for m in data.get("messages", [])]
    pending_doc: dict[str, Any] | None = None
    uses: dict[str, Any] = {}
    if pending is not None:
        assistant = message_json(pending["assistant_message"])
        uses = _tool_uses(assistant)
        if messages and messages[-1] == assistant:
            messages.pop()  # held once, in pendingToolExecution (see the module docstring)
        pending_doc = {
            "assistantMessage": assistant,
            "completedToolResults": [
                {k: r[k] for k in _TOOL_RESULT_KEYS if k in r}
                for r in pending.get("completed_tool_results", [])
            ],
        }
    interrupts = [
        _stored_interrupt(raw, sources.get(raw["id"]), uses)
        for raw in (raw_state.get("interrupts") or {}).values()
    ]
    return {
        "schemaVersion": SCHEMA_VERSION,
        "specVersion": SPEC_VERSION,
        "createdAt": created_at,
        "revision": revision,
        "agent": {"agentId": agent_id, "messages": messages, "state": data.get("state") or {}},
        "interruptState": {
            "activated": bool(raw_state.get("activated", False)),
            "interrupts": interrupts,
            "pendingToolExecution": pending_doc,
        },
    }


def load_roc(text: str, agent_id: str) -> dict[str, Any]:
    """A RoC snapshot text validated completely, as the members of format 2.0 it defines.

    The checks are the RoC loader's of this repository (``roc_reference.snapshot.parse_snapshot``: JSON
    limits and repeated names, versions, schema shape, the consistency rules of spec 8.3); a refusal raises
    its ``RocError`` (SNAPSHOT_INVALID, SNAPSHOT_VERSION_UNSUPPORTED). A document of another agent is
    refused too (ROC-SESSION-008). No integrity key is configured: a tag is ignored (spec 10.3).
    """
    snapshot = parse_snapshot(text)
    if snapshot.agent.agent_id != agent_id:
        raise SnapshotInvalidError(f"snapshot holds agent {snapshot.agent.agent_id!r}, not {agent_id!r}")
    return snapshot.to_json()


def from_roc(doc: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The Strands ``Snapshot.to_dict()`` form of a validated RoC document, and the interrupts' sources.

    Only ``messages``, ``state`` and ``interrupt_state`` are given; ``load_snapshot`` leaves every other
    field of the fresh agent as it is.
    """
    state_doc = doc["interruptState"]
    pending = state_doc.get("pendingToolExecution")
    messages = [message_json(m) for m in doc["agent"]["messages"]]
    interrupt_state: dict[str, Any] = {
        "interrupts": {
            i["id"]: {
                "id": i["id"],
                "name": i["name"],
                "reason": i.get("reason"),
                "response": i.get("response"),
            }
            for i in state_doc["interrupts"]
        },
        "context": {},
        "activated": state_doc["activated"],
    }
    if pending is not None:
        assistant = message_json(pending["assistantMessage"])
        messages.append(copy.deepcopy(assistant))  # where the SDK keeps the paused batch's message
        interrupt_state["pending_tool_execution"] = {
            "assistant_message": assistant,
            "completed_tool_results": [dict(r) for r in pending["completedToolResults"]],
        }
    sources = {i["id"]: dict(i["source"]) for i in state_doc["interrupts"]}
    strands_snapshot = {
        "scope": "agent",
        "schema_version": STRANDS_SCHEMA_VERSION,
        "created_at": doc["createdAt"],
        "data": {
            "messages": messages,
            "state": dict(doc["agent"]["state"]),
            "interrupt_state": interrupt_state,
        },
        "app_data": {},
    }
    return strands_snapshot, sources
