"""A writer killed with SIGKILL at random moments leaves the old or the new snapshot, never a torn one."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.sessions.store import STATE_FILE
from sessionkit import crash_doc

KIT = Path(__file__).with_name("sessionkit.py")
KILLS = 36
# A kill lands inside a save almost always (the writer does nothing else); if none showed evidence of it
# after this many kills the test fails, bounded by count rather than by a clock.
MAX_KILLS = 200
# Safety net only, for a writer that hangs: how long one line of its output may take. Never a measure of
# speed: on a loaded machine the test simply runs longer.
HANG_SECONDS = 120.0


def read_line(proc: subprocess.Popen[bytes], pending: bytearray) -> bytes:
    """The next line of ``proc``'s stdout (``pending`` carries bytes read past the previous line)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    while b"\n" not in pending:
        ready, _, _ = select.select([fd], [], [], HANG_SECONDS)
        assert ready, f"the crash writer printed nothing for {HANG_SECONDS} s (hung?)"
        chunk = os.read(fd, 4096)
        assert chunk, "the crash writer exited before it was killed"
        pending += chunk
    line, _, rest = bytes(pending).partition(b"\n")
    pending[:] = rest
    return line


def mid_save_evidence(directory: Path) -> bool:
    """True when the directory shows a save that was cut short: a temporary, a torn log tail or an
    uncommitted log generation."""
    names = {p.name for p in directory.iterdir()}
    if any(n.endswith(".tmp") for n in names):
        return True
    state = json.loads((directory / STATE_FILE).read_bytes())
    current = f"messages.{state['logGeneration']}.jsonl"
    if any(n.startswith("messages.") and n != current for n in names):
        return True
    return current in names and (directory / current).stat().st_size != state["logBytes"]


@pytest.mark.slow
def test_sigkill_during_saves_never_leaves_a_torn_snapshot(tmp_path):
    """Bounded by count, not by time: each round starts a writer, waits until it has committed one more save
    (so every round makes progress however loaded the machine is), lets it run a random moment longer and
    kills it. The stored snapshot must then be complete and never older than one already seen."""
    rng = random.Random(20261130)
    store = FileSessionStore(tmp_path)
    directory = store.session_dir("crash")
    last_revision = -1
    kills = evidence = 0
    while kills < KILLS or (evidence == 0 and kills < MAX_KILLS):
        writer = subprocess.Popen(
            [sys.executable, str(KIT), "crash-writer", str(tmp_path), "crash"],
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        try:
            pending = bytearray()
            assert read_line(writer, pending) == b"ready"
            saved = read_line(writer, pending)  # at least one commit per round
            assert saved.startswith(b"saved "), saved
            time.sleep(rng.uniform(0.0, 0.06))  # where the kill lands, not a measurement
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait()
            if writer.stdout is not None:
                writer.stdout.close()
        kills += 1
        evidence += mid_save_evidence(directory)
        loaded = FileSessionManager("crash", store).load()
        assert loaded is not None
        revision = loaded["revision"]
        # Complete: exactly the document the writer built for that revision (old or new, never a mix).
        assert loaded == crash_doc(revision), f"torn snapshot at revision {revision}"
        assert revision >= max(last_revision, int(saved.split()[1]))  # a committed save is never lost
        last_revision = revision
    # Every round committed at least once, so the history crossed several log rewrites (one per
    # CRASH_EPOCH revisions): this follows from the count, it is not a hope about speed.
    assert last_revision >= KILLS - 1
    # Kills really landed inside saves (otherwise this test would prove nothing).
    assert evidence >= 1, f"no kill of {kills} landed inside a save"
