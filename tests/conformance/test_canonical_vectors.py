"""spec/examples/canonical/vectors.json against both Python implementations of the canonical form (spec 8.2):
the reference runtime's (``roc_reference.integrity``) and the suite's own (``roc_conformance.canonical``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from roc_conformance import canonical as suite
from roc_reference import integrity as reference
from roc_reference.errors import SnapshotInvalidError

VECTORS = json.loads(
    (Path(__file__).resolve().parents[2] / "spec" / "examples" / "canonical" / "vectors.json").read_text(
        encoding="utf-8"
    )
)
KEY = VECTORS["hmacKey"].encode("utf-8")
CASES = VECTORS["cases"]
INVALID = VECTORS["invalid"]


def _mac(canonical: bytes) -> str:
    return base64.urlsafe_b64encode(hmac.new(KEY, canonical, hashlib.sha256).digest()).rstrip(b"=").decode()


def test_the_vectors_are_many_and_distinct() -> None:
    assert len(CASES) >= 20
    assert len(INVALID) >= 5
    assert len({c["name"] for c in CASES}) == len(CASES)
    # The file's own values agree with each other, so a mistyped hash cannot hide behind a second one.
    for case in CASES:
        canonical = case["canonical"].encode("utf-8")
        assert case["sha256"] == hashlib.sha256(canonical).hexdigest(), case["name"]
        assert case["hmac"] == _mac(canonical), case["name"]


@pytest.mark.req("ROC-SNAP-008", "ROC-SNAP-006", "ROC-SEC-002")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_reference_reproduces_each_vector(case: dict[str, Any]) -> None:
    value = reference.parse_json_text(case["input"], 64)
    canonical = reference.canonical_value(value)
    assert canonical == case["canonical"].encode("utf-8")
    assert reference.input_digest(value) == "sha256:" + case["sha256"]
    # The tag of a snapshot is the HMAC of the canonical form of the document without "integrity".
    if isinstance(value, dict) and "integrity" not in value:
        assert reference.compute_mac(value, KEY) == case["hmac"]
    assert _mac(canonical) == case["hmac"]


@pytest.mark.req("ROC-SNAP-008", "ROC-SNAP-006", "ROC-SEC-002")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_suite_reproduces_each_vector(case: dict[str, Any]) -> None:
    value = suite.parse_strict(case["input"])
    assert suite.canonical_bytes(value) == case["canonical"].encode("utf-8")
    assert suite.canonical_text(value) == case["canonical"]
    assert suite.input_digest(value) == "sha256:" + case["sha256"]
    assert suite.mac_of(suite.canonical_bytes(value), KEY) == case["hmac"]


@pytest.mark.req("ROC-SNAP-015", "ROC-SEC-014")
@pytest.mark.parametrize("case", INVALID, ids=[c["name"] for c in INVALID])
def test_the_reference_refuses_each_invalid_text(case: dict[str, Any]) -> None:
    with pytest.raises(SnapshotInvalidError):
        reference.canonical_value(reference.parse_json_text(case["input"], 64))


@pytest.mark.parametrize("case", INVALID, ids=[c["name"] for c in INVALID])
def test_the_suite_refuses_each_invalid_text(case: dict[str, Any]) -> None:
    with pytest.raises(suite.NotCanonicalJson):
        suite.canonical_bytes(suite.parse_strict(case["input"]))
