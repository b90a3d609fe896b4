"""``Graph``: agent nodes and edges; a node runs when all its predecessors completed (spec chapter 13).

Each step runs every node that is ready when the step starts (not yet run in this run, every predecessor
completed), one after another in declaration order. A cancelled node never completes, so its successors never
become ready. The run completes when no node is ready. A node's prompt is the task followed by its
predecessors' answers (``node_prompt``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..agent import Agent, Clock
from ..hooks import HookProvider
from ..types import AgentResult, Interrupt, private_copy
from .base import Orchestrator, Outcome, node_prompt

OrchestratorStop = Literal["completed", "interrupt"]


@dataclass(frozen=True)
class GraphResult:
    """What one invocation of a graph ended with.

    ``results`` holds the answer of every node that completed in the current run and ``cancelled`` the cancel
    message of every cancelled node, both in the graph's declaration order whatever order the nodes finished
    in (ROC-GRAPH-016). ``interrupts`` is non-empty exactly when ``stop_reason`` is ``"interrupt"``.
    """

    stop_reason: OrchestratorStop
    interrupts: list[Interrupt]
    results: dict[str, AgentResult]
    cancelled: dict[str, str]


class Graph(Orchestrator):
    """A directed acyclic graph of agent nodes (profile multi-agent)."""

    _state_fields = (*Orchestrator._state_fields, "_task", "_results", "_cancelled")

    def __init__(
        self,
        nodes: Mapping[str, Agent],
        edges: Iterable[tuple[str, str]],
        hooks: Iterable[HookProvider] = (),
        graph_id: str = "graph",
        *,
        clock: Clock | None = None,
    ) -> None:
        """``nodes`` in declaration order; an edge ``(a, b)``: ``b`` runs after ``a`` completed."""
        super().__init__(nodes, hooks, graph_id, clock)
        pairs = [(a, b) for a, b in edges]
        for a, b in pairs:
            if a not in self.nodes or b not in self.nodes:
                raise ValueError(f"edge {a!r} -> {b!r} names a node the graph does not have")
        self.edges = pairs
        edge_set = set(pairs)
        self._predecessors = {n: [p for p in self.nodes if (p, n) in edge_set] for n in self.nodes}
        if _has_cycle(self._predecessors):  # a node on a cycle would wait for itself forever
            raise ValueError("the edges form a cycle")
        self._task = ""
        self._results: dict[str, AgentResult] = {}
        self._cancelled: dict[str, str] = {}

    def invoke(self, task: Any) -> GraphResult:
        """Run the graph on ``task`` (a string), or resume it with a list of ``interruptResponse`` blocks."""
        with self._lock:
            prompt, answers, metadata = self._accept(task)
            return self._guarded(lambda: self._run(prompt, answers, metadata))

    def __call__(self, task: Any) -> GraphResult:
        return self.invoke(task)

    def _run(
        self, prompt: str | None, answers: dict[str, Any], metadata: dict[str, dict[str, Any]]
    ) -> GraphResult:
        if prompt is not None:  # a new run: nothing of an earlier run is carried over
            self._task, self._results, self._cancelled = prompt, {}, {}
            self._start_step(self._ready())
        while True:
            interrupts = self._run_step(answers, metadata)
            answers, metadata = {}, {}
            if interrupts:
                return self._result("interrupt", interrupts)
            ready = self._ready()
            if not ready:
                return self._result("completed", [])
            self._start_step(ready)

    def _ready(self) -> list[tuple[str, str]]:
        done = self._results.keys() | self._cancelled.keys()
        return [
            (n, node_prompt(self._task, [(p, self._results[p]) for p in preds]))
            for n, preds in self._predecessors.items()
            if n not in done and all(p in self._results for p in preds)
        ]

    def _finished(self, outcome: Outcome) -> None:
        node_id = outcome.run.node_id
        if outcome.result is not None:
            self._results[node_id] = outcome.result
        elif outcome.message is not None:
            self._cancelled[node_id] = outcome.message

    def _result(self, stop_reason: OrchestratorStop, interrupts: list[Interrupt]) -> GraphResult:
        # ROC-GRAPH-016: declaration order, never completion order.
        return GraphResult(
            stop_reason=stop_reason,
            interrupts=[private_copy(i) for i in interrupts],
            results={n: private_copy(self._results[n]) for n in self.nodes if n in self._results},
            cancelled={n: self._cancelled[n] for n in self.nodes if n in self._cancelled},
        )


def _has_cycle(predecessors: Mapping[str, list[str]]) -> bool:
    remaining = {n: set(p) for n, p in predecessors.items()}
    while remaining:
        free = [n for n, p in remaining.items() if not p]
        if not free:
            return True
        for n in free:
            del remaining[n]
        for p in remaining.values():
            p.difference_update(free)
    return False
