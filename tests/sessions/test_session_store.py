"""FileSessionStore / FileSessionManager: exact round trips, compare-and-set, append-only log, recovery."""

from __future__ import annotations

import json
import math
import os

import pytest
from roc_reference.errors import SessionConflictError, SnapshotInvalidError
from roc_reference.session_api import SessionManager
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.sessions.store import STATE_FILE
from sessionkit import snapshot, text_message


def history(n, tag="m"):
    return [text_message("user" if k % 2 == 0 else "assistant", f"{tag} {k} ünï") for k in range(n)]


def files(directory):
    """Every file of a session directory with its bytes (to prove a rejected save wrote nothing)."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def log_path(directory):
    (log,) = [p for p in directory.iterdir() if p.name.startswith("messages.")]
    return log


@pytest.fixture
def store(tmp_path):
    return FileSessionStore(tmp_path / "sessions")


def test_manager_satisfies_the_session_protocol(store):
    manager: SessionManager = FileSessionManager("s", store)
    assert manager.load() is None


def test_new_session_loads_none_and_creates_nothing(store):
    assert FileSessionManager("fresh", store).load() is None
    assert not store.root.exists()


@pytest.mark.req("ROC-SESSION-013")
def test_round_trip_is_exact_including_key_order(store):
    doc = snapshot(0, history(3), {"myapp-approval": "t", "n": 1.5, "nested": {"z": [1, None, True]}})
    doc["interruptState"] = {
        "activated": True,
        "interrupts": [{"id": "i1", "name": "n", "reason": {"p": ["a"]}, "source": {"kind": "tool"}}],
        "pendingToolExecution": {
            "assistantMessage": text_message("assistant", "x"),
            "completedToolResults": [],
        },
    }
    FileSessionManager("s", store).save(doc, expected_revision=None)
    loaded = FileSessionManager("s", store).load()
    assert loaded == doc
    assert json.dumps(loaded) == json.dumps(doc)  # same key order, so the same JSON text


@pytest.mark.req("ROC-SESSION-010")
def test_save_is_compare_and_set_on_revision(store):
    first, second = FileSessionManager("s", store), FileSessionManager("s", store)
    first.save(snapshot(0, history(1)), expected_revision=None)
    assert second.load() == snapshot(0, history(1))
    first.save(snapshot(1, history(3)), expected_revision=0)
    before = files(store.session_dir("s"))
    with pytest.raises(SessionConflictError) as info:
        second.save(snapshot(1, history(2, "other")), expected_revision=0)
    assert info.value.details == {"sessionId": "s", "expectedRevision": 0, "storedRevision": 1}
    with pytest.raises(SessionConflictError):
        second.save(snapshot(0, history(2)), expected_revision=None)  # "new session" but one exists
    assert files(store.session_dir("s")) == before
    assert FileSessionManager("s", store).load() == snapshot(1, history(3))


@pytest.mark.req("ROC-SESSION-010")
def test_expecting_a_revision_of_a_missing_session_conflicts(store):
    with pytest.raises(SessionConflictError):
        FileSessionManager("s", store).save(snapshot(1, []), expected_revision=0)
    assert FileSessionManager("s", store).load() is None


@pytest.mark.parametrize(
    "bad",
    [
        {"revision": 1},  # no agent
        snapshot(1, "not a list"),  # type: ignore[arg-type]
        snapshot(-1, []),
        snapshot(True, []),
        snapshot(0, []),  # not the expected revision 0 plus one
        snapshot(2, []),
        snapshot(1, [{"text": math.nan}]),
        snapshot(1, [{"text": object()}]),
        snapshot(1, [{"text": "\ud800"}]),  # lone surrogate: not UTF-8
        snapshot(1, [], {"k": {1, 2}}),
    ],
)
def test_rejected_snapshots_write_nothing(store, bad):
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(2)), expected_revision=None)
    before = files(store.session_dir("s"))
    with pytest.raises(SnapshotInvalidError):
        manager.save(bad, expected_revision=0)
    assert files(store.session_dir("s")) == before
    assert FileSessionManager("s", store).load() == snapshot(0, history(2))


def test_a_cycle_appends_only_its_new_messages(store):
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(100)), expected_revision=None)
    directory = store.session_dir("s")
    log = log_path(directory)
    old_bytes, old_inode = log.read_bytes(), log.stat().st_ino
    manager.save(snapshot(1, history(102)), expected_revision=0)
    new_bytes = log.read_bytes()
    assert log.stat().st_ino == old_inode  # the same file, appended to, not replaced
    assert new_bytes.startswith(old_bytes)
    added = new_bytes[len(old_bytes) :].splitlines()
    assert [json.loads(line)["i"] for line in added] == [100, 101]
    state = json.loads((directory / STATE_FILE).read_bytes())
    assert state["messageCount"] == 102
    assert "ünï" not in (directory / STATE_FILE).read_text("utf-8")  # messages live only in the log
    assert FileSessionManager("s", store).load() == snapshot(1, history(102))


def test_a_history_that_is_not_an_extension_is_rewritten_to_a_new_generation(store):
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(10)), expected_revision=None)
    directory = store.session_dir("s")
    assert log_path(directory).name == "messages.0.jsonl"
    trimmed = [*history(10)[4:], text_message("user", "new")]  # e.g. old turns dropped by a window
    manager.save(snapshot(1, trimmed), expected_revision=0)
    assert log_path(directory).name == "messages.1.jsonl"  # the old generation is gone
    assert FileSessionManager("s", store).load() == snapshot(1, trimmed)
    manager.save(snapshot(2, []), expected_revision=1)
    assert FileSessionManager("s", store).load() == snapshot(2, [])


def test_changes_made_by_the_caller_to_loaded_or_saved_messages_are_not_missed(store):
    """The manager's memory of the log is a private copy: editing a handed-out message in place and saving
    must rewrite, never keep the stale stored line."""
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(3)), expected_revision=None)
    loaded = manager.load()
    assert loaded is not None
    loaded["agent"]["messages"][0]["content"][0]["text"] = "edited"
    loaded["revision"] = 1
    manager.save(loaded, expected_revision=0)
    assert FileSessionManager("s", store).load()["agent"]["messages"][0]["content"][0]["text"] == "edited"
    messages = history(2)
    manager.save(snapshot(2, messages), expected_revision=1)
    messages[1]["content"][0]["text"] = "edited after save"
    manager.save(snapshot(3, messages), expected_revision=2)
    assert FileSessionManager("s", store).load() == snapshot(3, messages)


def test_a_peer_commit_is_read_back_before_appending(store):
    mine, peer = FileSessionManager("s", store), FileSessionManager("s", store)
    mine.save(snapshot(0, history(2)), expected_revision=None)
    peer.load()
    peer.save(snapshot(1, history(2, "peer")), expected_revision=0)
    # mine's memory of the log is stale; it must compare against what the peer committed.
    mine.save(snapshot(2, [*history(2, "peer"), text_message("user", "tail")]), expected_revision=1)
    assert FileSessionManager("s", store).load() == snapshot(
        2, [*history(2, "peer"), text_message("user", "tail")]
    )


def test_a_torn_log_tail_is_ignored_then_truncated(store):
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(4)), expected_revision=None)
    log = log_path(store.session_dir("s"))
    committed = log.read_bytes()
    with log.open("ab") as f:  # what a save killed after appending, before committing, leaves behind
        f.write(b'{"i":4,"m":{"role":"user","content":[{"text":"never committed"}]}}\n{"i":5,"m":{"ro')
    assert FileSessionManager("s", store).load() == snapshot(0, history(4))
    manager.save(snapshot(1, history(6)), expected_revision=0)
    assert log.read_bytes().startswith(committed)
    assert b"never committed" not in log.read_bytes()
    assert FileSessionManager("s", store).load() == snapshot(1, history(6))


def test_leftovers_of_killed_writers_are_cleaned_by_the_next_save(store):
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, history(2)), expected_revision=None)
    directory = store.session_dir("s")
    (directory / ".state.json.123.abcd.tmp").write_bytes(b'{"half')
    (directory / "messages.7.jsonl").write_bytes(b"orphan of a rewrite that never committed\n")
    assert FileSessionManager("s", store).load() == snapshot(0, history(2))
    manager.save(snapshot(1, history(4)), expected_revision=0)
    assert sorted(p.name for p in directory.iterdir()) == ["lock", "messages.0.jsonl", "state.json"]


@pytest.mark.parametrize(
    ("damage", "what"),
    [
        (lambda d: (d / STATE_FILE).write_bytes(b"{not json"), "not JSON"),
        (lambda d: (d / STATE_FILE).write_text('{"format": "other"}'), "format"),
        (lambda d: log_path(d).write_bytes(log_path(d).read_bytes()[:-5]), "shorter"),
        (lambda d: log_path(d).unlink(), "missing"),
        (
            lambda d: log_path(d).write_bytes(log_path(d).read_bytes().replace(b'"i":1', b'"i":7')),
            "out of place",
        ),
    ],
)
def test_damaged_storage_loads_as_snapshot_invalid(store, damage, what):
    FileSessionManager("s", store).save(snapshot(0, history(3)), expected_revision=None)
    damage(store.session_dir("s"))
    with pytest.raises(SnapshotInvalidError, match=what) as info:
        FileSessionManager("s", store).load()
    assert info.value.details == {"sessionId": "s"}


@pytest.mark.req("ROC-SESSION-009")
def test_revisions_start_at_zero_and_go_up_by_one(store):
    manager = FileSessionManager("s", store)
    for wrong in (1, 7):
        with pytest.raises(SnapshotInvalidError, match="must be 0"):
            manager.save(snapshot(wrong, []), expected_revision=None)
    assert not (store.session_dir("s") / STATE_FILE).exists()
    manager.save(snapshot(0, []), expected_revision=None)
    for wrong in (0, 2, 5):
        with pytest.raises(SnapshotInvalidError, match="must be 1") as info:
            manager.save(snapshot(wrong, []), expected_revision=0)
        assert info.value.details == {"revision": wrong, "expectedRevision": 0}
    manager.save(snapshot(1, []), expected_revision=0)
    assert FileSessionManager("s", store).load()["revision"] == 1


def test_files_are_private_to_the_owner(store):
    FileSessionManager("s", store).save(snapshot(0, history(1)), expected_revision=None)
    directory = store.session_dir("s")
    assert directory.stat().st_mode & 0o777 == 0o700
    for path in directory.iterdir():
        assert path.stat().st_mode & 0o077 == 0, path.name


def test_sessions_are_independent(store):
    FileSessionManager("a", store).save(snapshot(0, history(1, "a")), expected_revision=None)
    FileSessionManager("b", store).save(snapshot(0, history(2, "b")), expected_revision=None)
    assert FileSessionManager("a", store).load() == snapshot(0, history(1, "a"))
    assert FileSessionManager("b", store).load() == snapshot(0, history(2, "b"))
    assert sorted(os.listdir(store.root)) == ["a", "b"]


@pytest.mark.req("ROC-SEC-007")
def test_symbolic_links_are_refused_not_followed(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store.root.mkdir(parents=True)
    (store.root / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SnapshotInvalidError, match="symbolic link"):
        FileSessionManager("linked", store).save(snapshot(0, []), expected_revision=None)
    with pytest.raises(SnapshotInvalidError, match="symbolic link"):
        FileSessionManager("linked", store).load()
    assert list(outside.iterdir()) == []

    FileSessionManager("s", store).save(snapshot(0, history(1)), expected_revision=None)
    state = store.session_dir("s") / STATE_FILE
    secret = outside / "elsewhere.json"
    secret.write_bytes(state.read_bytes())
    state.unlink()
    state.symlink_to(secret)
    with pytest.raises(SnapshotInvalidError, match="symbolic link"):
        FileSessionManager("s", store).load()
