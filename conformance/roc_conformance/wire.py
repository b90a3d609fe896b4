"""JSON <-> protobuf for the harness messages (roc.conformance.v1) and the data model they carry (roc.v1).

The suite, the oracle and the adapters think in the spec's JSON (lowerCamelCase members, enum values
spelled as in the spec: ``"end_turn"``, ``"INTERRUPT_PENDING"``, ``"BeforeToolCall"``). The wire is
protobuf. This module is the one place that translates, driven by the message descriptors, with three
shapes that differ from plain ProtoJSON:

* a trace event is ``{"kind": "model_call", "turn": 0}`` (the oneof member name becomes ``kind``);
* the ``interruptResponses`` invoke input is a bare list of ``{"interruptId", "response"}``;
* the ``content`` invoke input is a bare list of content blocks.

JSON numbers travel as doubles; integral values come back as ``int`` so digests of canonical JSON agree.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

from google.protobuf import struct_pb2
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb

M = TypeVar("M", bound=Message)

_MAX_SAFE_INT = 2**53


class WireError(ValueError):
    """A JSON document does not fit the proto shape, or a proto message has no JSON form."""


# ---------------------------------------------------------------------------------------------
# Enum spellings


def _pascal(tail: str) -> str:
    return "".join(part.capitalize() for part in tail.split("_"))


def _enum_style(enum: EnumDescriptor) -> str:
    if enum.full_name == "roc.v1.ErrorCode":
        return "upper"
    if enum.full_name == "roc.conformance.v1.HookEvent":
        return "pascal"
    return "lower"


def _enum_prefix(enum: EnumDescriptor) -> str:
    # STANDARD lint guarantees values are prefixed with the enum name in UPPER_SNAKE_CASE.
    name = enum.name
    snake = "".join(("_" + c if c.isupper() and i else c) for i, c in enumerate(name)).upper()
    return snake + "_"


def enum_to_json(enum: EnumDescriptor, number: int) -> str:
    """The spec spelling of an enum value; the zero (``_UNSPECIFIED``) value has none."""
    value = enum.values_by_number.get(number)
    if value is None or number == 0:
        raise WireError(f"{enum.full_name}: value {number} has no JSON form")
    tail = value.name.removeprefix(_enum_prefix(enum))
    style = _enum_style(enum)
    if style == "upper":
        return tail
    if style == "pascal":
        return _pascal(tail)
    return tail.lower()


def enum_from_json(enum: EnumDescriptor, text: Any) -> int:
    """The enum number of a spec spelling."""
    if not isinstance(text, str):
        raise WireError(f"{enum.full_name}: expected a string, got {text!r}")
    for value in enum.values:
        if value.number != 0 and enum_to_json(enum, value.number) == text:
            return int(value.number)
    raise WireError(f"{enum.full_name}: unknown value {text!r}")


# ---------------------------------------------------------------------------------------------
# google.protobuf.Value / Struct


def value_to_json(value: struct_pb2.Value) -> Any:
    """A ``Value`` as plain JSON (integral numbers as ``int``)."""
    kind = value.WhichOneof("kind")
    if kind is None or kind == "null_value":
        return None
    if kind == "number_value":
        num = value.number_value
        if math.isfinite(num) and num.is_integer() and abs(num) < _MAX_SAFE_INT:
            return int(num)
        return num
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return struct_to_json(value.struct_value)
    return [value_to_json(v) for v in value.list_value.values]


def struct_to_json(struct: struct_pb2.Struct) -> dict[str, Any]:
    return {k: value_to_json(v) for k, v in struct.fields.items()}


def fill_value(target: struct_pb2.Value, doc: Any) -> None:
    """Write plain JSON into a ``Value``."""
    if doc is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(doc, bool):
        target.bool_value = doc
    elif isinstance(doc, int | float):
        if isinstance(doc, float) and not math.isfinite(doc):
            raise WireError(f"not a JSON number: {doc!r}")
        target.number_value = float(doc)
    elif isinstance(doc, str):
        target.string_value = doc
    elif isinstance(doc, dict):
        fill_struct(target.struct_value, doc)
    elif isinstance(doc, list | tuple):
        target.list_value.SetInParent()
        for item in doc:
            fill_value(target.list_value.values.add(), item)
    else:
        raise WireError(f"not JSON: {type(doc).__name__}")


def fill_struct(target: struct_pb2.Struct, doc: Any) -> None:
    if not isinstance(doc, dict):
        raise WireError(f"expected a JSON object, got {type(doc).__name__}")
    target.SetInParent()
    for key, item in doc.items():
        if not isinstance(key, str):
            raise WireError(f"object keys must be strings, got {key!r}")
        fill_value(target.fields[key], item)


# ---------------------------------------------------------------------------------------------
# Generic messages

_TRACE = "roc.conformance.v1.TraceEvent"
_CONTENT_INPUT = "roc.conformance.v1.ContentInput"
_RESUME_INPUT = "roc.v1.ResumeInput"


def _enum(field: FieldDescriptor) -> EnumDescriptor:
    enum = field.enum_type
    if enum is None:
        raise WireError(f"{field.full_name} is not an enum field")
    return enum


def _has(msg: Message, field: FieldDescriptor) -> bool:
    if field.is_repeated:
        return True
    if field.has_presence:
        return msg.HasField(field.name)
    return True


def _scalar_to_json(field: FieldDescriptor, raw: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return enum_to_json(_enum(field), raw) if raw else None
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_json(raw)
    if field.type == FieldDescriptor.TYPE_BYTES:
        raise WireError(f"{field.full_name}: bytes have no JSON form here")
    return raw


def to_json(msg: Message) -> Any:
    """A message in the spec's JSON form."""
    desc: Any = msg.DESCRIPTOR
    full = desc.full_name
    if full == "google.protobuf.Value":
        return value_to_json(msg)  # type: ignore[arg-type]
    if full == "google.protobuf.Struct":
        return struct_to_json(msg)  # type: ignore[arg-type]
    if full == _TRACE:
        which = msg.WhichOneof("event")
        if which is None:
            raise WireError("trace event with no kind")
        body = to_json(getattr(msg, which))
        return {"kind": which, **body}
    if full == _CONTENT_INPUT:
        return [to_json(b) for b in msg.blocks]  # type: ignore[attr-defined]
    if full == _RESUME_INPUT:
        return [to_json(r.interrupt_response) for r in msg.responses]  # type: ignore[attr-defined]
    doc: dict[str, Any] = {}
    for field in desc.fields:
        if not _has(msg, field):
            continue
        raw = getattr(msg, field.name)
        if field.is_repeated:
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                doc[field.json_name] = {k: _scalar_to_json(value_field, v) for k, v in raw.items()}
            else:
                doc[field.json_name] = [_scalar_to_json(field, item) for item in raw]
            continue
        converted = _scalar_to_json(field, raw)
        if converted is None and field.type == FieldDescriptor.TYPE_ENUM:
            continue
        doc[field.json_name] = converted
    return doc


def _fill_field(msg: Message, field: FieldDescriptor, doc: Any) -> None:
    if field.is_repeated:
        container = getattr(msg, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if not isinstance(doc, dict):
                raise WireError(f"{field.full_name}: expected an object")
            value_field = field.message_type.fields_by_name["value"]
            for key, item in doc.items():
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    from_json(item, container[key])
                else:
                    container[key] = item
            return
        if not isinstance(doc, list):
            raise WireError(f"{field.full_name}: expected a list, got {type(doc).__name__}")
        for item in doc:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                from_json(item, container.add())
            elif field.type == FieldDescriptor.TYPE_ENUM:
                container.append(enum_from_json(_enum(field), item))
            else:
                container.append(item)
        return
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        from_json(doc, getattr(msg, field.name))
        return
    if field.type == FieldDescriptor.TYPE_ENUM:
        setattr(msg, field.name, enum_from_json(_enum(field), doc))
        return
    try:
        setattr(msg, field.name, doc)
    except (TypeError, ValueError) as exc:
        raise WireError(f"{field.full_name}: {exc}") from exc


def from_json(doc: Any, msg: M) -> M:
    """Fill ``msg`` (in place) from the spec's JSON form and return it. Unknown members are refused."""
    desc: Any = msg.DESCRIPTOR
    full = desc.full_name
    if full == "google.protobuf.Value":
        fill_value(msg, doc)  # type: ignore[arg-type]
        return msg
    if full == "google.protobuf.Struct":
        fill_struct(msg, doc)  # type: ignore[arg-type]
        return msg
    if full == _CONTENT_INPUT:
        if not isinstance(doc, list):
            raise WireError("content input must be a list of content blocks")
        msg.SetInParent()
        for block in doc:
            from_json(block, msg.blocks.add())  # type: ignore[attr-defined]
        return msg
    if full == _RESUME_INPUT:
        if not isinstance(doc, list):
            raise WireError("interruptResponses must be a list")
        msg.SetInParent()
        for item in doc:
            from_json(item, msg.responses.add().interrupt_response)  # type: ignore[attr-defined]
        return msg
    if not isinstance(doc, dict):
        raise WireError(f"{full}: expected a JSON object, got {type(doc).__name__}")
    body = dict(doc)
    if full == _TRACE:
        kind = body.pop("kind", None)
        if not isinstance(kind, str) or kind not in desc.fields_by_name:
            raise WireError(f"unknown trace event kind {kind!r}")
        from_json(body, getattr(msg, kind))
        return msg
    msg.SetInParent()
    by_json = {f.json_name: f for f in desc.fields}
    for key, item in body.items():
        field = by_json.get(key)
        if field is None:
            raise WireError(f"{full}: unknown member {key!r}")
        _fill_field(msg, field, item)
    return msg


# ---------------------------------------------------------------------------------------------
# Harness-specific helpers


def agent_spec_to_proto(spec: dict[str, Any]) -> hpb.AgentSpec:
    return from_json(spec, hpb.AgentSpec())


def agent_spec_from_proto(spec: hpb.AgentSpec) -> dict[str, Any]:
    doc: dict[str, Any] = to_json(spec)
    return doc


INPUT_KINDS = ("prompt", "content", "interruptResponses", "directToolCall")


def invoke_request(agent: str, inp: dict[str, Any]) -> hpb.InvokeRequest:
    """An ``InvokeRequest`` from the JSON input ``{"prompt": ...} | {"content": [...]} | ...``."""
    if not isinstance(inp, dict) or len(inp) != 1 or next(iter(inp)) not in INPUT_KINDS:
        raise WireError(f"invoke input must have exactly one of {INPUT_KINDS}, got {inp!r}")
    return from_json({"agent": agent, **inp}, hpb.InvokeRequest())


def invoke_input(req: hpb.InvokeRequest) -> dict[str, Any]:
    """The JSON input of an ``InvokeRequest`` (the inverse of ``invoke_request``)."""
    doc = to_json(req)
    doc.pop("agent", None)
    if len(doc) != 1:
        raise WireError("invoke request carries no input")
    return dict(doc)


def invoke_response_to_json(resp: hpb.InvokeResponse) -> dict[str, Any]:
    doc: dict[str, Any] = to_json(resp)
    return doc


def invoke_response_from_json(doc: dict[str, Any]) -> hpb.InvokeResponse:
    return from_json(doc, hpb.InvokeResponse())
