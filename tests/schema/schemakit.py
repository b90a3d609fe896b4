"""Loading the v1 schemas and the example corpus for the schema tests."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "spec" / "schema" / "v1"
EXAMPLES_DIR = ROOT / "spec" / "examples"
BASE_URI = "https://roc-protocol.org/schema/v1/"
METASCHEMA = "https://json-schema.org/draft/2020-12/schema"

# Example type directory -> the schema its documents are instances of.
EXAMPLE_SCHEMAS = {
    "Interrupt": "interrupt.schema.json",
    "InterruptResponse": "interrupt-response.schema.json",
    "ResumeInput": "resume-input.schema.json",
    "Message": "message.schema.json",
    "AgentResult": "agent-result.schema.json",
    "Error": "error.schema.json",
    "Snapshot": "snapshot.schema.json",
    "TraceEvent": "trace-event.schema.json",
    "AgentSpec": "agent-spec.schema.json",
    "PendingInterrupt": "pending-interrupt.schema.json",
    "AbandonInput": "abandon-input.schema.json",
    "Question": "question.schema.json",
    "AskUserInput": "ask-user-input.schema.json",
}


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def schema_files() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.schema.json"))


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema document."""
    return {path.name: load_json(path) for path in schema_files()}


@cache
def registry() -> Registry:
    """Every schema registered under its $id (no retrieval: an unknown URI fails)."""
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in schemas().values()
    ]
    return Registry().with_resources(resources)


def validator(schema_file: str) -> Draft202012Validator:
    return Draft202012Validator(schemas()[schema_file], registry=registry())


def example_paths(kind: str) -> list[Path]:
    return sorted(EXAMPLES_DIR.glob(f"*/{kind}/*.json"))


@dataclass(frozen=True)
class ManifestRow:
    file: str
    rule: str
    rejected_by: str  # "schema", "parser" (not RoC JSON text, spec 8.2) or the structural rule name
    at: str
    code: str | None  # the error code a runtime answers with, where the manifest names one


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def _unquote(cell: str) -> str:
    return cell[1:-1] if cell.startswith("`") and cell.endswith("`") else cell


def manifest(example_type: str) -> dict[str, ManifestRow]:
    """The invalid-example table of spec/examples/<Type>/README.md, by file name."""
    text = (EXAMPLES_DIR / example_type / "README.md").read_text(encoding="utf-8")
    lines = text.split("## Invalid", 1)[1].strip().splitlines()
    header = _cells(lines[0])
    assert header[:4] == ["file", "rule broken", "rejected by", "at"], header
    rows: dict[str, ManifestRow] = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, _cells(line), strict=True))
        name = _unquote(cells["file"])
        by = cells["rejected by"]
        match = re.fullmatch(r"runtime \(`([a-z0-9-]+)`\)", by)
        assert by in ("schema", "parser") or match, f"{example_type}: {name}: bad 'rejected by' cell {by!r}"
        assert name not in rows, f"{example_type}: {name} listed twice"
        code = _unquote(cells["code"]) if "code" in cells else None
        rows[name] = ManifestRow(
            name, cells["rule broken"], by if match is None else match[1], _unquote(cells["at"]), code
        )
    return rows
