"""Cross-check: every valid example of spec/examples converts to its proto message and back without loss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from proto_strategies import EXAMPLES_DIR, canonical, has_float
from roc_conformance.pb import jsonmap

# spec/examples/<dir> -> the jsonmap type name of its documents (schema titles; the directory
# named after the body holds whole interruptResponse blocks).
EXAMPLE_TYPES = {
    "AbandonInput": "AbandonInput",
    "AgentResult": "AgentResult",
    "AgentSpec": "AgentSpec",
    "ContentBlock": "ContentBlock",
    "Error": "Error",
    "Interrupt": "Interrupt",
    "InterruptResponse": "InterruptResponseContent",
    "InterruptResponseContent": "InterruptResponseContent",
    "Message": "Message",
    "PendingInterrupt": "PendingInterrupt",
    "ResumeInput": "ResumeInput",
    "Question": "Question",
    "QuestionAnswer": "QuestionAnswer",
    "AskUserInput": "AskUserInput",
    "ApprovalAnswer": "ApprovalAnswer",
    "StreamEvent": "StreamEvent",
    "Snapshot": "Snapshot",
    "ToolResult": "ToolResult",
    "TraceEvent": "TraceEvent",
}
# Example directories with no proto message, and why.
NOT_MAPPED = {
    "StopReason": "a bare enum string; test_proto_enums checks the value set against the schema",
    "PromptInput": "a string or a block array; the harness carries it as InvokeRequest.prompt/content",
    "canonical": "canonical JSON test vectors (bytes, digests, tags), not documents of one data model type",
    "response-schema": "shared validation vectors (schemas, answers, errors), not documents of one type",
}


def _example_dirs() -> list[Path]:
    return sorted(p for p in EXAMPLES_DIR.iterdir() if p.is_dir()) if EXAMPLES_DIR.is_dir() else []


def _valid_examples() -> list[Path]:
    return sorted(f for d in _example_dirs() if d.name in EXAMPLE_TYPES for f in (d / "valid").glob("*.json"))


def test_every_example_directory_has_a_proto_counterpart_or_a_reason():
    unknown = [d.name for d in _example_dirs() if d.name not in EXAMPLE_TYPES and d.name not in NOT_MAPPED]
    assert unknown == [], "new example types: map them in EXAMPLE_TYPES (or NOT_MAPPED with a reason)"


def test_there_are_examples_to_cross_check():
    assert len(_valid_examples()) >= 10


@pytest.mark.parametrize("path", _valid_examples(), ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_valid_example_round_trips_through_proto(path: Path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    type_name = EXAMPLE_TYPES[path.parent.parent.name]
    message = jsonmap.to_proto(type_name, doc)
    back = jsonmap.from_proto(message)
    assert jsonmap.json_equal(doc, back), f"{path.name}: {doc!r} != {back!r}"
    if not has_float(doc):
        assert canonical(back) == canonical(doc)
