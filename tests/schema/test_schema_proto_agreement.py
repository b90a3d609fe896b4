"""One truth across the JSON Schemas, the protobuf binding and the prose of chapter 2.

For every object type of the data model the member shapes derived from the schemas and from the roc.v1
descriptors (tests/schema/shapes.py) must agree, except for the differences listed, each with its reason, in
spec/schema/proto-exceptions.json (spec 2.7: the schema wins). The demonstrations feed deliberately altered
schemas or descriptors, among them the two disagreements this test was written after (a tool input that was
"any JSON value" in the schema and a Struct in proto, a revision that was an unbounded integer in the schema
and an int64 in proto), and check that each is found. The member tables of chapter 2 must name exactly the
schema's members, with "optional" exactly on the members the schema does not require.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, FileDescriptor
from roc_conformance.pb import jsonmap
from shapes import (
    ARRAY_TYPES,
    EXCEPTIONS_FILE,
    TYPES,
    Finding,
    all_findings,
    load_exceptions,
    load_schemas,
    schema_shape,
)

ROOT = Path(__file__).resolve().parents[2]
CHAPTER_2 = ROOT / "spec" / "02-data-model.md"

# Schema titles that are not a message of their own, and why (every other title must be in TYPES).
COVERED_ELSEWHERE = {
    "TextBlock": "an arm of ContentBlock (the oneof arm text)",
    "ToolUseBlock": "an arm of ContentBlock (the oneof arm toolUse)",
    "ToolResultBlock": "an arm of ContentBlock (the oneof arm toolResult)",
    "AssistantToolUseMessage": "a Message with more constraints (compared as Message)",
    "StopReason": "an enum, compared as AgentResult.stopReason",
    "PromptInput": "no roc.v1 message: the harness carries a prompt as a string or a raw JSON list",
}
HARNESS_SCHEMAS = frozenset({"agent-spec.schema.json", "trace-event.schema.json"})


def _unexpected(findings: list[Finding]) -> list[str]:
    allowed = load_exceptions()
    return [str(f) for f in findings if f.key not in allowed]


# --- the consistency test ------------------------------------------------------------------------


def test_schemas_and_proto_agree_on_every_member() -> None:
    unexpected = _unexpected(all_findings())
    assert not unexpected, "schema and proto disagree (fix the proto; spec 2.7):\n" + "\n".join(unexpected)


def test_every_listed_exception_still_occurs_and_has_a_reason() -> None:
    occurring = {f.key for f in all_findings()}
    for key, because in load_exceptions().items():
        assert key in occurring, f"{EXCEPTIONS_FILE.name}: {key} no longer occurs; remove the entry"
        assert len(because.split()) >= 5, f"{key}: give the reason in a sentence"


def test_every_object_type_of_the_data_model_is_compared() -> None:
    titles: set[str] = set()
    for name, doc in load_schemas().items():
        if name in HARNESS_SCHEMAS:
            continue
        titles.add(doc["title"])
        titles.update(d["title"] for d in doc.get("$defs", {}).values() if "title" in d)
    compared = set(TYPES) | set(ARRAY_TYPES) | {"InterruptResponseContent"}
    assert titles - compared - set(COVERED_ELSEWHERE) == set()
    assert set(COVERED_ELSEWHERE) <= titles  # no stale entry


def test_the_comparison_reads_every_member() -> None:
    # A member the reader cannot classify would compare as "unknown" and hide a disagreement.
    for name in TYPES:
        for member, shape in schema_shape(name).items():
            assert "unknown" not in repr(shape.kind), f"{name}.{member}: {shape.kind}"


# --- demonstrations: the test finds what it is for ------------------------------------------------


def _keys(findings: list[Finding]) -> set[str]:
    return {f.key for f in findings}


def _schemas() -> dict[str, Any]:
    return copy.deepcopy(load_schemas())


def test_it_finds_a_tool_input_that_is_any_json_value_in_the_schema() -> None:
    # The disagreement of RoC 1.0 drafts: the schema let input be any JSON value, message.proto used a Struct.
    schemas = _schemas()
    tool_use = schemas["content-block.schema.json"]["$defs"]["toolUse"]
    tool_use["properties"]["input"] = {"description": "any JSON value"}
    found = _keys(all_findings(schemas))
    assert "ToolUse.input:kind" in found
    assert "ToolUse.input:kind" not in load_exceptions()


def _pool_with(file_name: str, edit: Any) -> descriptor_pool.DescriptorPool:
    """A descriptor pool holding the roc.v1 files, with ``edit`` applied to ``file_name``'s descriptor."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(fd: FileDescriptor) -> None:
        if fd.name in added:
            return
        for dependency in fd.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(proto)
        if fd.name == file_name:
            edit(proto)
        pool.Add(proto)
        added.add(fd.name)

    for full_name in {proto for _, proto in TYPES.values()} | {"roc.v1.ResumeInput"}:
        add(jsonmap.message_class(full_name).DESCRIPTOR.file)
    return pool


def _lookup(pool: descriptor_pool.DescriptorPool) -> Any:
    def find(full_name: str) -> Descriptor:
        return pool.FindMessageTypeByName(full_name)

    return find


def test_it_finds_a_revision_the_proto_cannot_carry_or_writes_as_a_string() -> None:
    # The other disagreement of the drafts: revision an unbounded integer in the schema, an int64 in proto.
    def int64_revision(proto: descriptor_pb2.FileDescriptorProto) -> None:
        (snapshot,) = [m for m in proto.message_type if m.name == "Snapshot"]
        (revision,) = [f for f in snapshot.field if f.name == "revision"]
        revision.type = descriptor_pb2.FieldDescriptorProto.TYPE_INT64

    pool = _pool_with("roc/v1/snapshot.proto", int64_revision)
    # An int64 alone: ProtoJSON would quote the number (spec 2.7 keeps typed integers 32-bit).
    assert "Snapshot.revision:64-bit" in _keys(all_findings(descriptor_for=_lookup(pool)))
    # The schema without its bound: the uint32 field cannot carry every schema-valid revision.
    schemas = _schemas()
    del schemas["snapshot.schema.json"]["properties"]["revision"]["maximum"]
    assert "Snapshot.revision:range" in _keys(all_findings(schemas))
    # Both, as the drafts had them: no 64-bit type carries an unbounded integer either.
    both = _keys(all_findings(schemas, descriptor_for=_lookup(pool)))
    assert {"Snapshot.revision:64-bit", "Snapshot.revision:range"} <= both


def test_it_finds_a_reason_the_binding_would_carry_as_null() -> None:
    # proto/README once kept a null reason as null while the schema forbade it.
    never_null = jsonmap._NEVER_NULL - {("roc.v1.Interrupt", "reason")}
    found = _keys(all_findings(never_null=never_null))
    assert {"Interrupt.reason:null", "StoredInterrupt.reason:null"} <= found


def test_it_finds_an_enum_value_on_one_side_only() -> None:
    schemas = _schemas()
    schemas["error.schema.json"]["properties"]["code"]["enum"].append("TEAPOT")
    schemas["stop-reason.schema.json"]["enum"].remove("cancelled")
    found = _keys(all_findings(schemas))
    assert {"Error.code:enum", "AgentResult.stopReason:enum"} <= found


def test_it_finds_members_and_required_ness_that_differ() -> None:
    schemas = _schemas()
    body = schemas["interrupt-response.schema.json"]["$defs"]["body"]
    body["properties"]["approver"] = {"type": "string"}
    error = schemas["error.schema.json"]
    error["required"] = ["code"]  # message is a plain string field: always written, so required
    found = _keys(all_findings(schemas))
    assert {"InterruptResponse.approver:member", "Error.message:required"} <= found


def test_it_finds_a_nullable_member_that_is_not_nullable_on_the_other_side() -> None:
    schemas = _schemas()
    state = schemas["snapshot.schema.json"]["$defs"]["interruptState"]
    state["properties"]["pendingToolExecution"] = {"$ref": "#/$defs/pendingToolExecution"}
    assert "InterruptState.pendingToolExecution:null" in _keys(all_findings(schemas))


def test_it_finds_an_array_on_one_side_only() -> None:
    schemas = _schemas()
    schemas["tool-result.schema.json"]["properties"]["content"] = {"$ref": "#/$defs/resultItem"}
    assert "ToolResult.content:kind" in _keys(all_findings(schemas))


# --- chapter 2's member tables --------------------------------------------------------------------

_MARKER = re.compile(r"^<!-- members: (\w+) -->$")


def _tables() -> dict[str, dict[str, bool]]:
    """Type name -> {member: optional?} for every member table of chapter 2 (marked by an HTML comment)."""
    lines = CHAPTER_2.read_text(encoding="utf-8").splitlines()
    tables: dict[str, dict[str, bool]] = {}
    for i, line in enumerate(lines):
        marker = _MARKER.match(line.strip())
        if marker is None:
            continue
        assert lines[i + 1].startswith("| member | type |"), (
            f"line {i + 2}: a member table follows its marker"
        )
        rows: dict[str, bool] = {}
        for row in lines[i + 3 :]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip().strip("|").split("|")]
            name = cells[0].strip("`")
            rows[name] = "optional" in cells[1]
        assert marker[1] not in tables, f"two tables for {marker[1]}"
        tables[marker[1]] = rows
    return tables


def test_every_member_table_of_chapter_2_is_marked() -> None:
    text = CHAPTER_2.read_text(encoding="utf-8")
    assert text.count("| member | type |") == text.count("<!-- members: ")


@pytest.mark.parametrize("type_name", sorted(_tables()))
def test_chapter_2_member_table_names_the_schema_members(type_name: str) -> None:
    table = _tables()[type_name]
    shape = schema_shape(type_name)
    assert set(table) == set(shape), f"{type_name}: prose {sorted(table)} vs schema {sorted(shape)}"
    for member, optional in table.items():
        assert optional == (not shape[member].required), (
            f"{type_name}.{member}: 'optional' in prose and schema"
        )


def test_chapter_2_has_a_table_for_the_main_types() -> None:
    expected = {"Interrupt", "InterruptSource", "InterruptResponse", "Message", "ToolUse", "ToolResult"}
    assert expected | {"AgentResult", "Error"} <= set(_tables())
