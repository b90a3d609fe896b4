"""An approved batch runs exactly once, whatever the number of processes resuming it and whatever dies.

- N processes (2, 5, 20) load one paused session and answer it, their loads spread over the winner's run
  (some load before its claim, some after it, while its tools run): in every round each tool ran exactly
  once, in one process, and every other process got SESSION_CONFLICT without running anything.
  ``ROC_STRESS=1`` runs 200 rounds of each size instead of the default count.
- kill -9 of the winner while its second tool runs: the stale claim refuses a plain resume, ``recover``
  finishes the batch, the first tool (completed, recorded) never runs again.
- the end save fails (full disk) after the tools ran: a retry gets SESSION_CONFLICT and runs nothing;
  ``recover`` finishes without running a tool again.

Every bound is a count; timeouts are safety nets only.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from claimapp import answers, build, executions, fail_end_save
from roc_reference import BeforeToolCallEvent, ConcurrentExecutor, SequentialExecutor
from roc_reference.errors import SessionConflictError
from roc_reference.sessions import FileSessionManager, FileSessionStore

APP = Path(__file__).with_name("claimapp.py")
STRESS = os.environ.get("ROC_STRESS") == "1"
SAFETY = 120.0


def _pause(root: Path) -> list[str]:
    root.mkdir()
    result = build(root)("pay")
    assert result.stop_reason == "interrupt"
    assert len(result.interrupts) == 1
    return [i.id for i in result.interrupts]


def _ran(root: Path) -> dict[str, list[int]]:
    """pids per (event, amount)."""
    out: dict[str, list[int]] = {}
    for e in executions(root):
        out.setdefault(f"{e['event']}:{e['amount']}", []).append(e["pid"])
    return out


def _readline(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, f"worker {proc.pid} ended early (rc={proc.poll()})"
    return line


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-018", "ROC-SESSION-010", "ROC-SESSION-012")
@pytest.mark.parametrize(("n", "rounds"), [(2, 20), (5, 20), (20, 3)])
def test_concurrent_resumers_run_the_batch_exactly_once(tmp_path: Path, n: int, rounds: int) -> None:
    rounds = 200 if STRESS else rounds
    workers = [
        subprocess.Popen(
            [sys.executable, str(APP), "race-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(n)
    ]
    # Loads spread over about the winner's tool time, so losers meet the claim both ways: by the revision
    # compare-and-set (loaded before the claim) and by the claim record (loaded after it, while the tools
    # run). A loser that loads after the winner finished sees no interrupt: NOT_INTERRUPTED, also nothing run.
    spread = 2 * 0.03
    tally = {"rounds": 0, "tool_runs": 0, "conflicts": 0, "by_claim": 0, "after_end": 0}
    try:
        for round_ in range(rounds):
            root = tmp_path / f"round{round_}"
            ids = _pause(root)
            go = root / "go"
            for k, worker in enumerate(workers):
                assert worker.stdin is not None
                job = {"root": str(root), "go": str(go), "delay": spread * k / max(n - 1, 1), "ids": ids}
                worker.stdin.write(json.dumps(job) + "\n")
                worker.stdin.flush()
            for worker in workers:
                assert _readline(worker) == "ready\n"
            go.touch()
            replies = [json.loads(_readline(w)) for w in workers]

            winners = [r for r in replies if "result" in r]
            losers = [r for r in replies if "error" in r]
            ran = _ran(root)
            assert len(winners) == 1, (round_, replies)
            assert winners[0]["result"]["stopReason"] == "end_turn"
            # Each approved tool started and completed exactly once, in the winner.
            winner = winners[0]["pid"]
            assert ran == {"start:5": [winner], "end:5": [winner], "start:7": [winner], "end:7": [winner]}
            for loser in losers:
                assert loser["error"]["code"] in ("SESSION_CONFLICT", "NOT_INTERRUPTED"), (round_, loser)
            tally["rounds"] += 1
            tally["tool_runs"] += len(ran["start:5"]) + len(ran["start:7"])
            tally["conflicts"] += sum(r["error"]["code"] == "SESSION_CONFLICT" for r in losers)
            tally["after_end"] += sum(r["error"]["code"] == "NOT_INTERRUPTED" for r in losers)
            tally["by_claim"] += sum("claimedRevision" in (r["error"].get("details") or {}) for r in losers)
    finally:
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.close()
        for worker in workers:
            worker.wait(timeout=SAFETY)
    print(f"\nN={n} {tally}")
    assert tally["tool_runs"] == 2 * rounds


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-018", "ROC-SESSION-020", "ROC-SESSION-021")
def test_kill_of_the_winner_mid_tool_recovers_without_running_a_completed_tool_again(tmp_path: Path) -> None:
    root = tmp_path / "s"
    _pause(root)
    winner = subprocess.Popen(
        [sys.executable, str(APP), "resume", str(root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "CLAIMAPP_HOLD": "1"},
    )
    deadline = time.monotonic() + SAFETY
    while "start:7" not in _ran(root):  # t1 completed, t2 is running
        assert winner.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.005)
    winner.send_signal(signal.SIGKILL)
    winner.wait(timeout=SAFETY)
    assert _ran(root) == {"start:5": [winner.pid], "end:5": [winner.pid], "start:7": [winner.pid]}

    # A plain resume of the claimed revision runs nothing: the claim is stale, not gone.
    agent = build(root)
    with pytest.raises(SessionConflictError) as conflict:
        agent(answers(agent))
    assert (conflict.value.details or {}).get("live") is False
    assert len(executions(root)) == 3

    # The explicit recovery finishes the batch: t1's recorded result is kept, t2 runs again from its start.
    result = agent.recover()
    assert result is not None
    assert result.stop_reason == "end_turn"
    me = os.getpid()
    assert _ran(root) == {
        "start:5": [winner.pid],
        "end:5": [winner.pid],
        "start:7": [winner.pid, me],
        "end:7": [me],
    }
    stored = FileSessionManager("claims", FileSessionStore(root)).load()
    assert stored is not None
    assert stored["interruptState"]["activated"] is False
    results = [b["toolResult"] for b in stored["agent"]["messages"][-2]["content"]]
    assert [(r["toolUseId"], r["status"]) for r in results] == [("t1", "success"), ("t2", "success")]
    # Nothing is left to recover, and the session is usable again.
    assert build(root).recover() is None
    assert build(root)("more").stop_reason == "end_turn"
    assert len(executions(root)) == 5


@pytest.mark.req("ROC-SESSION-020", "ROC-SESSION-021")
@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
def test_a_failed_end_save_never_lets_a_retry_run_the_tools_again(tmp_path: Path, executor: type) -> None:
    root = tmp_path / "s"
    _pause(root)
    agent = build(root, executor())
    fail_end_save(agent)
    reply = answers(agent)
    with pytest.raises(OSError, match="No space left"):
        agent(reply)
    assert len(_ran(root)["end:5"]) == 1
    assert len(_ran(root)["end:7"]) == 1
    assert agent.is_interrupted  # rolled back to the claimed revision

    # The same agent retrying, and a fresh one, are refused before anything runs.
    with pytest.raises(SessionConflictError):
        agent(reply)
    other = build(root)
    with pytest.raises(SessionConflictError):
        other(answers(other))
    assert len(executions(root)) == 4

    # Recovery completes the invocation from the recorded results: no tool runs again.
    result = other.recover()
    assert result is not None
    assert result.stop_reason == "end_turn"
    assert len(executions(root)) == 4
    stored = FileSessionManager("claims", FileSessionStore(root)).load()
    assert stored is not None
    assert stored["interruptState"]["activated"] is False
    assert stored["agent"]["messages"][-1] == result.message.to_json()


@pytest.mark.req("ROC-SESSION-018")
def test_an_agent_loaded_after_the_claim_is_refused_before_running(tmp_path: Path) -> None:
    """In one process, deterministic: the second agent loads while the first one's tool runs."""
    root = tmp_path / "s"
    _pause(root)
    first = build(root)
    seen: list[Any] = []

    def load_during_the_tool(event: Any) -> None:
        if event.tool_use.tool_use_id == "t1" and not seen:
            late = build(root)  # loads the claimed revision
            try:
                late(answers(late))
            except SessionConflictError as exc:
                seen.append(exc.details)
            else:
                seen.append("ran")

    first.hooks.add_callback(BeforeToolCallEvent, load_during_the_tool)
    assert first(answers(first)).stop_reason == "end_turn"
    assert len(seen) == 1, seen
    assert isinstance(seen[0], dict), seen
    assert seen[0]["live"] is True, seen
    assert len(executions(root)) == 4  # t1 and t2, once each, start and end


@pytest.mark.req("ROC-SESSION-021")
def test_recovery_of_a_live_claim_conflicts(tmp_path: Path) -> None:
    root = tmp_path / "s"
    _pause(root)
    first = build(root)
    seen: list[Any] = []

    def recover_during_the_tool(event: Any) -> None:
        if event.tool_use.tool_use_id == "t1" and not seen:
            try:
                build(root).recover()
            except SessionConflictError as exc:
                seen.append(exc.details)
            else:
                seen.append("taken over")

    first.hooks.add_callback(BeforeToolCallEvent, recover_during_the_tool)
    assert first(answers(first)).stop_reason == "end_turn"
    assert seen == [{"sessionId": "claims", "live": True}]
    assert len(executions(root)) == 4


@pytest.mark.req("ROC-SESSION-019", "ROC-SESSION-021")
def test_a_claim_left_behind_by_a_committed_end_save_is_dropped(tmp_path: Path) -> None:
    """The claimant died after its end save committed and before it removed its claim: nothing to recover."""
    root = tmp_path / "s"
    _pause(root)
    first = build(root)
    claim_file = root / "claims" / "claim.json"
    left: list[bytes] = []

    def keep_a_copy(event: Any) -> None:
        if not left:
            left.append(claim_file.read_bytes())

    first.hooks.add_callback(BeforeToolCallEvent, keep_a_copy)
    assert first(answers(first)).stop_reason == "end_turn"
    assert not claim_file.exists()
    claim_file.write_bytes(left[0])  # as if the removal was lost
    assert build(root).recover() is None
    assert not claim_file.exists()
    claim_file.write_bytes(left[0])
    assert build(root)("more").stop_reason == "end_turn"  # an invocation drops it too
    assert len(executions(root)) == 4  # t1 and t2 once; "more" runs no tool


@pytest.mark.req("ROC-SESSION-020")
def test_a_result_that_cannot_be_recorded_stops_the_invocation_and_keeps_the_claim(tmp_path: Path) -> None:
    """The full disk strikes when t1's result is recorded: the failure reaches the caller at once, t2 does
    not start, and no retry runs anything; only the explicit recovery runs t1 again (it has no record)."""
    root = tmp_path / "s"
    _pause(root)
    agent = build(root)
    ledger = agent._ledger
    assert ledger is not None

    def full_disk(result: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    ledger.record_result = full_disk  # type: ignore[method-assign]
    reply = answers(agent)
    with pytest.raises(OSError, match="No space left"):
        agent(reply)
    assert _ran(root) == {"start:5": [os.getpid()], "end:5": [os.getpid()]}
    other = build(root)
    with pytest.raises(SessionConflictError):
        other(answers(other))
    result = other.recover()
    assert result is not None
    assert result.stop_reason == "end_turn"
    assert len(_ran(root)["end:5"]) == 2  # documented: an unrecorded result is not known to the recovery
    assert len(_ran(root)["end:7"]) == 1
