"""The JSON <-> protobuf binding of the RoC data model (hand-written, not generated).

The JSON form (spec/schema/v1) is normative and wins on any conflict; the proto messages of ``roc.v1``
mirror it so that ProtoJSON (``google.protobuf.json_format``) gives the same shape. Spec section 2.7
("Protobuf binding", normative) states the rules this module implements; the numbers below are this
module's own (proto/README.md maps each to its item of spec 2.7):

1. Enums. JSON spells an enum value without the enum's prefix: lower snake case by default
   (``"end_turn"`` <-> ``STOP_REASON_END_TURN``, ``"tool"`` <-> ``INTERRUPT_SOURCE_KIND_TOOL``),
   upper snake case for error codes (``"INTERRUPT_PENDING"`` <-> ``ERROR_CODE_INTERRUPT_PENDING``),
   PascalCase for hook events (``"BeforeToolCall"`` <-> ``HOOK_EVENT_BEFORE_TOOL_CALL``). The
   ``*_UNSPECIFIED`` zero value has no JSON form; meeting it is an error.
2. Every member is always written, except members that have presence in proto (``optional``
   scalars, messages, oneofs): so empty arrays, ``false`` and ``0`` survive the round trip.
3. A required member whose JSON value can be ``null`` (``interruptState.pendingToolExecution``) is an
   unset message field in proto; the mapping writes it back as ``null``.
4. A type whose JSON form is a bare array (``ResumeInput``) is a message with one repeated field;
   it is a bare array wherever it appears, also as a member of another message.
5. Numbers inside arbitrary JSON (``google.protobuf.Value``/``Struct``) are IEEE doubles. ``to_proto``
   refuses integers outside +-(2**53 - 1) and non-finite numbers instead of rounding them;
   ``from_proto`` writes integral values in that range as integers. JSON numbers therefore compare
   as numbers (``1 == 1.0``), which is what ``json_equal`` implements; typed integer fields
   (``revision`` is ``uint32``, written as a JSON number) stay exact integers.

Two more rules serve the harness types of ``roc.conformance.v1``:

6. A trace event is flat in JSON, ``{"kind": "model_call", "turn": 0}``: the name of the set oneof
   arm goes into ``kind`` and the arm's members sit beside it, and so do the event's own members outside
   the oneof (``agentPath``, harness protocol 5, omitted when empty like the arrays of rule 7).
7. ``AgentSpec.tools`` and ``AgentSpec.hooks`` are optional in JSON (absent means empty) and are
   omitted when empty, as are ``AgentSpec.builtinTools``, ``AgentSpec.approval`` and
   ``ApprovalPolicy.decisions`` (harness protocol 6). So are ``interruptState.consumed`` (snapshot format
   2.1), the map ``interruptState.children`` (format 2.2) and ``QuestionAnswer.selected`` of the data
   model: a document of an earlier format, which has no such member, round-trips unchanged.

(Protocol 2 carries the ``content`` and ``interruptResponses`` invoke inputs as
``google.protobuf.ListValue``, plain JSON arrays, so protocol 1's rule for a typed ``ContentInput`` is
gone.) One more rule of the data model, since harness protocol 3:

8. A ``google.protobuf.Value`` member whose JSON value is never null (``Interrupt.reason``,
   ``Interrupt.response``, ``InterruptResponse.response``, ``PendingInterrupt.reason``,
   ``PendingAnswer.response``): unset is the absent member, and a Value
   holding ``null_value`` has no JSON form, so it is refused in both directions. A raiser that passes
   a null reason raised without one (ROC-MODEL-007): its interrupt leaves the field unset.

Errors are values: every refusal raises ``JsonMappingError``.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, Final, Literal, cast

from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

__all__ = [
    "ENUM_STYLES",
    "JSON_TYPES",
    "MAX_SAFE_INTEGER",
    "JsonMappingError",
    "enum_to_json",
    "enum_to_proto",
    "from_proto",
    "json_equal",
    "message_class",
    "to_proto",
]

EnumStyle = Literal["snake", "upper", "pascal"]

#: Largest integer a double holds exactly together with all smaller ones (I-JSON, RFC 7493).
MAX_SAFE_INTEGER: Final = 2**53 - 1

#: How JSON spells the values of an enum; enums not listed use "snake".
ENUM_STYLES: Final[Mapping[str, EnumStyle]] = {
    "roc.v1.ErrorCode": "upper",
    "roc.conformance.v1.HookEvent": "pascal",
}

#: JSON type names (schema titles and examples directories) -> proto message full names.
JSON_TYPES: Final[Mapping[str, str]] = {
    "Interrupt": "roc.v1.Interrupt",
    "StoredInterrupt": "roc.v1.Interrupt",
    "InterruptSource": "roc.v1.InterruptSource",
    "InterruptResponse": "roc.v1.InterruptResponse",
    "InterruptResponseContent": "roc.v1.InterruptResponseContent",
    "ResumeInput": "roc.v1.ResumeInput",
    "ContentBlock": "roc.v1.ContentBlock",
    "ToolUse": "roc.v1.ToolUse",
    "ToolResult": "roc.v1.ToolResult",
    "Message": "roc.v1.Message",
    "AgentResult": "roc.v1.AgentResult",
    "Error": "roc.v1.Error",
    "Snapshot": "roc.v1.Snapshot",
    "SnapshotAgent": "roc.v1.SnapshotAgent",
    "InterruptState": "roc.v1.InterruptState",
    "PendingToolExecution": "roc.v1.PendingToolExecution",
    "SnapshotIntegrity": "roc.v1.Integrity",
    # Spec 1.1.
    "ExpiryOutcome": "roc.v1.ExpiryOutcome",
    "PendingInterrupt": "roc.v1.PendingInterrupt",
    "PendingAnswer": "roc.v1.PendingAnswer",
    "AbandonInput": "roc.v1.AbandonInput",
    "Abandon": "roc.v1.Abandon",
    "ConsumedDecision": "roc.v1.ConsumedDecision",
    # Spec 1.3.
    "Question": "roc.v1.Question",
    "QuestionOption": "roc.v1.QuestionOption",
    "QuestionAnswer": "roc.v1.QuestionAnswer",
    "AskUserInput": "roc.v1.AskUserInput",
    "ApprovalAnswer": "roc.v1.ApprovalAnswer",
    "StreamEvent": "roc.v1.StreamEvent",
    # The harness scenario language and trace (roc.conformance.v1), same rules plus 6 and 7.
    "AgentSpec": "roc.conformance.v1.AgentSpec",
    "TraceEvent": "roc.conformance.v1.TraceEvent",
}

# Rule 3: (message, field) pairs whose JSON member is required and can be null.
_NULLABLE: Final[frozenset[tuple[str, str]]] = frozenset(
    {("roc.v1.InterruptState", "pending_tool_execution")}
)
# Rule 8: (message, field) pairs of google.protobuf.Value whose JSON value is never null.
_NEVER_NULL: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("roc.v1.Interrupt", "reason"),
        ("roc.v1.Interrupt", "response"),
        ("roc.v1.InterruptResponse", "response"),
        ("roc.v1.PendingInterrupt", "reason"),
        ("roc.v1.PendingAnswer", "response"),
        ("roc.conformance.v1.InspectedInterrupt", "reason"),
        ("roc.conformance.v1.InspectedInterrupt", "response"),
    }
)
# Rule 4: messages whose JSON form is the bare array of their single repeated field.
_ARRAY_WRAPPERS: Final[Mapping[str, str]] = {"roc.v1.ResumeInput": "responses"}
# Rule 6: messages whose JSON form flattens their oneof: {"<discriminator>": "<arm name>", ...arm}.
_FLATTENED_ONEOFS: Final[Mapping[str, str]] = {"roc.conformance.v1.TraceEvent": "kind"}
# Rule 7: optional JSON arrays (absent means empty); omitted when empty.
_OMIT_WHEN_EMPTY: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("roc.conformance.v1.AgentSpec", "tools"),
        ("roc.conformance.v1.AgentSpec", "hooks"),
        ("roc.v1.InterruptState", "consumed"),
        ("roc.v1.InterruptState", "children"),  # format 2.2: absent when no sub-agent is kept
        ("roc.conformance.v1.TraceEvent", "agent_path"),  # harness protocol 5: empty for the top agent
        ("roc.conformance.v1.OrchestratorSpec", "edges"),  # harness protocol 5: a swarm has none
        ("roc.conformance.v1.OrchestratorSpec", "hooks"),
        ("roc.conformance.v1.AgentSpec", "builtin_tools"),  # harness protocol 6: absent when none
        ("roc.conformance.v1.AgentSpec", "approval"),
        ("roc.conformance.v1.ApprovalPolicy", "decisions"),  # absent: all three decisions
        ("roc.v1.QuestionAnswer", "selected"),  # spec 15.3: absent when no option was picked
    }
)
# Arbitrary JSON: copied verbatim, numbers checked (to proto) and normalized (from proto).
_JSON_VALUE_TYPES: Final = frozenset(
    {"google.protobuf.Value", "google.protobuf.Struct", "google.protobuf.ListValue"}
)
_INT64_TYPES: Final = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_CAMEL_BOUNDARY: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class JsonMappingError(ValueError):
    """A document or message has no counterpart under the mapping (the input is left untouched)."""


# --- enums -------------------------------------------------------------------------------------


def _enum_prefix(enum: EnumDescriptor) -> str:
    return _CAMEL_BOUNDARY.sub("_", enum.name).upper() + "_"


def _json_spelling(suffix: str, style: EnumStyle) -> str:
    if style == "upper":
        return suffix
    if style == "pascal":
        return "".join(word.capitalize() for word in suffix.split("_"))
    return suffix.lower()


@cache
def _enum_table(enum: EnumDescriptor) -> tuple[dict[str, int], dict[int, str]]:
    """({json spelling: number}, {number: json spelling}) without the zero value."""
    prefix, style = _enum_prefix(enum), ENUM_STYLES.get(enum.full_name, "snake")
    to_number: dict[str, int] = {}
    for value in enum.values:
        if value.number == 0:
            continue
        if not value.name.startswith(prefix):
            raise JsonMappingError(f"{enum.full_name}.{value.name} lacks the prefix {prefix}")
        to_number[_json_spelling(value.name.removeprefix(prefix), style)] = value.number
    return to_number, {number: text for text, number in to_number.items()}


def _enum(full_name: str) -> EnumDescriptor:
    _load_generated_modules()
    try:
        return descriptor_pool.Default().FindEnumTypeByName(full_name)
    except KeyError:
        raise JsonMappingError(f"unknown enum {full_name!r}") from None


def enum_to_proto(enum_name: str, value: Any) -> int:
    """The number of the enum value JSON spells ``value``, e.g. ("roc.v1.StopReason", "end_turn") -> 1."""
    return _enum_json_to_number(_enum(enum_name), value)


def enum_to_json(enum_name: str, number: int) -> str:
    """The JSON spelling of an enum value, e.g. ("roc.v1.StopReason", 1) -> "end_turn"."""
    return _enum_number_to_json(_enum(enum_name), number)


def _enum_json_to_number(enum: EnumDescriptor, value: Any) -> int:
    table, _ = _enum_table(enum)
    if not isinstance(value, str) or value not in table:
        raise JsonMappingError(f"{value!r} is not a JSON value of {enum.full_name} (one of {sorted(table)})")
    return table[value]


def _enum_number_to_json(enum: EnumDescriptor, number: int) -> str:
    _, table = _enum_table(enum)
    if number not in table:
        raise JsonMappingError(f"{enum.full_name} value {number} has no JSON form")
    return table[number]


# --- message types -----------------------------------------------------------------------------


@cache
def _load_generated_modules() -> None:
    """Import every generated module of this package so its types are in the default pool."""
    package = importlib.import_module(__package__ or "roc_conformance.pb")
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith("_pb2"):
            importlib.import_module(info.name)


def message_class(type_name: str) -> type[Message]:
    """The message class for a JSON type name (``JSON_TYPES``) or a proto full name."""
    _load_generated_modules()
    full_name = JSON_TYPES.get(type_name, type_name)
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(full_name)
    except KeyError:
        raise JsonMappingError(f"unknown type {type_name!r}") from None
    return message_factory.GetMessageClass(descriptor)


# Descriptors never change once loaded, so their lookups are remembered: they ran for every member of every
# message the suite and the reference adapter convert (callers only read the returned dict).
@cache
def _fields_by_json_name(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    return {field.json_name: field for field in descriptor.fields}


@cache
def _map_value_field(field: FieldDescriptor) -> FieldDescriptor | None:
    """The value field of a map field's entry type; None when ``field`` is not a map."""
    entry = field.message_type
    if entry is None or not entry.GetOptions().map_entry:
        return None
    return entry.fields_by_name["value"]


# --- JSON -> proto -----------------------------------------------------------------------------


def to_proto(type_name: str, json_doc: Any) -> Message:
    """Parse a JSON document (as ``json.loads`` returns it) into the proto message of ``type_name``."""
    cls = message_class(type_name)
    descriptor = cast(Descriptor, cls.DESCRIPTOR)
    prepared = _prepare_message(descriptor, json_doc, type_name)
    try:
        return json_format.ParseDict(prepared, cls())
    except (json_format.ParseError, ValueError, TypeError) as exc:
        raise JsonMappingError(f"{type_name}: {exc}") from None


def _prepare_message(descriptor: Descriptor, doc: Any, path: str) -> dict[str, Any]:
    wrapped = _ARRAY_WRAPPERS.get(descriptor.full_name)
    if wrapped is not None:  # rule 4: the bare array is the message's one repeated field
        if not isinstance(doc, list):
            raise JsonMappingError(f"{path}: {descriptor.name} is a JSON array, got {type(doc).__name__}")
        doc = {descriptor.fields_by_name[wrapped].json_name: doc}
    if not isinstance(doc, dict):
        raise JsonMappingError(f"{path}: expected an object, got {type(doc).__name__}")
    discriminator = _FLATTENED_ONEOFS.get(descriptor.full_name)
    if discriminator is not None:
        return _prepare_flattened(descriptor, discriminator, doc, path)
    fields = _fields_by_json_name(descriptor)
    prepared: dict[str, Any] = {}
    for key, value in doc.items():
        field = fields.get(key)
        if field is None:
            raise JsonMappingError(f"{path}: unknown member {key!r} (members: {sorted(fields)})")
        where = f"{path}.{key}"
        if value is None and (descriptor.full_name, field.name) in _NEVER_NULL:
            raise JsonMappingError(f"{where}: null is not allowed (spec 2.7: leave the member out)")
        if (
            value is None
            and field.message_type is not None
            and field.message_type.full_name not in _JSON_VALUE_TYPES
        ):
            if (descriptor.full_name, field.name) not in _NULLABLE:
                raise JsonMappingError(f"{where}: null is not allowed")
            continue  # rule 3: null is the unset message field
        prepared[key] = _prepare_field(field, value, where)
    return prepared


def _prepare_flattened(
    descriptor: Descriptor, discriminator: str, doc: dict[str, Any], path: str
) -> dict[str, Any]:
    """Rule 6: {"kind": arm, ...members} -> {armJsonName: {...members}}; members of the message outside the
    oneof (``TraceEvent.agentPath``) stay beside the arm."""
    rest = dict(doc)
    kind = rest.pop(discriminator, None)
    arm = descriptor.fields_by_name.get(kind) if isinstance(kind, str) else None
    if arm is None or arm.containing_oneof is None or arm.message_type is None:
        raise JsonMappingError(f"{path}: {discriminator} {kind!r} is not one of {_arm_names(descriptor)}")
    beside = {f.json_name: f for f in descriptor.fields if f.containing_oneof is None}
    outer = {
        key: _prepare_field(beside[key], rest.pop(key), f"{path}.{key}")
        for key in list(rest)
        if key in beside
    }
    return {arm.json_name: _prepare_message(arm.message_type, rest, f"{path}({kind})"), **outer}


def _arm_names(descriptor: Descriptor) -> list[str]:
    return sorted(f.name for f in descriptor.fields if f.containing_oneof is not None)


def _prepare_field(field: FieldDescriptor, value: Any, path: str) -> Any:
    value_field = _map_value_field(field)
    if value_field is not None:
        if not isinstance(value, dict):
            raise JsonMappingError(f"{path}: expected an object")
        return {k: _prepare_single(value_field, v, f"{path}.{k}") for k, v in value.items()}
    if field.is_repeated:
        if not isinstance(value, list):
            raise JsonMappingError(f"{path}: expected an array, got {type(value).__name__}")
        return [_prepare_single(field, item, f"{path}[{i}]") for i, item in enumerate(value)]
    return _prepare_single(field, value, path)


def _prepare_single(field: FieldDescriptor, value: Any, path: str) -> Any:
    if field.enum_type is not None:
        number = _enum_json_to_number(field.enum_type, value)
        return field.enum_type.values_by_number[number].name
    if field.message_type is None:
        return value
    if field.message_type.full_name in _JSON_VALUE_TYPES:
        _check_json_numbers(value, path)
        return value
    return _prepare_message(field.message_type, value, path)


def _check_json_numbers(value: Any, path: str) -> None:
    """Rule 5: refuse numbers a double cannot carry exactly instead of rounding them."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise JsonMappingError(f"{path}: integer {value} is outside +-(2**53 - 1)")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise JsonMappingError(f"{path}: {value} is not a JSON number")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_numbers(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise JsonMappingError(f"{path}: object key {key!r} is not a string")
            _check_json_numbers(item, f"{path}.{key}")
    else:
        raise JsonMappingError(f"{path}: {type(value).__name__} is not a JSON value")


# --- proto -> JSON -----------------------------------------------------------------------------


def from_proto(message: Message) -> Any:
    """The JSON document (``dict``, or ``list`` for bare-array types) of a proto message."""
    descriptor = cast(Descriptor, message.DESCRIPTOR)
    try:
        raw = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except (json_format.SerializeToJsonError, ValueError) as exc:
        raise JsonMappingError(f"{descriptor.full_name}: {exc}") from None
    if descriptor.full_name in _JSON_VALUE_TYPES:  # e.g. the ListValue of a raw-JSON invoke input
        return _normalize_numbers(raw)
    return _restore_message(descriptor, raw, descriptor.name)


def _restore_message(descriptor: Descriptor, raw: dict[str, Any], path: str) -> Any:
    wrapped = _ARRAY_WRAPPERS.get(descriptor.full_name)
    if wrapped is not None:  # rule 4
        field = descriptor.fields_by_name[wrapped]
        return _restore_field(field, raw.get(field.json_name, []), f"{path}.{field.json_name}")
    fields = _fields_by_json_name(descriptor)
    doc = {key: _restore_field(fields[key], value, f"{path}.{key}") for key, value in raw.items()}
    for member, value in doc.items():
        if value is None and (descriptor.full_name, fields[member].name) in _NEVER_NULL:
            # Rule 8: null_value has no JSON form here (a null reason is no reason; a null answer is none)
            raise JsonMappingError(f"{path}.{member}: a Value holding null_value has no JSON form (spec 2.7)")
    for field in descriptor.fields:
        key = (descriptor.full_name, field.name)
        if key in _NULLABLE and field.json_name not in doc:
            doc[field.json_name] = None
        if key in _OMIT_WHEN_EMPTY and doc.get(field.json_name) in ([], {}):
            del doc[field.json_name]
    discriminator = _FLATTENED_ONEOFS.get(descriptor.full_name)
    if discriminator is not None:
        arms = {k: v for k, v in doc.items() if fields[k].containing_oneof is not None}
        if len(arms) != 1:
            raise JsonMappingError(f"{path}: exactly one of {_arm_names(descriptor)} must be set")
        ((arm_json_name, members),) = arms.items()
        beside = {k: v for k, v in doc.items() if k not in arms}
        return {discriminator: fields[arm_json_name].name, **members, **beside}
    return doc


def _restore_field(field: FieldDescriptor, value: Any, path: str) -> Any:
    value_field = _map_value_field(field)
    if value_field is not None:
        return {k: _restore_single(value_field, v, f"{path}.{k}") for k, v in value.items()}
    if field.is_repeated:
        return [_restore_single(field, item, f"{path}[{i}]") for i, item in enumerate(value)]
    return _restore_single(field, value, path)


def _restore_single(field: FieldDescriptor, value: Any, path: str) -> Any:
    if field.enum_type is not None:
        number = field.enum_type.values_by_name[value].number if isinstance(value, str) else value
        try:
            return _enum_number_to_json(field.enum_type, number)
        except JsonMappingError as exc:
            raise JsonMappingError(f"{path}: {exc}") from None
    if field.message_type is not None:
        if field.message_type.full_name in _JSON_VALUE_TYPES:
            return _normalize_numbers(value)
        return _restore_message(field.message_type, value, path)
    if field.type in _INT64_TYPES and isinstance(value, str):
        return int(value)  # ProtoJSON quotes 64-bit integers; the JSON model uses numbers
    return value


def _normalize_numbers(value: Any) -> Any:
    """Rule 5: integral doubles within the safe range are written as integers (except -0.0)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        # -0.0 stays a float: as an integer it would lose its sign and change the canonical JSON
        return value if math.copysign(1.0, value) < 0 and value == 0 else int(value)
    if isinstance(value, list):
        return [_normalize_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: _normalize_numbers(item) for key, item in value.items()}
    return value


# --- comparison --------------------------------------------------------------------------------


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality: numbers compare by value (1 == 1.0), booleans are not numbers, order of
    object members does not matter, order of array items does."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right
