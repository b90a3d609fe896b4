"""Tool executors: how the tool uses of one cycle are run (ROC-EXEC-*).

``SequentialExecutor`` runs tool uses one after another and stops at the first interrupted one: later
tools do not start in that cycle. ``ConcurrentExecutor`` runs every tool use of the cycle on a thread of
its own, so the bodies really overlap (a body may wait for a sibling), and runs every tool that is not
interrupted to completion. Both return outcomes in tool-use order, whatever the completion order.

How concurrency is done: a process-wide pool of daemon threads that grows to the most bodies running at once
and reuses idle threads across cycles and agents. A bounded pool would queue some bodies behind others and
deadlock tools that wait for each other; a fresh thread per tool use costs a thread start (a GIL hand-off,
about a millisecond on a busy machine) per tool per cycle. Idle threads retire after ``IDLE_SECONDS``.
"""

from __future__ import annotations

import contextvars
import functools
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .types import Interrupt, ToolResult, ToolUse


@dataclass
class ToolOutcome:
    """What one tool use gave in a cycle: a result, or the interrupts that stopped it."""

    tool_use: ToolUse
    result: ToolResult | None = None
    interrupts: list[Interrupt] = field(default_factory=list)
    ran: frozenset[tuple[str, str | None]] = frozenset()
    """The units that ran, as ``(source kind, toolUseId)``: its BeforeToolCall firing, its body."""

    @property
    def interrupted(self) -> bool:
        return bool(self.interrupts)


RunOne = Callable[[ToolUse], ToolOutcome]


class Executor(Protocol):
    """Runs the tool uses that still lack a result."""

    name: str

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]: ...


class SequentialExecutor:
    """One tool at a time; the cycle stops at the first interrupted tool (ROC-EXEC-001)."""

    name = "sequential"

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]:
        outcomes: list[ToolOutcome] = []
        for use in tool_uses:
            outcome = run_one(use)
            outcomes.append(outcome)
            if outcome.interrupted:  # ROC-EXEC-002: later tools do not start in this cycle
                break
        return outcomes


IDLE_SECONDS = 60.0
"""How long a pooled thread waits for work before it ends."""


@dataclass
class _Batch:
    """The jobs of one ``ThreadPool.run`` still running; ``done`` is set when the last one returned."""

    remaining: int
    done: threading.Event = field(default_factory=threading.Event)


class ThreadPool:
    """Daemon threads that run batches of jobs; a job never waits for a thread, so a batch all overlaps.

    ``_idle`` counts threads that wait for work and are not yet promised to a job: each job takes one, or
    starts a new thread when none is idle, so there are always at least as many threads as unfinished jobs.
    """

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._jobs: queue.SimpleQueue[tuple[Callable[[], None], _Batch]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._threads = 0

    @property
    def threads(self) -> int:
        """Threads alive or starting (busy and idle)."""
        with self._lock:
            return self._threads

    def run(self, jobs: Sequence[Callable[[], None]]) -> None:
        """Run every job on a thread of its own, all at once; return when every job returned.

        A job must not raise (``ConcurrentExecutor`` catches and carries failures back itself).
        """
        batch = _Batch(len(jobs))
        submitted = 0
        try:
            for job in jobs:
                self._submit(job, batch)
                submitted += 1
        finally:
            if submitted < len(jobs):  # a thread failed to start: the error waits for the jobs running
                with self._lock:
                    batch.remaining -= len(jobs) - submitted
                    if batch.remaining == 0:
                        batch.done.set()
            if jobs:
                batch.done.wait()

    def _submit(self, job: Callable[[], None], batch: _Batch) -> None:
        with self._lock:
            start = self._idle == 0
            if start:
                self._threads += 1
            else:
                self._idle -= 1
        if start:  # daemon: a body stuck at interpreter exit does not keep the process alive
            try:
                threading.Thread(target=self._work, name="roc-tool", daemon=True).start()
            except BaseException:
                with self._lock:
                    self._threads -= 1
                raise
        self._jobs.put((job, batch))

    def _work(self) -> None:
        while True:
            try:
                job, batch = self._jobs.get(timeout=self.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # not promised to a job that is about to be queued: retire
                        self._idle -= 1
                        self._threads -= 1
                        return
                continue
            try:
                contextvars.Context().run(job)  # a fresh context per job, as a new thread would have
            finally:
                with self._lock:  # idle again before the batch's caller wakes, so its next batch reuses us
                    self._idle += 1
                    batch.remaining -= 1
                    if batch.remaining == 0:
                        batch.done.set()


_POOL = ThreadPool()


def shared_pool() -> ThreadPool:
    """The process-wide pool every ``ConcurrentExecutor`` uses unless it is given its own."""
    return _POOL


def _new_pool_after_fork() -> None:
    # A forked child inherits the pool's counts but none of its threads: promised idle threads would
    # never run their jobs.
    global _POOL
    _POOL = ThreadPool()


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere there is no fork
    os.register_at_fork(after_in_child=_new_pool_after_fork)


class ConcurrentExecutor:
    """Every tool use on a thread of its own; all not interrupted run to completion (ROC-EXEC-005)."""

    name = "concurrent"

    def __init__(self, pool: ThreadPool | None = None) -> None:
        self.pool = pool

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]:
        outcomes: list[ToolOutcome | None] = [None] * len(tool_uses)
        failures: list[BaseException | None] = [None] * len(tool_uses)

        def work(index: int, use: ToolUse) -> None:
            threading.current_thread().name = f"roc-tool-{use.tool_use_id}"
            try:
                outcomes[index] = run_one(use)
            except BaseException as exc:  # re-raised below, after every sibling finished
                failures[index] = exc

        pool = self.pool if self.pool is not None else shared_pool()
        # ROC-EXEC-008: returns only when every tool use has an outcome (a result or its interrupts).
        pool.run([functools.partial(work, i, use) for i, use in enumerate(tool_uses)])
        for failure in failures:  # the first failure in tool-use order wins, deterministically
            if failure is not None:
                raise failure
        return [o for o in outcomes if o is not None]
