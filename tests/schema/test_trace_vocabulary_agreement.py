"""One trace vocabulary: trace-event.schema.json, and the prose tables naming trace kinds agree with it.

spec/conformance-testing.md lists every kind with its fields; chapter 4's event table names, for each hook
event, the trace kind the suite observes. A kind or a field the schema does not define, a required field shown
as optional (or the reverse), or a hook event mapped to another event's kind is a disagreement.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
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
        variants[kind] = {name: name in required for name in target["properties"] if name != "kind"}
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


def _parse_kind(cell: str) -> tuple[str, list[str]] | None:
    match = re.fullmatch(r"`(\w+)(?:\{([^}]*)\})?`", cell.strip())
    if match is None:
        return None
    return match[1], [f.strip().rstrip("?") for f in (match[2] or "").split(",") if f.strip()]


def test_every_hook_event_of_chapter_4_has_a_trace_kind_of_its_own() -> None:
    # An adapter records each event of table 4.1 under the kind of the same name, so the suite can check
    # ordering and pairing of every event a runtime claims to have.
    variants = _variants()
    rows = _table(CHAPTER_4.read_text(encoding="utf-8"), "| event | fires |")
    events = [row[0].strip("`") for row in rows]
    assert events, "table 4.1 lists the hook events"
    missing = [f"{event} -> `{_snake(event)}`" for event in events if _snake(event) not in variants]
    assert not missing, "hook events without a trace kind of their own: " + ", ".join(missing)


def _column_findings(text: str) -> list[str]:
    """What a 'trace event' column of table 4.1 gets wrong against trace-event.schema.json."""
    variants = _variants()
    wrong: list[str] = []
    for row in _table(text, "| event | fires |"):
        event = row[0].strip("`")
        parsed: Any = _parse_kind(row[-1])
        own = _snake(event)
        if parsed is None:
            wrong.append(f"{event}: '{row[-1]}' names no trace kind; the schema's kind for it is `{own}`")
            continue
        kind, fields = parsed
        if kind not in variants:
            wrong.append(f"{event}: `{kind}` is not a trace kind of trace-event.schema.json")
        elif own in variants and kind != own:
            wrong.append(f"{event}: `{kind}` is another event's kind; the schema records {event} as `{own}`")
        elif not set(fields) <= set(variants[kind]):
            wrong.append(f"{event}: `{kind}` has no field(s) {sorted(set(fields) - set(variants[kind]))}")
    return wrong


def test_a_trace_column_in_chapter_4_names_each_event_by_its_own_kind() -> None:
    text = CHAPTER_4.read_text(encoding="utf-8")
    if "| trace event |" not in text:
        pytest.skip("chapter 4 names no trace kinds (the vocabulary lives in conformance-testing.md)")
    wrong = _column_findings(text)
    assert not wrong, "spec/04-hooks.md, table 4.1, column 'trace event':\n" + "\n".join(wrong)


# Table 4.1 as a draft of RoC 1.0 had it: four hook events named by the kinds of other happenings.
_DRAFT_TABLE = """
| event | fires | interruptible | trace event |
|---|---|---|---|
| `BeforeInvocation` | at the start of every accepted invocation | no | `invocation_start` |
| `MessageAdded` | after each message is appended to the history | no | `message_added{role}` |
| `BeforeModelCall` | before each model call | no | `model_call{turn}` |
| `AfterModelCall` | after each model call returns | no | (recorded with `model_call`) |
| `BeforeTools` | once per tool cycle | yes | `before_tools{toolUseIds}` |
| `AfterToolCall` | per tool use with a result | no | `after_tool_call{toolUseId, status}` |
| `AfterInvocation` | at the end of every accepted invocation | no | `invocation_end{stopReason}` |
"""


def test_it_finds_the_draft_table_s_misnamed_events() -> None:
    wrong = _column_findings(_DRAFT_TABLE)
    named = sorted(line.split(":")[0] for line in wrong)
    assert named == ["AfterInvocation", "AfterModelCall", "BeforeInvocation", "BeforeModelCall"]
