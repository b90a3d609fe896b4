"""An OrchestratorSpec (profile multi-agent, harness protocol 5) as plain, validated data.

A graph or swarm scenario is a list of nodes, each an ordinary AgentSpec, plus edges (graph) or an entry
node and a hand-off limit (swarm), plus callbacks on the node events. Only what the scenario language
defines is checked here; whether the runtime accepts the graph (a cycle, an edge to an unknown node) is
the runtime's business, and an adapter reports the runtime's refusal as the runtime's.

Hand-off (swarm): a node agent's scripted model names a hand-off portably with a toolUse of the reserved
tool name ``HANDOFF_TOOL`` and input ``{"node": <node id>}``; the adapter maps it to the runtime's own
hand-off mechanism. A node scenario may therefore not declare a tool of that name.

Node trace (``Trace.node``): a node agent's events carry ``agentPath`` ``["node:<node id>", ...]``; the
orchestrator's own events (``node_start``, ``node_end`` and the node callbacks' ``hook_callback``) carry
none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roc_conformance.adapter.programs import (
    HOOK_OPS,
    PASSIVE_HOOK_OPS,
    ScenarioError,
    Step,
    parse_steps,
)
from roc_conformance.adapter.scenario import Scenario, parse_scenario

HANDOFF_TOOL = "handoff_to"
"""The reserved tool name a scripted swarm node hands off with (input ``{"node": <node id>}``)."""

NODE_HOOK_EVENTS = ("BeforeNodeCall", "AfterNodeCall")
ORCHESTRATOR_KINDS = ("graph", "swarm")
NODE_PATH_PREFIX = "node:"
"""A node agent's events carry ``agentPath`` ``[NODE_PATH_PREFIX + node id, ...]``."""


@dataclass(frozen=True)
class NodeProgram:
    """One node: its id and its agent's scenario."""

    node_id: str
    scenario: Scenario


@dataclass(frozen=True)
class NodeHookProgram:
    """A callback on a node event. ``index`` is its place in the spec (the trace's ``hookIndex``)."""

    index: int
    event: str
    node_id: str | None
    steps: tuple[Step, ...]

    @property
    def interruptible(self) -> bool:
        """BeforeNodeCall callbacks may interrupt and cancel; AfterNodeCall callbacks only use state."""
        return self.event == "BeforeNodeCall"

    def applies_to(self, node_id: str) -> bool:
        """Without a ``nodeId`` filter the callback runs for every node."""
        return self.node_id is None or self.node_id == node_id


@dataclass(frozen=True)
class OrchestratorScenario:
    """A validated OrchestratorSpec: nodes in declaration order, edges (graph), entry and limit (swarm)."""

    kind: str
    nodes: tuple[NodeProgram, ...]
    edges: tuple[tuple[str, str], ...]
    entry: str
    max_handoffs: int  # 0: the runtime's default
    hooks: tuple[NodeHookProgram, ...]


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where} must be a JSON object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where} must be a list")
    return value


def _nodes(spec: Mapping[str, Any]) -> tuple[NodeProgram, ...]:
    nodes: list[NodeProgram] = []
    seen: set[str] = set()
    for i, raw in enumerate(_list(spec.get("nodes", []), "nodes")):
        node = _object(raw, f"nodes[{i}]")
        node_id = node.get("nodeId")
        if not isinstance(node_id, str) or not node_id or node_id in seen:
            raise ScenarioError(f"nodes[{i}]: missing or duplicate nodeId {node_id!r}")
        seen.add(node_id)
        try:
            scenario = parse_scenario(_object(node.get("agent"), f"nodes[{i}].agent"))
        except ScenarioError as exc:
            raise ScenarioError(f"nodes[{i}].agent: {exc}") from exc
        if any(t.name == HANDOFF_TOOL for t in scenario.tools):
            raise ScenarioError(f"nodes[{i}].agent: the tool name {HANDOFF_TOOL!r} is reserved for hand-offs")
        nodes.append(NodeProgram(node_id, scenario))
    if not nodes:
        raise ScenarioError("an orchestrator needs at least one node")
    return tuple(nodes)


def _edges(spec: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    edges: list[tuple[str, str]] = []
    for i, raw in enumerate(_list(spec.get("edges", []), "edges")):
        edge = _object(raw, f"edges[{i}]")
        a, b = edge.get("from"), edge.get("to")
        if not isinstance(a, str) or not isinstance(b, str):
            raise ScenarioError(f"edges[{i}] needs a from and a to")
        edges.append((a, b))
    return tuple(edges)


def _hooks(spec: Mapping[str, Any]) -> tuple[NodeHookProgram, ...]:
    hooks: list[NodeHookProgram] = []
    for i, raw in enumerate(_list(spec.get("hooks", []), "hooks")):
        hook = _object(raw, f"hooks[{i}]")
        event = hook.get("event")
        if event not in NODE_HOOK_EVENTS:
            raise ScenarioError(f"hooks[{i}]: {event!r} is not a node event")
        node_id = hook.get("nodeId")
        if node_id is not None and not isinstance(node_id, str):
            raise ScenarioError(f"hooks[{i}]: nodeId must be a string")
        allowed = HOOK_OPS if event == "BeforeNodeCall" else PASSIVE_HOOK_OPS
        steps = parse_steps(hook.get("steps", []), allowed, f"hooks[{i}].steps")
        hooks.append(NodeHookProgram(i, str(event), node_id, steps))
    return tuple(hooks)


def parse_orchestrator(spec: Mapping[str, Any]) -> OrchestratorScenario:
    """Validate an OrchestratorSpec; any problem is a ``ScenarioError`` (the adapter's harness_error)."""
    kind = spec.get("kind")
    if kind not in ORCHESTRATOR_KINDS:
        raise ScenarioError(f"kind must be 'graph' or 'swarm', got {kind!r}")
    nodes = _nodes(spec)
    edges = _edges(spec)
    entry = spec.get("entry") or ""
    max_handoffs = spec.get("maxHandoffs") or 0
    if not isinstance(entry, str) or not isinstance(max_handoffs, int) or max_handoffs < 0:
        raise ScenarioError("entry must be a string and maxHandoffs a non-negative integer")
    if kind == "swarm" and not entry:
        raise ScenarioError("a swarm needs an entry node")
    if kind == "graph" and entry:
        raise ScenarioError("a graph has no entry node")
    if kind == "swarm" and edges:
        raise ScenarioError("a swarm has no edges")
    return OrchestratorScenario(str(kind), nodes, edges, entry, max_handoffs, _hooks(spec))


def node_path(node_id: str) -> str:
    """The first ``agentPath`` item of a node agent's events."""
    return NODE_PATH_PREFIX + node_id
