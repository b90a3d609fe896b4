"""The suite's canonical JSON, digests and tags follow spec/08-sessions.md §8.2 on their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from roc_conformance.canonical import (
    NotCanonicalJson,
    canonical_bytes,
    canonical_text,
    input_digest,
    snapshot_mac,
)
from roc_conformance.checks.snapshots import INTEGRITY_KEY

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples" / "Snapshot" / "valid"


@pytest.mark.req("ROC-SNAP-008")
@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": 1, "a": [True, None]}, '{"a":[true,null],"b":1}'),
        ({"n": 1.0, "z": -0.0, "big": 1e20}, '{"big":100000000000000000000,"n":1,"z":0}'),
        # RFC 8785 numbers: ECMAScript formatting, positional from 1e-6 up to 1e21.
        ([0.5, 1e-05, 1.5e-7, 0.0001, 1e21, 1e-6], "[0.5,0.00001,1.5e-7,0.0001,1e+21,0.000001]"),
        # An integer beyond 2**53 - 1 stands for its nearest double, as a JavaScript reader holds it.
        ([2**53 - 1, 2**53 + 1, 10**23], "[9007199254740991,9007199254740992,1e+23]"),
        ({"é": "ü\u0001\n\u007f"}, '{"é":"ü\\u0001\\n\u007f"}'),
        ({"\u00e9": 1, "z": 2, "Z": 3}, '{"Z":3,"z":2,"é":1}'),
        # Keys by UTF-16 code units: U+1F600 (D83D DE00) before U+FF5A, the reverse of code point order.
        ({"\uff5a": 1, "\U0001f600": 2}, '{"\U0001f600":2,"\uff5a":1}'),
    ],
)
def test_canonical_form(value: Any, text: str) -> None:
    assert canonical_text(value) == text
    assert canonical_bytes(value) == text.encode("utf-8")


@pytest.mark.req("ROC-SNAP-008")
def test_integral_floats_and_ints_share_one_digest() -> None:
    assert input_digest({"n": 2.0}) == input_digest({"n": 2})
    assert input_digest({"n": True}) != input_digest({"n": 1})
    assert input_digest({"path": "a.txt"}).startswith("sha256:")


@pytest.mark.req("ROC-SNAP-008")
@pytest.mark.parametrize(
    "bad", [float("nan"), float("inf"), {1: "k"}, "\ud800", {"\udc00": 1}, object(), 10**400]
)
def test_non_json_has_no_canonical_form(bad: Any) -> None:
    with pytest.raises(NotCanonicalJson):
        canonical_bytes({"v": bad})


@pytest.mark.req("ROC-SEC-002", "ROC-SNAP-008")
def test_the_mac_of_the_signed_example_is_recomputed() -> None:
    doc = json.loads((EXAMPLES / "paused-second-question-signed.json").read_text(encoding="utf-8"))
    assert doc["integrity"]["keyId"] == INTEGRITY_KEY["keyId"]
    assert snapshot_mac(doc, INTEGRITY_KEY["secret"]) == doc["integrity"]["mac"]
    doc["agent"]["state"] = {"changed": True}
    assert snapshot_mac(doc, INTEGRITY_KEY["secret"]) != doc["integrity"]["mac"]


@pytest.mark.req("ROC-SNAP-006", "ROC-SNAP-008")
def test_the_digests_of_the_examples_are_recomputed() -> None:
    checked = 0
    for path in sorted(EXAMPLES.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        pending = doc["interruptState"]["pendingToolExecution"] or {}
        inputs = {
            b["toolUse"]["toolUseId"]: b["toolUse"]["input"]
            for b in (pending.get("assistantMessage") or {}).get("content", [])
            if "toolUse" in b
        }
        for item in doc["interruptState"]["interrupts"]:
            use = (item.get("source") or {}).get("toolUseId")
            if "inputDigest" in item and use in inputs:
                assert item["inputDigest"] == input_digest(inputs[use]), path.name
                checked += 1
    assert checked > 0
