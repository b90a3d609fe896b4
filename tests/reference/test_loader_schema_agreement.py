"""The loader agrees with the snapshot schema (ROC-SNAP-009, ROC-SESSION-014): a differential test.

Hypothesis mutates the valid examples of ``spec/examples/Snapshot/valid`` (replace a member by another value,
delete a member, add one) and compares the two judges:

* whatever the JSON Schema rejects, the loader rejects (with SNAPSHOT_INVALID or, for a version, with
  SNAPSHOT_VERSION_UNSUPPORTED);
* whatever the loader rejects as malformed, the schema rejects too. The loader may refuse more only for the
  rules a schema cannot express: the cross-member consistency rules of spec 8.3 ("inconsistent snapshot"),
  and the limits of spec 10.6 (depth, integer range, Unicode, date ranges).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from refsupport import json_paths, validator
from roc_reference.errors import RocError
from roc_reference.snapshot import parse_snapshot

VALID_DIR = Path(__file__).resolve().parents[2] / "spec" / "examples" / "Snapshot" / "valid"
EXAMPLES = {p.stem: json.loads(p.read_text()) for p in sorted(VALID_DIR.glob("*.json"))}
SCHEMA = validator("snapshot")
# What only the loader can judge (spec 8.3 consistency rules, spec 10.6 limits and date ranges).
LOADER_ONLY = ("inconsistent snapshot", "within the limits", "date-time", "input digest")


_PATHS = [
    (name, path) for name, doc in EXAMPLES.items() for path in json_paths(doc) if path[0] != "integrity"
]
_REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from([3.0, 0.5, -1.0, "", "x", "1.0", "2.0", "tool", "user", "assistant", "success", "error"]),
    st.sampled_from([[], {}, [{}], {"text": "t"}, [{"text": "t"}], {"x": 1}]),
    st.sampled_from(["sha256:" + "0" * 64, "2026-01-01T00:00:00Z", "before_tools", "before_tool_call"]),
)


def _judge_loader(doc: Any) -> str | None:
    """``None`` when the loader accepts ``doc``, else its error message."""
    try:
        parse_snapshot(doc)
    except RocError as error:
        return error.message
    return None


def _check(doc: dict[str, Any]) -> None:
    schema_errors = [e.message for e in SCHEMA.iter_errors(doc)]
    loader_error = _judge_loader(doc)
    if schema_errors:
        assert loader_error is not None, f"loader accepted what the schema rejects: {schema_errors[:2]}"
    elif loader_error is not None:
        assert any(tag in loader_error for tag in LOADER_ONLY), (
            f"loader refused what the schema accepts, for a rule the schema expresses: {loader_error}"
        )


def _mutated(name: str, path: tuple[Any, ...], action: str, value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(EXAMPLES[name])
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    last = path[-1]
    if action == "delete" and isinstance(target, dict):
        del target[last]
    elif action == "add" and isinstance(target[last], dict):
        target[last]["extra"] = value
    else:
        target[last] = value
    return doc


@pytest.mark.req("ROC-SNAP-009", "ROC-SESSION-014")
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_valid_examples_pass_both_judges(name: str) -> None:
    assert not list(SCHEMA.iter_errors(EXAMPLES[name]))
    assert _judge_loader(EXAMPLES[name]) is None


@pytest.mark.req("ROC-SNAP-009", "ROC-SESSION-014")
@settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.sampled_from(_PATHS),
    action=st.sampled_from(["replace", "delete", "add"]),
    value=_REPLACEMENTS,
)
# Disagreements seen before the loader was aligned with the schema:
@example(where=("partially-answered", ("revision",)), action="replace", value=3.0)
@example(where=("partially-answered", ("agent", "messages", 0, "content")), action="replace", value=[])
@example(
    where=("partially-answered", ("interruptState", "interrupts", 1, "reason")), action="replace", value=None
)
@example(
    where=("partially-answered", ("interruptState", "interrupts", 1, "source", "toolName")),
    action="delete",
    value=0,
)
@example(
    where=("partially-answered", ("interruptState", "pendingToolExecution", "completedToolResults")),
    action="delete",
    value=0,
)
@example(
    where=("completed-not-activated", ("agent", "messages", 1, "content", 1, "toolUse", "name")),
    action="replace",
    value="",
)
def test_loader_and_schema_agree_on_mutated_examples(
    where: tuple[str, tuple[Any, ...]], action: str, value: Any
) -> None:
    name, path = where
    _check(_mutated(name, path, action, value))
