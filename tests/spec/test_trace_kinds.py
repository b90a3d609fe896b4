"""One list of trace kinds: the JSON Schema of a trace event, the harness proto's TraceEvent oneof and the
oracle's core kinds agree, and the core kinds are documented as such (the prose table against the schema:
tests/schema/test_trace_vocabulary_agreement.py)."""

from __future__ import annotations

import json
from pathlib import Path

from roc_conformance.oracle.check import CORE_TRACE_KINDS
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb

ROOT = Path(__file__).resolve().parents[2]


def schema_kinds() -> set[str]:
    schema = json.loads((ROOT / "spec" / "schema" / "v1" / "trace-event.schema.json").read_text())
    return set(schema["properties"]["kind"]["enum"])


def proto_kinds() -> set[str]:
    oneof = hpb.TraceEvent.DESCRIPTOR.oneofs_by_name["event"]
    return {field.name for field in oneof.fields}


def test_the_schema_and_the_proto_have_the_same_trace_kinds():
    assert schema_kinds() == proto_kinds()


def test_the_core_kinds_are_trace_kinds_and_documented_as_such():
    assert schema_kinds() >= CORE_TRACE_KINDS
    text = (ROOT / "spec" / "conformance-testing.md").read_text(encoding="utf-8")
    for kind in CORE_TRACE_KINDS:
        assert f"`{kind}`" in text.split("does not claim `hooks` the suite compares only", 1)[1][:600], kind
