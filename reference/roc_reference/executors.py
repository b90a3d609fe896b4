"""Tool executors: how the tool uses of one cycle are run (ROC-EXEC-*).

``SequentialExecutor`` runs tool uses one after another and stops at the first interrupted one: later
tools do not start in that cycle. ``ConcurrentExecutor`` starts every tool use on its own thread, so the
bodies really overlap, and runs every tool that is not interrupted to completion.
Both return outcomes in tool-use order, whatever the completion order.
"""

from __future__ import annotations

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


class ConcurrentExecutor:
    """Every tool on its own thread; all that are not interrupted run to completion (ROC-EXEC-005)."""

    name = "concurrent"

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]:
        outcomes: list[ToolOutcome | None] = [None] * len(tool_uses)
        failures: list[BaseException | None] = [None] * len(tool_uses)

        def work(index: int, use: ToolUse) -> None:
            try:
                outcomes[index] = run_one(use)
            except BaseException as exc:  # re-raised below, after every sibling finished
                failures[index] = exc

        threads = [
            threading.Thread(target=work, args=(i, use), name=f"roc-tool-{use.tool_use_id}", daemon=True)
            for i, use in enumerate(tool_uses)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for failure in failures:  # the first failure in tool-use order wins, deterministically
            if failure is not None:
                raise failure
        return [o for o in outcomes if o is not None]
