"""The schemas describe what the reference runtime actually reads and writes.

Two directions: the reference snapshot loader accepts every valid Snapshot example and refuses every invalid
one with the documented error code; and the documents the reference emits while running the AgentSpec
examples (results, trace events, snapshots, errors) validate against the schemas.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import best_match
from roc_reference.errors import RocError
from roc_reference.harness.build import Stores, build_agent, restore_agent
from roc_reference.snapshot import parse_snapshot
from schemakit import EXAMPLES_DIR, load_json, manifest, validator
from structural_rules import EXAMPLE_KEYS, snapshot_violations

SNAPSHOTS = EXAMPLES_DIR / "Snapshot"
SPECS = sorted((EXAMPLES_DIR / "AgentSpec" / "valid").glob("*.json"))
RESUME_INVALID = sorted((EXAMPLES_DIR / "ResumeInput" / "invalid").glob("*.json"))


def _keys(doc: dict[str, Any]) -> dict[str, bytes] | None:
    # The manifest's convention: signed documents are read with the example key, others without keys.
    return EXAMPLE_KEYS if "integrity" in doc else None


@pytest.mark.req("ROC-VER-010")
@pytest.mark.parametrize("path", sorted((SNAPSHOTS / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_reference_loader_accepts_valid_snapshot(path: Path) -> None:
    doc = load_json(path)
    parse_snapshot(doc, integrity_keys=_keys(doc))


# Which loader requirement each invalid fixture exercises: by its structural rule, else by its code.
RULE_REQS = {
    "dangling-tool-use": "ROC-SNAP-010",
    "orphan-tool-result": "ROC-SNAP-010",
    "activated-without-pending-tool-execution": "ROC-SNAP-011",
    "activated-without-unanswered-interrupt": "ROC-SNAP-011",
    "completed-result-unknown-tool-use": "ROC-SNAP-012",
    "duplicate-completed-result": "ROC-SNAP-012",
    "completed-result-for-interrupted-tool-use": "ROC-SNAP-012",
    "interrupt-unknown-tool-use": "ROC-SNAP-012",
    "input-digest-mismatch": "ROC-SNAP-013",
    "duplicate-interrupt-id": "ROC-SNAP-014",
    "duplicate-raise-point": "ROC-SNAP-014",
    "integrity-mac-mismatch": "ROC-SEC-003",
    "integrity-unknown-alg": "ROC-SEC-003",
    "parser": "ROC-SNAP-015",
    "kept-sub-agent-unknown-tool-use": "ROC-AGENT-009",
    "propagated-without-kept-sub-agent": "ROC-AGENT-009",
}
CODE_REQS = {
    "SNAPSHOT_INVALID": ("ROC-SNAP-009",),
    "SNAPSHOT_VERSION_UNSUPPORTED": (),
    "SNAPSHOT_INTEGRITY": ("ROC-SEC-003",),
}
FILE_REQS = {
    "malformed-schema-version.json": "ROC-VER-004",
    "missing-schema-version.json": "ROC-VER-004",
    "wrong-schema-version.json": "ROC-VER-005",
    "unsupported-spec-version.json": "ROC-VER-006",
    "tool-bound-interrupt-without-input-digest.json": "ROC-SNAP-013",
    "unknown-top-level-member.json": "ROC-VER-008",
    "children-in-2-1-document.json": "ROC-VER-008",
}


def _snapshot_params() -> list[Any]:
    params = []
    rows = manifest("Snapshot")
    for path in sorted((SNAPSHOTS / "invalid").glob("*.json")):
        row = rows[path.name]
        assert row.code is not None
        reqs = [
            RULE_REQS.get(row.rejected_by) or "",
            *CODE_REQS[row.code],
            FILE_REQS.get(path.name, ""),
        ]
        ids = sorted({r for r in reqs if r} | {"ROC-VER-010"})
        params.append(pytest.param(path, marks=[pytest.mark.req(*ids)], id=path.stem))
    return params


@pytest.mark.parametrize("path", _snapshot_params())
def test_reference_loader_refuses_invalid_snapshot_with_the_named_code(path: Path) -> None:
    doc = load_json(path)
    with pytest.raises(RocError) as caught:
        # As text: a "parser" fixture (a repeated member name) is wrong only as text (ROC-SNAP-015).
        parse_snapshot(path.read_text(encoding="utf-8"), integrity_keys=_keys(doc))
    assert caught.value.code.value == manifest("Snapshot")[path.name].code


@pytest.fixture(scope="module")
def interrupted_agent() -> Any:
    built = build_agent(load_json(EXAMPLES_DIR / "AgentSpec" / "valid" / "approval-hook.json"))
    assert built.agent.invoke("go").stop_reason == "interrupt"
    return built.agent


@pytest.mark.req(
    "ROC-RESUME-002",
    "ROC-RESUME-003",
    "ROC-RESUME-004",
    "ROC-RESUME-005",
    "ROC-RESUME-006",
    "ROC-RESUME-008",
    "ROC-RESUME-010",
    "ROC-RESUME-014",
)
@pytest.mark.parametrize("path", RESUME_INVALID, ids=lambda p: p.stem)
def test_reference_agent_refuses_invalid_resume_input_with_the_named_code(
    interrupted_agent: Any, path: Path
) -> None:
    before = interrupted_agent.take_snapshot()
    with pytest.raises(RocError) as caught:
        interrupted_agent.invoke(load_json(path))
    assert caught.value.code.value == manifest("ResumeInput")[path.name].code
    after = interrupted_agent.take_snapshot()
    assert {**after, "createdAt": None} == {**before, "createdAt": None}


def _assert_valid(schema: str, doc: Any) -> None:
    errors = list(validator(schema).iter_errors(doc))
    assert not errors, f"{schema}: {best_match(errors).json_path}: {best_match(errors).message}"


def _answers(result: dict[str, Any]) -> list[dict[str, Any]]:
    # "y" passes every cancelIf of the examples that expects it; other hooks treat any answer alike.
    return [{"interruptResponse": {"interruptId": i["id"], "response": "y"}} for i in result["interrupts"]]


@pytest.mark.req("ROC-MODEL-001", "ROC-SNAP-001", "ROC-ERR-001")
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_reference_output_for_the_scenarios_validates(path: Path) -> None:
    spec = load_json(path)
    stores = Stores()  # session-bound examples need the adapter's stores
    try:
        _run_scenario(spec, stores)
    finally:
        stores.close()


def _run_scenario(spec: dict[str, Any], stores: Stores) -> None:
    built = build_agent(spec, stores)
    kinds: set[str] = set()
    result = built.agent.invoke("go").to_json()
    seen_interrupt = result["stopReason"] == "interrupt"
    for _ in range(4):
        _assert_valid("agent-result.schema.json", result)
        for event in built.trace.take():
            _assert_valid("trace-event.schema.json", event)
            kinds.add(event["kind"])
        snapshot = built.agent.take_snapshot()
        _assert_valid("snapshot.schema.json", snapshot)
        if "integrity" in spec:  # the configured key signs what the agent writes
            assert snapshot["integrity"]["keyId"] == spec["integrity"]["keyId"]
        assert snapshot_violations(snapshot) == []
        if result["stopReason"] != "interrupt":
            break
        with pytest.raises(RocError) as caught:
            built.agent.invoke("a prompt while interrupted")
        _assert_valid("error.schema.json", caught.value.to_json())
        resume = _answers(result)
        _assert_valid("resume-input.schema.json", resume)
        built = restore_agent(snapshot, spec, model_turn_offset=1)
        result = built.agent.invoke(resume).to_json()
    assert result["stopReason"] != "interrupt"
    assert seen_interrupt  # every scenario example exercises an interrupt
    # The lifecycle events the adapter records are part of what has to validate.
    assert {"before_invocation", "after_invocation", "before_model_call", "after_model_call"} <= kinds
