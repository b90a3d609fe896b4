"""A kit ``OrchestratorScenario`` -> a live ``Graph`` or ``Swarm`` whose node runs are recorded as a trace.

Profile multi-agent, harness protocol 5. Each node's agent is built from its scenario as ``build`` builds any
agent, recording into the node's recorder (``Trace.node``: ``agentPath`` ``["node:<id>"]``). The reference
swarm's own hand-off tool is named ``handoff_to`` and takes ``{"node": <id>}``, exactly the reserved tool use
of the scenario language, so a scripted hand-off reaches it unchanged.

Node events. ``NodeRuns`` writes ``node_start`` and ``node_end`` from what the runtime's public surfaces
show: the ``BeforeNodeCall`` event (a recorder callback registered before the scenario's callbacks), the
node agent's ``invoke`` (``NodeAgent``, the runtime's ``Agent`` with its invoke observed), and the
scenario's own callbacks (whether one paused). A gate firing that neither let the agent run nor paused
cancelled the node; its ``node_end`` is written when the orchestrator moves on to the next node run, or at
the end of the invocation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roc_conformance.adapter import (
    NodeHookProgram,
    OrchestratorScenario,
    Scenario,
    StateView,
    Trace,
    run_program,
)

from roc_reference.agent import Agent, PromptInput
from roc_reference.executors import ConcurrentExecutor, Executor, SequentialExecutor
from roc_reference.hooks import (
    DEFAULT_CANCEL_NODE_MESSAGE,
    AfterNodeCallEvent,
    BeforeNodeCallEvent,
    HookRegistry,
    cancel_text,
)
from roc_reference.orchestration import Graph, GraphResult, Orchestrator, Swarm, SwarmResult
from roc_reference.types import AgentResult

from .build import CountingModel, ScenarioHooks, _messages, _tools, decision_of


@dataclass
class _Gate:
    """One node run whose ``BeforeNodeCall`` fired in this invocation and has not ended yet."""

    node_id: str
    visit: int
    event: BeforeNodeCallEvent
    paused: bool = False


@dataclass
class NodeRuns:
    """Writes ``node_start`` / ``node_end`` for the node runs of one orchestrator (harness protocol 5)."""

    trace: Trace
    visits: dict[str, int] = field(default_factory=dict)  # node id -> its latest visit
    started: set[tuple[str, int]] = field(default_factory=set)  # node runs taken up in this invocation
    gate: _Gate | None = None

    def begin(self) -> None:
        """A new invocation: every node run is taken up afresh."""
        self.started = set()
        self.gate = None

    def _start(self, node_id: str, visit: int) -> None:
        self._close_gate()
        if (node_id, visit) not in self.started:
            self.started.add((node_id, visit))
            self.trace.node_start(node_id, visit)

    def _close_gate(self) -> None:
        """The gate that fired last ended without invoking its agent: it paused or cancelled the node."""
        gate, self.gate = self.gate, None
        if gate is None:
            return
        if gate.paused:
            self.trace.node_end(gate.node_id, gate.visit, "interrupted")
        elif cancel_text(gate.event.cancel_node, DEFAULT_CANCEL_NODE_MESSAGE) is not None:
            self.trace.node_end(gate.node_id, gate.visit, "cancelled")

    def gate_fires(self, event: BeforeNodeCallEvent) -> None:
        """The recorder of ``BeforeNodeCall``: runs before the scenario's callbacks of the firing."""
        self._start(event.node_id, event.visit)
        self.visits[event.node_id] = event.visit
        self.gate = _Gate(event.node_id, event.visit, event)

    def callback_paused(self) -> None:
        if self.gate is not None:
            self.gate.paused = True

    def agent_invoked(self, node_id: str) -> int:
        """The node agent is invoked (started or resumed); the visit it runs for."""
        if self.gate is not None and self.gate.node_id == node_id:
            self.gate = None  # the gate let the agent run
        visit = self.visits.get(node_id, 1)
        self._start(node_id, visit)
        return visit

    def agent_returned(self, node_id: str, visit: int, result: AgentResult) -> None:
        outcome = "interrupted" if result.stop_reason == "interrupt" else "completed"
        self.trace.node_end(node_id, visit, outcome)

    def end(self) -> None:
        self._close_gate()


class NodeAgent(Agent):
    """The runtime's ``Agent`` for a node, telling ``NodeRuns`` when the orchestrator invokes it."""

    node_runs: NodeRuns
    node_id: str

    def invoke(self, prompt: PromptInput) -> AgentResult:
        visit = self.node_runs.agent_invoked(self.node_id)
        result = super().invoke(prompt)
        self.node_runs.agent_returned(self.node_id, visit, result)
        return result


def _node_agent(scenario: Scenario, trace: Trace, node_id: str, runs: NodeRuns) -> NodeAgent:
    model = CountingModel(_messages(scenario), trace)
    executor: Executor = ConcurrentExecutor() if scenario.executor == "concurrent" else SequentialExecutor()
    agent = NodeAgent(
        model,
        tools=_tools(scenario, trace),  # the scenario tools and the built-in ones it names
        hooks=[ScenarioHooks(scenario, trace)],
        executor=executor,
        state=scenario.state,
        agent_id=scenario.agent_id,
    )
    agent.node_runs = runs
    agent.node_id = node_id
    return agent


class NodeHooks:
    """The scenario's node callbacks in spec order (hookIndex), after the ``BeforeNodeCall`` recorder."""

    def __init__(self, scenario: OrchestratorScenario, runs: NodeRuns, state: dict[str, Any]) -> None:
        self.scenario = scenario
        self.runs = runs
        self.view = StateView(get=state.get, has=lambda k: k in state, put=state.__setitem__)

    def register_hooks(self, registry: HookRegistry, **_kwargs: Any) -> None:
        registry.add_callback(BeforeNodeCallEvent, self.runs.gate_fires)
        for hook in self.scenario.hooks:
            self._register(registry, hook)

    def _register(self, registry: HookRegistry, hook: NodeHookProgram) -> None:
        trace, runs, view = self.runs.trace, self.runs, self.view
        if hook.event == "BeforeNodeCall":

            def before(e: BeforeNodeCallEvent) -> None:
                if not hook.applies_to(e.node_id):
                    return
                trace.node_hook_callback(hook.event, hook.index, e.node_id, e.visit)
                try:
                    run = run_program(hook.steps, interrupt=e.interrupt, state=view, decision_of=decision_of)
                except Exception:  # a decision the program did not handle: the runtime's default outcome
                    raise
                except BaseException:  # the runtime's pause signal: this callback raised an interrupt
                    runs.callback_paused()
                    raise
                if run.cancel is not None:
                    e.cancel_node = run.cancel

            registry.add_callback(BeforeNodeCallEvent, before)
        else:

            def after(e: AfterNodeCallEvent) -> None:
                if hook.applies_to(e.node_id):
                    trace.node_hook_callback(hook.event, hook.index, e.node_id, e.visit)
                    run_program(hook.steps, interrupt=None, state=view)

            registry.add_callback(AfterNodeCallEvent, after)


@dataclass
class BuiltOrchestrator:
    """A scenario graph or swarm, its node recorder and the state its callbacks share."""

    orchestrator: Orchestrator
    runs: NodeRuns
    state: dict[str, Any]

    def invoke(self, value: Any) -> dict[str, Any]:
        """Run the orchestrator on a task or a resume input; the ``OrchestratorResult`` JSON."""
        self.runs.begin()
        try:
            if isinstance(self.orchestrator, Graph):
                return self._graph_json(self.orchestrator.invoke(value))
            assert isinstance(self.orchestrator, Swarm)
            return _swarm_json(self.orchestrator.invoke(value))
        finally:
            self.runs.end()

    def _graph_json(self, result: GraphResult) -> dict[str, Any]:
        return {
            "stopReason": result.stop_reason,
            "interrupts": [i.to_json() for i in result.interrupts],
            # ROC-GRAPH-016: the graph's own order (declaration order), as it returned it.
            "results": [
                {"nodeId": n, "visit": self.runs.visits.get(n, 1), "result": r.to_json()}
                for n, r in result.results.items()
            ],
            "cancelled": dict(result.cancelled),
        }


def _swarm_json(result: SwarmResult) -> dict[str, Any]:
    return {
        "stopReason": result.stop_reason,
        "interrupts": [i.to_json() for i in result.interrupts],
        "results": [
            {"nodeId": r.node_id, "visit": r.visit, "result": r.result.to_json()} for r in result.results
        ],
        "cancelled": dict(result.cancelled),
    }


def build_orchestrator(scenario: OrchestratorScenario, trace: Trace) -> BuiltOrchestrator:
    """A fresh graph or swarm for ``scenario``; the runtime's refusal of its shape (a cycle, an unknown node)
    propagates as the runtime raised it."""
    runs = NodeRuns(trace)
    state: dict[str, Any] = {}
    nodes = {
        n.node_id: _node_agent(n.scenario, trace.node(n.node_id), n.node_id, runs) for n in scenario.nodes
    }
    hooks = [NodeHooks(scenario, runs, state)]
    orchestrator: Orchestrator
    if scenario.kind == "graph":
        orchestrator = Graph(nodes, scenario.edges, hooks)
    elif scenario.max_handoffs:
        orchestrator = Swarm(nodes, scenario.entry, scenario.max_handoffs, hooks)
    else:
        orchestrator = Swarm(nodes, scenario.entry, hooks=hooks)
    return BuiltOrchestrator(orchestrator, runs, state)
