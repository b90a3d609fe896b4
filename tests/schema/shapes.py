"""Member shapes of the RoC data model, derived from the JSON Schemas and from the proto descriptors.

A *shape* says, for every member of an object type: its JSON kind (string, integer with its range, boolean,
any JSON value, an open JSON object, a named object type, a union of one-member blocks, an array of a kind, or
a kind that may also be null), whether it is required, and its enum values. ``schema_shape`` reads it from
``spec/schema/v1`` (following ``$ref``, ``$defs``, ``oneOf`` and the ``if``/``then``/``else`` branches the
files use); ``proto_shape`` reads it from a ``roc.v1`` message descriptor under the binding of spec 2.7
(JSON names, presence, the nullable and never-null rules of ``roc_conformance.pb.jsonmap``, enum spellings).
``compare`` lists every disagreement as a ``Finding`` whose ``key`` the exception file can name.

What the comparison deliberately ignores is listed in ``spec/schema/proto-exceptions.json`` under
``ignoredConstraints`` (spec 2.7: the proto is looser there, and those rules are checked on the JSON form).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from roc_conformance.pb import jsonmap

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "spec" / "schema" / "v1"
EXCEPTIONS_FILE = ROOT / "spec" / "schema" / "proto-exceptions.json"
BASE_URI = "https://roc-protocol.org/schema/v1/"

# A kind is a tuple: ("string", enum or None) | ("integer", min or None, max or None) | ("boolean",)
# | ("any", never_null) | ("object", roc.v1 message full name, or None for an open JSON object)
# | ("blocks", arm names)
# | ("array", item kind) | ("nullable", kind) | ("unknown", description).
Kind = tuple[Any, ...]

#: Every object type of the data model: its schema location and its roc.v1 message.
TYPES: dict[str, tuple[str, str]] = {
    "Interrupt": ("interrupt.schema.json#", "roc.v1.Interrupt"),
    "StoredInterrupt": ("snapshot.schema.json#/$defs/storedInterrupt", "roc.v1.Interrupt"),
    "InterruptSource": ("interrupt.schema.json#/$defs/source", "roc.v1.InterruptSource"),
    "InterruptResponse": ("interrupt-response.schema.json#/$defs/body", "roc.v1.InterruptResponse"),
    "InterruptResponseContent": ("interrupt-response.schema.json#", "roc.v1.InterruptResponseContent"),
    "ContentBlock": ("content-block.schema.json#", "roc.v1.ContentBlock"),
    "ToolUse": ("content-block.schema.json#/$defs/toolUse", "roc.v1.ToolUse"),
    "ToolResult": ("tool-result.schema.json#", "roc.v1.ToolResult"),
    "ToolResultContent": ("tool-result.schema.json#/$defs/resultItem", "roc.v1.ToolResultContent"),
    "Message": ("message.schema.json#", "roc.v1.Message"),
    "AgentResult": ("agent-result.schema.json#", "roc.v1.AgentResult"),
    "Error": ("error.schema.json#", "roc.v1.Error"),
    "Snapshot": ("snapshot.schema.json#", "roc.v1.Snapshot"),
    "SnapshotAgent": ("snapshot.schema.json#/$defs/agent", "roc.v1.SnapshotAgent"),
    "InterruptState": ("snapshot.schema.json#/$defs/interruptState", "roc.v1.InterruptState"),
    "PendingToolExecution": (
        "snapshot.schema.json#/$defs/pendingToolExecution",
        "roc.v1.PendingToolExecution",
    ),
    "SnapshotIntegrity": ("snapshot.schema.json#/$defs/integrity", "roc.v1.Integrity"),
    "ExpiryOutcome": ("interrupt.schema.json#/$defs/expiryOutcome", "roc.v1.ExpiryOutcome"),
    "ConsumedDecision": ("snapshot.schema.json#/$defs/consumedDecision", "roc.v1.ConsumedDecision"),
    "InnerInterrupt": ("interrupt.schema.json#/$defs/innerInterrupt", "roc.v1.InnerInterrupt"),
    "KeptSubAgent": ("snapshot.schema.json#/$defs/keptSubAgent", "roc.v1.KeptSubAgent"),
    "PendingInterrupt": ("pending-interrupt.schema.json#", "roc.v1.PendingInterrupt"),
    "PendingAnswer": ("pending-interrupt.schema.json#/$defs/answer", "roc.v1.PendingAnswer"),
    "AbandonInput": ("abandon-input.schema.json#", "roc.v1.AbandonInput"),
    "Abandon": ("abandon-input.schema.json#/$defs/body", "roc.v1.Abandon"),
    "Question": ("question.schema.json#", "roc.v1.Question"),
    "QuestionOption": ("question.schema.json#/$defs/option", "roc.v1.QuestionOption"),
    "QuestionAnswer": ("question-answer.schema.json#", "roc.v1.QuestionAnswer"),
    "AskUserInput": ("ask-user-input.schema.json#", "roc.v1.AskUserInput"),
    "ApprovalAnswer": ("approval-answer.schema.json#", "roc.v1.ApprovalAnswer"),
    "StreamEvent": ("stream-event.schema.json#", "roc.v1.StreamEvent"),
}
#: The one bare-array type (spec 2.7, bare arrays): its items, compared with the one repeated field.
ARRAY_TYPES: dict[str, tuple[str, str, str]] = {
    "ResumeInput": ("resume-input.schema.json#", "roc.v1.ResumeInput", "responses"),
}
#: Further schema locations that stand for a type above (a type refers to them by $ref).
ALIASES: dict[str, str] = {
    "interrupt.schema.json#/$defs/fields": "Interrupt",
    "message.schema.json#/$defs/assistantToolUseMessage": "Message",
}
#: Types whose JSON form is one member out of several arms (a oneof in proto).
BLOCK_UNIONS = frozenset({"ContentBlock", "ToolResultContent"})

_UINT32 = (0, 2**32 - 1)
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT64 = (0, 2**64 - 1)
_INTEGER_RANGES: dict[int, tuple[int, int]] = {
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
}
_SIXTY_FOUR_BIT = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_FIXED64,
    }
)


@dataclass(frozen=True)
class Member:
    kind: Kind
    required: bool | None  # None: the proto cannot say (a message field always has presence, spec 2.7)
    notes: tuple[str, ...] = ()  # facts compared on their own (e.g. "64-bit": ProtoJSON quotes it)


@dataclass(frozen=True)
class Finding:
    type_name: str
    member: str
    aspect: str  # member | required | kind | enum | range | null | 64-bit
    detail: str

    @property
    def key(self) -> str:
        return f"{self.type_name}.{self.member}:{self.aspect}"

    def __str__(self) -> str:
        return f"{self.key}: {self.detail}"


# --- schema side ---------------------------------------------------------------------------------


def load_schemas(directory: Path = SCHEMA_DIR) -> dict[str, Any]:
    """File name -> schema document."""
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.schema.json"))
    }


@dataclass
class SchemaReader:
    """Reads member shapes out of a set of schema documents (possibly altered by a test)."""

    schemas: Mapping[str, Any]
    _locations: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, (location, _) in TYPES.items():
            self._locations.setdefault(location, name)
        self._locations.update(ALIASES)

    # Locations are "<file>#<JSON pointer>"; every $ref in the files is absolute, "#..." or "#".
    def resolve(self, ref: str, base_file: str) -> str:
        uri, _, fragment = ref.partition("#")
        file = uri.removeprefix(BASE_URI) if uri else base_file
        return f"{file}#{fragment}"

    def node(self, location: str) -> Any:
        file, _, pointer = location.partition("#")
        node = self.schemas[file]
        for part in [p for p in pointer.split("/") if p]:
            key = part.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) else node[key]
        return node

    def type_at(self, location: str) -> str | None:
        return self._locations.get(location)

    def _file(self, location: str) -> str:
        return location.partition("#")[0]

    def _chain(self, location: str) -> list[str]:
        """The location and every location its $ref chain leads to (siblings of $ref add to the target)."""
        chain = [location]
        node = self.node(location)
        while isinstance(node, dict) and "$ref" in node:
            target = self.resolve(node["$ref"], self._file(chain[-1]))
            if target in chain:
                break
            chain.append(target)
            node = self.node(target)
        return chain

    def object_members(self, location: str) -> dict[str, Member]:
        """The members of the object type at ``location``."""
        name = self.type_at(location)
        if name in BLOCK_UNIONS:
            return self._block_union_members(location)
        properties: dict[str, tuple[str, Any]] = {}
        required: set[str] = set()
        branches: list[tuple[str, Any]] = []
        for loc in self._chain(location):
            node = self.node(loc)
            for key, sub in node.get("properties", {}).items():
                properties.setdefault(key, (loc, sub))
            required.update(node.get("required", []))
            for branch in ("then", "else"):
                if isinstance(node.get(branch), dict):
                    branches.append((loc, node[branch]))
        members: dict[str, Member] = {}
        for key, (loc, sub) in properties.items():
            if sub is True:  # a member another keyword defines (trace events); none in the data model
                continue
            base = f"{loc}/properties/{key}" if "#" in loc else loc
            extra = [b.get("properties", {}).get(key) for _, b in branches]
            members[key] = Member(
                self.kind(sub, base, [e for e in extra if isinstance(e, dict)]), key in required
            )
        return members

    def _block_union_members(self, location: str) -> dict[str, Member]:
        members: dict[str, Member] = {}
        for alternative in self._alternatives(location):
            for key, member in self.object_members(alternative).items():
                members[key] = Member(member.kind, False)  # exactly one arm is present
        return members

    def _alternatives(self, location: str) -> list[str]:
        node = self.node(location)
        out = []
        for i, alt in enumerate(node.get("oneOf", [])):
            out.append(
                self.resolve(alt["$ref"], self._file(location)) if "$ref" in alt else f"{location}/oneOf/{i}"
            )
        return out

    def _block_arms(self, location: str) -> frozenset[str] | None:
        """The member names of a oneOf whose alternatives are all one-member objects, else None."""
        alternatives = self._alternatives(location)
        if not alternatives:
            return None
        arms: set[str] = set()
        for alt in alternatives:
            if self.type_at(alt) in BLOCK_UNIONS:
                arms |= self._block_arms(alt) or set()
                continue
            node = self.node(self._chain(alt)[-1])
            props = node.get("properties", {})
            if node.get("type") != "object" or len(props) != 1 or node.get("required") != list(props):
                return None
            arms |= set(props)
        return frozenset(arms)

    def kind(self, node: Any, location: str, branches: Iterable[dict[str, Any]] = ()) -> Kind:
        """The kind of the member schema ``node`` found at ``location``."""
        if not isinstance(node, dict):
            return ("any", False)
        if "$ref" in node:
            target = self.resolve(node["$ref"], self._file(location))
            name = self.type_at(target)
            if name in BLOCK_UNIONS:
                return ("blocks", self._block_arms(target))
            if name is not None:
                return ("object", TYPES[name][1])  # named by its message: a stored interrupt is an Interrupt
            return self.kind(self.node(target), target, branches)
        if "oneOf" in node:
            alternatives = node["oneOf"]
            non_null = [a for a in alternatives if a != {"type": "null"}]
            if len(non_null) == 1 and len(alternatives) == 2:
                return ("nullable", self.kind(non_null[0], f"{location}/oneOf", branches))
            arms = self._block_arms(location)
            if arms is not None:
                return ("blocks", arms)
            return ("unknown", f"oneOf at {location}")
        if node.get("not") == {"type": "null"} and "type" not in node:
            return ("any", True)
        if "enum" in node or "const" in node:
            values = node["enum"] if "enum" in node else [node["const"]]
            if all(isinstance(v, str) for v in values):
                return ("string", frozenset(values))
            return ("unknown", f"enum {values!r}")
        kind = node.get("type")
        if kind == "string":
            return ("string", None)
        if kind == "boolean":
            return ("boolean",)
        if kind == "integer":
            return ("integer", node.get("minimum"), node.get("maximum"))
        if kind == "object":
            if "properties" in node:
                return ("unknown", f"inline object at {location}")
            values = node.get("additionalProperties")
            if isinstance(values, dict):  # an object of writer-chosen keys: a proto map
                return ("map", self.kind(values, f"{location}/additionalProperties"))
            return ("object", None)
        if kind == "array":
            items = node.get("items")
            for branch in branches:  # items given per case (Message.content: assistant or user blocks)
                items = items or branch.get("items")
            if items is None:
                item_kinds = [self.kind(b["items"], location) for b in branches if "items" in b]
                return ("array", item_kinds[0] if item_kinds else ("any", False))
            item_kind = self.kind(items, f"{location}/items")
            extra = [self.kind(b["items"], location) for b in branches if "items" in b]
            if item_kind[0] == "blocks" and extra:
                arms = frozenset().union(*(k[1] for k in [item_kind, *extra] if k[0] == "blocks"))
                return ("array", ("blocks", arms))
            return ("array", item_kind)
        if kind is None and not (set(node) - {"description", "title"}):
            return ("any", False)
        return ("unknown", f"schema {sorted(node)} at {location}")

    def array_items(self, location: str) -> Kind:
        node = self.node(location)
        return self.kind(node.get("items", {}), f"{location}/items")


def schema_shape(type_name: str, schemas: Mapping[str, Any] | None = None) -> dict[str, Member]:
    reader = SchemaReader(schemas if schemas is not None else load_schemas())
    return reader.object_members(TYPES[type_name][0])


# --- proto side ----------------------------------------------------------------------------------

_BLOCK_MESSAGES = frozenset(TYPES[name][1] for name in BLOCK_UNIONS)


def _enum_values(field_descriptor: FieldDescriptor) -> frozenset[str]:
    enum = field_descriptor.enum_type
    assert enum is not None
    return frozenset(jsonmap.enum_to_json(enum.full_name, v.number) for v in enum.values if v.number != 0)


def proto_single_kind(fd: FieldDescriptor, owner: str, never_null: frozenset[tuple[str, str]]) -> Kind:
    if fd.enum_type is not None:
        return ("string", _enum_values(fd))
    if fd.message_type is not None:
        full = fd.message_type.full_name
        if full == "google.protobuf.Value":
            return ("any", (owner, fd.name) in never_null)
        if full == "google.protobuf.Struct":
            return ("object", None)
        if full == "google.protobuf.ListValue":
            return ("array", ("any", False))
        if full in _BLOCK_MESSAGES:
            return ("blocks", frozenset(f.json_name for f in fd.message_type.fields))
        return ("object", full)
    if fd.type in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[fd.type]
        return ("integer", low, high)
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return ("boolean",)
    if fd.type == FieldDescriptor.TYPE_STRING:
        return ("string", None)
    return ("unknown", f"proto type {fd.type}")


def proto_shape(
    descriptor: Descriptor,
    *,
    nullable: frozenset[tuple[str, str]] | None = None,
    never_null: frozenset[tuple[str, str]] | None = None,
) -> dict[str, Member]:
    """The members of a message's JSON form under the binding (spec 2.7)."""
    nullable = jsonmap._NULLABLE if nullable is None else nullable
    never_null = jsonmap._NEVER_NULL if never_null is None else never_null
    owner = descriptor.full_name
    members: dict[str, Member] = {}
    for fd in descriptor.fields:
        kind = proto_single_kind(fd, owner, never_null)
        entry = fd.message_type
        if entry is not None and entry.GetOptions().map_entry:  # map<string, V>: an object of keys
            kind = ("map", proto_single_kind(entry.fields_by_name["value"], owner, never_null))
        elif fd.is_repeated:
            kind = ("array", kind)
        is_nullable = (owner, fd.name) in nullable
        if is_nullable:
            kind = ("nullable", kind)
        # Presence (spec 2.7): a field without presence is always written, so its member is required; a
        # nullable one is required and null when unset. A singular message field always has presence in
        # proto3, so it cannot tell a required member from an optional one: the producer sets it when it is
        # required.
        required: bool | None = is_nullable or not fd.has_presence
        if (
            fd.message_type is not None
            and not fd.is_repeated
            and not is_nullable
            and fd.containing_oneof is None
        ):
            required = None
        notes = ("64-bit",) if fd.type in _SIXTY_FOUR_BIT else ()
        members[fd.json_name] = Member(kind, required, notes)
    return members


# --- comparison ----------------------------------------------------------------------------------


def _describe(kind: Kind) -> str:
    return repr(tuple(sorted(k) if isinstance(k, frozenset) else k for k in kind))


def _compare_kinds(type_name: str, member: str, schema: Kind, proto: Kind) -> list[Finding]:
    if schema[0] == "nullable" and proto[0] == "nullable":
        return _compare_kinds(type_name, member, schema[1], proto[1])
    if (schema[0], proto[0]) in (("array", "array"), ("map", "map")):
        return _compare_kinds(type_name, member, schema[1], proto[1])
    if schema[0] != proto[0]:
        detail = f"schema {_describe(schema)} vs proto {_describe(proto)}"
        aspect = "null" if "nullable" in (schema[0], proto[0]) else "kind"
        return [Finding(type_name, member, aspect, detail)]
    tag = schema[0]
    if tag == "string" and schema[1] != proto[1]:
        return [Finding(type_name, member, "enum", f"schema {_describe(schema)} vs proto {_describe(proto)}")]
    if tag == "integer":
        low, high = schema[1], schema[2]
        proto_low, proto_high = proto[1], proto[2]
        if low is None or low < proto_low or high is None or high > proto_high:
            detail = (
                f"schema range [{low}, {high}] is not within the proto range [{proto_low}, {proto_high}]: "
                "some schema-valid values have no proto form"
            )
            return [Finding(type_name, member, "range", detail)]
    if tag == "any" and schema[1] != proto[1]:
        detail = (
            f"schema {'excludes' if schema[1] else 'allows'} null, the binding "
            f"{'refuses' if proto[1] else 'carries'} a Value holding null_value"
        )
        return [Finding(type_name, member, "null", detail)]
    if tag in ("object", "blocks") and schema[1] != proto[1]:
        return [Finding(type_name, member, "kind", f"schema {_describe(schema)} vs proto {_describe(proto)}")]
    if tag == "unknown" or proto[0] == "unknown":
        return [Finding(type_name, member, "kind", f"cannot read: {schema[1]}")]
    return []


def compare(type_name: str, schema: Mapping[str, Member], proto: Mapping[str, Member]) -> list[Finding]:
    findings: list[Finding] = []
    for member in sorted(set(schema) | set(proto)):
        if member not in proto:
            findings.append(Finding(type_name, member, "member", "in the schema, not in the proto"))
            continue
        if member not in schema:
            findings.append(Finding(type_name, member, "member", "in the proto, not in the schema"))
            continue
        s, p = schema[member], proto[member]
        if p.required is not None and s.required != p.required:
            detail = (
                f"schema {'requires' if s.required else 'does not require'} it, proto field "
                f"{'has no' if p.required else 'has'} presence"
            )
            findings.append(Finding(type_name, member, "required", detail))
        findings.extend(_compare_kinds(type_name, member, s.kind, p.kind))
        if "64-bit" in p.notes:
            findings.append(
                Finding(type_name, member, "64-bit", "ProtoJSON writes 64-bit integers as strings")
            )
    return findings


def all_findings(
    schemas: Mapping[str, Any] | None = None,
    descriptor_for: Callable[[str], Descriptor] | None = None,
    **proto_options: frozenset[tuple[str, str]],
) -> list[Finding]:
    """Every disagreement between the schemas and the proto descriptors, for every type of the data model."""
    reader = SchemaReader(schemas if schemas is not None else load_schemas())
    lookup = descriptor_for or (lambda full_name: jsonmap.message_class(full_name).DESCRIPTOR)
    findings: list[Finding] = []
    for name, (location, proto_name) in TYPES.items():
        findings += compare(
            name, reader.object_members(location), proto_shape(lookup(proto_name), **proto_options)
        )
    for name, (location, proto_name, field_name) in ARRAY_TYPES.items():
        descriptor = lookup(proto_name)
        fd = descriptor.fields_by_name[field_name]
        proto_kind = ("array", proto_single_kind(fd, descriptor.full_name, frozenset()))
        schema_kind = ("array", reader.array_items(location))
        findings += _compare_kinds(name, "[]", schema_kind, proto_kind)
    return findings


def load_exceptions(path: Path = EXCEPTIONS_FILE) -> dict[str, str]:
    """Finding key -> its justification."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {entry["finding"]: entry["because"] for entry in doc["exceptions"]}
