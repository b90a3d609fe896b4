"""One list of trace kinds: the table of spec/conformance-testing.md, the JSON Schema of a trace event, the
harness proto's TraceEvent oneof and the oracle's core kinds must agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

from roc_conformance.oracle.check import CORE_TRACE_KINDS
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb

ROOT = Path(__file__).resolve().parents[2]


def documented_kinds() -> set[str]:
    text = (ROOT / "spec" / "conformance-testing.md").read_text(encoding="utf-8")
    section = text.split("## What the harness observes", 1)[1].split("\n## ", 1)[0]
    kinds: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            kinds |= set(re.findall(r"`([a-z_]+)`", first))
    return kinds


def schema_kinds() -> set[str]:
    schema = json.loads((ROOT / "spec" / "schema" / "v1" / "trace-event.schema.json").read_text())
    return set(schema["properties"]["kind"]["enum"])


def proto_kinds() -> set[str]:
    oneof = hpb.TraceEvent.DESCRIPTOR.oneofs_by_name["event"]
    return {field.name for field in oneof.fields}


def test_the_documented_trace_kinds_are_the_schema_and_proto_kinds():
    assert documented_kinds() == schema_kinds()
    assert schema_kinds() == proto_kinds()


def test_the_core_kinds_are_trace_kinds_and_documented_as_such():
    assert schema_kinds() >= CORE_TRACE_KINDS
    text = (ROOT / "spec" / "conformance-testing.md").read_text(encoding="utf-8")
    for kind in CORE_TRACE_KINDS:
        assert f"`{kind}`" in text.split("does not claim `hooks` the suite compares only", 1)[1][:600], kind
