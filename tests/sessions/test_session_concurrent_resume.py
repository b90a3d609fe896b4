"""Two processes answer the same paused session at once: exactly one resumes, the other gets
SESSION_CONFLICT before running anything; the winner's answer and messages are stored, nothing runs twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from roc_reference.errors import NotInterruptedError
from roc_reference.sessions import FileSessionManager, FileSessionStore
from sessionapp import SESSION_ID, executions, seed_agent

APP = Path(__file__).with_name("sessionapp.py")


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-010", "ROC-SESSION-012")
@pytest.mark.parametrize("round_", range(2))
def test_concurrent_resumers_one_wins_one_conflicts(tmp_path, round_):
    paused = seed_agent(tmp_path)("paths=<['a/b/c.txt', 'd/e/f.txt']>")
    assert paused.stop_reason == "interrupt"
    store = FileSessionStore(tmp_path)
    before = FileSessionManager(SESSION_ID, store).load()
    go = tmp_path / "go"
    answers = {"left": "y", "right": "t"}
    racers = {
        tag: subprocess.Popen(
            [sys.executable, str(APP), "resume-race", str(tmp_path), str(go), answer],
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag, answer in answers.items()
    }
    for racer in racers.values():
        assert racer.stdout is not None
        assert racer.stdout.readline() == "loaded\n"  # both restored the paused agent before either answers
    go.touch()
    replies = {}
    for tag, racer in racers.items():
        out, _ = racer.communicate(timeout=60)
        assert racer.returncode == 0
        replies[tag] = json.loads(out)
    winners = [tag for tag, r in replies.items() if "result" in r]
    losers = [tag for tag, r in replies.items() if "error" in r]
    assert len(winners) == 1, replies
    assert len(losers) == 1, replies
    (winner,), (loser,) = winners, losers
    assert replies[loser]["error"]["code"] == "SESSION_CONFLICT"
    assert replies[winner]["result"]["stopReason"] == "end_turn"

    # Nothing ran twice, and the loser ran nothing at all.
    runs = executions(tmp_path)
    assert [(e["tool"], e["input"]) for e in runs] == [
        ("delete_files", {"paths": ["a/b/c.txt", "d/e/f.txt"]})
    ]
    assert runs[0]["pid"] == racers[winner].pid

    # Nothing of the winner is lost: its answer (in state), the tool result and the final message are stored.
    after = FileSessionManager(SESSION_ID, store).load()
    assert after["agent"]["state"] == {"myapp-approval": answers[winner]}
    assert after["agent"]["messages"][: len(before["agent"]["messages"])] == before["agent"]["messages"]
    assert after["agent"]["messages"][-1] == replies[winner]["result"]["message"]
    assert after["interruptState"]["activated"] is False

    # The loser learns the outcome by reloading; its stale answer is now NOT_INTERRUPTED, and runs nothing.
    reloaded = seed_agent(tmp_path)
    assert not reloaded.is_interrupted
    stale = [{"interruptResponse": {"interruptId": paused.interrupts[0].id, "response": answers[loser]}}]
    with pytest.raises(NotInterruptedError):
        reloaded(stale)
    assert len(executions(tmp_path)) == 1
