"""The v1 JSON Schemas are well-formed draft 2020-12 documents that reference each other only by $id."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable
from roc_reference.errors import ErrorCode
from schemakit import BASE_URI, METASCHEMA, registry, schema_files, schemas

EXPECTED = {
    "agent-result",
    "agent-spec",
    "content-block",
    "error",
    "interrupt",
    "interrupt-response",
    "message",
    "prompt-input",
    "resume-input",
    "snapshot",
    "stop-reason",
    "stream-event",
    "pending-interrupt",
    "abandon-input",
    "approval-answer",
    "question",
    "question-answer",
    "ask-user-input",
    "tool-result",
    "trace-event",
}
NAMES = sorted(schemas())


def _walk(node: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def _refs(doc: dict[str, Any]) -> list[str]:
    return [
        node["$ref"] for _, node in _walk(doc) if isinstance(node, dict) and isinstance(node.get("$ref"), str)
    ]


def test_the_schema_set_is_complete() -> None:
    assert {path.name.removesuffix(".schema.json") for path in schema_files()} == EXPECTED


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_against_its_metaschema(name: str) -> None:
    Draft202012Validator.check_schema(schemas()[name])


@pytest.mark.parametrize("name", NAMES)
def test_schema_header(name: str) -> None:
    doc = schemas()[name]
    assert doc["$schema"] == METASCHEMA
    assert doc["$id"] == BASE_URI + name
    assert doc["title"].strip()
    assert len(doc["description"]) > 40


@pytest.mark.parametrize("name", NAMES)
def test_every_ref_resolves_in_the_registry(name: str) -> None:
    doc = schemas()[name]
    resolver = registry().resolver(base_uri=doc["$id"])
    refs = _refs(doc)
    for ref in refs:
        # Local refs or absolute refs to a sibling's $id: the corpus never depends on fetching anything.
        assert ref.startswith("#") or ref.startswith(BASE_URI), ref
        try:
            resolver.lookup(ref)
        except Unresolvable as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{name}: {ref} does not resolve: {exc}")


def test_some_schemas_reference_siblings() -> None:
    # Guards the test above against vacuity: cross-file references exist and go through $id.
    cross = {ref for doc in schemas().values() for ref in _refs(doc) if ref.startswith(BASE_URI)}
    assert len(cross) >= 8


def test_unknown_ref_is_reported_unresolvable() -> None:
    with pytest.raises(Unresolvable):
        registry().resolver().lookup(BASE_URI + "no-such.schema.json")


@pytest.mark.parametrize("name", NAMES)
def test_member_names_are_lower_camel_case(name: str) -> None:
    camel = re.compile(r"^[a-z][a-zA-Z0-9]*$")
    for path, node in _walk(schemas()[name]):
        if path.endswith("/properties") and isinstance(node, dict):
            bad = [key for key in node if not camel.match(key)]
            assert not bad, f"{name} {path}: {bad}"


@pytest.mark.req("ROC-ERR-002")
def test_error_code_enum_is_the_closed_code_set() -> None:
    codes = schemas()["error.schema.json"]["properties"]["code"]["enum"]
    assert codes == [code.value for code in ErrorCode]
