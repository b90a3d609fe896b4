"""Shared helpers for the session tests, also run as a script by their subprocesses.

python sessionkit.py crash-writer ROOT SESSION   save ever-growing snapshots until killed; print each
python sessionkit.py race ROOT SESSION GO TAG    load, wait for file GO, save once; print won/conflict
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from roc_reference.errors import SessionConflictError
from roc_reference.sessions import FileSessionManager, FileSessionStore


def snapshot(
    revision: int, messages: list[Any], state: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A Snapshot document in the spec's shape (the store treats all but its split points as opaque)."""
    doc: dict[str, Any] = {
        "schemaVersion": "2.0",
        "specVersion": "1.0",
        "createdAt": "2026-01-01T00:00:00Z",
        "revision": revision,
        "agent": {"agentId": "a1", "messages": messages, "state": state if state is not None else {}},
        "interruptState": {"activated": False, "interrupts": [], "pendingToolExecution": None},
    }
    doc.update(extra)
    return doc


def text_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"text": text}]}


# -- crash writer: the document of each revision is a pure function of the revision, so a loader can tell a
#    complete snapshot (equal to crash_doc(its revision)) from a torn one.

CRASH_EPOCH = 5  # every CRASH_EPOCH revisions the whole history changes, forcing a log rewrite


def crash_doc(revision: int) -> dict[str, Any]:
    epoch = revision // CRASH_EPOCH
    filler = "x" * 900
    messages = [
        text_message("user" if k % 2 == 0 else "assistant", f"epoch {epoch} message {k} {filler}")
        for k in range(2 * (revision + 1))
    ]
    blob = f"revision {revision} " + "s" * 200_000  # a large state document makes each save take a while
    return snapshot(revision, messages, {"blob": blob, "revision": revision})


def _crash_writer(root: str, session: str) -> None:
    manager = FileSessionManager(session, FileSessionStore(root))
    stored = manager.load()
    revision = -1 if stored is None else stored["revision"]
    print("ready", flush=True)
    while True:
        manager.save(crash_doc(revision + 1), expected_revision=None if revision < 0 else revision)
        revision += 1
        print(f"saved {revision}", flush=True)  # progress the test waits for, so it need not time it


def race_doc(tag: str) -> dict[str, Any]:
    return snapshot(
        1, [text_message("user", "start"), text_message("user", f"answer from {tag}")], {"by": tag}
    )


def _race(root: str, session: str, go: str, tag: str) -> None:
    import roc_reference.sessions.store as store_module

    original = store_module.atomic_write_at

    def slow_commit(dir_fd: int, name: str, data: bytes) -> None:
        # Widen the window between the revision check and the commit: without the lock both racers
        # would pass the check before either commits.
        time.sleep(0.3)
        original(dir_fd, name, data)

    store_module.atomic_write_at = slow_commit
    manager = FileSessionManager(session, FileSessionStore(root))
    loaded = manager.load()
    assert loaded is not None
    print("loaded", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        manager.save(race_doc(tag), expected_revision=loaded["revision"])
    except SessionConflictError as exc:
        print(json.dumps({"outcome": "conflict", "error": exc.to_json()}), flush=True)
    else:
        print(json.dumps({"outcome": "won"}), flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "crash-writer":
        _crash_writer(*args)
    elif command == "race":
        _race(*args)
    else:
        raise SystemExit(f"unknown command {command}")
