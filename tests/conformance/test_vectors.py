"""Static vectors: valid against their schema, and in agreement with the oracle (hand-written vs model)."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import pytest
from roc_conformance.oracle import reqs
from roc_conformance.oracle.fake import ALL_PROFILES, FakeImplementation
from roc_conformance.oracle.vectors import SCHEMA_PATH, check_vector_against_oracle, load_vectors, run_vector

VECTORS = load_vectors()
IDS = [v["id"] for v in VECTORS]


def test_there_are_vectors_for_every_area():
    assert len(VECTORS) >= 20
    covered = {r for v in VECTORS for r in v["requirements"]}
    # Every requirement the oracle's checks can name is exercised by at least one hand-written vector,
    # except the catch-alls that are checked everywhere.
    # ERR-007 (result xor error) is enforced by the harness client on every reply.
    # ABANDON-006 (a malformed abandon) cannot be sent through the harness, whose abandon message is typed.
    missing = set(reqs.ALL.values()) - covered - {reqs.ERROR_XOR, reqs.ABANDON_MALFORMED}
    assert not missing, f"no vector names {sorted(missing)}"


def test_vector_ids_are_unique():
    assert not [k for k, n in Counter(IDS).items() if n > 1]


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_matches_schema(vector):
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(vector)


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_oracle_agrees_with_hand_written_expectations(vector):
    assert check_vector_against_oracle(vector) == []


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_passes_on_the_oracle_fake(vector):
    found, driver = run_vector(vector, FakeImplementation((*ALL_PROFILES, *vector["profiles"])))
    assert found == [], driver.transcript()
