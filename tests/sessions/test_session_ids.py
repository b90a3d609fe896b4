"""Session ids name directories under the store root; an id that could escape it is rejected up front
with SNAPSHOT_INVALID (ROC-SEC-006)."""

from __future__ import annotations

import pytest
from roc_reference.errors import ErrorCode, RocError
from roc_reference.sessions import (
    MAX_SESSION_ID_LENGTH,
    FileSessionManager,
    FileSessionStore,
    InvalidSessionIdError,
    validate_session_id,
)

BAD_IDS = [
    "",
    ".",
    "..",
    "../x",
    "../../etc/passwd",
    "a/../b",
    "a/b",
    "a\\b",
    "..\\x",
    "/etc/passwd",
    "/abs",
    "x\x00y",
    "\x00",
    ".hidden",
    "-rf",
    "new\nline",
    "trailing-newline\n",
    "tab\tid",
    "space id",
    "é",
    "ｆｕｌｌ",  # fullwidth letters: not in the portable set
    "٣",  # a non-ASCII digit
    "a" * (MAX_SESSION_ID_LENGTH + 1),
    "a" * 100_000,
]

GOOD_IDS = ["myapp", "user_123", "a.b-c", "A", "0", "a" * MAX_SESSION_ID_LENGTH, "v1.2.3", "a..b", "x-"]


@pytest.mark.req("ROC-SEC-006", "ROC-SEC-007")
@pytest.mark.parametrize("session_id", BAD_IDS)
def test_unsafe_session_ids_are_rejected_before_touching_disk(tmp_path, session_id):
    root = tmp_path / "root"
    store = FileSessionStore(root)
    with pytest.raises(InvalidSessionIdError) as info:
        validate_session_id(session_id)
    assert "invalid session id" in str(info.value)
    assert isinstance(info.value, RocError)
    assert info.value.code is ErrorCode.SNAPSHOT_INVALID
    assert info.value.to_json()["details"]["rule"] == info.value.rule
    with pytest.raises(InvalidSessionIdError):
        FileSessionManager(session_id, store)
    with pytest.raises(InvalidSessionIdError):
        store.session_dir(session_id)
    assert list(tmp_path.iterdir()) == []  # nothing created, not even the root


@pytest.mark.req("ROC-SEC-006")
@pytest.mark.parametrize("session_id", [None, 7, b"bytes", ["a"]])
def test_non_string_ids_are_rejected(session_id):
    with pytest.raises(InvalidSessionIdError, match="must be a string"):
        validate_session_id(session_id)


@pytest.mark.req("ROC-SEC-006")
def test_error_is_snapshot_invalid_names_the_rule_and_is_a_value_error():
    with pytest.raises(ValueError, match="path separator") as info:
        validate_session_id("../x")
    assert info.value.rule == "must not contain a path separator"
    with pytest.raises(InvalidSessionIdError, match="at most 128"):
        validate_session_id("a" * 129)
    with pytest.raises(InvalidSessionIdError, match="NUL"):
        validate_session_id("a\x00")
    # A very long id is shown truncated so the message stays readable.
    with pytest.raises(InvalidSessionIdError) as long_info:
        validate_session_id("b" * 10_000)
    assert len(str(long_info.value)) < 200


@pytest.mark.req("ROC-SEC-006", "ROC-SEC-007")
@pytest.mark.parametrize("session_id", GOOD_IDS)
def test_safe_ids_are_accepted_and_stay_inside_the_root(tmp_path, session_id):
    store = FileSessionStore(tmp_path)
    assert validate_session_id(session_id) == session_id
    directory = store.session_dir(session_id)
    assert directory.parent == tmp_path
    assert directory.resolve().is_relative_to(tmp_path.resolve())


@pytest.mark.req("ROC-SEC-006")
def test_the_pattern_is_the_specs():
    import re

    spec = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # the spec's ^...$, anchored at the very end
    for session_id in BAD_IDS:
        assert not spec.fullmatch(session_id), session_id  # the spec rejects every id this store rejects
    for session_id in GOOD_IDS:
        assert spec.fullmatch(session_id), session_id
