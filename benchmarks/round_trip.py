"""Runtime overhead of an interrupt round trip: the reference runtime against strands-agents 1.62.

One round trip is invoke -> interrupt -> answer all -> completion with a scripted model (no network) whose
first turn asks for a batch of N trivial tool uses and whose second turn ends. Every tool body asks once
through the runtime's interrupt operation and returns the answer it got. Both runtimes run the same script
under their sequential and their concurrent executor, in the same process, interleaved A B A B.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from roc_reference import Agent, ConcurrentExecutor, ScriptedModel, SequentialExecutor, ToolContext, tool

from benchmarks import strands_peer
from benchmarks.common import Column, Scale, Section, Stats, Table, Target, interleaved, ratio

ExecutorName = Literal["sequential", "concurrent"]
EXECUTORS: tuple[ExecutorName, ...] = ("sequential", "concurrent")
BATCHES: dict[Scale, tuple[int, ...]] = {"full": (1, 8, 64, 512), "quick": (1, 8)}
# Rounds per executor and batch size, chosen so the full run takes about a minute on a busy 2-core
# machine. A sequential batch of N takes N stops and the reference copies the N-tool batch at each, so a
# round at 512 takes 10 to 20 s for both sides together: it gets the fewest rounds.
REPEATS: dict[Scale, dict[ExecutorName, dict[int, int]]] = {
    "full": {
        "sequential": {1: 30, 8: 20, 64: 6, 512: 2},
        "concurrent": {1: 30, 8: 20, 64: 10, 512: 5},
    },
    "quick": {"sequential": {1: 2, 8: 2}, "concurrent": {1: 2, 8: 2}},
}
SPEEDUP_GOAL = 10.0
LINEAR_GOAL = 2.0  # per-tool cost at the largest batch within this factor of the per-tool cost at 64
FINAL_TEXT = "done"
NOT_INSTALLED = "strands-agents not installed (make bench installs it)"


class BenchmarkError(RuntimeError):
    """A sample did not do the work it claims to measure; its time would be meaningless."""


def _answer(index: int) -> str:
    return f"ok-{index}"


def _first_turn(batch: int) -> list[dict[str, Any]]:
    return [{"toolUse": {"toolUseId": f"t{i}", "name": "ask", "input": {"index": i}}} for i in range(batch)]


@dataclass
class Tally:
    """What one round trip did, counted as it happened, so a run that took an error path is caught."""

    stops: int = 0
    answered: int = 0
    returned: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def body_returned(self, value: str) -> None:
        with self.lock:  # bodies run on several threads under the concurrent executors
            self.returned.append(value)

    def check(self, side: str, executor: ExecutorName, batch: int, stop_reason: str, final_text: str) -> None:
        """Raise unless the round trip ended, answered every interrupt, and every body returned its answer."""
        expected_stops = batch if executor == "sequential" else 1
        problems = []
        if stop_reason != "end_turn" or final_text != FINAL_TEXT:
            problems.append(f"ended with {stop_reason!r} {final_text!r}")
        if self.stops != expected_stops:
            problems.append(f"{self.stops} interrupt stops, expected {expected_stops}")
        if self.answered != batch:
            problems.append(f"{self.answered} interrupts answered, expected {batch}")
        if sorted(self.returned) != sorted(_answer(i) for i in range(batch)):
            problems.append(f"{len(self.returned)} bodies returned, not each tool its own answer once")
        if problems:
            raise BenchmarkError(f"{side} {executor} batch {batch}: " + "; ".join(problems))


def _drive(agent: Callable[[Any], Any], tally: Tally) -> tuple[Any, float]:
    """One round trip, timed: prompt, then answer every reported interrupt until the turn ends. The two
    runtimes take the same calls here (``agent(input)``, ``result.interrupts`` with ``id`` and ``reason``)."""
    started = time.perf_counter()
    result = agent("go")
    while result.stop_reason == "interrupt":
        tally.stops += 1
        tally.answered += len(result.interrupts)
        result = agent(
            [
                {"interruptResponse": {"interruptId": i.id, "response": _answer(i.reason["index"])}}
                for i in result.interrupts
            ]
        )
    return result, time.perf_counter() - started


def _reference_sample(executor: ExecutorName, batch: int) -> float:
    tally = Tally()

    @tool(context=True)
    def ask(index: int, tool_context: ToolContext) -> str:
        answer = str(tool_context.interrupt("approve", reason={"index": index}))
        tally.body_returned(answer)
        return answer

    model = ScriptedModel([_first_turn(batch), [{"text": FINAL_TEXT}]])
    runner = ConcurrentExecutor() if executor == "concurrent" else SequentialExecutor()
    agent = Agent(model, tools=[ask], executor=runner)  # built outside the timing, fresh per sample

    result, elapsed = _drive(agent, tally)

    final = (result.message.to_json().get("content") or [{}])[0]
    tally.check("reference", executor, batch, result.stop_reason, str(final.get("text")))
    return elapsed


def _scripted(turns: Sequence[list[dict[str, Any]]]) -> strands_peer.Reply:
    """The turns in order: the turn is the count of assistant messages so far."""

    def reply(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        index = sum(1 for m in messages if m["role"] == "assistant")
        return turns[index] if index < len(turns) else [{"text": "script exhausted"}]

    return reply


_strands = strands_peer.package


def _strands_sample(strands: Any, executor: ExecutorName, batch: int) -> float:
    from strands.models import Model  # type: ignore[import-not-found]
    from strands.tools.executors import (  # type: ignore[import-not-found]
        ConcurrentToolExecutor,
        SequentialToolExecutor,
    )

    tally = Tally()

    def ask(index: int, tool_context: Any) -> str:
        """Ask the user once and return the answer."""
        answer = str(tool_context.interrupt("approve", reason={"index": index}))
        tally.body_returned(answer)
        return answer

    runner = ConcurrentToolExecutor() if executor == "concurrent" else SequentialToolExecutor()
    agent = strands.Agent(
        model=strands_peer.scripted_model(Model, _scripted([_first_turn(batch), [{"text": FINAL_TEXT}]])),
        tools=[strands.tool(context=True)(ask)],
        tool_executor=runner,
        callback_handler=None,  # the default handler prints the stream; printing is not the runtime's cost
    )

    result, elapsed = _drive(agent, tally)

    content = result.message.get("content") or [{}]
    tally.check("strands", executor, batch, str(result.stop_reason), str(content[0].get("text")))
    return elapsed


@dataclass
class Row:
    executor: ExecutorName
    batch: int
    reference: Stats
    strands: Stats | None

    def to_dict(self) -> dict[str, Any]:
        ms_ref = self.reference.scaled(1000)
        ms_str = self.strands.scaled(1000) if self.strands else None
        return {
            "executor": self.executor,
            "batch": self.batch,
            "repeats": self.reference.n,
            "reference_ms": ms_ref.median,
            "reference_min_ms": ms_ref.min,
            "reference_max_ms": ms_ref.max,
            "strands_ms": ms_str.median if ms_str else None,
            "strands_min_ms": ms_str.min if ms_str else None,
            "strands_max_ms": ms_str.max if ms_str else None,
            "ratio": ratio(ms_str.median if ms_str else None, ms_ref.median),
            "reference_us_per_tool": self.reference.median * 1e6 / self.batch,
            "strands_us_per_tool": self.strands.median * 1e6 / self.batch if self.strands else None,
        }


def measure(scale: Scale, strands: Any | None) -> list[Row]:
    rows = []
    for executor in EXECUTORS:
        for batch in BATCHES[scale]:
            sides: dict[str, Callable[[], float]] = {
                "reference": lambda e=executor, b=batch: _reference_sample(e, b)  # type: ignore[misc]
            }
            if strands is not None:
                sides["strands"] = lambda e=executor, b=batch: _strands_sample(strands, e, b)  # type: ignore[misc]
            stats = interleaved(sides, REPEATS[scale][executor][batch])
            rows.append(Row(executor, batch, stats["reference"], stats.get("strands")))
    return rows


def _speedup_target(rows: list[Row], executor: ExecutorName) -> Target:
    goal = f"{executor} executor: the reference >= {SPEEDUP_GOAL:g}x faster than strands-agents at each batch"
    mine = [r for r in rows if r.executor == executor]
    ratios = [(ratio(r.strands.median, r.reference.median), r.batch) for r in mine if r.strands is not None]
    if not ratios:
        return Target(goal, NOT_INSTALLED, None)
    listed = ", ".join(f"{value:.1f}x at {batch}" for value, batch in ratios if value is not None)
    weakest, at = min((value, batch) for value, batch in ratios if value is not None)
    return Target(goal, f"{listed}; weakest {weakest:.1f}x at {at}", weakest >= SPEEDUP_GOAL)


def _linear_target(rows: list[Row], executor: ExecutorName) -> Target:
    largest = max(r.batch for r in rows)
    goal = (
        f"{executor} executor: cost linear in batch size, the reference's per-tool time at {largest} tools "
        f"within {LINEAR_GOAL:g}x of its per-tool time at 64"
    )
    if 64 not in {r.batch for r in rows} or largest <= 64:
        return Target(goal, "this scale measures no batch of 64 or more", None)
    per_tool = {r.batch: r.reference.median / r.batch for r in rows if r.executor == executor}
    growth = per_tool[largest] / per_tool[64]
    measured = f"{per_tool[64] * 1e6:.0f} -> {per_tool[largest] * 1e6:.0f} µs per tool ({growth:.2f}x)"
    return Target(goal, measured, growth <= LINEAR_GOAL)


METHOD = """\
A scripted model (no network) answers the first call with one assistant message holding N `toolUse` blocks
of one tool and the second call with the text `done`. The tool's body calls the runtime's interrupt
operation once (`tool_context.interrupt("approve", reason={"index": i})` on both sides) and returns the
answer as a string. One sample is one round trip: invoke with a prompt, then, while the result stops on
`interrupt`, invoke again with one `interruptResponse` per reported interrupt, until the result ends the
turn. Under the concurrent executors the first stop reports all N interrupts and one resume answers them.
Under the sequential executors the first interrupting tool ends the cycle and later tools do not start,
so a batch of N takes N stops and N resumes, each answering the one pending interrupt (strands' sequential
executor breaks on the first interrupt the same way). Each sample checks that it really ended with `done`,
that it stopped the expected number of times, that exactly N interrupts were answered and that each body
returned its own answer exactly once; a sample that took an error path stops the benchmark.

Timed: from the first invoke to the completed result (answer lists included, they are the same on both
sides). Not timed: building the tool, the model and the agent, which is done afresh for every sample. The
reference (`roc_reference.Agent` with `SequentialExecutor` / `ConcurrentExecutor`) and strands-agents
(`strands.Agent` with `SequentialToolExecutor` / `ConcurrentToolExecutor`, a `strands.models.Model`
subclass streaming the same turns) run in one process, interleaved A B A B; the table gives the median and
min/max in milliseconds, the ratio strands / reference of the medians, and the per-tool median.

Concurrency: the reference's concurrent executor runs every tool use of a cycle on a thread of its own so
all bodies can overlap (a tool may wait for a sibling); the threads come from a process-wide pool that
reuses idle threads and starts a new one only when every pooled thread is busy, so the first sample of a
batch size may start threads (its max shows it) and later samples reuse them. Strands runs each synchronous
`agent(...)` call in a fresh asyncio event loop on a new thread, each tool use as an asyncio task, and a
synchronous tool body through `asyncio.to_thread`, i.e. the loop's default thread pool of min(32, CPUs + 4)
threads.
"""


def run(scale: Scale) -> Section:
    strands = _strands()
    rows = measure(scale, strands)
    columns = [
        Column("executor", "executor"),
        Column("batch", "batch", "{:d}"),
        Column("repeats", "repeats", "{:d}"),
        Column("reference_ms", "reference ms (median)", "{:.2f}"),
        Column("reference_min_ms", "min", "{:.2f}"),
        Column("reference_max_ms", "max", "{:.2f}"),
        Column("strands_ms", "strands ms (median)", "{:.2f}"),
        Column("strands_min_ms", "min", "{:.2f}"),
        Column("strands_max_ms", "max", "{:.2f}"),
        Column("ratio", "strands / reference", "{:.1f}x"),
        Column("reference_us_per_tool", "reference µs per tool", "{:.0f}"),
    ]
    table = Table(
        "Interrupt round trip: invoke, interrupt, answer all, completion",
        columns,
        [r.to_dict() for r in rows],
    )
    notes = [
        f"Machine: {os.cpu_count()} CPUs; load average at the start {_load()}.",
        "strands-agents is built with `callback_handler=None` so printing the stream is not measured; no "
        "OpenTelemetry provider is configured, so its spans go to the no-op tracer; its event loop metrics "
        "are always collected and are part of what is measured.",
        "A sequential batch of N takes N stops and N resumes, and on both sides every stop reports the "
        "pending assistant message with all N tool uses. strands-agents hands out its live message; the "
        "reference hands out a copy (ROC-SEC-016: a caller's edit must not reach the paused batch), so "
        "only the reference's stops grow with N: its sequential round trip copies N x N tool-use blocks, "
        "the part of its cost that grows with N squared.",
    ]
    if strands is None:
        notes.append(NOT_INSTALLED + ": only the reference was measured.")
    else:
        notes.append(f"Peer: strands-agents {_version('strands-agents')}.")
    targets = [_speedup_target(rows, e) for e in EXECUTORS] + [_linear_target(rows, e) for e in EXECUTORS]
    return Section("round_trip", "Interrupt round trip", METHOD, [table], targets, notes)


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)
