"""The orchestrator engine shared by ``Graph`` and ``Swarm`` (profile multi-agent, spec chapter 13).

A run is a sequence of **steps**; a step is the node runs the orchestrator decided to start together (a graph:
every node that is ready when the step starts; a swarm: the current node). Each node run of a step is a
**visit** of its node, numbered per node from 1 over the orchestrator's life, and goes through two phases:

* ``gate``: the ``BeforeNodeCall`` event fires (fan-out, one interrupt per callback); an interrupt stops the
  node before its agent runs, ``cancel_node`` cancels it;
* ``agent``: the node's agent was invoked with the node's prompt; when it stopped with interrupts, the node
  waits in this phase and its agent is only ever resumed with answers from then on.

Every node run of a step runs, also after an earlier one stopped with interrupts; the orchestrator stops at
the end of the step when any node of it is waiting, and reports every waiting node's interrupts, in step
order. Completed and cancelled node runs leave the step and are never run again (ROC-GRAPH-014).

The pending interrupts of the orchestrator live in an ``InterruptState`` of its own, so a resume input is
validated with exactly the agent's checks and codes before anything runs (ROC-GRAPH-010). An answer's route
is read from the interrupt it answers: ``source.nodeId`` names the node, ``source.inner.interruptId`` the
node agent's interrupt.

Errors. A rejected input changes nothing. An error raised while a step runs (a node agent's failure, a
misuse of ``interrupt`` in a callback, a node agent refusing its input) propagates. When no node agent
changed in that invocation (none ran, or the one that failed rolled itself back) the orchestrator is back
where it was, so the same input can be tried again; otherwise the run ends (the orchestrator is idle, what
completed is kept in the node agents), because a node agent that ran cannot be rolled back.

Orchestrator snapshots are not implemented: the state lives in this process only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC
from typing import Any, ClassVar, Literal, TypeVar

from ..agent import Agent, Clock, utc_now
from ..errors import InternalError, InterruptPendingError, InvalidInputError, UnknownInterruptError
from ..hooks import (
    DEFAULT_CANCEL_NODE_MESSAGE,
    AfterNodeCallEvent,
    BeforeNodeCallEvent,
    HookProvider,
    HookRegistry,
    cancel_text,
)
from ..interrupts import (
    AnswerBook,
    InterruptState,
    StoredInterrupt,
    UnitRun,
    response_metadata_of,
    routed_block,
)
from ..types import AgentResult, Interrupt, TextBlock, private_copy
from .ids import gate_point, node_interrupt

NodePhase = Literal["gate", "agent"]
_R = TypeVar("_R")


@dataclass(frozen=True)
class NodeRun:
    """One visit of one node in the current step."""

    node_id: str
    visit: int
    prompt: str
    phase: NodePhase = "gate"


@dataclass(frozen=True)
class Outcome:
    """How a node run ended in this invocation: completed, cancelled, or waiting with interrupts."""

    run: NodeRun
    status: Literal["completed", "cancelled", "interrupted"]
    result: AgentResult | None = None
    message: str | None = None
    reported: list[Interrupt] = field(default_factory=list)
    stored: dict[str, StoredInterrupt] = field(default_factory=dict)


class Orchestrator:
    """Node agents, the ``BeforeNodeCall``/``AfterNodeCall`` hooks, and the pending interrupts of a run."""

    _state_fields: ClassVar[tuple[str, ...]] = ("_pending", "_step", "_visits")
    """What an invocation changes; copied before a step runs so a failure before any node agent ran can be
    undone (subclasses add their own)."""

    def __init__(
        self,
        nodes: Mapping[str, Agent],
        hooks: Iterable[HookProvider],
        orchestrator_id: str,
        clock: Clock | None,
    ) -> None:
        if not nodes:
            raise ValueError("an orchestrator needs at least one node")
        for node_id, agent in nodes.items():
            if not isinstance(node_id, str) or not node_id:
                raise ValueError("node ids are non-empty strings")
            if not isinstance(agent, Agent):
                raise ValueError(f"node {node_id!r} is not an Agent")
        if len({id(agent) for agent in nodes.values()}) != len(nodes):
            # Each node's agent holds that node's paused state; one agent in two nodes would mix them.
            raise ValueError("two nodes share one agent")
        self.orchestrator_id = orchestrator_id
        self.nodes: dict[str, Agent] = dict(nodes)  # declaration order (ROC-GRAPH-016)
        self.hooks = HookRegistry()
        for provider in hooks:
            self.hooks.add_hook(provider)
        self._clock: Clock = clock if clock is not None else utc_now
        self._pending = InterruptState()
        self._step: dict[str, NodeRun] = {}  # the unfinished node runs of the current step, in step order
        self._visits: dict[str, int] = dict.fromkeys(self.nodes, 0)
        self._touched = False  # a node agent changed in the invocation in flight
        self._lock = threading.RLock()

    # --- read-only views ---------------------------------------------------------------------

    @property
    def is_interrupted(self) -> bool:
        return self._pending.activated

    @property
    def interrupts(self) -> list[Interrupt]:
        """The orchestrator's unanswered interrupts (copies)."""
        return [private_copy(i) for i in self._pending.unanswered()]

    def pending_interrupts(self) -> list[dict[str, Any]]:
        """Every pending interrupt as spec JSON, plus ``answer`` when one is stored (as ROC-PENDING-002)."""
        return self._pending.pending_list()

    # --- input -------------------------------------------------------------------------------

    def _accept(self, prompt: Any) -> tuple[str | None, dict[str, Any], dict[str, dict[str, Any]]]:
        """Validate an input completely: a task to start a run with, or the answers of a resume (and the
        ``metadata`` of their blocks, by id: ROC-AUDIT-003).

        ROC-GRAPH-010: the agent's own checks, in the agent's order and with its codes, over the
        orchestrator's pending interrupts; then expiry; nothing has changed or run when this raises.
        """
        try:
            answers = self._pending.parse_resume(prompt)
        except InterruptPendingError as error:
            error.details = {"pending": self.pending_interrupts()}  # the orchestrator's own list
            raise
        if not answers:  # idle and no interruptResponse in the input: a task
            if not isinstance(prompt, str) or not prompt:
                raise InvalidInputError("an orchestrator's task is a non-empty string")
            return prompt, {}, {}
        now = self._clock()
        if now.tzinfo is None:
            now = now.replace(tzinfo=UTC)
        self._pending.check_expiry(answers, now)  # EXPIRED ranks after every other code
        resolutions = [*answers, *self._pending.expiry_resolutions(answers, now)]
        self._check_node_agents(resolutions)
        return None, dict(resolutions), response_metadata_of(prompt)

    def _check_node_agents(self, resolutions: list[tuple[str, Any]]) -> None:
        """Each node agent an answer is routed to still waits for that interrupt (it could have been resumed
        directly, bypassing the orchestrator); checked before any node runs, so a refusal changes nothing."""
        for outer_id, _ in resolutions:
            source = self._pending.interrupts[outer_id].interrupt.source
            if source.inner is None or source.node_id is None:
                continue  # a BeforeNodeCall interrupt: answered on the orchestrator's own event
            agent = self.nodes[source.node_id]
            if source.inner.interrupt_id not in {i.id for i in agent.interrupts}:
                raise UnknownInterruptError(
                    f"the agent of node {source.node_id!r} no longer waits for {source.inner.interrupt_id!r}",
                    details={"interruptId": outer_id},
                )

    # --- running -----------------------------------------------------------------------------

    def _guarded(self, body: Callable[[], _R]) -> _R:
        """Run ``body``; on an error, undo the invocation if no node agent ran in it, else end the run."""
        saved = {name: _copied(getattr(self, name)) for name in self._state_fields}
        self._touched = False
        try:
            return body()
        except BaseException:
            if self._touched:
                self._pending = InterruptState()
                self._step = {}
            else:
                for name, value in saved.items():
                    setattr(self, name, value)
            raise

    def _start_step(self, runs: list[tuple[str, str]]) -> None:
        """A new step of one run per ``(node id, prompt)``, in that order; each run is a new visit."""
        self._step = {}
        for node_id, prompt in runs:
            self._visits[node_id] += 1
            self._step[node_id] = NodeRun(node_id, self._visits[node_id], prompt)
            self._started(node_id)

    def _run_step(
        self, answers: Mapping[str, Any], metadata: Mapping[str, dict[str, Any]] | None = None
    ) -> list[Interrupt]:
        """Run every unfinished node run of the step; the interrupts to report (``[]``: the step completed).

        ROC-GRAPH-009: every node run of the step runs, also after an earlier one stopped with interrupts.

        ``answers`` are this invocation's validated answers and decisions by outer id (only the first step of
        an invocation gets any), with their blocks' ``metadata``, which goes with them to the node agents.
        """
        working = self._pending.copy()
        working.apply_answers(list(answers.items()), metadata)
        reported: list[Interrupt] = []
        stored: dict[str, StoredInterrupt] = {}
        for node_id, run in list(self._step.items()):
            outcome = self._run_node(run, working, answers)
            if outcome.status == "interrupted":
                self._step[node_id] = outcome.run
                reported.extend(outcome.reported)
                stored.update(outcome.stored)
            else:
                del self._step[node_id]  # ROC-GRAPH-014: a finished node run never runs again
                self._finished(outcome)
        self._pending = InterruptState(activated=bool(stored), interrupts=stored)
        return reported

    def _run_node(self, run: NodeRun, working: InterruptState, answers: Mapping[str, Any]) -> Outcome:
        agent = self.nodes[run.node_id]
        mine = {k: s for k, s in working.interrupts.items() if s.interrupt.source.node_id == run.node_id}
        if run.phase == "gate":
            gated = self._gate(run, agent, mine)
            if gated is not None:
                return gated
            run = replace(run, phase="agent")
            result = self._invoke(agent, run.prompt)
        else:
            routed = [(s, answers[k]) for k, s in mine.items() if k in answers]
            if not routed:
                # ROC-GRAPH-013: a node agent that got none of its answers is not resumed; its interrupts
                # stay pending with the same ids.
                return Outcome(run, "interrupted", reported=[s.interrupt for s in mine.values()], stored=mine)
            # ROC-GRAPH-011, ROC-GRAPH-012: exactly this node's answers, under the node agent's own ids, as a
            # resume of the paused agent (never its prompt again).
            blocks = [
                routed_block(s.interrupt.source.inner.interrupt_id, value, s.response_metadata)
                for s, value in routed
                if s.interrupt.source.inner is not None
            ]
            result = self._invoke(agent, blocks)
        if result.stop_reason == "interrupt":
            # ROC-GRAPH-007, ROC-GRAPH-008: each of the agent's pending interrupts, wrapped.
            wrapped = [node_interrupt(run.node_id, run.visit, agent.agent_id, i) for i in result.interrupts]
            return Outcome(
                run, "interrupted", reported=wrapped, stored={w.id: StoredInterrupt(w) for w in wrapped}
            )
        # ROC-GRAPH-015: only a node whose agent completed gets AfterNodeCall.
        self.hooks.invoke(
            AfterNodeCallEvent(agent, orchestrator=self, node_id=run.node_id, visit=run.visit, result=result)
        )
        return Outcome(run, "completed", result=result)

    def _invoke(self, agent: Agent, prompt: str | list[dict[str, Any]]) -> AgentResult:
        """Invoke a node agent, noting whether it changed: a failing agent is back where it was (ROC-ERR-006),
        except after INTERNAL, which keeps the batches it completed (ROC-ERR-012)."""
        try:
            result = agent.invoke(prompt)
        except InternalError:
            self._touched = True
            raise
        self._touched = True
        return result

    def _gate(self, run: NodeRun, agent: Agent, mine: dict[str, StoredInterrupt]) -> Outcome | None:
        """Fire ``BeforeNodeCall``: an outcome when it stops or cancels the node, ``None`` to let it run."""
        unit = UnitRun(gate_point(run.node_id, run.visit), AnswerBook(mine))
        event = BeforeNodeCallEvent(agent, orchestrator=self, node_id=run.node_id, visit=run.visit)
        # ROC-GRAPH-001, ROC-GRAPH-002, ROC-GRAPH-003: every callback runs, one interrupt per callback, one
        # name scope per event instance (also across the replays of this visit's gate).
        raised = self.hooks.invoke_interruptible(event, unit)
        if raised:
            # ROC-GRAPH-006: answers stay stored until the gate lets the node through, so every replay of the
            # event gets them; an unanswered interrupt no callback raised again is withdrawn.
            raised_ids = {i.id for i in raised}
            kept = {k: s for k, s in mine.items() if s.answered or k in raised_ids}
            for interrupt in raised:
                kept.setdefault(interrupt.id, StoredInterrupt(interrupt))
            return Outcome(run, "interrupted", reported=raised, stored=kept)
        message = cancel_text(event.cancel_node, DEFAULT_CANCEL_NODE_MESSAGE)
        if message is not None:  # ROC-GRAPH-004: the node does not run; its successors never do
            return Outcome(run, "cancelled", message=message)
        return None

    # --- what subclasses define --------------------------------------------------------------

    def _started(self, node_id: str) -> None:
        """A new visit of ``node_id`` starts (before its gate fires)."""

    def _finished(self, outcome: Outcome) -> None:
        """A node run completed or was cancelled."""
        raise NotImplementedError


def result_text(result: AgentResult) -> str:
    """The text of a node's answer: the text blocks of its final message, one per line."""
    return "\n".join(b.text for b in result.message.content if isinstance(b, TextBlock))


def node_prompt(task: str, inputs: Iterable[tuple[str, AgentResult]]) -> str:
    """A node's prompt: the task, then for each input node (a graph: the predecessors in declaration order;
    a swarm: the node that handed off) a paragraph ``Input from <node id>:`` followed by its answer's text."""
    parts = [task, *(f"Input from {node_id}:\n{result_text(result)}" for node_id, result in inputs)]
    return "\n\n".join(parts)


def _copied(value: Any) -> Any:
    """A copy an invocation's changes cannot reach: containers and the interrupt state are copied, the rest
    (strings, numbers, ``None``) is immutable."""
    return value.copy() if hasattr(value, "copy") else value
