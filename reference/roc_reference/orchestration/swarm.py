"""``Swarm``: one node runs at a time and hands the task off to the next (spec chapter 13).

Hand-off. The swarm registers a tool named ``handoff_to`` (input ``{"node": <node id>}``) on each node's
agent. When a node's visit completes and its agent called the tool during that visit, the swarm runs the named
node next, with the task followed by the handing node's answer as its prompt (``node_prompt``); the last call
counts. A call naming the calling node or a node the swarm does not have gets an error result, so the model
can correct itself. Without a hand-off the swarm completes. After ``max_handoffs`` hand-offs a further one is
not followed: the swarm completes and ``SwarmResult.unfollowed_handoff`` names the node it asked for.

Each step is the one current node; a hand-off target's ``BeforeNodeCall`` or agent may interrupt like any
node, and on resume the nodes that ran before it are not run again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..agent import Agent, Clock
from ..hooks import HookProvider
from ..tools import Tool, tool
from ..types import AgentResult, Interrupt, private_copy
from .base import Orchestrator, Outcome, node_prompt
from .graph import OrchestratorStop

HANDOFF_TOOL = "handoff_to"
DEFAULT_MAX_HANDOFFS = 10


@dataclass(frozen=True)
class NodeResult:
    """One completed visit of a swarm node."""

    node_id: str
    visit: int
    result: AgentResult


@dataclass(frozen=True)
class SwarmResult:
    """What one invocation of a swarm ended with.

    ``results`` holds one entry per completed node visit of the current run, in execution order
    (ROC-GRAPH-017); ``cancelled`` the cancel message of a node whose ``BeforeNodeCall`` cancelled it (the
    swarm ends there).
    """

    stop_reason: OrchestratorStop
    interrupts: list[Interrupt]
    results: list[NodeResult]
    cancelled: dict[str, str]
    unfollowed_handoff: str | None = None


class Swarm(Orchestrator):
    """Agents that hand a task to one another (profile multi-agent)."""

    _state_fields = (
        *Orchestrator._state_fields,
        "_task",
        "_results",
        "_cancelled",
        "_requests",
        "_handoffs",
        "_next",
        "_unfollowed",
    )

    def __init__(
        self,
        agents: Mapping[str, Agent],
        entry: str,
        max_handoffs: int = DEFAULT_MAX_HANDOFFS,
        hooks: Iterable[HookProvider] = (),
        swarm_id: str = "swarm",
        *,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(agents, hooks, swarm_id, clock)
        if entry not in self.nodes:
            raise ValueError(f"entry node {entry!r} is not one of the swarm's agents")
        if not isinstance(max_handoffs, int) or max_handoffs < 0:
            raise ValueError("max_handoffs is a non-negative integer")
        for node_id, agent in self.nodes.items():
            if HANDOFF_TOOL in agent.tool_registry:
                raise ValueError(f"the agent of node {node_id!r} already has a tool named {HANDOFF_TOOL!r}")
        for node_id, agent in self.nodes.items():
            agent.tool_registry[HANDOFF_TOOL] = self._handoff_tool(node_id)
        self.entry = entry
        self.max_handoffs = max_handoffs
        self._task = ""
        self._results: list[NodeResult] = []
        self._cancelled: dict[str, str] = {}
        self._requests: dict[str, str] = {}  # node id -> the node its current visit hands off to
        self._handoffs = 0
        self._next: tuple[str, str] | None = None  # (node id, prompt) of the next step
        self._unfollowed: str | None = None

    def invoke(self, task: Any) -> SwarmResult:
        """Run the swarm on ``task`` (a string), or resume it with a list of ``interruptResponse`` blocks."""
        with self._lock:
            prompt, answers, metadata = self._accept(task)
            return self._guarded(lambda: self._run(prompt, answers, metadata))

    def __call__(self, task: Any) -> SwarmResult:
        return self.invoke(task)

    def _run(
        self, prompt: str | None, answers: dict[str, Any], metadata: dict[str, dict[str, Any]]
    ) -> SwarmResult:
        if prompt is not None:  # a new run
            self._task, self._results, self._cancelled = prompt, [], {}
            self._handoffs, self._next, self._unfollowed = 0, None, None
            self._start_step([(self.entry, prompt)])
        while True:
            interrupts = self._run_step(answers, metadata)
            answers, metadata = {}, {}
            if interrupts:
                return self._result("interrupt", interrupts)
            step, self._next = self._next, None
            if step is None:
                return self._result("completed", [])
            self._start_step([step])

    def _started(self, node_id: str) -> None:
        self._requests.pop(node_id, None)  # a hand-off asked for in an earlier visit does not count

    def _finished(self, outcome: Outcome) -> None:
        run = outcome.run
        if outcome.result is None:
            if outcome.message is not None:  # cancelled: the swarm ends with this node
                self._cancelled[run.node_id] = outcome.message
            return
        self._results.append(NodeResult(run.node_id, run.visit, outcome.result))  # ROC-GRAPH-017
        target = self._requests.pop(run.node_id, None)
        if target is None:
            return
        if self._handoffs >= self.max_handoffs:
            self._unfollowed = target
            return
        self._handoffs += 1
        self._next = (target, node_prompt(self._task, [(run.node_id, outcome.result)]))

    def _handoff_tool(self, node_id: str) -> Tool:
        def handoff_to(node: str) -> str:
            """Hand the task to another node of the swarm, which runs once this node's answer is complete."""
            if node == node_id or node not in self.nodes:
                others = ", ".join(n for n in self.nodes if n != node_id)
                raise ValueError(f"no other node named {node!r}; the other nodes are: {others}")
            self._requests[node_id] = node
            return f"the task goes to {node} after this answer"

        return tool(name=HANDOFF_TOOL)(handoff_to)

    def _result(self, stop_reason: OrchestratorStop, interrupts: list[Interrupt]) -> SwarmResult:
        return SwarmResult(
            stop_reason=stop_reason,
            interrupts=[private_copy(i) for i in interrupts],
            results=[NodeResult(r.node_id, r.visit, private_copy(r.result)) for r in self._results],
            cancelled=dict(self._cancelled),
            unfollowed_handoff=self._unfollowed,
        )
