"""The RoC data model as pydantic v2 models whose JSON is exactly the spec's JSON (ROC-MODEL-*).

Python attributes are snake_case; ``to_json()`` produces lowerCamelCase with absent optionals omitted.
Models are frozen: the runtime shares them between history, pending state and events without copies,
and nobody can change a recorded message behind the agent's back.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar, Literal, TypeVar

import rfc8785
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from .decisions import on_expiry_problem

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "content_filtered",
    "guardrail_intervened",
    "interrupt",
    "cancelled",
    "abandoned",  # spec 1.1, ROC-ABANDON-005: a pending batch ended from outside
]
InterruptSourceKind = Literal[
    "tool", "before_tool_call", "before_tools", "before_node_call", "agent_as_tool", "node"
]
Role = Literal["user", "assistant"]
ToolStatus = Literal["success", "error"]


# --- limits on JSON values (spec 10.6, ROC-SEC-011..015) -----------------------------------------
# Every JSON value the runtime accepts must survive its snapshot: the canonical form (spec 8.2) has to be
# writable, and a reader in any language has to read it back. So a value is checked against these limits
# when it enters the agent, not when a save fails after a tool already ran.

MAX_VALUE_DEPTH = 64
"""Deepest nesting of one value (answer, reason, state value, metadata, tool input, result content).

A scalar has depth 0, an array or object one more than its deepest member (an empty one has depth 1)."""
MAX_DOCUMENT_DEPTH = 128
"""Deepest nesting of a whole snapshot: a value at ``MAX_VALUE_DEPTH`` plus the snapshot's own framing."""
MAX_SAFE_INTEGER = 2**53 - 1
"""Integers are carried exactly only within +-(2**53 - 1) (RFC 7493 I-JSON): beyond it parsers differ."""
MAX_VALUE_BYTES = 256 * 1024
"""Largest canonical form (spec 8.2) of one answer or one interrupt reason."""
MAX_RESUME_BYTES = 1024 * 1024
"""Largest total canonical size of the responses of one resume input."""


def json_value_problem(
    value: Any, max_depth: int = MAX_VALUE_DEPTH, max_bytes: int | None = None
) -> str | None:
    """Why ``value`` is not a JSON value the runtime can carry, or ``None`` when it is one.

    JSON: null, bool, finite float, str, list, or dict with str keys. Limits: nesting at most ``max_depth``
    (a cyclic structure is infinitely deep, so it fails here too), integers within +-``MAX_SAFE_INTEGER``,
    strings that are valid Unicode (no lone surrogates: UTF-8 cannot encode them), and, when ``max_bytes``
    is given, a canonical form of at most that many bytes. Iterative, so no input can exhaust the stack.
    """
    problem, _ = _walk(value, max_depth, max_bytes)
    return problem


def json_value_size(value: Any, max_depth: int = MAX_VALUE_DEPTH) -> tuple[str | None, int]:
    """``(problem, size)``: as ``json_value_problem``, plus the canonical size in bytes measured so far."""
    return _walk(value, max_depth, None)


_CONTROL_CHARACTERS = re.compile("[\x00-\x1f]")


def _string_size(text: str) -> int | None:
    """Canonical size of a JSON string, ``None`` when it is not valid Unicode."""
    if text.isascii():
        # 2 quotes, plus escapes: \" and \\ cost one extra byte, control characters one or five.
        extra = text.count('"') + text.count("\\")
        controls = _CONTROL_CHARACTERS.findall(text)  # a C-level scan: most strings have none
        if controls:
            extra += sum((1 if c in "\b\t\n\f\r" else 5) for c in controls)
        return len(text) + 2 + extra
    try:
        encoded = json.dumps(text, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return None
    return len(encoded)


def _walk(value: Any, max_depth: int, max_bytes: int | None) -> tuple[str | None, int]:
    size = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None:
            size += 4
        elif isinstance(item, bool):
            size += 4 if item else 5
        elif isinstance(item, int):
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return f"integer outside +-(2**53 - 1) at depth {depth}", size
            size += len(str(int(item)))  # int(): an int subclass may override __str__
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "number is not finite", size
            size += len(rfc8785.dumps(item))  # the canonical (RFC 8785) spelling: what a snapshot holds
        elif isinstance(item, str):
            length = _string_size(item)
            if length is None:
                return "string is not valid Unicode (lone surrogate)", size
            size += length
        elif isinstance(item, list | dict):
            if depth + 1 > max_depth:
                return f"nested deeper than {max_depth} levels", size
            size += 2 + max(len(item) - 1, 0)  # brackets and commas
            if isinstance(item, dict):
                for key, member in item.items():
                    if not isinstance(key, str):
                        return "object key is not a string", size
                    length = _string_size(key)
                    if length is None:
                        return "object key is not valid Unicode (lone surrogate)", size
                    size += length + 1  # key and colon
                    stack.append((member, depth + 1))
            else:
                stack.extend((member, depth + 1) for member in item)
        else:
            return f"{type(item).__name__} is not a JSON value", size
        if max_bytes is not None and size > max_bytes:
            return f"canonical form larger than {max_bytes} bytes", size
    return None, size


def is_json_value(value: Any, max_depth: int = MAX_VALUE_DEPTH) -> bool:
    """True when ``value`` is plain JSON within the limits above (see ``json_value_problem``)."""
    return json_value_problem(value, max_depth) is None


def json_copy(value: Any) -> Any:
    """A private deep copy of a JSON value, so stored answers and state cannot be mutated from outside.

    Iterative (no recursion limit); the value must already be JSON (checked with ``is_json_value``).
    Each container is first copied whole (one C-level call, plain ``list``/``dict`` even for a subclass);
    only its members that are containers themselves are then replaced by their copies.
    """
    if not isinstance(value, list | dict):
        return value
    root: Any = list(value) if isinstance(value, list) else dict(value)
    stack: list[Any] = [root]
    while stack:
        container = stack.pop()
        pairs = enumerate(container) if isinstance(container, list) else container.items()
        for key, member in pairs:
            if isinstance(member, list | dict):
                child = list(member) if isinstance(member, list) else dict(member)
                container[key] = child  # an existing key or index: iterating on stays valid
                stack.append(child)
    return root


_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)


def parse_rfc3339(text: str) -> datetime:
    """An RFC 3339 date-time (with its zone) as an aware datetime; ``ValueError`` when it is not one.

    Python's ``fromisoformat`` accepts forms RFC 3339 does not (no zone, date only), so the grammar is
    checked first; ``fromisoformat`` then checks ranges (month 13, hour 25, offset +25:00).
    """
    if not isinstance(text, str) or not _RFC3339.fullmatch(text):
        raise ValueError(f"not an RFC 3339 date-time: {text!r}")
    normal = text.upper().replace("Z", "+00:00")
    if normal[17:19] == "60":  # a leap second (RFC 3339 5.6): compare as the second before it
        normal = normal[:17] + "59" + normal[19:]
    return datetime.fromisoformat(normal)


class RocModel(BaseModel):
    """Base: camelCase aliases, unknown fields rejected, immutable."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    def to_json(self) -> dict[str, Any]:
        """The spec JSON of this value (a fresh dict)."""
        data = self.model_dump(mode="json", by_alias=True)
        assert isinstance(data, dict)
        return data


class OptionalMembersModel(RocModel):
    """A model with optional members that are left out of its JSON when their value is ``None``.

    Only the models that have such members derive from it: the serializer below is a Python call per
    model instance, which a message of N tool uses would otherwise pay 4N times.
    """

    # JSON names (aliases) of optional members that are left out of the JSON when their value is None.
    # Members not listed here (e.g. a JSON content value) keep an explicit null.
    _omit_if_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in self._omit_if_none:
                if key in data and data[key] is None:
                    del data[key]
        return data


# --- content blocks -------------------------------------------------------------------------------


M = TypeVar("M", bound=RocModel)


def private_copy(model: M) -> M:
    """A copy of ``model`` that shares nothing mutable with it (ROC-SEC-016), made faster than a deep copy.

    Models are frozen, so a member model holding no list or dict is shared as it is; only the containers
    (a content list, a tool input, a JSON result or reason) and the models around them are new.
    """
    changes: dict[str, Any] = {}
    for name, member in model.__dict__.items():  # a model's __dict__ holds its fields (extra is forbidden)
        if member is None or isinstance(member, str):  # most members: immutable, tested first
            continue
        if isinstance(member, dict):  # a dict member is JSON (an input, a reason, a JSON result, metadata)
            copied = json_copy(member)
        elif isinstance(member, list):  # models (content blocks, results, interrupts) or JSON values
            copied = [private_copy(v) if isinstance(v, RocModel) else json_copy(v) for v in member]
        elif isinstance(member, RocModel):
            copied = private_copy(member)
        else:  # a number or a bool
            continue
        if copied is not member:
            changes[name] = copied
    return _copy_with(model, changes) if changes else model


def _copy_with(model: M, changes: dict[str, Any]) -> M:
    """``model`` with some fields replaced by values already valid for them, not validated again.

    What ``model_copy(update=...)`` does, at a third of its cost (it also copies private and extra
    attributes, which ``RocModel`` never has): a batch of N tool uses is copied at every stop. The set of
    explicitly given field names is pydantic's bookkeeping, not data, and nothing changes it on a frozen
    model (``model_copy`` copies it before updating), so the copy shares it.
    """
    copy = type(model).__new__(type(model))
    object.__setattr__(copy, "__dict__", {**model.__dict__, **changes})
    object.__setattr__(copy, "__pydantic_fields_set__", model.__pydantic_fields_set__)
    object.__setattr__(copy, "__pydantic_extra__", None)
    object.__setattr__(copy, "__pydantic_private__", None)
    return copy


class TextBlock(RocModel):
    """``{"text": str}``."""

    text: str


class JsonContent(RocModel):
    """Tool-result content ``{"json": <any JSON>}``; ``null`` is kept."""

    value: Any = Field(alias="json")

    @field_validator("value")
    @classmethod
    def _value_is_json(cls, value: Any) -> Any:
        problem = json_value_problem(value)  # ROC-SEC-014: what a snapshot carries is within the limits
        if problem is not None:
            raise ValueError(f"tool result json: {problem}")
        return value


class ToolUse(RocModel):
    """``{toolUseId, name, input}``: one tool call requested by the model.

    ``input`` is a JSON object of named arguments (spec 2.3), in the schema as in the proto binding (a
    ``Struct``). The member is required, as in the schema: a snapshot or message whose toolUse omits it, or
    holds another JSON value there, is malformed (SNAPSHOT_INVALID when loading), so ``input`` has no
    default here; ``ToolUse.of`` is the shorthand for code.
    """

    tool_use_id: str = Field(min_length=1)
    name: str = Field(min_length=1)  # as in the schema (ROC-SNAP-009)
    input: dict[str, Any]

    @classmethod
    def of(cls, tool_use_id: str, name: str, /, **arguments: Any) -> ToolUse:
        """Build a tool use in code: its ``input`` is the keyword arguments (``{}`` when none)."""
        return cls(tool_use_id=tool_use_id, name=name, input=dict(arguments))

    @field_validator("input", mode="before")
    @classmethod
    def _input_is_json(cls, value: Any) -> Any:
        if not isinstance(value, dict):  # spec 2.3: an object; checked before pydantic coerces anything
            raise ValueError(f"toolUse input must be a JSON object, not {type(value).__name__}")
        problem = json_value_problem(value)  # ROC-SEC-014
        if problem is not None:
            raise ValueError(f"toolUse input must be a JSON value within the limits: {problem}")
        return value


class ToolUseBlock(RocModel):
    """``{"toolUse": ToolUse}``."""

    tool_use: ToolUse


class ToolResult(RocModel):
    """``{toolUseId, status, content}``: the outcome of one tool use."""

    tool_use_id: str = Field(min_length=1)
    status: ToolStatus
    content: list[TextBlock | JsonContent]


class ToolResultBlock(RocModel):
    """``{"toolResult": ToolResult}``."""

    tool_result: ToolResult


class InterruptResponse(OptionalMembersModel):
    """``{interruptId, response, metadata?}``: the caller's answer to one interrupt.

    ``metadata`` (spec 2.2) is the caller's extension point, e.g. who approved: accepted, never handed to
    the unit as part of the answer (the unit gets ``response`` only), and not kept by this runtime.
    """

    _omit_if_none = frozenset({"response", "metadata", "decision", "message"})

    interrupt_id: str
    response: Any = None
    metadata: dict[str, Any] | None = None
    decision: Literal["answer", "decline", "cancel"] | None = None
    """Spec 1.1 (ROC-DECIDE-001): absent = an answer; a decline or cancel carries no ``response``."""
    message: str | None = None

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_is_a_json_object(cls, value: Any) -> Any:
        if not isinstance(value, dict) or not is_json_value(value):  # spec 2.2, ROC-SEC-014
            raise ValueError("interruptResponse metadata must be a JSON object within the limits")
        return json_copy(value)


class InterruptResponseBlock(RocModel):
    """``{"interruptResponse": InterruptResponse}`` (byte-compatible with both Strands SDKs)."""

    interrupt_response: InterruptResponse


ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | InterruptResponseBlock


class Message(OptionalMembersModel):
    """``{role, content: [ContentBlock], metadata?}``.

    ``metadata`` is the data model's one extension point (spec 2.3): an implementation-defined JSON object
    that the runtime keeps as found and never interprets.
    """

    _omit_if_none = frozenset({"metadata"})

    role: Role
    content: list[ContentBlock]  # a stored message has at least one block: a loader rule (snapshot.py)
    metadata: dict[str, Any] | None = None

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_is_a_json_object(cls, value: Any) -> Any:
        # Only an explicit value reaches here: an absent member stays absent, a null one is not an object.
        if not isinstance(value, dict) or not is_json_value(value):  # ROC-SEC-014
            raise ValueError("message metadata must be a JSON object within the limits")
        return json_copy(value)  # a private copy: nobody edits a recorded message from outside

    def tool_uses(self) -> list[ToolUse]:
        """The toolUse blocks of this message, in order."""
        return [b.tool_use for b in self.content if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResult]:
        """The toolResult blocks of this message, in order."""
        return [b.tool_result for b in self.content if isinstance(b, ToolResultBlock)]


def text_message(role: Role, text: str) -> Message:
    """A message holding one text block."""
    return Message(role=role, content=[TextBlock(text=text)])


def tool_result_message(results: Sequence[ToolResult]) -> Message:
    """The user message that carries tool results."""
    return Message(role="user", content=[ToolResultBlock(tool_result=r) for r in results])


def error_result(tool_use_id: str, text: str) -> ToolResult:
    """An error result with one text block (cancellations, failures, unknown tools)."""
    return ToolResult(tool_use_id=tool_use_id, status="error", content=[TextBlock(text=text)])


# --- interrupts -----------------------------------------------------------------------------------


class InterruptSource(OptionalMembersModel):
    """Where an interrupt was raised, so a UI can tell which tool call an approval is for (ROC-MODEL-003)."""

    _omit_if_none = frozenset({"toolUseId", "toolName", "nodeId", "inner"})

    kind: InterruptSourceKind
    tool_use_id: str | None = Field(default=None, min_length=1)
    tool_name: str | None = Field(default=None, min_length=1)
    node_id: str | None = Field(default=None, min_length=1)
    inner: InnerInterrupt | None = None
    """Spec 1.2 (ROC-AGENT-003, ROC-GRAPH-006): the sub-agent's interrupt a propagated one stands for."""

    @model_validator(mode="after")
    def _members_of_its_kind(self) -> InterruptSource:
        # ROC-MODEL-003, as the schema states it: tool-bound kinds name their tool use and tool, a batch
        # interrupt names neither, the kinds of spec 1.2 carry what their profile needs.
        tool_bound = self.kind in ("tool", "before_tool_call", "agent_as_tool")
        if tool_bound and (self.tool_use_id is None or self.tool_name is None):
            raise ValueError(f"a {self.kind} source names its toolUseId and toolName")
        node_bound = self.kind in ("before_node_call", "node")
        if not tool_bound and (self.tool_use_id is not None or self.tool_name is not None):
            raise ValueError(f"a {self.kind} source names no tool")
        if node_bound != (self.node_id is not None):
            raise ValueError(f"a {self.kind} source {'names' if node_bound else 'names no'} nodeId")
        propagated = self.kind in ("agent_as_tool", "node")
        if propagated != (self.inner is not None):
            raise ValueError(f"a {self.kind} source {'carries' if propagated else 'carries no'} inner")
        return self


class InnerInterrupt(RocModel):
    """Spec 1.2: the interrupt of a sub-agent (or node agent) that a propagated interrupt stands for."""

    agent_id: str = Field(min_length=1)
    interrupt_id: str = Field(min_length=1)
    source: InterruptSource


InterruptSource.model_rebuild()


class Interrupt(OptionalMembersModel):
    """``{id, name, reason?, source, responseSchema?, expiresAt?, metadata?}`` as returned to callers.

    ``reason`` ``None`` is no reason (ROC-MODEL-007): the JSON then has no ``reason`` member, which is also
    how the raise API treats a ``None`` reason. ``metadata`` is the raiser's extension point (spec 2.1),
    reported unchanged and kept in snapshots.
    """

    _omit_if_none = frozenset({"reason", "responseSchema", "expiresAt", "metadata", "onExpiry"})

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    reason: Any = None
    source: InterruptSource
    response_schema: dict[str, Any] | None = None
    expires_at: str | None = None
    metadata: dict[str, Any] | None = None
    on_expiry: dict[str, Any] | None = None
    """Spec 1.1 (ROC-EXPIRY-002): ``{"decision": "decline"|"cancel", "message"?}``, reported unchanged."""

    @field_validator("on_expiry", mode="before")
    @classmethod
    def _on_expiry_is_an_outcome(cls, value: Any) -> Any:
        if value is None:
            return None
        problem = on_expiry_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return json_copy(dict(value))

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_is_a_json_object(cls, value: Any) -> Any:
        # None is the absent member (code copies interrupts through model_dump); JSON null is refused where
        # JSON enters, by SnapshotInterrupt below.
        if value is None:
            return None
        if not isinstance(value, dict) or not is_json_value(value):  # spec 2.1, ROC-SEC-014
            raise ValueError("interrupt metadata must be a JSON object within the limits")
        return json_copy(value)

    @field_validator("reason")
    @classmethod
    def _reason_is_json(cls, value: Any) -> Any:
        # ROC-SEC-012, ROC-SEC-014: a reason must fit in a snapshot (the runtime checks it at the raise).
        problem = json_value_problem(value, max_bytes=MAX_VALUE_BYTES)
        if problem is not None:
            raise ValueError(f"interrupt reason: {problem}")
        return value

    @field_validator("response_schema")
    @classmethod
    def _schema_is_json(cls, value: Any) -> Any:
        problem = None if value is None else json_value_problem(value)  # ROC-SEC-014
        if problem is not None:
            raise ValueError(f"responseSchema: {problem}")
        return value

    @field_validator("expires_at")
    @classmethod
    def _expires_at_is_rfc3339(cls, value: Any) -> Any:
        # ROC-SEC-015: checked where it enters, so comparing it with the clock on resume cannot fail.
        if value is not None:
            parse_rfc3339(value)
        return value


class SnapshotInterrupt(Interrupt):
    """A stored interrupt: plus ``response`` when answered and ``inputDigest`` when tool-bound."""

    _omit_if_none = frozenset(
        {
            "reason",
            "responseSchema",
            "expiresAt",
            "metadata",
            "onExpiry",
            "response",
            "inputDigest",
            "decision",
            "message",
            "responseMetadata",
        }
    )

    response: Any = None
    input_digest: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$")
    decision: Literal["decline", "cancel"] | None = None
    """Format 2.1: a decided interrupt stores its decision (and ``message``) instead of a ``response``."""
    message: str | None = None
    response_metadata: dict[str, Any] | None = None
    """Format 2.3 (ROC-AUDIT-003): the ``metadata`` of the block that answered or decided the interrupt."""

    @model_validator(mode="before")
    @classmethod
    def _no_null_metadata(cls, data: Any) -> Any:
        # The schema allows metadata only as an object: a snapshot holding "metadata": null is malformed.
        if isinstance(data, dict) and "metadata" in data and data["metadata"] is None:
            raise ValueError("stored interrupt metadata must be a JSON object, not null")
        return data

    @model_validator(mode="after")
    def _answer_or_decision(self) -> SnapshotInterrupt:
        # Format 2.1: never both a response and a decision; a message only with a decision.
        if self.decision is not None and self.response is not None:
            raise ValueError("a stored interrupt holds a response or a decision, not both")
        if self.message is not None and self.decision is None:
            raise ValueError("a stored message needs its decision")
        if self.response_metadata is not None and self.response is None and self.decision is None:
            raise ValueError("stored responseMetadata needs a response or a decision")  # ROC-AUDIT-003
        return self

    @field_validator("response", "response_metadata")
    @classmethod
    def _stored_value_is_json(cls, value: Any, info: ValidationInfo) -> Any:
        problem = json_value_problem(value, max_bytes=MAX_VALUE_BYTES)  # ROC-SEC-011, ROC-SEC-014
        if problem is not None:
            raise ValueError(f"stored {to_camel(info.field_name or '')}: {problem}")
        return value


class AgentResult(RocModel):
    """``{stopReason, message, interrupts}``; interrupts non-empty iff stopReason is "interrupt"."""

    stop_reason: StopReason
    message: Message
    interrupts: list[Interrupt] = Field(default_factory=list)

    @model_validator(mode="after")
    def _interrupts_iff_interrupt(self) -> AgentResult:
        if (self.stop_reason == "interrupt") != bool(self.interrupts):
            raise ValueError("interrupts must be non-empty exactly when stopReason is 'interrupt'")
        return self


class PendingToolExecution(RocModel):
    """The tool cycle in flight while interrupted: its assistant message and the results already completed."""

    assistant_message: Message
    completed_tool_results: list[ToolResult]  # required, as in the schema (ROC-SNAP-009)
