"""What every benchmark shares: the sample statistics, the A B A B interleaving, and the result shape.

Each benchmark module has ``run(scale) -> Section``. A section is plain data (tables of raw numbers and the
targets it judges), so ``benchmarks/results.json`` holds everything and the Markdown the docs show is
rendered from that file, never typed by hand. No test asserts a time: the tests run ``scale="quick"`` only to
prove the benchmarks still run and produce this shape.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Scale = Literal["full", "quick"]
"""``full`` is what ``make bench`` measures; ``quick`` is the smallest run that exercises every code path."""


@dataclass(frozen=True)
class Stats:
    """Summary of repeated measurements (seconds, or any unit the caller states)."""

    median: float
    min: float
    max: float
    n: int

    @classmethod
    def of(cls, samples: list[float]) -> Stats:
        if not samples:
            raise ValueError("no samples")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def scaled(self, factor: float) -> Stats:
        """The same statistics in another unit, e.g. ``scaled(1000)`` for milliseconds."""
        return Stats(self.median * factor, self.min * factor, self.max * factor, self.n)


def timed(action: Callable[[], object]) -> float:
    """Wall time of one call, in seconds."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def interleaved(sides: Mapping[str, Callable[[], float]], repeats: int) -> dict[str, Stats]:
    """Run each side once per round, ``repeats`` rounds, A B A B (the order rotates every round).

    Each callable returns the seconds of the part it measures (so set-up it needs stays outside the
    timing). Interleaving makes a machine that gets busier or quieter during the run slow every side
    alike instead of whichever ran last, which is what keeps a ratio honest on a shared 2-core machine.
    """
    names = list(sides)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_no in range(repeats):
        shift = round_no % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(sides[name]())
    return {name: Stats.of(values) for name, values in samples.items()}


@dataclass(frozen=True)
class Column:
    """A table column: the row key it shows, its header, and a ``str.format`` pattern for the value."""

    key: str
    header: str
    fmt: str = "{}"


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    """Raw values (numbers, strings, ``None`` for "not measured"); only the rendering formats them."""


@dataclass
class Target:
    """A goal from the issue that filed the benchmark, and whether this run met it."""

    goal: str
    measured: str
    met: bool | None
    """``None`` when this run could not judge it (e.g. the peer is not installed); ``measured`` says why."""


@dataclass
class Section:
    key: str
    title: str
    method: str
    """How it was measured, in Markdown: what is timed, what is excluded, how concurrency is done."""
    tables: list[Table] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What a reader needs to interpret the numbers (a profile's findings, a peer that was skipped, ...)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def section_from_json(data: Mapping[str, Any]) -> Section:
    tables = [
        Table(t["title"], [Column(**c) for c in t["columns"]], list(t["rows"])) for t in data["tables"]
    ]
    targets = [Target(**t) for t in data["targets"]]
    return Section(data["key"], data["title"], data["method"], tables, targets, list(data["notes"]))


def ratio(slower: float | None, faster: float | None) -> float | None:
    """``slower / faster``, or ``None`` when either side was not measured."""
    if slower is None or faster is None or faster == 0:
        return None
    return slower / faster
