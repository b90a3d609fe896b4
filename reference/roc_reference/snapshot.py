"""The portable Snapshot format: reading with full validation (ROC-SNAP-*); tags are in ``integrity``.

Reading is all-or-nothing: ``parse_snapshot`` checks version, shape, integrity and every cross-member
rule before the caller applies anything, so a rejected snapshot is never half-applied.
Order of checks: not a JSON object / bad ``schemaVersion`` -> SNAPSHOT_INVALID; other major version ->
SNAPSHOT_VERSION_UNSUPPORTED; integrity (only when keys are given) -> SNAPSHOT_INTEGRITY; shape (unknown
members, wrong types) and consistency -> SNAPSHOT_INVALID.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, PrivateAttr, ValidationError, field_validator

from .approval_data import bound_input, edits_of
from .errors import SnapshotInvalidError, SnapshotVersionUnsupportedError
from .integrity import MacPrefix, canonical_value, input_digest, parse_json_text, verify
from .types import (
    MAX_DOCUMENT_DEPTH,
    MAX_VALUE_DEPTH,
    AgentResult,
    InterruptResponseBlock,
    Message,
    PendingToolExecution,
    RocModel,
    SnapshotInterrupt,
    json_copy,
    json_value_problem,
    parse_rfc3339,
)

# Format 2.0 (spec 9.4): RFC 8785 canonical form. Format 1.0 was a pre-release draft; no loader reads it.
# Format 2.1 (spec 1.1) adds decisions, onExpiry and the consumed record; format 2.2 (spec 1.2) adds kept
# sub-agents (interruptState.children) and propagated sources (source.inner); format 2.3 (spec 1.3) adds the
# kept metadata of an answer or decision (responseMetadata, ROC-AUDIT-003). This runtime writes 2.3 and
# reads 2.0 to 2.3.
SCHEMA_VERSION = "2.3"
SUPPORTED_MAJOR = 2
KNOWN_MINOR = 3
# The snapshot format and the spec are versioned apart (spec 9): RoC 1.3 writes format 2.3.
SPEC_MAJOR = 1
_VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)", re.ASCII)
_CREATED_AT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$"
_TOOL_BOUND = ("tool", "before_tool_call", "agent_as_tool")


class SnapshotAgent(RocModel):
    agent_id: str = Field(min_length=1)
    messages: list[Message]
    state: dict[str, Any]

    @field_validator("state")
    @classmethod
    def _state_values_within_limits(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = json_value_problem(value, MAX_VALUE_DEPTH + 1)  # ROC-SEC-014: each value, not the object
        if problem is not None:
            raise ValueError(f"agent state: {problem}")
        return value


class SnapshotConsumed(RocModel):
    """Format 2.1: one answer or decision consumed by the most recently completed batch (ROC-RESEND-003)."""

    interrupt_id: str = Field(min_length=1)
    answer_digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")


class SnapshotInterruptState(RocModel):
    activated: bool
    interrupts: list[SnapshotInterrupt]
    pending_tool_execution: PendingToolExecution | None
    # Absent when empty, as the schema says (minItems 1): one form per document, kept by the proto binding.
    consumed: list[SnapshotConsumed] | None = Field(default=None, min_length=1)
    children: dict[str, SnapshotChild] | None = Field(default=None, min_length=1)
    """Format 2.2 (ROC-AGENT-008): outer toolUseId -> the sub-agent its body ran in the pending batch."""


class SnapshotChild(RocModel):
    """Format 2.2: a kept sub-agent — paused (its own interrupt state) or completed (with ``result``)."""

    agent: SnapshotAgent
    interrupt_state: SnapshotInterruptState
    result: AgentResult | None = None

    @field_validator("result", mode="before")
    @classmethod
    def _result_has_every_member(cls, value: Any) -> Any:
        # ROC-SNAP-009: the schema requires each member of an AgentResult; the model defaults ``interrupts``
        # (for results the runtime builds), so a stored one without it is refused here.
        if isinstance(value, dict) and "interrupts" not in value:
            raise ValueError("a kept sub-agent's result lacks interrupts")
        return value


SnapshotInterruptState.model_rebuild()


class SnapshotIntegrity(RocModel):
    # Any name: a reader without keys ignores the tag, so a later algorithm must not make it refuse the
    # document (ROC-VER-007); a reader with keys refuses an algorithm it lacks in ``verify`` (ROC-SEC-003).
    alg: str = Field(min_length=1)
    key_id: str = Field(min_length=1)
    mac: str = Field(pattern=r"^[A-Za-z0-9_-]+$")  # its length is the algorithm's: checked in verify()


class Snapshot(RocModel):
    """A parsed, validated snapshot."""

    schema_version: str
    spec_version: str = Field(pattern=r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")
    created_at: str = Field(pattern=_CREATED_AT)
    revision: int = Field(ge=0, le=2**32 - 1)  # uint32 in the protobuf binding (spec 2.7)
    agent: SnapshotAgent
    interrupt_state: SnapshotInterruptState
    integrity: SnapshotIntegrity | None = None
    # The kept sub-agents as the document gave them (format 2.2), so they are written back unchanged.
    _raw_children: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def raw_children(self) -> dict[str, Any]:
        """``interruptState.children`` as JSON (``{}`` when absent)."""
        return self._raw_children

    @field_validator("created_at")
    @classmethod
    def _created_at_is_a_date(cls, value: str) -> str:
        parse_rfc3339(value)  # the pattern fixes the form; this catches month 13, hour 25 (ROC-SEC-015)
        return value


def now_rfc3339() -> str:
    """The current time as RFC 3339 UTC with a ``Z`` suffix."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_version(doc: Mapping[str, Any]) -> int:
    """A loader's first check (ROC-VER-004/005/006), before the tag is verified (ROC-SEC-004).

    Returns the minor version of ``schemaVersion``. A malformed ``specVersion`` is left to the shape
    checks that follow the tag: only the major of a well-formed one decides readability, so a tampered
    document is still reported as tampered.
    """
    version = doc.get("schemaVersion")
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise SnapshotInvalidError("schemaVersion must be a '<major>.<minor>' string")
    # Compared as digit strings (no leading zeros): int() of a 5,000-digit version raises ValueError.
    if match[1] != str(SUPPORTED_MAJOR):
        raise SnapshotVersionUnsupportedError(
            f"snapshot schemaVersion {version} is not readable (major {SUPPORTED_MAJOR} only)",
            details={"schemaVersion": version},
        )
    spec_version = doc.get("specVersion")
    spec_match = _VERSION.fullmatch(spec_version) if isinstance(spec_version, str) else None
    if spec_match is not None and spec_match[1] != str(SPEC_MAJOR):
        raise SnapshotVersionUnsupportedError(
            f"snapshot written for spec {spec_version}; this runtime implements {SPEC_MAJOR}.x",
            details={"specVersion": spec_version},
        )
    # ROC-VER-007: any longer minor is a later one, read as such (its value matters only as "later").
    return int(match[2]) if len(match[2]) <= 9 else KNOWN_MINOR + 1


def verify_snapshot(doc: Mapping[str, Any], keys: Mapping[str, bytes]) -> MacPrefix | None:
    """What a reader configured with keys does first: the version check, then the tag (spec order)."""
    check_version(doc)
    return verify(doc, keys)


def parse_snapshot(
    doc: Any, *, integrity_keys: Mapping[str, bytes] | None = None, max_bytes: int | None = None
) -> Snapshot:
    """Validate ``doc`` completely and return it parsed; raise the matching RocError otherwise.

    ``doc`` is the decoded document or its JSON text (``str`` or UTF-8 ``bytes``, parsed with a depth guard).

    ``max_bytes`` optionally bounds the canonical size of the document (ROC-SEC-010).
    """
    if isinstance(doc, str | bytes | bytearray):
        doc = parse_json_text(doc, MAX_DOCUMENT_DEPTH)  # ROC-SEC-014
    if not isinstance(doc, dict):
        raise SnapshotInvalidError("a snapshot is a JSON object")
    # ROC-SEC-014: checked without recursion, so no document can crash the loader.
    problem = json_value_problem(doc, MAX_DOCUMENT_DEPTH)
    if problem is not None:
        raise SnapshotInvalidError(f"a snapshot is a JSON object within the limits of spec 10.6: {problem}")
    # A private copy: nothing the caller still holds aliases what the restored agent runs (spec 10.2).
    doc = json_copy(doc)
    if max_bytes is not None and len(canonical_value(doc)) > max_bytes:
        raise SnapshotInvalidError(f"snapshot larger than {max_bytes} bytes")
    minor = check_version(doc)  # ROC-VER-005/006: before anything else about the content
    if integrity_keys is not None:  # ROC-SEC-004: verified before any other use
        verify(doc, integrity_keys)
    if minor > KNOWN_MINOR:  # ROC-VER-007: a later minor may add members; read what 2.2 defines
        doc = _known_members(doc, _SNAPSHOT_SHAPE)
    later = _later_member(doc, minor)
    if later is not None:  # ROC-VER-008: an earlier minor cannot carry what a later one added
        path, added_in = later
        raise SnapshotInvalidError(
            f"format 2.{minor} snapshot carries {path}, a member of format {added_in}", details={"path": path}
        )
    null = _explicit_null(doc, _SNAPSHOT_SHAPE, "")
    if null is not None:  # ROC-SNAP-009: the models read null as absent; the schema refuses it
        raise SnapshotInvalidError(f"malformed snapshot: {null} is null", details={"path": null})
    revision = doc.get("revision")
    if isinstance(revision, float) and revision.is_integer():
        # ROC-SNAP-009: JSON has one number type; the schema's "integer" includes 3.0, so the loader does too.
        doc = {**doc, "revision": int(revision)}
    try:
        snapshot = Snapshot.model_validate(doc, strict=True)  # JSON types as written: no "3" for 3
    except ValidationError as exc:
        message = f"malformed snapshot: {exc.errors()[0]['msg']}"
        raise SnapshotInvalidError(message, details=_where(exc)) from exc
    pending = snapshot.interrupt_state.pending_tool_execution
    stored = [*snapshot.agent.messages, *([pending.assistant_message] if pending is not None else [])]
    if any(not message.content for message in stored):
        # ROC-SNAP-009: the schema's minItems. Not a model rule: the runtime builds an empty result message
        # for the AfterTools event of a cycle in which every tool interrupted, and never stores it.
        raise SnapshotInvalidError("malformed snapshot: a stored message has no content")
    _check_consistency(doc, snapshot.agent, snapshot.interrupt_state)
    snapshot._raw_children = doc["interruptState"].get("children") or {}
    return snapshot


def _where(exc: ValidationError) -> dict[str, Any]:
    first = exc.errors()[0]
    return {"path": "/".join(str(p) for p in first["loc"])}


def _check_consistency(
    doc: Mapping[str, Any], agent: SnapshotAgent, state: SnapshotInterruptState, where: str = ""
) -> None:
    """The cross-member rules of one agent's part of a document (``doc``: that part's JSON, with ``agent``
    and ``interruptState``); a kept sub-agent is checked by the same rules (``where`` names it)."""

    def invalid(message: str) -> SnapshotInvalidError:
        return SnapshotInvalidError(f"inconsistent snapshot: {where}{message}")

    # ROC-SNAP-010: the transcript never holds a toolUse without its toolResult.
    messages = agent.messages
    for index, message in enumerate(messages):
        if any(isinstance(b, InterruptResponseBlock) for b in message.content):
            raise invalid(f"message {index} holds an interruptResponse block")
        if message.role == "assistant" and message.tool_results():
            raise invalid(f"assistant message {index} holds toolResult blocks")
        if message.role == "user" and message.tool_uses():
            raise invalid(f"user message {index} holds toolUse blocks")
        uses = {u.tool_use_id for u in message.tool_uses()}
        if uses:
            following = messages[index + 1] if index + 1 < len(messages) else None
            answered = {r.tool_use_id for r in following.tool_results()} if following is not None else set()
            if following is None or following.role != "user" or answered != uses:
                raise invalid(f"toolUse without toolResult after message {index}")
        results = message.tool_results()
        if results:
            previous = messages[index - 1] if index > 0 else None
            asked = {u.tool_use_id for u in previous.tool_uses()} if previous is not None else set()
            if not {r.tool_use_id for r in results} <= asked:
                raise invalid(f"toolResult without toolUse in message {index}")

    pending = state.pending_tool_execution
    if state.activated != bool(state.interrupts):
        raise invalid("activated must be true exactly when interrupts are stored")
    if state.activated and pending is None:
        raise invalid("an activated agent needs its pendingToolExecution")
    if not state.activated and pending is not None:
        raise invalid("pendingToolExecution without activation")
    if state.activated and all(i.response is not None or i.decision is not None for i in state.interrupts):
        raise invalid("activated but no interrupt is unanswered")
    raw_interrupts = doc["interruptState"]["interrupts"]
    if any(isinstance(r, dict) and "response" in r and r["response"] is None for r in raw_interrupts):
        raise invalid("a stored response is null")
    ids = [i.id for i in state.interrupts]
    if len(set(ids)) != len(ids):
        raise invalid("interrupt ids are not distinct")
    consumed = [c.interrupt_id for c in state.consumed or []]
    if len(set(consumed)) != len(consumed):
        raise invalid("consumed interrupt ids are not distinct")
    # Propagated interrupts are told apart by their inner id, not their name (ROC-AGENT-002).
    points = [(i.source.kind, i.source.tool_use_id, _point_name(i)) for i in state.interrupts]
    if len(set(points)) != len(points):
        raise invalid("two interrupts share one raise point")
    if pending is None:
        if state.children:
            raise invalid("interruptState.children without a pending batch")
        return

    uses_by_id = {u.tool_use_id: u for u in pending.assistant_message.tool_uses()}
    if pending.assistant_message.role != "assistant" or not uses_by_id:
        raise invalid("pendingToolExecution.assistantMessage must be an assistant message with toolUse")
    if len(uses_by_id) != len(pending.assistant_message.tool_uses()):
        raise invalid("toolUseIds of the pending message are not distinct")
    done = [r.tool_use_id for r in pending.completed_tool_results]
    if len(set(done)) != len(done) or not set(done) <= set(uses_by_id):
        raise invalid("completedToolResults must name distinct tool uses of the pending message")
    edits = edits_of((i, i.response) for i in state.interrupts)
    for interrupt in state.interrupts:
        source = interrupt.source
        if source.kind not in (*_TOOL_BOUND, "before_tools"):  # node kinds: no orchestrator snapshots
            raise invalid(f"interrupt source kind {source.kind!r} is not supported by this runtime")
        if source.kind == "before_tools":
            if source.tool_use_id is not None or source.tool_name is not None:
                raise invalid("a before_tools interrupt names no tool")
            continue
        use = uses_by_id.get(source.tool_use_id or "")
        if use is None:
            raise invalid(f"interrupt {interrupt.id!r} refers to no tool use of the pending message")
        if source.tool_name is not None and source.tool_name != use.name:
            raise invalid(f"interrupt {interrupt.id!r} names tool {source.tool_name!r}, not {use.name!r}")
        if interrupt.response is None and interrupt.decision is None and use.tool_use_id in done:
            raise invalid(f"unanswered interrupt {interrupt.id!r} on a tool use that already completed")
        # ROC-SNAP-013: an answer stays bound to the input that was approved.
        if interrupt.input_digest is None:
            raise invalid(f"tool-bound interrupt {interrupt.id!r} lacks inputDigest")
        # ROC-APPROVE-014: the body's interrupts are bound to the effective input of an approval's edit.
        bound = bound_input(source.kind, use.input, edits.get(use.tool_use_id))
        if interrupt.input_digest != input_digest(bound):
            raise invalid(f"inputDigest of interrupt {interrupt.id!r} does not match its tool input")
    _check_children(doc, state, set(uses_by_id), set(done), where)


def _point_name(interrupt: SnapshotInterrupt) -> str:
    inner = interrupt.source.inner
    return interrupt.name if inner is None else inner.interrupt_id


def _check_children(
    doc: Mapping[str, Any], state: SnapshotInterruptState, uses: set[str], done: set[str], where: str
) -> None:
    """ROC-AGENT-009: every kept sub-agent belongs to a tool use of the pending batch without a preserved
    result, is itself consistent, and every propagated interrupt of a tool use without a result stands for an
    interrupt it keeps."""

    def invalid(message: str) -> SnapshotInvalidError:
        return SnapshotInvalidError(f"inconsistent snapshot: {where}{message}")

    children = state.children or {}
    raw = doc["interruptState"].get("children") or {}
    for tool_use_id, child in children.items():
        if tool_use_id not in uses or tool_use_id in done:
            raise invalid(f"kept sub-agent {tool_use_id!r} belongs to no running tool use of the batch")
        if (child.result is None) != child.interrupt_state.activated:
            raise invalid(f"kept sub-agent {tool_use_id!r} is neither paused nor completed with a result")
        inner_where = f"{where}children/{tool_use_id}: "
        _check_consistency(raw[tool_use_id], child.agent, child.interrupt_state, inner_where)
    for interrupt in state.interrupts:
        inner = interrupt.source.inner
        if inner is None or interrupt.source.tool_use_id in done:
            continue  # a tool use with a result keeps no sub-agent (its answered interrupts stay to the end)
        keeper = children.get(interrupt.source.tool_use_id or "")
        if keeper is None or keeper.agent.agent_id != inner.agent_id:
            raise invalid(f"propagated interrupt {interrupt.id!r} has no kept sub-agent {inner.agent_id!r}")
        if interrupt.response is None and interrupt.decision is None:
            kept = keeper.interrupt_state.interrupts
            waiting = {i.id for i in kept if i.response is None and i.decision is None}
            if inner.interrupt_id not in waiting:
                raise invalid(f"propagated interrupt {interrupt.id!r} stands for no waiting interrupt")


def _later_member(doc: Mapping[str, Any], minor: int) -> tuple[str, str] | None:
    """The path of the first member a later minor added, in a document of ``minor`` (ROC-VER-008), with
    the format that added it; ``None`` when there is none."""
    state = doc.get("interruptState")
    if not isinstance(state, dict) or minor >= KNOWN_MINOR:
        return None
    if minor == 0 and "consumed" in state:
        return "interruptState/consumed", "2.1"
    if minor <= 1 and "children" in state:
        return "interruptState/children", "2.2"
    interrupts = state.get("interrupts")
    for index, stored in enumerate(interrupts if isinstance(interrupts, list) else []):
        if not isinstance(stored, dict):
            continue
        for member in _MEMBERS_2_1 if minor == 0 else ():
            if member in stored:
                return f"interruptState/interrupts/{index}/{member}", "2.1"
        source = stored.get("source")
        if minor <= 1 and isinstance(source, dict) and "inner" in source:
            return f"interruptState/interrupts/{index}/source/inner", "2.2"
        if "responseMetadata" in stored:  # ROC-AUDIT-003: a member of format 2.3
            return f"interruptState/interrupts/{index}/responseMetadata", "2.3"
    return _later_in_children(state, minor)


def _later_in_children(state: Mapping[str, Any], minor: int) -> tuple[str, str] | None:
    """A member of a later minor in the kept sub-agents of a format 2.2 document (only 2.3 adds any)."""
    children = state.get("children")
    for key, child in children.items() if isinstance(children, dict) and minor == 2 else ():
        inner = child.get("interruptState") if isinstance(child, dict) else None
        found = _later_member({"interruptState": inner}, minor) if isinstance(inner, dict) else None
        if found is not None:
            return f"interruptState/children/{key}/{found[0]}", found[1]
    return None


_MEMBERS_2_1 = ("decision", "message", "onExpiry")


class _MapOf:
    """A shape: a JSON object whose members are keys chosen by the writer, each value of ``shape``."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape


# Members of snapshot format 2.3, for reading a later 2.x minor (ROC-VER-007). ``None`` = any JSON value;
# a dict = an object with these members; a one-element list = an array of that shape; ``_MapOf`` = an
# object of writer-chosen keys. The shapes of sources and interrupt states are recursive.
_SOURCE: dict[str, Any] = {"kind": None, "toolUseId": None, "toolName": None, "nodeId": None}
_SOURCE["inner"] = {"agentId": None, "interruptId": None, "source": _SOURCE}
_TOOL_RESULT = {"toolUseId": None, "status": None, "content": [{"text": None, "json": None}]}
_MESSAGE = {
    "role": None,
    "metadata": None,
    "content": [
        {
            "text": None,
            "toolUse": {"toolUseId": None, "name": None, "input": None},
            "toolResult": _TOOL_RESULT,
            "interruptResponse": {"interruptId": None, "response": None},
        }
    ],
}
_STORED_INTERRUPT = {
    "id": None,
    "name": None,
    "reason": None,
    "source": _SOURCE,
    "responseSchema": None,
    "expiresAt": None,
    "metadata": None,
    "onExpiry": {"decision": None, "message": None},
    "response": None,
    "inputDigest": None,
    "decision": None,
    "message": None,
    "responseMetadata": None,
}
_AGENT = {"agentId": None, "messages": [_MESSAGE], "state": None}
_INTERRUPT_STATE: dict[str, Any] = {
    "activated": None,
    "interrupts": [_STORED_INTERRUPT],
    "pendingToolExecution": {"assistantMessage": _MESSAGE, "completedToolResults": [_TOOL_RESULT]},
    "consumed": [{"interruptId": None, "answerDigest": None}],
}
_INTERRUPT_STATE["children"] = _MapOf({"agent": _AGENT, "interruptState": _INTERRUPT_STATE, "result": None})
_SNAPSHOT_SHAPE: dict[str, Any] = {
    "schemaVersion": None,
    "specVersion": None,
    "createdAt": None,
    "revision": None,
    "agent": _AGENT,
    "interruptState": _INTERRUPT_STATE,
    "integrity": {"alg": None, "keyId": None, "mac": None},
}


# Members whose value may be null in the schema; every other member of the format is absent or not null.
_NULL_ALLOWED = frozenset({"pendingToolExecution", "json", "input"})


def _explicit_null(value: Any, shape: Any, path: str) -> str | None:
    """The path of the first member of the 2.0 format that is null where the schema does not allow it.

    Follows ``_SNAPSHOT_SHAPE`` only (a few fixed levels), never into free JSON values.
    """
    if isinstance(shape, list) and isinstance(value, list):
        for index, item in enumerate(value):
            found = _explicit_null(item, shape[0], f"{path}/{index}")
            if found is not None:
                return found
    elif isinstance(shape, _MapOf) and isinstance(value, dict):
        for key, member in value.items():
            found = _explicit_null(member, shape.shape, f"{path}/{key}")
            if found is not None:
                return found
    elif isinstance(shape, dict) and isinstance(value, dict):
        for key, member in value.items():
            if key not in shape:
                continue
            if member is None and key not in _NULL_ALLOWED:
                return f"{path}/{key}"
            found = _explicit_null(member, shape[key], f"{path}/{key}")
            if found is not None:
                return found
    return None


def _known_members(value: Any, shape: Any) -> Any:
    """``value`` without the object members ``shape`` does not define (recursively)."""
    if shape is None:
        return value
    if isinstance(shape, list) and isinstance(value, list):
        return [_known_members(v, shape[0]) for v in value]
    if isinstance(shape, _MapOf) and isinstance(value, dict):
        return {k: _known_members(v, shape.shape) for k, v in value.items()}
    if isinstance(shape, dict) and isinstance(value, dict):
        return {k: _known_members(v, shape[k]) for k, v in value.items() if k in shape}
    return value
