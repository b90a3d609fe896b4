"""Two processes saving from the same revision: exactly one commits, the other gets SESSION_CONFLICT."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from roc_reference.errors import SessionConflictError
from roc_reference.sessions import FileSessionManager, FileSessionStore
from sessionkit import race_doc, snapshot, text_message

KIT = Path(__file__).with_name("sessionkit.py")
ROUNDS = 3


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-010")
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_processes_race_one_compare_and_set(tmp_path, round_):
    store = FileSessionStore(tmp_path)
    FileSessionManager("race", store).save(
        snapshot(0, [text_message("user", "start")]), expected_revision=None
    )
    go = tmp_path / "go"
    racers = {
        tag: subprocess.Popen(
            [sys.executable, str(KIT), "race", str(tmp_path), "race", str(go), tag],
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in ("left", "right")
    }
    for racer in racers.values():
        assert racer.stdout is not None
        assert racer.stdout.readline() == "loaded\n"  # both hold revision 0 before either saves
    go.touch()
    outcomes = {}
    for tag, racer in racers.items():
        out, _ = racer.communicate(timeout=15)
        assert racer.returncode == 0
        outcomes[tag] = json.loads(out)
    kinds = sorted(o["outcome"] for o in outcomes.values())
    assert kinds == ["conflict", "won"], outcomes
    (winner,) = [tag for tag, o in outcomes.items() if o["outcome"] == "won"]
    (loser,) = [o for o in outcomes.values() if o["outcome"] == "conflict"]
    assert loser["error"]["code"] == "SESSION_CONFLICT"
    assert loser["error"]["details"] == {"sessionId": "race", "expectedRevision": 0, "storedRevision": 1}
    # The winner's snapshot is stored whole; nothing of the loser's leaked in.
    assert FileSessionManager("race", store).load() == race_doc(winner)


@pytest.mark.req("ROC-SESSION-010")
def test_a_loser_can_reload_and_then_save(tmp_path):
    """The conflict is recoverable: reload the winner's snapshot, redo the work on top of it."""
    store = FileSessionStore(tmp_path)
    a, b = FileSessionManager("s", store), FileSessionManager("s", store)
    a.save(snapshot(0, []), expected_revision=None)
    assert b.load() is not None
    a.save(snapshot(1, [text_message("user", "a")]), expected_revision=0)
    # The save returns with the conflict (pytest.raises would never see it if the store waited for the
    # revision to come back); how long it took is not measured: that is the machine's business.
    with pytest.raises(SessionConflictError, match="revision 1, not 0"):
        b.save(snapshot(1, [text_message("user", "b")]), expected_revision=0)
    current = b.load()
    assert current == snapshot(1, [text_message("user", "a")])
    b.save(snapshot(2, [text_message("user", "a"), text_message("user", "b")]), expected_revision=1)
    assert a.load()["agent"]["messages"] == [text_message("user", "a"), text_message("user", "b")]
