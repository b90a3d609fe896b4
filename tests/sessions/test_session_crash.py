"""A writer killed with SIGKILL at random moments leaves the old or the new snapshot, never a torn one."""

from __future__ import annotations

import json
import random
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
BUDGET_SECONDS = 18.0


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
    rng = random.Random(20261130)
    store = FileSessionStore(tmp_path)
    directory = store.session_dir("crash")
    last_revision = -1
    kills = evidence = 0
    started = time.monotonic()
    while kills < KILLS and time.monotonic() - started < BUDGET_SECONDS:
        writer = subprocess.Popen(
            [sys.executable, str(KIT), "crash-writer", str(tmp_path), "crash"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert writer.stdout is not None
            assert writer.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.0, 0.06))
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait()
        kills += 1
        if not (directory / STATE_FILE).exists():
            continue  # killed before the first commit
        evidence += mid_save_evidence(directory)
        loaded = FileSessionManager("crash", store).load()
        assert loaded is not None
        revision = loaded["revision"]
        # Complete: exactly the document the writer built for that revision (old or new, never a mix).
        assert loaded == crash_doc(revision), f"torn snapshot at revision {revision}"
        assert revision >= last_revision  # a committed save is never lost
        last_revision = revision
    assert kills >= 24, f"only {kills} kills fit in the time budget"
    assert last_revision >= 2 * 5, "the writer made too little progress to cross log rewrites"
    # Kills really landed inside saves (otherwise this test would prove nothing).
    assert evidence >= 1
