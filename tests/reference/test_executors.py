"""The concurrent executor's pool: a whole batch in flight at once, threads reused, outcomes in order."""

from __future__ import annotations

import contextvars
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from roc_reference import ConcurrentExecutor, ToolOutcome, ToolUse
from roc_reference.executors import ThreadPool, shared_pool


def uses(n: int) -> list[ToolUse]:
    return [ToolUse(tool_use_id=f"t{i}", name="x", input={}) for i in range(n)]


def index_of(use: ToolUse) -> int:
    return int(use.tool_use_id[1:])


@pytest.mark.req("ROC-EXEC-005", "ROC-EXEC-008")
def test_every_body_of_a_large_batch_is_in_flight_at_once() -> None:
    # A bounded pool would queue some bodies behind the barrier and break it.
    barrier = threading.Barrier(64, timeout=10)

    def run_one(use: ToolUse) -> ToolOutcome:
        barrier.wait()
        return ToolOutcome(use)

    outcomes = ConcurrentExecutor(ThreadPool()).run(uses(64), run_one)
    assert len(outcomes) == 64
    assert not barrier.broken


def test_idle_threads_are_reused_by_the_next_cycle() -> None:
    pool = ThreadPool()
    barrier = threading.Barrier(8, timeout=10)
    names: set[str] = set()
    lock = threading.Lock()

    def run_one(use: ToolUse) -> ToolOutcome:
        barrier.wait()  # forces eight threads to exist
        with lock:
            names.add(threading.current_thread().name)
        return ToolOutcome(use)

    executor = ConcurrentExecutor(pool)
    executor.run(uses(8), run_one)
    assert pool.threads == 8
    executor.run(uses(8), run_one)
    assert pool.threads == 8  # no new thread: the second cycle ran on the idle ones
    assert names == {f"roc-tool-t{i}" for i in range(8)}  # a pooled thread is named after its tool use


def test_outcomes_in_tool_use_order_whatever_the_completion_order() -> None:
    def run_one(use: ToolUse) -> ToolOutcome:
        time.sleep(0.002 * (8 - index_of(use)))  # the last tool use finishes first
        return ToolOutcome(use)

    outcomes = ConcurrentExecutor(ThreadPool()).run(uses(8), run_one)
    assert [o.tool_use.tool_use_id for o in outcomes] == [f"t{i}" for i in range(8)]


def test_the_first_failure_in_tool_use_order_is_raised_after_every_sibling_finished() -> None:
    finished: list[int] = []
    lock = threading.Lock()

    def run_one(use: ToolUse) -> ToolOutcome:
        i = index_of(use)
        time.sleep(0.002 * (6 - i))  # the later failure happens first
        if i in (1, 3):
            raise ValueError(f"tool {i}")
        time.sleep(0.01)
        with lock:
            finished.append(i)
        return ToolOutcome(use)

    with pytest.raises(ValueError, match="tool 1"):
        ConcurrentExecutor(ThreadPool()).run(uses(6), run_one)
    assert sorted(finished) == [0, 2, 4, 5]


def test_a_failure_does_not_cost_the_pool_its_thread() -> None:
    pool = ThreadPool()

    def fails(use: ToolUse) -> ToolOutcome:
        raise KeyboardInterrupt  # even a BaseException is carried back, not raised on the worker

    with pytest.raises(KeyboardInterrupt):
        ConcurrentExecutor(pool).run(uses(1), fails)
    assert ConcurrentExecutor(pool).run(uses(1), ToolOutcome)[0].tool_use.tool_use_id == "t0"
    assert pool.threads == 1


def test_an_empty_batch_returns_at_once() -> None:
    assert ConcurrentExecutor(ThreadPool()).run([], ToolOutcome) == []


def test_idle_threads_retire() -> None:
    pool = ThreadPool(idle_seconds=0.05)
    ConcurrentExecutor(pool).run(uses(4), ToolOutcome)
    deadline = time.monotonic() + 5
    while pool.threads and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.threads == 0
    assert len(ConcurrentExecutor(pool).run(uses(4), ToolOutcome)) == 4  # and the pool grows again


def test_each_body_starts_with_a_fresh_context_as_on_a_new_thread() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    seen: list[str] = []
    pool = ThreadPool()

    def run_one(use: ToolUse) -> ToolOutcome:
        seen.append(var.get())
        var.set(use.tool_use_id)
        return ToolOutcome(use)

    for _ in range(3):  # one tool use per cycle: the same pooled thread runs each
        ConcurrentExecutor(pool).run(uses(1), run_one)
    assert seen == ["unset"] * 3
    assert pool.threads == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_a_pool_of_its_own() -> None:
    ConcurrentExecutor().run(uses(4), ToolOutcome)  # the parent's shared pool now has idle threads
    pid = os.fork()
    if pid == 0:  # the child: its inherited idle threads do not exist; a cycle must still complete
        signal.alarm(10)
        ok = len(ConcurrentExecutor().run(uses(4), ToolOutcome)) == 4 and shared_pool().threads <= 4
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_interpreter_exit_does_not_wait_for_pooled_or_stuck_threads() -> None:
    script = (
        "import threading\n"
        "from roc_reference import ConcurrentExecutor, ToolOutcome, ToolUse\n"
        "ConcurrentExecutor().run([ToolUse(tool_use_id='a', name='x', input={})], ToolOutcome)\n"
        "stuck = lambda use: threading.Event().wait()\n"
        "threading.Thread(target=ConcurrentExecutor().run, daemon=True,\n"
        "                 args=([ToolUse(tool_use_id='b', name='x', input={})], stuck)).start()\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)


def test_a_thread_that_cannot_start_fails_the_cycle_after_the_running_bodies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    finished: list[str] = []
    starts = 0
    real_start = threading.Thread.start

    def start_twice(thread: threading.Thread) -> None:
        nonlocal starts
        starts += 1
        if starts > 2:
            raise RuntimeError("can't start new thread")
        real_start(thread)

    def run_one(use: ToolUse) -> ToolOutcome:
        time.sleep(0.05)
        finished.append(use.tool_use_id)
        return ToolOutcome(use)

    pool = ThreadPool()
    monkeypatch.setattr(threading.Thread, "start", start_twice)
    with pytest.raises(RuntimeError, match="can't start"):
        ConcurrentExecutor(pool).run(uses(4), run_one)
    assert sorted(finished) == ["t0", "t1"]  # both running bodies ended before the error surfaced
    assert pool.threads == 2
