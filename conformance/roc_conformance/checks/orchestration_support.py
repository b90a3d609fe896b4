"""What the multi-agent checks (spec chapter 13) share: requirement IDs, the node scenarios (an agent that
asks, one that answers at once, a swarm node that hands off), OrchestratorSpec builders, and readers of an
orchestrator's reply and trace (harness protocol 5).

Every expectation is computed from the scenario and the spec, never from the implementation's own output. A
node agent's events carry ``agentPath`` ``["node:<id>"]``. A paused node agent (its tool use ``c1`` waits)
that is resumed runs that tool body before it calls its model again; one that is prompted again calls its
model first (``reprompted``).
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import CheckContext, Finding

# Requirement IDs (spec/13-orchestration.md); one place for renumbering.
GATE_FIRED = "ROC-GRAPH-001"
GATE_REPORTED = "ROC-GRAPH-002"
GATE_NAMES = "ROC-GRAPH-003"
GATE_CANCEL = "ROC-GRAPH-004"
GATE_DECISION = "ROC-GRAPH-005"
GATE_REPLAY = "ROC-GRAPH-006"
NODE_WRAPPED = "ROC-GRAPH-007"
NODE_IDS = "ROC-GRAPH-008"
STEP_ALL = "ROC-GRAPH-009"
RESUME_VALIDATED = "ROC-GRAPH-010"
RESUME_ROUTED = "ROC-GRAPH-011"
RESUME_NOT_REPROMPTED = "ROC-GRAPH-012"
RESUME_PARTIAL = "ROC-GRAPH-013"
NO_RERUN = "ROC-GRAPH-014"
AFTER_NODE = "ROC-GRAPH-015"
GRAPH_ORDER = "ROC-GRAPH-016"
SWARM_ORDER = "ROC-GRAPH-017"

PROFILE = "multi-agent"
HANDOFF_TOOL = "handoff_to"
"""The reserved tool name a scripted swarm node hands off with (conformance/README.md, "Orchestrators")."""
EXPECTED = "A"


def done_text(agent_id: str) -> str:
    """The closing text of a node agent's scenario."""
    return f"{agent_id} done"


def asker(
    ctx: CheckContext,
    agent_id: str,
    *,
    name: str = "approve",
    reason: Any = None,
    metadata: dict[str, Any] | None = None,
    expect: str | None = None,
) -> dict[str, Any]:
    """A node agent whose one tool use ``c1`` (tool ``ask``) asks ``name``, then closes with its done text.

    With ``expect`` the tool fails unless the answer it receives is ``expect``, so an answer routed to the
    wrong node agent shows as a failed tool at that node's path."""
    ask: dict[str, Any] = {"name": name}
    if reason is not None:
        ask["reason"] = reason
    if metadata is not None:
        ask["metadata"] = metadata
    steps: list[dict[str, Any]] = [{"interrupt": ask}]
    if expect is not None:
        steps += [
            {"setState": {"key": "got", "fromAnswer": True}},
            {"skipIfState": {"key": "got", "equals": expect}},
            {"fail": {"message": "not the answer this node agent was asked for"}},
        ]
    else:
        steps.append(sc.returns("asked"))
    return sc.agent_spec(
        agent_id,
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("c1", "ask", {})), sc.turn(sc.text(done_text(agent_id)))],
        tools=[sc.tool("ask", *steps)],
    )


def plain(ctx: CheckContext, agent_id: str) -> dict[str, Any]:
    """A node agent that answers at once, with no tool."""
    return sc.agent_spec(
        agent_id, executor=sc.executor_for(ctx.profiles), turns=[sc.turn(sc.text(done_text(agent_id)))]
    )


def hands_off(ctx: CheckContext, agent_id: str, *targets: str | None) -> dict[str, Any]:
    """A swarm node agent: visit n (from 1) hands off to ``targets[n-1]`` (``None``: no hand-off), each visit
    closing with ``"<agent_id> done <n>"``. Its scripted model answers turns in call order: a hand-off visit
    takes two turns (the hand-off tool use, then the text), a plain one takes one."""
    turns: list[dict[str, Any]] = []
    for n, target in enumerate(targets, start=1):
        if target is not None:
            turns.append(sc.turn(sc.tool_use(f"h{n}", HANDOFF_TOOL, {"node": target})))
        turns.append(sc.turn(sc.text(f"{agent_id} done {n}")))
    return sc.agent_spec(agent_id, executor=sc.executor_for(ctx.profiles), turns=turns)


def node(node_id: str, agent: dict[str, Any]) -> dict[str, Any]:
    return {"nodeId": node_id, "agent": agent}


def graph(
    nodes: list[dict[str, Any]],
    edges: tuple[tuple[str, str], ...] = (),
    hooks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A graph OrchestratorSpec: nodes in declaration order, edges as ``(from, to)``."""
    spec: dict[str, Any] = {
        "kind": "graph",
        "nodes": nodes,
        "edges": [{"from": a, "to": b} for a, b in edges],
    }
    if hooks:
        spec["hooks"] = hooks
    return spec


def swarm(
    nodes: list[dict[str, Any]], entry: str, hooks: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": "swarm", "nodes": nodes, "entry": entry}
    if hooks:
        spec["hooks"] = hooks
    return spec


def before_node(*steps: dict[str, Any], node_id: str | None = None) -> dict[str, Any]:
    """A BeforeNodeCall callback (for every node unless ``node_id``)."""
    hook: dict[str, Any] = {"event": "BeforeNodeCall", "steps": list(steps)}
    if node_id is not None:
        hook["nodeId"] = node_id
    return hook


def after_node(*steps: dict[str, Any], node_id: str | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"event": "AfterNodeCall", "steps": list(steps)}
    if node_id is not None:
        hook["nodeId"] = node_id
    return hook


def ask(name: str) -> dict[str, Any]:
    return {"interrupt": {"name": name}}


def noop() -> dict[str, Any]:
    """A callback step that does nothing visible (a callback that neither asks nor cancels)."""
    return {"setState": {"key": "seen", "value": True}}


# --- reading a reply ---------------------------------------------------------------------------------


def outcome(out: dict[str, Any]) -> dict[str, Any]:
    """The reply's ``orchestratorResult`` (``{}`` when the reply has another outcome)."""
    value = out.get("orchestratorResult")
    return value if isinstance(value, dict) else {}


def stop_reason(out: dict[str, Any]) -> str | None:
    value = outcome(out).get("stopReason")
    return value if isinstance(value, str) else None


def interrupts(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in outcome(out).get("interrupts") or [] if isinstance(i, dict)]


def source_of(item: dict[str, Any]) -> dict[str, Any]:
    source = item.get("source")
    return source if isinstance(source, dict) else {}


def by_node(out: dict[str, Any], kind: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The reply's interrupts by ``source.nodeId`` (only those of ``source.kind`` ``kind`` when given)."""
    got: dict[str, list[dict[str, Any]]] = {}
    for item in interrupts(out):
        source = source_of(item)
        if kind is not None and source.get("kind") != kind:
            continue
        got.setdefault(str(source.get("nodeId")), []).append(item)
    return got


def ids_of(items: list[dict[str, Any]]) -> list[str]:
    return [str(i.get("id")) for i in items]


def results(out: dict[str, Any]) -> list[tuple[str, int]]:
    """The node results as ``(nodeId, visit)``, in the order the reply lists them."""
    return [
        (str(r.get("nodeId")), int(r.get("visit") or 0))
        for r in outcome(out).get("results") or []
        if isinstance(r, dict)
    ]


def result_texts(out: dict[str, Any]) -> dict[str, str]:
    """Each completed node's final text (the last visit's, for a swarm)."""
    texts: dict[str, str] = {}
    for r in outcome(out).get("results") or []:
        content = ((r.get("result") or {}).get("message") or {}).get("content") or []
        texts[str(r.get("nodeId"))] = "".join(
            str(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return texts


def cancelled(out: dict[str, Any]) -> dict[str, str]:
    value = outcome(out).get("cancelled")
    return dict(value) if isinstance(value, dict) else {}


def path_of(node_id: str) -> list[str]:
    return [f"node:{node_id}"]


def node_events(out: dict[str, Any], node_id: str) -> list[dict[str, Any]]:
    """The events of node ``node_id``'s agent (and of the sub-agents it runs)."""
    prefix = path_of(node_id)
    return [e for e in out.get("trace", []) if (e.get("agentPath") or [])[:1] == prefix]


def model_turns(out: dict[str, Any], node_id: str) -> list[int]:
    """The script turns node ``node_id``'s agent answered in this reply (0: it was prompted)."""
    return [
        int(e.get("turn", -1))
        for e in out.get("trace", [])
        if e.get("kind") == "model_call" and (e.get("agentPath") or []) == path_of(node_id)
    ]


def ran(out: dict[str, Any]) -> list[str]:
    """The nodes whose agent did anything in this reply, in order of their first event."""
    seen: list[str] = []
    for e in out.get("trace", []):
        path = e.get("agentPath") or []
        if path and str(path[0]).startswith("node:"):
            node_id = str(path[0])[len("node:") :]
            if node_id not in seen:
                seen.append(node_id)
    return seen


def node_hook_calls(out: dict[str, Any], event: str) -> list[tuple[int, str, int]]:
    """The node callbacks of ``event`` that ran, as ``(hookIndex, nodeId, visit)``, in order."""
    return [
        (int(e.get("hookIndex", -1)), str(e.get("nodeId")), int(e.get("visit") or 0))
        for e in out.get("trace", [])
        if e.get("kind") == "hook_callback" and e.get("event") == event and not e.get("agentPath")
    ]


def tool_outcomes(out: dict[str, Any], node_id: str) -> dict[str, str]:
    """``tool_end`` outcome by toolUseId of node ``node_id``'s agent."""
    return {
        str(e.get("toolUseId")): str(e.get("outcome"))
        for e in out.get("trace", [])
        if e.get("kind") == "tool_end" and (e.get("agentPath") or []) == path_of(node_id)
    }


def shown(out: dict[str, Any]) -> str:
    """A short description of a reply for a finding."""
    if "error" in out:
        return f"error {(out['error'] or {}).get('code')}"
    if "crash" in out:
        return f"crash {(out['crash'] or {}).get('message')}"
    if "orchestratorResult" not in out:
        return f"no orchestratorResult ({sorted(k for k in out if k not in ('trace', 'messages', 'state'))})"
    return (
        f"stopReason {stop_reason(out)!r}, interrupts {ids_of(interrupts(out))}, results {results(out)}, "
        f"cancelled {cancelled(out)}"
    )


def error_code(out: dict[str, Any]) -> str | None:
    err = out.get("error")
    return err.get("code") if isinstance(err, dict) else None


def resume(*answers: tuple[str, Any]) -> dict[str, Any]:
    """Resume input answering ``(interrupt id, response)`` pairs."""
    return sc.resume(*(sc.answer(iid, value) for iid, value in answers))


# --- set-ups and consequences ------------------------------------------------------------------------


def followed(ctx: CheckContext, requirement: str, message: str, after: str) -> None:
    """Record what ``requirement`` could not be judged on because ``after`` failed first (never a FAIL)."""
    ctx.evidence.consequences.append(Finding((requirement,), message, after=(after,)))


def paused_nodes(
    ctx: CheckContext, spec: dict[str, Any], requirement: str, want: dict[str, int], label: str
) -> tuple[str, dict[str, Any]] | None:
    """Create the orchestrator and give it a task; it must stop with ``want[nodeId]`` node interrupts per
    node, with distinct ids. Otherwise the rule that broke (ROC-GRAPH-007 or ROC-GRAPH-009 for the count,
    ROC-GRAPH-008 for shared ids) is recorded as spoiling ``requirement``'s set-up, and ``None`` returned."""
    handle = ctx.client.create_orchestrator(spec)
    out = ctx.client.invoke(handle, {"prompt": "task"})
    got = {n: len(items) for n, items in by_node(out, "node").items()}
    if got != want:
        cause = STEP_ALL if len(want) > 1 and set(got) < set(want) else NODE_WRAPPED
        if requirement != cause:
            followed(ctx, requirement, f"{label}: the task gave {shown(out)}, expected {want}", cause)
            return None
    ids = ids_of(interrupts(out))
    if len(set(ids)) != len(ids) and requirement != NODE_IDS:
        followed(ctx, requirement, f"{label}: the pending interrupts share ids {ids}", NODE_IDS)
        return None
    return handle, out


def resumed_first(out: dict[str, Any], node_id: str) -> str | None:
    """What node ``node_id``'s agent did first in this reply: ``"tool"`` (a tool body started: the paused
    tool use was resumed), ``"model"`` (its model was called: it was prompted), or ``None`` (neither)."""
    for e in out.get("trace", []):
        if (e.get("agentPath") or []) != path_of(node_id):
            continue
        if e.get("kind") == "tool_start":
            return "tool"
        if e.get("kind") == "model_call":
            return "model"
    return None


def reprompted(out: dict[str, Any], *node_ids: str) -> list[str]:
    """The nodes among ``node_ids`` (each a paused node agent whose paused tool use is ``c1``) whose agent
    was prompted in this reply instead of resumed: its model was called before any tool body ran, or its
    model answered turn 0 (the scripts' first turn, which only a prompt of a fresh agent reaches)."""
    return [n for n in node_ids if resumed_first(out, n) == "model" or 0 in model_turns(out, n)]


def spoiled_by_reprompt(
    ctx: CheckContext, requirement: str, out: dict[str, Any], label: str, *node_ids: str
) -> bool:
    """Whether a resume reply prompted a paused node agent again (ROC-GRAPH-012's failure): then what it
    shows says nothing about ``requirement``, and is recorded as a consequence of ROC-GRAPH-012."""
    nodes = reprompted(out, *node_ids)
    if not nodes:
        return False
    followed(
        ctx, requirement, f"{label}: the resume prompted the node agents {nodes} again", RESUME_NOT_REPROMPTED
    )
    return True
