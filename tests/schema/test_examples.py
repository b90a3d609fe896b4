"""Every example in spec/examples is judged as its README says: valid ones pass the schema and the structural
rules; each invalid one is rejected, by the schema or by the one named structural rule, at the named place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import best_match
from roc_conformance.canonical import NotCanonicalJson, parse_strict
from roc_reference.errors import ErrorCode
from schemakit import EXAMPLE_SCHEMAS, EXAMPLES_DIR, example_paths, load_json, manifest, validator
from structural_rules import CHECKS, Violation

# The requirements whose schema side an example type exercises (harness-only types have none).
TYPE_REQS: dict[str, tuple[str, ...]] = {
    "Interrupt": ("ROC-MODEL-001",),
    "Message": ("ROC-MODEL-001",),
    "AgentResult": ("ROC-MODEL-001", "ROC-MODEL-010"),
    "Error": ("ROC-MODEL-001",),
    "Snapshot": ("ROC-SNAP-001", "ROC-SNAP-009"),
    "PendingInterrupt": ("ROC-PENDING-001", "ROC-PENDING-002"),
    "Question": ("ROC-ASK-002",),
    "AskUserInput": ("ROC-ASK-008",),
}


def _type(path: Path) -> str:
    return path.parent.parent.name


def _params(kind: str) -> list[Any]:
    params = []
    for path in example_paths(kind):
        reqs = TYPE_REQS.get(_type(path))
        marks = [pytest.mark.req(*reqs)] if reqs else []
        params.append(pytest.param(path, marks=marks, id=f"{_type(path)}/{path.stem}"))
    return params


VALID = _params("valid")
INVALID = _params("invalid")


def test_every_example_directory_has_a_schema() -> None:
    # canonical/ and response-schema/ hold cross-language vectors (spec 8.2, 14.5), not documents of a type.
    vectors = {"canonical", "response-schema"}
    assert {p.name for p in EXAMPLES_DIR.iterdir() if p.is_dir()} - vectors == set(EXAMPLE_SCHEMAS)


@pytest.mark.parametrize("example_type", sorted(EXAMPLE_SCHEMAS))
def test_each_type_has_enough_examples(example_type: str) -> None:
    assert len(list((EXAMPLES_DIR / example_type / "valid").glob("*.json"))) >= 3
    assert len(list((EXAMPLES_DIR / example_type / "invalid").glob("*.json"))) >= 5


@pytest.mark.parametrize("example_type", sorted(EXAMPLE_SCHEMAS))
def test_manifest_lists_exactly_the_invalid_files(example_type: str) -> None:
    on_disk = {p.name for p in (EXAMPLES_DIR / example_type / "invalid").glob("*.json")}
    assert set(manifest(example_type)) == on_disk


@pytest.mark.parametrize("path", VALID)
def test_valid_example_is_accepted(path: Path) -> None:
    doc = load_json(path)
    errors = list(validator(EXAMPLE_SCHEMAS[_type(path)]).iter_errors(doc))
    assert not errors, best_match(errors).message
    check = CHECKS.get(_type(path))
    if check is not None:
        assert check(doc) == []


@pytest.mark.parametrize("path", INVALID)
def test_invalid_example_is_rejected_for_its_named_rule(path: Path) -> None:
    row = manifest(_type(path))[path.name]
    if row.rejected_by == "parser":
        # Not RoC JSON text (ROC-SNAP-015): a parser that refuses repeated member names rejects it before
        # any schema sees it (json.loads would silently keep the last value).
        with pytest.raises(NotCanonicalJson):
            parse_strict(path.read_text(encoding="utf-8"))
        return
    doc = load_json(path)
    errors = list(validator(EXAMPLE_SCHEMAS[_type(path)]).iter_errors(doc))
    if row.rejected_by == "schema":
        assert errors, f"the schema accepts {path.name}"
        assert best_match(errors).json_path == row.at
    else:
        # Rule-level: the shape is fine, and exactly the one documented cross-member rule rejects it.
        assert not errors, best_match(errors).message
        assert CHECKS[_type(path)](doc) == [Violation(row.rejected_by, row.at)]


def test_invalid_file_names_say_the_rule() -> None:
    # Manifest rows must not be empty prose; file names are kebab-case rule names.
    for example_type in EXAMPLE_SCHEMAS:
        for name, row in manifest(example_type).items():
            assert row.rule.strip(), name
            assert name.removesuffix(".json").replace("-", "").isalnum(), name


@pytest.mark.parametrize("example_type", ["Snapshot", "ResumeInput", "AbandonInput"])
def test_manifest_names_an_error_code_for_every_invalid_input(example_type: str) -> None:
    for name, row in manifest(example_type).items():
        assert row.code in {code.value for code in ErrorCode}, name
