"""The one canonical-JSON / digest / HMAC module (spec 8.2, 10.3) and how the loaders use it."""

from __future__ import annotations

import base64
import copy
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
import roc_reference
from roc_reference import Agent, ScriptedModel
from roc_reference import integrity as integrity_module
from roc_reference.errors import ErrorCode, RocError, SnapshotIntegrityError, SnapshotInvalidError
from roc_reference.integrity import canonical_json, canonical_value, compute_mac, input_digest, sign, verify
from roc_reference.snapshot import parse_snapshot

SIGNED = (
    Path(__file__).resolve().parents[2] / "spec/examples/Snapshot/valid/paused-second-question-signed.json"
)
KEYS = {"roc-examples-2026": b"roc-example-key-not-secret"}


def signed_example() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SIGNED.read_text("utf-8"))
    return doc


@pytest.mark.req("ROC-SNAP-008")
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), {"x": [1, float("nan")]}])
def test_nan_and_infinity_have_no_canonical_form(bad: Any) -> None:
    with pytest.raises(SnapshotInvalidError):
        canonical_value(bad)
    with pytest.raises(SnapshotInvalidError):
        input_digest(bad)


@pytest.mark.req("ROC-SNAP-008")
def test_integral_floats_are_written_as_integers() -> None:
    assert canonical_value([1.0, -0.0, 2.5, 1e20]) == b"[1,0,2.5,100000000000000000000]"
    assert input_digest({"n": 3.0}) == input_digest({"n": 3})
    assert input_digest({"n": 3.5}) != input_digest({"n": 3})


@pytest.mark.req("ROC-SNAP-008")
def test_the_snapshot_form_drops_only_the_integrity_member() -> None:
    assert canonical_json({"b": 1, "integrity": {"mac": "x"}, "a": 2}) == b'{"a":2,"b":1}'
    # a tool input is any JSON value: its own "integrity" member is content, not a tag
    assert input_digest({"integrity": 1}) != input_digest({})


@pytest.mark.req("ROC-SEC-002", "ROC-SEC-003")
def test_sign_then_verify_and_the_runtime_loader_agree() -> None:
    doc = signed_example()
    assert compute_mac(doc, KEYS["roc-examples-2026"]) == doc["integrity"]["mac"]  # the spec's example tag
    resigned = sign(doc, "roc-examples-2026", KEYS["roc-examples-2026"])
    assert resigned == doc
    verify(resigned, KEYS)
    parse_snapshot(resigned, integrity_keys=KEYS)


@pytest.mark.req("ROC-SEC-003")
@pytest.mark.parametrize("mac", ["\u00a1" * 43, "\u0663" * 43, "A" * 42, "A" * 44, "A" * 42 + "=", ""])
def test_a_malformed_mac_is_snapshot_integrity_not_a_crash(mac: str) -> None:
    doc = signed_example()
    doc["integrity"]["mac"] = mac
    original = copy.deepcopy(doc)
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(doc, model=ScriptedModel([]), integrity_keys=KEYS)
    assert info.value.code == ErrorCode.SNAPSHOT_INTEGRITY
    assert doc == original


@pytest.mark.req("ROC-SEC-003")
def test_only_the_writers_encoding_of_the_tag_verifies() -> None:
    """43 characters carry 258 bits of which the tag uses 256: another last character that decodes to the
    same bytes is still not the tag that was written."""
    doc = signed_example()
    mac = doc["integrity"]["mac"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twin = mac[:-1] + alphabet[alphabet.index(mac[-1]) ^ 1]
    assert base64.urlsafe_b64decode(twin + "=") == base64.urlsafe_b64decode(mac + "=")
    doc["integrity"]["mac"] = twin
    with pytest.raises(SnapshotIntegrityError):
        verify(doc, KEYS)


def test_one_implementation_serves_runtime_and_store() -> None:
    """The duplicates are gone: every entry point is the module's own function."""
    from roc_reference import interrupts, sessions, snapshot

    assert roc_reference.input_digest is integrity_module.input_digest
    assert roc_reference.sign_snapshot is integrity_module.sign
    assert interrupts.input_digest is snapshot.input_digest is integrity_module.input_digest
    assert sessions.canonical_json is integrity_module.canonical_json
    assert sessions.sign is integrity_module.sign
    assert sessions.verify is integrity_module.verify
    assert not hasattr(snapshot, "compute_mac")
    assert not hasattr(interrupts, "canonical_json")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("roc_reference.sessions.integrity")
