"""What a run shows while it goes: a progress bar per stage on a terminal, plain lines anywhere else.

A stage is a requirement area (``STOP``, ``RESUME``, ..., ``STATEFUL``). On a terminal the stage's bar shows
how many of its checks are done and the check running now (``rich``); when a stage ends, its summary line
is printed above the bars. Anywhere else (a CI log, a file, a pipe) only the summary lines are written, one
per stage, so a log has no control characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from roc_conformance.checks.base import CheckResult

if TYPE_CHECKING:
    from rich.progress import TaskID

_MARKS = {"PASS": ".", "FAIL": "F", "ERROR": "E", "SKIPPED": "s"}


def stage_summary(area: str, results: Sequence[CheckResult], seconds: float) -> str:
    """``  STOP     ..F.s   3 pass, 1 fail, 1 skipped  (2.1s)``: one mark per check, then the counts."""
    counts: dict[str, int] = {}
    for res in results:
        counts[res.status.value] = counts.get(res.status.value, 0) + 1
    marks = "".join(_MARKS.get(r.status.value, "?") for r in results)
    summary = ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items()))
    return f"  {area:<8} {marks:<24} {summary}  ({seconds:.1f}s)"


class Progress:
    """Plain progress: a line per stage when it ends (and the run's own lines)."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream

    def line(self, text: str) -> None:
        if self.stream is not None:
            self.stream.write(text + "\n")
            self.stream.flush()

    def update(self, area: str, done: int, total: int, current: str) -> None:
        """``current`` is about to run as check ``done + 1`` of ``total`` in stage ``area``."""

    def area_done(self, area: str, results: Sequence[CheckResult], seconds: float) -> None:
        self.line(stage_summary(area, results, seconds))

    def close(self) -> None:
        """End the display (a live one must give the terminal back before the verdict is printed)."""


class BarProgress(Progress):
    """A ``rich`` progress bar per stage, with the check running now; for terminals only."""

    def __init__(self, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        super().__init__(stream)
        self.console = Console(file=stream, highlight=False, soft_wrap=True)
        self.bars = RichProgress(
            TextColumn("  {task.fields[area]:<8}"),
            BarColumn(bar_width=30),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[current]}"),
            console=self.console,
            transient=True,
        )
        self.tasks: dict[str, TaskID] = {}
        self.started = False

    def line(self, text: str) -> None:
        # Printed through the live display, so it lands above the bars instead of through them; markup is
        # off because check names and messages may contain square brackets.
        self.console.print(text, markup=False, highlight=False)

    def update(self, area: str, done: int, total: int, current: str) -> None:
        if not self.started:
            self.bars.start()
            self.started = True
        task = self.tasks.get(area)
        if task is None:
            task = self.tasks[area] = self.bars.add_task(area, total=total, area=area, current="")
        self.bars.update(task, completed=done, total=total, current=current[:70])
        self.bars.refresh()  # show this check now, not at the next tick: most checks take less than one

    def area_done(self, area: str, results: Sequence[CheckResult], seconds: float) -> None:
        task = self.tasks.pop(area, None)
        if task is not None:
            self.bars.remove_task(task)
        self.line(stage_summary(area, results, seconds))

    def close(self) -> None:
        if self.started:
            self.bars.stop()
            self.started = False


def make_progress(stream: TextIO | None) -> Progress:
    """Bars on a terminal, plain lines elsewhere, nothing for ``None``."""
    if stream is not None and hasattr(stream, "isatty") and stream.isatty():
        return BarProgress(stream)
    return Progress(stream)
