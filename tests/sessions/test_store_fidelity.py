"""The file store keeps exactly what it was given, stays inside its root, and answers hostile storage with
``SNAPSHOT_INVALID`` (issue 9, item 6).

Each test here failed on the store before the fix: an edit of a past value from 1 to true was dropped
(Python's ``1 == True`` in the append decision); a session directory swapped for a link in the middle of a
save sent the save's files outside the root; a directory or a FIFO where a store file belongs crashed or
hung the loader; a recorded ``logBytes`` of 10**12 was allocated (``MemoryError``).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from roc_reference.errors import RocError, SnapshotInvalidError
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.sessions.store import LOCK_FILE, STATE_FILE
from sessionkit import snapshot, text_message

# Safety net only: a loader that waits on a FIFO never returns, so the call runs in a thread that is given
# this long before the test calls it a hang. No assertion depends on how fast anything ran.
HANG_SECONDS = 60.0


def run_bounded(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a daemon thread; the exception it raised (None if none), or fail if it hangs."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the test, which judges it
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(HANG_SECONDS)
    assert not worker.is_alive(), "the store blocked (a FIFO was opened and waited on)"
    return outcome[0]


@pytest.fixture
def store(tmp_path: Path) -> FileSessionStore:
    return FileSessionStore(tmp_path / "root")


def tool_message(value: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "t1", "status": "success", "content": [{"json": {"v": value}}]}}
        ],
    }


# -- the append decision compares canonical JSON, not Python values ------------------------------------


@pytest.mark.req("ROC-SESSION-013")
@pytest.mark.parametrize(("before", "after"), [(1, True), (True, 1), (0, False), (1, 1.5), ("1", 1)])
def test_an_edit_of_a_past_value_that_python_calls_equal_is_kept(store, before, after):
    """1 == True == 1.0 in Python; a save that changes a stored 1 into true must store true."""
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, [tool_message(before)]), expected_revision=None)
    edited = [tool_message(after), text_message("assistant", "next")]
    manager.save(snapshot(1, edited), expected_revision=0)
    for reader in (manager, FileSessionManager("s", store)):  # its own memory and a fresh load from disk
        loaded = reader.load()
        assert loaded is not None
        got = loaded["agent"]["messages"][0]["content"][0]["toolResult"]["content"][0]["json"]["v"]
        assert json.dumps(got) == json.dumps(after), f"stored {got!r}, was given {after!r}"


def test_an_unchanged_history_still_appends(store):
    """The stricter test keeps the cheap path: the same history plus new messages is an append, not a
    rewrite to a new log generation."""
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, [tool_message(1)]), expected_revision=None)
    manager.save(snapshot(1, [tool_message(1), text_message("assistant", "x")]), expected_revision=0)
    assert sorted(p.name for p in store.session_dir("s").glob("messages.*")) == ["messages.0.jsonl"]


# -- ROC-SEC-007: a directory swapped for a link during a save ------------------------------------------


@pytest.mark.req("ROC-SEC-007")
def test_a_session_directory_swapped_for_a_link_mid_save_writes_nothing_outside_the_root(
    store, tmp_path, monkeypatch
):
    """After the save has checked the directory, taken the lock and read the stored state, the directory is
    renamed away and a link to a directory outside the root put in its place. Every file the save writes
    after that must land in the directory it pinned (or nowhere), never through the link."""
    outside = tmp_path / "outside"
    outside.mkdir()
    first = FileSessionManager("s", store)
    first.save(snapshot(0, [text_message("user", "a")]), expected_revision=None)
    directory = store.session_dir("s")
    moved = store.root / "moved"

    original = FileSessionManager._lines
    swapped = []

    def swap_then_continue(messages: list[Any], start: int) -> Any:
        if not swapped:  # once: after the save read the stored state and log, before it writes anything
            directory.rename(moved)
            directory.symlink_to(outside, target_is_directory=True)
            swapped.append(True)
        return original(messages, start)

    monkeypatch.setattr(FileSessionManager, "_lines", staticmethod(swap_then_continue))
    history = [text_message("user", "a"), text_message("assistant", "b")]
    with contextlib.suppress(SnapshotInvalidError):  # refusing is fine; writing through the link is not
        first.save(snapshot(1, history), expected_revision=0)
    assert swapped
    assert sorted(os.listdir(outside)) == [], "the save wrote outside the store's root"


@pytest.mark.req("ROC-SEC-007")
def test_a_link_swapped_in_by_a_racing_thread_never_receives_a_file(store, tmp_path):
    """The same attack as a race: a thread keeps swapping the directory and a link while saves run."""
    outside = tmp_path / "outside"
    outside.mkdir()
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, []), expected_revision=None)
    directory, moved = store.session_dir("s"), store.root / "moved"
    stop = threading.Event()

    def attacker() -> None:
        while not stop.is_set():
            try:
                directory.rename(moved)
                directory.symlink_to(outside, target_is_directory=True)
                directory.unlink()
                moved.rename(directory)
            except OSError:
                pass

    thread = threading.Thread(target=attacker, daemon=True)
    thread.start()
    try:
        for k in range(300):  # bounded by count
            # Under the attack a save may commit, conflict, be refused or find its directory gone; none of
            # that is judged here, only where the bytes went.
            with contextlib.suppress(RocError, OSError):
                loaded = FileSessionManager("s", store).load()
                revision = None if loaded is None else loaded["revision"]
                following = 0 if revision is None else revision + 1
                manager.save(snapshot(following, [text_message("user", str(k))]), expected_revision=revision)
    finally:
        stop.set()
        thread.join()
    assert sorted(os.listdir(outside)) == [], "a save wrote through the swapped-in link"


# -- store files that are not regular files ---------------------------------------------------------------


def _make_dir(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _make_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize("make", [_make_dir, _make_fifo], ids=["directory", "fifo"])
@pytest.mark.parametrize("name", [STATE_FILE, "messages.0.jsonl", LOCK_FILE])
def test_a_store_file_that_is_not_a_regular_file_is_snapshot_invalid(store, name, make):
    """Load and save answer SNAPSHOT_INVALID; neither crashes (IsADirectoryError) nor waits on a FIFO."""
    FileSessionManager("s", store).save(snapshot(0, [text_message("user", "a")]), expected_revision=None)
    make(store.session_dir("s") / name)
    loaded = run_bounded(lambda: FileSessionManager("s", store).load())
    assert isinstance(loaded, SnapshotInvalidError), repr(loaded)
    assert "not a regular file" in str(loaded)
    saved = run_bounded(
        lambda: FileSessionManager("s", store).save(
            snapshot(1, [text_message("user", "b")]), expected_revision=0
        )
    )
    assert isinstance(saved, SnapshotInvalidError), repr(saved)


def test_a_stray_directory_named_like_an_old_log_does_not_fail_a_committed_save(store):
    """Old generations are removed after the commit; one that cannot be (a directory) stays, and the save
    that already committed still reports success."""
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, [text_message("user", "a")]), expected_revision=None)
    (store.session_dir("s") / "messages.9.jsonl").mkdir()
    manager.save(snapshot(1, [text_message("user", "rewritten")]), expected_revision=0)
    loaded = FileSessionManager("s", store).load()
    assert loaded is not None
    assert loaded["agent"]["messages"] == [text_message("user", "rewritten")]


@pytest.mark.req("ROC-SEC-007")
def test_create_session_dir_refuses_a_link(store, tmp_path):
    """The helper other store parts (claims) use to find the session directory never hands out a link."""
    outside = tmp_path / "outside"
    outside.mkdir()
    store.root.mkdir(parents=True)
    (store.root / "s").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SnapshotInvalidError, match="symbolic link"):
        store.create_session_dir("s")
    assert store.create_session_dir("t") == store.session_dir("t")
    assert store.session_dir("t").is_dir()


def test_a_session_path_that_is_a_file_is_snapshot_invalid(store):
    store.root.mkdir(parents=True)
    (store.root / "s").write_bytes(b"not a directory")
    with pytest.raises(SnapshotInvalidError, match="not a directory"):
        FileSessionManager("s", store).load()
    with pytest.raises(SnapshotInvalidError, match="not a directory"):
        FileSessionManager("s", store).save(snapshot(0, []), expected_revision=None)


# -- lengths recorded on disk are not trusted for allocation -------------------------------------------


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize("log_bytes", [10**12, 2**62])
def test_a_huge_recorded_log_length_is_snapshot_invalid_not_an_allocation(store, log_bytes):
    FileSessionManager("s", store).save(snapshot(0, [text_message("user", "a")]), expected_revision=None)
    state_path = store.session_dir("s") / STATE_FILE
    state = json.loads(state_path.read_bytes())
    state["logBytes"] = log_bytes
    state_path.write_text(json.dumps(state))
    with pytest.raises(SnapshotInvalidError, match="shorter than committed"):
        FileSessionManager("s", store).load()


# -- JSON nested deeper than a snapshot may be (ROC-SEC-014) --------------------------------------------


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize("where", ["state", "log"])
def test_a_deeply_nested_store_file_is_snapshot_invalid_not_a_recursion_error(store, where):
    FileSessionManager("s", store).save(snapshot(0, [text_message("user", "a")]), expected_revision=None)
    directory = store.session_dir("s")
    state = json.loads((directory / STATE_FILE).read_bytes())
    if where == "state":
        text = json.dumps(state).replace('"state": {}', '"state": {"deep": ' + _deep(100_000) + "}")
        (directory / STATE_FILE).write_text(text)
    else:
        line = '{"i":0,"m":' + _deep(100_000) + "}\n"
        (directory / "messages.0.jsonl").write_text(line)
        state["logBytes"] = len(line)
        (directory / STATE_FILE).write_text(json.dumps(state))
    with pytest.raises(SnapshotInvalidError, match="not JSON"):
        FileSessionManager("s", store).load()


def test_saving_a_value_too_deep_to_serialize_is_snapshot_invalid(store):
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(SnapshotInvalidError):
        FileSessionManager("s", store).save(snapshot(0, [], {"deep": deep}), expected_revision=None)
    assert not store.session_dir("s").exists() or not (store.session_dir("s") / STATE_FILE).exists()


@pytest.mark.req("ROC-SEC-007")
def test_claim_files_never_go_through_a_swapped_in_link(store, tmp_path):
    """The claim ledger writes its record relative to the directory the claim mutex pinned: swapping the
    session directory for a link while the claim is held redirects nothing, and a later claim refuses it."""
    from roc_reference.sessions.claims import ClaimLedger

    outside = tmp_path / "outside"
    outside.mkdir()
    manager = FileSessionManager("s", store)
    manager.save(snapshot(0, []), expected_revision=None)
    ledger = ClaimLedger(manager)
    directory, moved = store.session_dir("s"), store.root / "moved"
    with ledger.guard():
        directory.rename(moved)
        directory.symlink_to(outside, target_is_directory=True)
        ledger._write({"format": "x", "revision": 0})  # the record write every claim operation ends in
    assert os.listdir(outside) == [], "a claim file went through the link"
    assert "claim.json" in os.listdir(moved)
    with pytest.raises(SnapshotInvalidError), ledger.guard():
        pass
