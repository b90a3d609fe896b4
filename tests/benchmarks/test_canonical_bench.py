"""The canonical-form benchmark runs and measures what it says (never how fast: no time is asserted)."""

from __future__ import annotations

import json

import rfc8785
from roc_reference.integrity import canonical_json

from benchmarks import canonical
from benchmarks.common import section_from_json


def test_quick_run_measures_every_implementation_on_both_documents() -> None:
    section = canonical.run("quick")
    assert section_from_json(json.loads(json.dumps(section.to_json()))) == section
    documents, forms, tags = section.tables
    assert {r["document"] for r in documents.rows} == {"with floats", "no floats"}
    assert all(r["mb"] > 0 for r in documents.rows)
    with_floats = next(r for r in documents.rows if r["document"] == "with floats")
    assert 0 < with_floats["float_messages_pct"] < 100
    assert all(r["non_ascii_pct"] > 0 for r in documents.rows)
    # every implementation on every document, each output compared with rfc8785 in the run itself
    implementations = ("reference", "rfc8785", "suite", "previous", "json")
    assert {(r["document"], r["key"]) for r in forms.rows} == {
        (d, k) for d in ("with floats", "no floats") for k in implementations
    }
    assert all(r["rfc8785_bytes"] for r in forms.rows if r["key"] in ("reference", "rfc8785", "suite"))
    assert all(r["mbps"] > 0 and r["rounds"] == 2 for r in forms.rows)
    # without floats every implementation writes RFC 8785; the p-values are where the previous code differs
    assert all(r["rfc8785_bytes"] for r in forms.rows if r["document"] == "no floats")
    previous = next(r for r in forms.rows if r["document"] == "with floats" and r["key"] == "previous")
    assert not previous["rfc8785_bytes"]
    assert any("previous code" in note and "pValue" in note for note in section.notes)
    assert {r["key"] for r in tags.rows} == {"hmac", "digest", "sign", "verify", "append"}
    assert all(r["ms"] > 0 for r in tags.rows)
    assert all(r["input_mb"] > 0 for r in tags.rows if r["key"] != "append")
    append = next(r for r in tags.rows if r["key"] == "append")
    assert append["same_tag"] is True
    (target,) = section.targets
    assert target.met is not None
    assert "of 2 documents" in target.measured


def test_the_previous_code_is_the_pre_rfc8785_form() -> None:
    # What it was replaced for: small and integral floats, and keys above U+FFFF sorted by code point.
    doc = {"b": [1.0, 2.5e-05, 0.5], "\uff5a": 1, "\U0001f600": 2, "integrity": {"mac": "x"}}
    previous = '{"b":[1,2.5e-05,0.5],"\uff5a":1,"\U0001f600":2}'.encode()
    assert canonical.pre_rfc8785_canonical_json(doc) == previous
    assert canonical_json(doc) == rfc8785.dumps({k: v for k, v in doc.items() if k != "integrity"})
    assert canonical_json(doc) == '{"b":[1,0.000025,0.5],"\U0001f600":2,"\uff5a":1}'.encode()


def test_the_documents_reach_their_size_and_keep_the_snapshot_shape() -> None:
    messages = canonical.history(20_000, floats=True)
    body = canonical.snapshot(messages)
    assert len(rfc8785.dumps(body)) >= 20_000
    assert list(body["agent"]) == ["agentId", "messages", "state"]
    assert canonical.large_tool_input(10_000, floats=False)["rows"]
