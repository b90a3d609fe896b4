"""The committed spec: requirements.json fresh, lint clean, markers name known IDs, every MUST traced."""

from __future__ import annotations

from pathlib import Path

import pytest
from roc_conformance.specdoc.history import committed_requirements_text
from roc_conformance.specdoc.lint import lint_spec
from roc_conformance.specdoc.parser import Requirement, chapter_paths, parse_spec, render_requirements
from roc_conformance.specdoc.trace import (
    Collection,
    TraceMatrix,
    build_matrix,
    collect_markers,
    load_registry,
)

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"

pytestmark = pytest.mark.skipif(
    not any(path.name[:2].isdigit() for path in chapter_paths(SPEC)),
    reason="no spec chapters (spec/NN-*.md) written yet",
)


@pytest.fixture(scope="module")
def requirements() -> list[Requirement]:
    return parse_spec(SPEC)


@pytest.fixture(scope="module")
def collection() -> Collection:
    # The whole suite, collected in a subprocess exactly as `python -m roc_conformance.specdoc trace` does.
    return collect_markers(ROOT, "tests")


@pytest.fixture(scope="module")
def matrix(requirements: list[Requirement], collection: Collection) -> TraceMatrix:
    return build_matrix(requirements, collection.markers, load_registry().checks)


def test_spec_has_requirements(requirements: list[Requirement]) -> None:
    assert requirements, "the chapters hold no well-formed requirement block"


def test_requirements_json_is_fresh(requirements: list[Requirement]) -> None:
    committed = SPEC / "requirements.json"
    assert committed.is_file(), "spec/requirements.json missing: run `python -m roc_conformance.specdoc gen`"
    assert committed.read_text(encoding="utf-8") == render_requirements(requirements), (
        "spec/requirements.json is stale: run `python -m roc_conformance.specdoc gen`"
    )


def test_real_spec_lints_clean() -> None:
    # Includes "removed-id" against the committed requirements.json, once there is one.
    violations = lint_spec(SPEC, committed_requirements_text(ROOT))
    assert not violations, f"{len(violations)} spec lint violations:\n" + "\n".join(
        f"spec/{v}" for v in violations
    )


def test_every_requirement_marker_names_a_known_id(matrix: TraceMatrix, collection: Collection) -> None:
    assert collection.markers, "pytest collected no tests"
    assert not matrix.unknown, "unknown requirement IDs in markers or checks:\n" + "\n".join(
        f"{rid}: {', '.join(users)}" for rid, users in matrix.unknown.items()
    )


def test_every_must_is_traced(matrix: TraceMatrix, collection: Collection) -> None:
    untraced = matrix.untraced_musts()
    note = "" if collection.complete else f" (collection exit {collection.returncode}: modules missing)"
    assert not untraced, (
        f"{len(untraced)} MUST/MUST NOT requirements have no test, no check and no untestable reason{note}: "
        + ", ".join(e.requirement.id for e in untraced)
    )
