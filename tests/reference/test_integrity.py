"""The one canonical-JSON / digest / HMAC module (spec 8.2, 10.3) and how the loaders use it."""

from __future__ import annotations

import base64
import copy
import importlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
import rfc8785
import roc_reference
from hypothesis import given, settings
from hypothesis import strategies as st
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
    assert canonical_value([1e21, 1e-05, 1e-7]) == b"[1e+21,0.00001,1e-7]"  # ECMAScript forms (RFC 8785)
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


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=16,
)


def _doubles(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
        return float(value)
    if isinstance(value, list):
        return [_doubles(v) for v in value]
    if isinstance(value, dict):
        return {k: _doubles(v) for k, v in value.items()}
    return value


@pytest.mark.req("ROC-SNAP-008")
@settings(max_examples=400, deadline=None)
@given(value=_json_values)
def test_the_fast_path_writes_exactly_what_rfc8785_writes(value: Any) -> None:
    """canonical_value serves most values with json.dumps; whatever path it takes, its bytes are RFC 8785's
    (spec 8.2), and it refuses exactly what RFC 8785 refuses."""
    try:
        expected = rfc8785.dumps(_doubles(value))
    except rfc8785.CanonicalizationError:
        with pytest.raises(SnapshotInvalidError):
            canonical_value(value)
        return
    assert canonical_value(value) == expected
    if integrity_module._fast_path_fits(value):  # the fast path alone, not only the dispatch
        fast = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        assert fast == expected


@pytest.mark.req("ROC-SNAP-008")
def test_the_fast_path_is_left_where_json_dumps_differs() -> None:
    # Each of these is written differently by json.dumps(sort_keys=True); the dispatch must notice.
    for value in ([1e-05], [1.0], {"\uff5a": 1, "\U0001f600": 2}, [2**53], [-(2**53)]):
        assert not integrity_module._fast_path_fits(value)
    assert canonical_value({"\uff5a": 1, "\U0001f600": 2}) == '{"\U0001f600":2,"\uff5a":1}'.encode()
    assert canonical_value([2**53 + 1, 10**23]) == b"[9007199254740992,1e+23]"
    # Mixed: the top level leaves the fast path, its members take it or not one by one.
    mixed = {"\uff5a": {"b": 1, "a": [2**60]}, "\U0001f600": [{"y": "é", "x": None}, 1e-7], "": 1.0}
    assert canonical_value(mixed) == rfc8785.dumps(_doubles(mixed))
    assert (
        canonical_value(mixed)
        == '{"":1,"\U0001f600":[{"x":null,"y":"é"},1e-7],"\uff5a":{"a":[1152921504606847000],"b":1}}'.encode()
    )
    with pytest.raises(SnapshotInvalidError):
        canonical_value(10**400)  # beyond a double: not JSON RoC carries


_EDGES = [1e-4, math.nextafter(1e-4, 0), 1e16, math.nextafter(1e16, 0), 2.0**52 + 0.5, 2.0**53, 0.1, 5e-324]


@pytest.mark.req("ROC-SNAP-008")
@settings(max_examples=1000, deadline=None)
@given(
    number=st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=1e-5, max_value=1e17)
    | st.sampled_from(_EDGES + [-x for x in _EDGES])
)
def test_floats_take_the_fast_path_exactly_where_repr_is_the_rfc8785_form(number: float) -> None:
    """Non-integral floats in [1e-4, 1e16) are written by repr with no exponent, as RFC 8785 writes them;
    every other float is handed to rfc8785 (spec 8.2)."""
    fits = integrity_module._fast_path_fits([number, {"n": number}])
    assert fits == (1e-4 <= abs(number) < 1e16 and not number.is_integer())
    expected = rfc8785.dumps([number, {"n": number}])
    assert canonical_value([number, {"n": number}]) == expected
    if fits:
        assert json.dumps([number, {"n": number}], separators=(",", ":")).encode() == expected


@pytest.mark.req("ROC-SNAP-015")
@pytest.mark.parametrize(
    "text", ['{"a": 1, "a": 1}', '[{"x": {"k": 1, "j": 2, "k": 3}}]', '{"\\u0061": 1, "a": 2}']
)
def test_parse_json_text_refuses_a_repeated_member_name(text: str) -> None:
    with pytest.raises(SnapshotInvalidError, match="duplicate member name"):
        integrity_module.parse_json_text(text, 64)


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "-Infinity", "1e400", '{"x": -1e309}'])
def test_parse_json_text_refuses_numbers_that_are_not_doubles(text: str) -> None:
    with pytest.raises(SnapshotInvalidError):
        integrity_module.parse_json_text(text, 64)
