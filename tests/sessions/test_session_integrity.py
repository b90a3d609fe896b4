"""Snapshot integrity: canonical JSON, HMAC tags, and a store that refuses tampered snapshots."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st
from roc_reference import input_digest
from roc_reference.errors import ErrorCode, SnapshotIntegrityError, SnapshotInvalidError
from roc_reference.sessions import FileSessionManager, FileSessionStore, canonical_json, sign, verify
from roc_reference.sessions.store import STATE_FILE
from sessionkit import snapshot, text_message

KEY = b"k" * 32
OTHER_KEY = b"o" * 32


def interrupted_snapshot(revision=0, response=None):
    interrupt = {
        "id": "v1:before_tool_call:t1:approval",
        "name": "myapp-approval",
        "reason": {"paths": ["a/b/c.txt"]},
        "source": {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "delete_files"},
        "inputDigest": input_digest({"paths": ["a/b/c.txt"]}),
    }
    if response is not None:
        interrupt["response"] = response
    doc = snapshot(
        revision,
        [text_message("user", "paths=<['a/b/c.txt']>")],
        {"note": "ünïcode"},
    )
    doc["interruptState"] = {
        "activated": True,
        "interrupts": [interrupt],
        "pendingToolExecution": {
            "assistantMessage": {
                "role": "assistant",
                "content": [
                    {
                        "toolUse": {
                            "toolUseId": "t1",
                            "name": "delete_files",
                            "input": {"paths": ["a/b/c.txt"]},
                        }
                    }
                ],
            },
            "completedToolResults": [],
        },
    }
    return doc


@pytest.mark.req("ROC-SNAP-008")
def test_canonical_json_is_sorted_compact_utf8_without_the_tag():
    doc = {"b": 1, "a": {"é": [1, 2]}, "integrity": {"mac": "x"}}
    assert canonical_json(doc) == '{"a":{"é":[1,2]},"b":1}'.encode()
    assert canonical_json(doc) == canonical_json({"a": {"é": [1, 2]}, "b": 1})


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": float("inf")}, {"x": object()}, {"x": "\udc80"}])
def test_canonical_json_rejects_non_json(bad):
    with pytest.raises(SnapshotInvalidError):
        canonical_json(bad)


@pytest.mark.req("ROC-SEC-002", "ROC-SNAP-008")
def test_sign_adds_an_hmac_sha256_tag_that_verifies():
    doc = interrupted_snapshot()
    signed = sign(doc, "key-1", KEY)
    assert "integrity" not in doc  # the input is not modified
    tag = signed["integrity"]
    assert tag["alg"] == "HMAC-SHA256"
    assert tag["keyId"] == "key-1"
    expected = hmac.new(KEY, canonical_json(doc), hashlib.sha256).digest()
    assert tag["mac"] == base64.urlsafe_b64encode(expected).rstrip(b"=").decode()
    assert "=" not in tag["mac"]
    assert len(tag["mac"]) == 43
    verify(signed, {"key-1": KEY})
    verify(json.loads(json.dumps(signed)), {"old": OTHER_KEY, "key-1": KEY})  # rotation: several keys
    assert sign(signed, "key-2", OTHER_KEY)["integrity"]["keyId"] == "key-2"  # re-signing replaces the tag


@pytest.mark.req("ROC-SEC-003")
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("integrity"), "no integrity tag"),
        (lambda d: d.update(integrity="tag"), "not an object"),
        (lambda d: d["integrity"].update(alg="HMAC-SHA1"), "unsupported integrity algorithm"),
        (lambda d: d["integrity"].update(keyId="nobody"), "unknown integrity key id"),
        (lambda d: d["integrity"].pop("keyId"), "unknown integrity key id"),
        (lambda d: d["integrity"].update(mac=17), "not a string"),
        (lambda d: d["integrity"].update(mac="!!!"), "not base64url"),
        (lambda d: d["integrity"].update(mac=d["integrity"]["mac"] + "=="), "not base64url"),
        (lambda d: d["integrity"].update(mac="A" * 43), "does not match"),
        (lambda d: d["interruptState"]["interrupts"][0].update(response="y"), "does not match"),
        (lambda d: d["agent"]["state"].update(extra=1), "does not match"),
        (lambda d: d["agent"]["messages"].append(text_message("user", "injected")), "does not match"),
        (lambda d: d.update(revision=d["revision"] + 1), "does not match"),
    ],
)
def test_verify_rejects_missing_foreign_and_wrong_tags(edit, message):
    doc = sign(interrupted_snapshot(), "key-1", KEY)
    edit(doc)
    with pytest.raises(SnapshotIntegrityError, match=message) as info:
        verify(doc, {"key-1": KEY})
    assert info.value.code is ErrorCode.SNAPSHOT_INTEGRITY


@pytest.mark.req("ROC-SEC-003")
def test_a_tag_made_with_another_key_does_not_verify():
    with pytest.raises(SnapshotIntegrityError, match="does not match"):
        verify(sign(interrupted_snapshot(), "key-1", OTHER_KEY), {"key-1": KEY})


# -- the store ---------------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path):
    return FileSessionStore(tmp_path)


def signed_manager(store, **kwargs):
    return FileSessionManager("s", store, signing_key=("key-1", KEY), **kwargs)


@pytest.mark.req("ROC-SEC-002", "ROC-SEC-003")
def test_signing_manager_stores_a_tag_and_loads_the_signed_snapshot(store):
    doc = interrupted_snapshot()
    signed_manager(store).save(doc, expected_revision=None)
    loaded = signed_manager(store).load()
    assert loaded == sign(doc, "key-1", KEY)
    # A reader holding only the verification key (e.g. after rotation to a new signing key) accepts it.
    assert FileSessionManager("s", store, verify_keys={"key-1": KEY}).load() == loaded


@pytest.mark.req("ROC-SEC-003")
def test_a_forged_stored_answer_is_rejected_with_snapshot_integrity(store):
    """An attacker with write access to the store marks a pending approval as answered "y"."""
    signed_manager(store).save(interrupted_snapshot(), expected_revision=None)
    state_path = store.session_dir("s") / STATE_FILE
    state = json.loads(state_path.read_bytes())
    state["snapshot"]["interruptState"]["interrupts"][0]["response"] = "y"
    state_path.write_text(json.dumps(state))
    with pytest.raises(SnapshotIntegrityError) as info:
        signed_manager(store).load()
    assert info.value.to_json()["code"] == "SNAPSHOT_INTEGRITY"
    # Without keys the store cannot tell: that is why the spec recommends signing.
    assert FileSessionManager("s", store).load()["interruptState"]["interrupts"][0]["response"] == "y"


@pytest.mark.req("ROC-SEC-003")
def test_a_forged_answer_changed_from_n_to_y_is_rejected(store):
    signed_manager(store).save(interrupted_snapshot(response="n"), expected_revision=None)
    state_path = store.session_dir("s") / STATE_FILE
    state_path.write_bytes(state_path.read_bytes().replace(b'"response":"n"', b'"response":"y"'))
    with pytest.raises(SnapshotIntegrityError):
        signed_manager(store).load()


@pytest.mark.req("ROC-SEC-003")
def test_an_edited_message_in_the_log_is_rejected(store):
    signed_manager(store).save(interrupted_snapshot(), expected_revision=None)
    (log,) = store.session_dir("s").glob("messages.*.jsonl")
    log.write_bytes(log.read_bytes().replace(b"a/b/c.txt", b"/etc/*///"))  # same length, other meaning
    with pytest.raises(SnapshotIntegrityError):
        signed_manager(store).load()


@pytest.mark.req("ROC-SEC-003")
def test_an_unsigned_or_foreign_snapshot_is_rejected_by_a_verifying_manager(store):
    FileSessionManager("s", store).save(interrupted_snapshot(), expected_revision=None)
    with pytest.raises(SnapshotIntegrityError, match="no integrity tag"):
        signed_manager(store).load()
    FileSessionManager("t", store, signing_key=("intruder", OTHER_KEY)).save(
        interrupted_snapshot(), expected_revision=None
    )
    with pytest.raises(SnapshotIntegrityError, match="unknown integrity key id"):
        FileSessionManager("t", store, signing_key=("key-1", KEY)).load()


@pytest.mark.req("ROC-SEC-002")
def test_signed_appends_stay_verifiable(store):
    manager = signed_manager(store)
    doc = interrupted_snapshot()
    manager.save(doc, expected_revision=None)
    for revision in range(1, 4):
        doc = interrupted_snapshot(revision)
        doc["agent"]["messages"] = [text_message("user", str(k)) for k in range(2 * revision)]
        manager.save(doc, expected_revision=revision - 1)
    assert signed_manager(store).load() == sign(doc, "key-1", KEY)


@pytest.mark.req("ROC-SNAP-008")
def test_canonical_numbers_follow_the_spec():
    doc = {
        "i": 1.0,
        "z": -0.0,
        "big": 1e20,
        "half": 0.5,
        "tiny": 1e-05,
        "small": 1.5e-07,
        "n": [2.0, 3, True],
    }
    assert canonical_json(doc) == (
        b'{"big":100000000000000000000,"half":0.5,"i":1,"n":[2,3,true],"small":1.5e-7,"tiny":0.00001,"z":0}'
    )
    assert (
        canonical_json({"s": '\x00\x1f\x7f\b\t\n\f\r"\\é'})
        == '{"s":"\\u0000\\u001f\x7f\\b\\t\\n\\f\\r\\"\\\\é"}'.encode()
    )
    # Keys sort by UTF-16 code unit (RFC 8785), not by code point: U+1F600 (D83D DE00) before U+FF61.
    assert canonical_json({"\U0001f600": 1, "\uff61": 2}) == '{"\U0001f600":1,"\uff61":2}'.encode()


@pytest.mark.req("ROC-SEC-003", "ROC-SNAP-008")
def test_the_spec_signed_example_verifies_and_breaks_when_edited():
    from pathlib import Path

    path = (
        Path(__file__).resolve().parents[2]
        / "spec/examples/Snapshot/valid/paused-second-question-signed.json"
    )
    doc = json.loads(path.read_text("utf-8"))
    keys = {"roc-examples-2026": b"roc-example-key-not-secret"}
    verify(doc, keys)
    doc["interruptState"]["interrupts"][0]["response"] = "forged"
    with pytest.raises(SnapshotIntegrityError):
        verify(doc, keys)


@pytest.mark.req("ROC-SEC-002")
def test_the_runtime_loader_accepts_what_the_store_signs(store):
    """Interop with the runtime's own reader: a snapshot signed here restores with the same keys there."""
    from roc_reference import Agent, ScriptedModel
    from roc_reference.errors import SnapshotIntegrityError as RuntimeIntegrityError

    doc = sign(interrupted_snapshot(), "key-1", KEY)
    agent = Agent.from_snapshot(doc, model=ScriptedModel([]), integrity_keys={"key-1": KEY})
    assert agent.is_interrupted
    doc["interruptState"]["interrupts"][0]["response"] = "y"
    with pytest.raises(RuntimeIntegrityError):
        Agent.from_snapshot(doc, model=ScriptedModel([]), integrity_keys={"key-1": KEY})


@pytest.mark.req("ROC-SEC-004", "ROC-VER-005")
def test_a_verifying_store_checks_the_version_before_the_tag(store):
    from roc_reference.errors import SnapshotVersionUnsupportedError

    signed_manager(store).save(interrupted_snapshot(), expected_revision=None)
    state_path = store.session_dir("s") / STATE_FILE
    pristine = state_path.read_bytes()

    def stored_with(**members):
        state = json.loads(pristine)
        state["snapshot"].update(members)
        state_path.write_text(json.dumps(state))

    stored_with(schemaVersion="1.0")  # also breaks the tag: the version decides
    with pytest.raises(SnapshotVersionUnsupportedError):
        signed_manager(store).load()
    stored_with(specVersion="3.1")
    with pytest.raises(SnapshotVersionUnsupportedError):
        signed_manager(store).load()
    stored_with(schemaVersion="one")
    with pytest.raises(SnapshotInvalidError):
        signed_manager(store).load()
    stored_with(createdAt=17)  # a broken shape behind a tag is reported as tampering, not as malformed
    with pytest.raises(SnapshotIntegrityError):
        signed_manager(store).load()


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)  # beyond +-(2**53 - 1) too: canonicalized as the nearest double
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


def as_doubles(v):
    """Spec 8.2: numbers are doubles; an integer beyond +-(2**53 - 1) stands for its nearest double."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53 - 1:
        return float(v)
    if isinstance(v, list):
        return [as_doubles(x) for x in v]
    if isinstance(v, dict):
        return {k: as_doubles(x) for k, x in v.items()}
    return v


def independent_canonical(doc):
    """The spec 8.2 form (RFC 8785) straight from the rfc8785 package, without the runtime's fast path or
    its incremental HMAC: an oracle for the tests below."""
    body = {k: v for k, v in doc.items() if k != "integrity"}
    return rfc8785.dumps(as_doubles(body))


def one_pass_mac(doc, key):
    return (
        base64.urlsafe_b64encode(hmac.new(key, independent_canonical(doc), hashlib.sha256).digest())
        .rstrip(b"=")
        .decode("ascii")
    )


@pytest.mark.req("ROC-SNAP-008")
@settings(max_examples=60, deadline=None)
@given(doc=st.dictionaries(st.text(max_size=5), _json, max_size=4))
def test_canonical_json_matches_an_independent_serialization(doc):
    """Tags and digests share one canonical form; it must equal the spec's serialization of the document."""
    try:
        ours = canonical_json(doc)
    except SnapshotInvalidError:
        with pytest.raises(rfc8785.CanonicalizationError):  # lone surrogates: not JSON text for either
            independent_canonical(doc)
        return
    assert ours == independent_canonical(doc)
    body = {k: v for k, v in doc.items() if k != "integrity"}
    # The canonical form reads back as the document, every number taken as a double.
    assert json.loads(ours, parse_int=float) == json.loads(json.dumps(body), parse_int=float)


_steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 3)),
        st.tuples(st.just("rewrite"), st.integers(0, 3)),
        st.tuples(st.just("reload"), st.just(0)),
        st.tuples(st.just("extra-member"), st.just(0)),
        st.tuples(st.just("rename-agent"), st.just(0)),
        st.tuples(st.just("float-state"), st.just(0)),
        st.tuples(st.just("odd-message"), st.integers(1, 2)),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.req("ROC-SEC-002", "ROC-SNAP-008")
@settings(max_examples=40, deadline=None)
@given(steps=_steps)
def test_incremental_tags_equal_one_pass_tags(tmp_path_factory, steps):
    """The store reuses the HMAC state of the unchanged message prefix; every tag it writes must equal the
    one-pass tag of the same document over an independent serialization of the canonical form."""
    store = FileSessionStore(tmp_path_factory.mktemp("inc"))
    manager = signed_manager(store)
    messages = [text_message("user", "start 1.0")]
    doc = snapshot(0, list(messages))
    manager.save(doc, expected_revision=None)
    for revision, (op, n) in enumerate(steps, start=1):
        if op == "append":
            messages += [text_message("assistant", f"r{revision} m{k}") for k in range(n)]
        elif op == "rewrite":
            messages = [text_message("user", f"rewritten {revision}"), *messages[n:]]
        elif op == "reload":
            manager = signed_manager(store)
            manager.load()
        elif op == "odd-message":
            # Messages whose canonical form is not json.dumps's: ECMAScript numbers, UTF-16 member order
            # and an integer beyond 2**53, so the kept HMAC prefix must hold RFC 8785 bytes.
            odd = text_message("assistant", f"odd {revision}")
            odd["metadata"] = {"\uff5a": 1e-05, "\U0001f600": [1e21, 2**53 + 1], "r": 0.1 * n}
            messages += [odd] * n
        doc = snapshot(revision, list(messages))
        if op == "extra-member":
            doc["zzLater"] = {"minor": 1}  # a member a later minor version might add: not split, still tagged
        if op == "rename-agent":
            doc["agent"]["agentId"] = f"a{revision}"
        if op == "float-state":
            doc["agent"]["state"] = {"x": 2.0, "y": 0.25, "z": 1e-7}
        manager.save(doc, expected_revision=revision - 1)
        loaded = signed_manager(store).load()  # verifies the tag
        assert loaded["integrity"]["mac"] == one_pass_mac(doc, KEY)


def test_a_signed_append_canonicalizes_only_the_new_messages(store, monkeypatch):
    import roc_reference.integrity as integrity_module

    history = [text_message("user", f"m{k}") for k in range(500)]
    signed_manager(store).save(snapshot(0, history), expected_revision=None)
    manager = signed_manager(store)
    manager.load()  # verifying the tag leaves the HMAC state of the 500 messages behind
    calls = []
    original = integrity_module.canonical_value
    monkeypatch.setattr(integrity_module, "canonical_value", lambda v: calls.append(v) or original(v))
    longer = [*history, text_message("assistant", "a"), text_message("user", "b")]
    manager.save(snapshot(1, longer), expected_revision=0)
    manager.save(snapshot(2, [*longer, text_message("assistant", "c")]), expected_revision=1)
    assert len(calls) < 12  # 3 new messages plus agentId/state/the other members, never the 500 old ones
    monkeypatch.undo()
    assert signed_manager(store).load() == sign(
        snapshot(2, [*longer, text_message("assistant", "c")]), "key-1", KEY
    )


@pytest.mark.req("ROC-SESSION-014", "ROC-SEC-002")
def test_foreign_metadata_and_mixed_inputs_survive_a_signed_store(store):
    """Message metadata (spec 2.3's extension point) and a toolUse input with values of several JSON types are
    stored, tagged and restored as written, through the incremental tag of appended messages too."""
    from roc_reference import Agent, ScriptedModel

    doc = interrupted_snapshot()
    doc["agent"]["messages"][0]["metadata"] = {"usage": {"ratio": 1.0}, "ids": ["x", None]}
    pending = doc["interruptState"]["pendingToolExecution"]["assistantMessage"]
    pending["metadata"] = {"vendor": {"n": 2.5}}
    pending["content"][0]["toolUse"]["input"] = {"paths": ["a/b/c.txt", 1], "f": 0.5, "n": None}
    doc["interruptState"]["interrupts"][0]["inputDigest"] = input_digest(
        {"paths": ["a/b/c.txt", 1], "f": 0.5, "n": None}
    )
    signed_manager(store).save(doc, expected_revision=None)
    assert signed_manager(store).load() == sign(doc, "key-1", KEY)
    later = json.loads(json.dumps(doc))
    later["revision"] = 1
    later["agent"]["messages"].append({"role": "assistant", "content": [{"text": "t"}], "metadata": {"k": 1}})
    signed_manager(store).save(later, expected_revision=0)
    loaded = signed_manager(store).load()
    assert loaded == sign(later, "key-1", KEY)
    agent = Agent.from_snapshot(loaded, model=ScriptedModel([]), integrity_keys={"key-1": KEY})
    again = agent.take_snapshot()
    assert again["agent"] == later["agent"]
    assert again["interruptState"] == later["interruptState"]
