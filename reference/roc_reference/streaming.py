"""Streaming an invocation (profile ``streaming``, spec chapter 17, ROC-STREAM-*).

``Agent.stream(prompt)`` runs exactly what ``Agent.invoke(prompt)`` runs and yields events as they happen:
``InterruptEvent`` the moment a unit's run ends with an interrupt, then one last ``ResultEvent`` or
``ErrorEvent``. Nothing else differs: the same result, the same state, the same snapshots.

How: the invocation runs on a worker thread (it blocks: tool bodies, hooks, the model), with a *sink* set
on the agent for its duration. The agent wraps its executor (``StreamingExecutor``) so that each tool use
whose units ended with interrupts hands them to the sink as soon as its ``run_one`` returns, on whatever
thread ran it (the concurrent executor's pool threads included). The sink moves each event onto the event
loop's queue with ``call_soon_threadsafe``, which keeps the order the invocation thread produced them in;
the final events are queued by the invocation thread after its last interrupt event, so they come last.

Interrupts of a result that no unit ended with in this invocation (a BeforeTools interrupt, which stops the
cycle at once; an interrupt carried over because its unit did not run again, ROC-STOP-002) are streamed
when the invocation stops, before the result (ROC-STREAM-002).

A consumer that stops iterating early does not stop the invocation: it runs to its end on its thread and
leaves the agent exactly as ``invoke`` would have.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import RocError
from .executors import Executor, RunOne, ToolOutcome
from .types import AgentResult, Interrupt, ToolUse, private_copy

if TYPE_CHECKING:
    from .agent import Agent, PromptInput

Sink = Callable[[Sequence[Interrupt]], None]
"""Takes the interrupts a unit's run ended with, from whichever thread ran the unit."""


@dataclass(frozen=True)
class InterruptEvent:
    """``{"interrupt": Interrupt}``: an interrupt of this invocation, streamed once (ROC-STREAM-002)."""

    interrupt: Interrupt

    def to_json(self) -> dict[str, Any]:
        return {"interrupt": self.interrupt.to_json()}


@dataclass(frozen=True)
class ResultEvent:
    """``{"result": AgentResult}``: the last event of a completed or stopped invocation (ROC-STREAM-001)."""

    result: AgentResult

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result.to_json()}


@dataclass(frozen=True)
class ErrorEvent:
    """``{"error": Error}``: the last event of a refused or failed invocation (ROC-STREAM-001)."""

    error: RocError

    def to_json(self) -> dict[str, Any]:
        return {"error": self.error.to_json()}


StreamEvent = InterruptEvent | ResultEvent | ErrorEvent


class StreamingExecutor:
    """Wraps an executor: each tool use whose units ended with interrupts hands them to the sink at once,
    before the executor waits for any sibling still running (ROC-STREAM-005)."""

    def __init__(self, inner: Executor, sink: Sink) -> None:
        self._inner = inner
        self._sink = sink
        self.name = inner.name

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]:
        def streamed(use: ToolUse) -> ToolOutcome:
            outcome = run_one(use)
            if outcome.interrupts:
                self._sink(outcome.interrupts)
            return outcome

        return self._inner.run(tool_uses, streamed)


@dataclass(frozen=True)
class _Failure:
    """An exception outside RoC's closed set: the iterator raises it, as ``invoke`` would."""

    exc: BaseException


_END = object()


async def stream_invocation(agent: Agent, prompt: PromptInput) -> AsyncIterator[StreamEvent]:
    """The events of one invocation of ``agent`` with ``prompt`` (``Agent.stream``)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    emitted: set[str] = set()
    guard = threading.Lock()

    def put(item: Any) -> None:
        # The loop may be gone when a consumer gave up and closed it; the invocation still ends normally.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def sink(interrupts: Sequence[Interrupt]) -> None:
        for interrupt in interrupts:
            with guard:  # ROC-STREAM-002: exactly once, whichever thread gets here first
                if interrupt.id in emitted:
                    continue
                emitted.add(interrupt.id)
            put(InterruptEvent(private_copy(interrupt)))

    def run() -> None:
        try:
            result = run_streaming(agent, prompt, sink)
        except RocError as error:
            # ROC-STREAM-001: the refusal invoke would raise is the last event. Interrupt events streamed
            # before it describe nothing: the failed invocation changed nothing (ROC-ERR-006).
            put(ErrorEvent(error))
        except BaseException as exc:  # outside the closed set: raised from the iterator
            put(_Failure(exc))
        else:
            # ROC-STREAM-002: what no unit ended with in this invocation is streamed now, before the result.
            sink(result.interrupts)
            put(ResultEvent(result))
        finally:
            put(_END)

    worker = threading.Thread(target=run, name="roc-stream", daemon=True)
    worker.start()
    while True:
        item = await queue.get()
        if item is _END:
            return
        if isinstance(item, _Failure):
            raise item.exc
        yield item


def run_streaming(agent: Agent, prompt: PromptInput, sink: Sink) -> AgentResult:
    """``agent.invoke(prompt)`` with ``sink`` receiving each unit's interrupts as its run ends.

    The sink is set under the agent's lock (the one ``invoke`` holds, re-entrant), so no other invocation of
    this agent sees it. A sub-agent is an agent of its own and streams nothing: its interrupts reach the
    sink as the propagated interrupts of the tool use that ran it (ROC-AGENT-001).
    """
    with agent._lock:
        agent._stream_sink = sink
        try:
            return agent.invoke(prompt)
        finally:
            agent._stream_sink = None
