"""The RoC data model as pydantic v2 models whose JSON is exactly the spec's JSON (ROC-MODEL-*).

Python attributes are snake_case; ``to_json()`` produces lowerCamelCase with absent optionals omitted.
Models are frozen: the runtime shares them between history, pending state and events without copies,
and nobody can change a recorded message behind the agent's back.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "content_filtered",
    "guardrail_intervened",
    "interrupt",
    "cancelled",
]
InterruptSourceKind = Literal["tool", "before_tool_call", "before_tools", "before_node_call", "agent_as_tool"]
Role = Literal["user", "assistant"]
ToolStatus = Literal["success", "error"]


def is_json_value(value: Any, _path: frozenset[int] = frozenset()) -> bool:
    """True when ``value`` is plain JSON: null, bool, finite number, str, list, or dict with str keys.

    Cyclic structures are not JSON (``_path`` holds the containers on the way down).
    """
    if value is None or isinstance(value, bool | str | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | dict):
        if id(value) in _path:
            return False
        inner = _path | {id(value)}
        if isinstance(value, list):
            return all(is_json_value(v, inner) for v in value)
        return all(isinstance(k, str) and is_json_value(v, inner) for k, v in value.items())
    return False


def json_copy(value: Any) -> Any:
    """A private deep copy of a JSON value, so stored answers and state cannot be mutated from outside."""
    return copy.deepcopy(value)


class RocModel(BaseModel):
    """Base: camelCase aliases, unknown fields rejected, immutable, optionals omitted when ``None``."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

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

    def to_json(self) -> dict[str, Any]:
        """The spec JSON of this value (a fresh dict)."""
        data = self.model_dump(mode="json", by_alias=True)
        assert isinstance(data, dict)
        return data


# --- content blocks -------------------------------------------------------------------------------


class TextBlock(RocModel):
    """``{"text": str}``."""

    text: str


class JsonContent(RocModel):
    """Tool-result content ``{"json": <any JSON>}``; ``null`` is kept."""

    value: Any = Field(alias="json")


class ToolUse(RocModel):
    """``{toolUseId, name, input}``: one tool call requested by the model.

    ``input`` is any JSON value (spec 2.3): usually an object of named arguments, but a snapshot from another
    implementation can hold an array, a string, a number or null, and it is kept as written. The member is
    required, as in the schema: a snapshot or message whose toolUse omits it is malformed (SNAPSHOT_INVALID
    when loading), so ``input`` has no default here; ``ToolUse.of`` is the shorthand for code.
    """

    tool_use_id: str = Field(min_length=1)
    name: str
    input: Any

    @classmethod
    def of(cls, tool_use_id: str, name: str, /, **arguments: Any) -> ToolUse:
        """Build a tool use in code: its ``input`` is the keyword arguments (``{}`` when none)."""
        return cls(tool_use_id=tool_use_id, name=name, input=dict(arguments))

    @field_validator("input")
    @classmethod
    def _input_is_json(cls, value: Any) -> Any:
        if not is_json_value(value):
            raise ValueError("toolUse input must be a JSON value")
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


class InterruptResponse(RocModel):
    """``{interruptId, response}``: the caller's answer to one interrupt."""

    interrupt_id: str
    response: Any


class InterruptResponseBlock(RocModel):
    """``{"interruptResponse": InterruptResponse}`` (byte-compatible with both Strands SDKs)."""

    interrupt_response: InterruptResponse


ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | InterruptResponseBlock


class Message(RocModel):
    """``{role, content: [ContentBlock], metadata?}``.

    ``metadata`` is the data model's one extension point (spec 2.3): an implementation-defined JSON object
    that the runtime keeps as found and never interprets.
    """

    _omit_if_none = frozenset({"metadata"})

    role: Role
    content: list[ContentBlock]
    metadata: dict[str, Any] | None = None

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_is_a_json_object(cls, value: Any) -> Any:
        # Only an explicit value reaches here: an absent member stays absent, a null one is not an object.
        if not isinstance(value, dict) or not is_json_value(value):
            raise ValueError("message metadata must be a JSON object")
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


class InterruptSource(RocModel):
    """Where an interrupt was raised, so a UI can tell which tool call an approval is for (ROC-MODEL-003)."""

    _omit_if_none = frozenset({"toolUseId", "toolName", "nodeId"})

    kind: InterruptSourceKind
    tool_use_id: str | None = None
    tool_name: str | None = None
    node_id: str | None = None


class Interrupt(RocModel):
    """``{id, name, reason?, source, responseSchema?, expiresAt?}`` as returned to callers."""

    _omit_if_none = frozenset({"reason", "responseSchema", "expiresAt"})

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    reason: Any = None
    source: InterruptSource
    response_schema: dict[str, Any] | None = None
    expires_at: str | None = None


class SnapshotInterrupt(Interrupt):
    """A stored interrupt: plus ``response`` when answered and ``inputDigest`` when tool-bound."""

    _omit_if_none = frozenset({"reason", "responseSchema", "expiresAt", "response", "inputDigest"})

    response: Any = None
    input_digest: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$")


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
    completed_tool_results: list[ToolResult] = Field(default_factory=list)
