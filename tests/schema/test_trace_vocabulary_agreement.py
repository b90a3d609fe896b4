"""One trace vocabulary: trace-event.schema.json, and the prose naming trace kinds agree with it.

spec/conformance-testing.md lists every kind with its fields, and every hook event of chapter 4 has a kind of
its own. A kind or a field the schema does not define, or a required field shown as optional (or the
reverse), is a disagreement. (The harness proto and the oracle's core kinds: tests/spec/test_trace_kinds.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

from schemakit import schemas

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE_TESTING = ROOT / "spec" / "conformance-testing.md"
CHAPTER_4 = ROOT / "spec" / "04-hooks.md"


def _variants() -> dict[str, dict[str, bool]]:
    """Trace kind -> {field: required?} from the schema's if/then variants."""
    doc = schemas()["trace-event.schema.json"]
    variants: dict[str, dict[str, bool]] = {}
    for branch in doc["allOf"]:
        kind = branch["if"]["properties"]["kind"]["const"]
        target = doc["$defs"][branch["then"]["$ref"].removeprefix("#/$defs/")]
        required = set(target.get("required", []))
        # agentPath (harness protocol 5) belongs to every event, whatever its kind (conformance/README.md).
        fields = (name for name in target["properties"] if name not in ("kind", "agentPath"))
        variants[kind] = {name: name in required for name in fields}
    assert set(variants) == set(doc["properties"]["kind"]["enum"])
    return variants


def _table(text: str, header_start: str) -> list[list[str]]:
    lines = text.splitlines()
    (start,) = [i for i, line in enumerate(lines) if line.startswith(header_start)]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _codes(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_conformance_testing_lists_every_trace_kind_with_its_fields() -> None:
    variants = _variants()
    listed: dict[str, dict[str, bool]] = {}
    for row in _table(CONFORMANCE_TESTING.read_text(encoding="utf-8"), "| kind | fields |"):
        fields = {name.rstrip("?"): not name.endswith("?") for name in _codes(row[1])}
        # A field marked optional may be written `name`? (the ? outside the code span).
        for optional in re.findall(r"`([^`]+)`\?", row[1]):
            fields[optional] = False
        for kind in _codes(row[0]):
            listed[kind] = fields
    assert set(listed) == set(variants), "trace kinds: prose vs trace-event.schema.json"
    for kind, fields in listed.items():
        assert fields == variants[kind], f"{kind}: prose fields {fields} vs schema {variants[kind]}"


def _snake(event: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", event).lower()
