"""Multi-agent checks (profile multi-agent, spec chapter 13): graphs and swarms of agent nodes, created with
an OrchestratorSpec (harness protocol 5). One check per requirement, each judged on its own evidence: a
set-up that another rule spoils (the node interrupts do not surface, two share an id, a paused node agent is
prompted again) is recorded as a consequence of that rule, never as a FAIL of the rule the check is about.
The trace shows the orchestrator's node events (``node_start``, ``node_end``, the node callbacks'
``hook_callback``) and each node agent's events under ``agentPath`` ``["node:<id>"]``.

The resume checks (ROC-GRAPH-010 to -017) are in ``orchestration_resume``.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.orchestration_support import (
    GATE_CANCEL,
    GATE_DECISION,
    GATE_FIRED,
    GATE_NAMES,
    GATE_REPLAY,
    GATE_REPORTED,
    NODE_IDS,
    NODE_WRAPPED,
    PROFILE,
    STEP_ALL,
    ask,
    asker,
    before_node,
    by_node,
    cancelled,
    error_code,
    followed,
    graph,
    ids_of,
    interrupts,
    node,
    node_hook_calls,
    noop,
    paused_nodes,
    plain,
    ran,
    results,
    resume,
    shown,
    source_of,
    stop_reason,
)
from roc_conformance.checks.snapshot_support import fail_if

DECLINED_TEXT = "The request was declined."
"""ROC-DECIDE-007's decision text of a decline without a message."""


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def check_gate_fired(ctx: CheckContext) -> None:
    """Two BeforeNodeCall callbacks for node a both ask: both run in the firing (the second after the first
    raised). A callback for node b that neither asks nor cancels runs before b's agent does anything, and
    node a's agent does nothing while its gate waits."""
    spec = graph(
        [node("a", plain(ctx, "agent-a")), node("b", plain(ctx, "agent-b"))],
        hooks=[
            before_node(ask("first"), node_id="a"),
            before_node(ask("second"), node_id="a"),
            before_node(noop(), node_id="b"),
        ],
    )
    handle = ctx.client.create_orchestrator(spec)
    out = ctx.client.invoke(handle, {"prompt": "task"})
    wrong: list[str] = []
    calls = node_hook_calls(out, "BeforeNodeCall")
    for index in (0, 1):
        if (index, "a", 1) not in calls:
            wrong.append(f"BeforeNodeCall callback {index} did not run for node a, visit 1 (ran: {calls})")
    if (2, "b", 1) not in calls and "b" not in ran(out):
        # Neither b's gate nor its agent ran: the step stopped at a (ROC-GRAPH-009's failure), which says
        # nothing about whether b's gate would fire before its agent.
        followed(ctx, GATE_FIRED, f"node b, in a's step, did not run at all: {shown(out)}", STEP_ALL)
    elif (2, "b", 1) not in calls:
        wrong.append(f"BeforeNodeCall did not fire for node b before its agent ran (ran: {calls})")
    else:
        trace = out.get("trace", [])
        fired = next(
            i for i, e in enumerate(trace) if e.get("kind") == "hook_callback" and e.get("nodeId") == "b"
        )
        first_b = next((i for i, e in enumerate(trace) if (e.get("agentPath") or [])[:1] == ["node:b"]), None)
        if first_b is None or first_b < fired:
            wrong.append(
                f"node b's agent ran at event {first_b}, BeforeNodeCall fired for it at event {fired}"
            )
    fail_if({GATE_FIRED: wrong})


def check_gate_reported(ctx: CheckContext) -> None:
    """Two callbacks for node a ask ``first`` and ``second``: the result reports both, one per callback,
    with source ``before_node_call`` and nodeId a, and a's agent is not invoked; answering only ``first``
    keeps it waiting; answering ``second`` too lets it run."""
    spec = graph(
        [node("a", plain(ctx, "agent-a"))],
        hooks=[before_node(ask("first"), node_id="a"), before_node(ask("second"), node_id="a")],
    )
    handle = ctx.client.create_orchestrator(spec)
    out = ctx.client.invoke(handle, {"prompt": "task"})
    wrong: list[str] = []
    items = interrupts(out)
    names = sorted(str(i.get("name")) for i in items)
    sources = [(source_of(i).get("kind"), source_of(i).get("nodeId")) for i in items]
    if stop_reason(out) != "interrupt" or names != ["first", "second"]:
        wrong.append(f"the task gave {shown(out)} with names {names}, expected first and second")
    if any(s != ("before_node_call", "a") for s in sources):
        wrong.append(f"the gate interrupts' sources are {sources}, expected kind before_node_call, nodeId a")
    if "a" in ran(out):
        wrong.append("node a's agent ran while its BeforeNodeCall interrupts were unanswered")
    if (1, "a", 1) not in node_hook_calls(out, "BeforeNodeCall"):
        # The second callback never ran (ROC-GRAPH-001's failure): its interrupt could not be reported.
        followed(
            ctx, GATE_REPORTED, f"the second callback did not run: the task gave {shown(out)}", GATE_FIRED
        )
        return
    by_name = {str(i.get("name")): str(i.get("id")) for i in items}
    if not wrong and len(set(by_name.values())) == 2:
        partial = ctx.client.invoke(handle, resume((by_name["first"], "y")))
        if "a" in ran(partial):
            wrong.append("answering only `first` let node a's agent run while `second` was unanswered")
        if [str(i.get("name")) for i in interrupts(partial)] != ["second"]:
            wrong.append(f"answering only `first` gave {shown(partial)}, expected `second` still waiting")
        else:
            last = ctx.client.invoke(handle, resume((by_name["second"], "y")))
            if "a" not in ran(last) or stop_reason(last) != "completed":
                wrong.append(
                    f"answering `second` too gave {shown(last)}, node a's agent ran: {'a' in ran(last)}"
                )
    fail_if({GATE_REPORTED: wrong})


def check_gate_names(ctx: CheckContext) -> None:
    """Two callbacks of node a's BeforeNodeCall raise the same name: DUPLICATE_INTERRUPT_NAME. One callback
    for every node raising one name for nodes a and b is no clash: two interrupts."""
    wrong: list[str] = []
    clash = graph(
        [node("a", plain(ctx, "agent-a"))],
        hooks=[before_node(ask("same"), node_id="a"), before_node(ask("same"), node_id="a")],
    )
    out = ctx.client.invoke(ctx.client.create_orchestrator(clash), {"prompt": "task"})
    if error_code(out) is None and (1, "a", 1) not in node_hook_calls(out, "BeforeNodeCall"):
        # The second callback never ran (ROC-GRAPH-001's failure), so the clash never arose.
        followed(ctx, GATE_NAMES, f"the second callback did not run: {shown(out)}", GATE_FIRED)
    elif error_code(out) != "DUPLICATE_INTERRUPT_NAME":
        wrong.append(
            f"two callbacks of one firing raising `same` gave {shown(out)}, expected DUPLICATE_INTERRUPT_NAME"
        )
    fine = graph(
        [node("a", plain(ctx, "agent-a")), node("b", plain(ctx, "agent-b"))], hooks=[before_node(ask("same"))]
    )
    out = ctx.client.invoke(ctx.client.create_orchestrator(fine), {"prompt": "task"})
    got = {n: len(v) for n, v in by_node(out, "before_node_call").items()}
    if got == {"a": 1} and "b" not in {n for _, n, _ in node_hook_calls(out, "BeforeNodeCall")}:
        followed(ctx, GATE_NAMES, f"node b's gate, in a's step, did not fire: {shown(out)}", STEP_ALL)
    elif got != {"a": 1, "b": 1}:
        wrong.append(
            f"one name raised for nodes a and b gave {shown(out)} ({got}), expected one interrupt each"
        )
    fail_if({GATE_NAMES: wrong})


def check_gate_cancel(ctx: CheckContext) -> None:
    """Graph a -> b, and c: a callback cancels a with a message. a's agent does not run, a is reported
    cancelled with the message, b (which depends on a) never runs, c completes."""
    spec = graph(
        [
            node("a", plain(ctx, "agent-a")),
            node("b", plain(ctx, "agent-b")),
            node("c", plain(ctx, "agent-c")),
        ],
        edges=(("a", "b"),),
        hooks=[before_node(sc.cancel("not now"), node_id="a")],
    )
    out = ctx.client.invoke(ctx.client.create_orchestrator(spec), {"prompt": "task"})
    wrong: list[str] = []
    if cancelled(out) != {"a": "not now"}:
        wrong.append(f"cancelling a gave {shown(out)}, expected cancelled {{'a': 'not now'}}")
    if {"a", "b"} & set(ran(out)):
        wrong.append(f"node agents {sorted({'a', 'b'} & set(ran(out)))} ran after a was cancelled")
    if [n for n, _ in results(out)] != ["c"] or stop_reason(out) != "completed":
        wrong.append(f"cancelling a gave {shown(out)}, expected c alone completed")
    fail_if({GATE_CANCEL: wrong})


def _cancel_works(ctx: CheckContext) -> bool:
    """Whether a BeforeNodeCall callback's own cancel cancels a one-node graph (ROC-GRAPH-004's probe)."""
    spec = graph([node("a", plain(ctx, "agent-a"))], hooks=[before_node(sc.cancel("stop"), node_id="a")])
    out = ctx.client.invoke(ctx.client.create_orchestrator(spec), {"prompt": "task"})
    return cancelled(out) == {"a": "stop"}


def check_gate_decision(ctx: CheckContext) -> None:
    """Graph a -> b: a callback for a asks and does not handle decisions. Declining (with and without a
    message) cancels a with the decision text: a's and b's agents never run."""
    wrong: list[str] = []
    for message in ("no thanks", None):
        spec = graph(
            [node("a", plain(ctx, "agent-a")), node("b", plain(ctx, "agent-b"))],
            edges=(("a", "b"),),
            hooks=[before_node(ask("ok"), node_id="a")],
        )
        handle = ctx.client.create_orchestrator(spec)
        first = ctx.client.invoke(handle, {"prompt": "task"})
        ids = ids_of(interrupts(first))
        if len(ids) != 1:
            followed(
                ctx, GATE_DECISION, f"the gate gave {shown(first)}, expected one interrupt", GATE_REPORTED
            )
            continue
        out = ctx.client.invoke(handle, sc.resume(sc.decline(ids[0], message)))
        want = message if message is not None else DECLINED_TEXT
        if cancelled(out) != {"a": want} and not _cancel_works(ctx):
            # Even a callback's own cancel does not cancel the node (ROC-GRAPH-004's failure).
            followed(
                ctx, GATE_DECISION, f"declining gave {shown(out)}; a plain cancel fails too", GATE_CANCEL
            )
        elif cancelled(out) != {"a": want} or {"a", "b"} & set(ran(out)) or stop_reason(out) != "completed":
            wrong.append(
                f"declining {'with' if message else 'without'} a message gave {shown(out)}, node agents run "
                f"{ran(out)}, expected a cancelled with {want!r} and nothing run"
            )
    fail_if({GATE_DECISION: wrong})


def check_gate_replay(ctx: CheckContext) -> None:
    """Two callbacks for node a ask ``first`` and ``second`` and store their answers in the callbacks' state.
    Answering ``first`` only: the gate fires again (both callbacks run), ``second`` is reported again with
    its id. Answering ``second``: the gate fires again, ``first``'s callback gets its stored answer, and a's
    agent runs; the state holds both answers."""
    spec = graph(
        [node("a", plain(ctx, "agent-a"))],
        hooks=[
            before_node(ask("first"), {"setState": {"key": "first", "fromAnswer": True}}, node_id="a"),
            before_node(ask("second"), {"setState": {"key": "second", "fromAnswer": True}}, node_id="a"),
        ],
    )
    handle = ctx.client.create_orchestrator(spec)
    first = ctx.client.invoke(handle, {"prompt": "task"})
    by_name = {str(i.get("name")): str(i.get("id")) for i in interrupts(first)}
    if set(by_name) != {"first", "second"}:
        followed(ctx, GATE_REPLAY, f"the task gave {shown(first)}, expected first and second", GATE_REPORTED)
        return
    wrong: list[str] = []
    partial = ctx.client.invoke(handle, resume((by_name["first"], "F")))
    calls = node_hook_calls(partial, "BeforeNodeCall")
    if sorted(i for i, _, _ in calls) != [0, 1]:
        wrong.append(f"answering `first` fired the callbacks {calls}, expected both once for node a")
    again = {str(i.get("name")): str(i.get("id")) for i in interrupts(partial)}
    if again != {"second": by_name["second"]}:
        wrong.append(f"answering `first` gave {again}, expected `second` again under {by_name['second']}")
        fail_if({GATE_REPLAY: wrong})
        return
    last = ctx.client.invoke(handle, resume((by_name["second"], "S")))
    state = last.get("state") or {}
    if "a" not in ran(last) or stop_reason(last) != "completed":
        wrong.append(f"answering `second` gave {shown(last)}, expected node a to run")
    if state.get("first") != "F" or state.get("second") != "S":
        wrong.append(
            f"the callbacks received first={state.get('first')!r}, second={state.get('second')!r} in the "
            "firing that let node a run, expected the stored 'F' and 'S'"
        )
    fail_if({GATE_REPLAY: wrong})


def check_node_wrapped(ctx: CheckContext) -> None:
    """Node a's agent asks ``approve`` with a reason and metadata: one interrupt with source kind node,
    nodeId a, inner {agentId, interruptId, source of the tool use}, and name, reason, metadata copied."""
    reason = {"path": "/tmp/x"}
    metadata = {"ui": "confirm"}
    spec = graph([node("a", asker(ctx, "agent-a", reason=reason, metadata=metadata))])
    out = ctx.client.invoke(ctx.client.create_orchestrator(spec), {"prompt": "task"})
    items = interrupts(out)
    wrong: list[str] = []
    if len(items) != 1 or stop_reason(out) != "interrupt":
        wrong.append(f"node a's asking agent gave {shown(out)}, expected one interrupt")
    else:
        item = items[0]
        source = source_of(item)
        inner = _object(source.get("inner"))
        raised = _object(inner.get("source"))
        if source.get("kind") != "node" or source.get("nodeId") != "a":
            wrong.append(f"source {source}, expected kind node and nodeId a")
        if (
            inner.get("agentId") != "agent-a"
            or not isinstance(inner.get("interruptId"), str)
            or not inner.get("interruptId")
        ):
            wrong.append(f"source.inner {inner}, expected agentId agent-a and the inner interrupt's id")
        if raised.get("kind") != "tool" or raised.get("toolUseId") != "c1":
            wrong.append(f"source.inner.source {raised}, expected the node agent's tool use c1")
        got = {k: item.get(k) for k in ("name", "reason", "metadata")}
        if got != {"name": "approve", "reason": reason, "metadata": metadata}:
            wrong.append(f"name, reason, metadata {got}, expected them copied unchanged")
    fail_if({NODE_WRAPPED: wrong})


def check_node_ids(ctx: CheckContext) -> None:
    """Nodes a and b run the same asking scenario, so their agents report the same interrupt id: the
    orchestrator's two interrupts have distinct ids. Answering a's: b's is reported again with its id."""
    spec = graph([node("a", asker(ctx, "agent")), node("b", asker(ctx, "agent"))])
    found = paused_nodes(ctx, spec, NODE_IDS, {"a": 1, "b": 1}, "two nodes of one scenario")
    if found is None:
        return
    handle, first = found
    wrong: list[str] = []
    ids = {n: ids_of(v)[0] for n, v in by_node(first, "node").items()}
    if ids.get("a") == ids.get("b"):
        wrong.append(f"the interrupts of nodes a and b share the id {ids.get('a')!r}")
        fail_if({NODE_IDS: wrong})
        return
    out = ctx.client.invoke(handle, resume((ids["a"], "y")))
    again = {n: ids_of(v) for n, v in by_node(out, "node").items()}
    if again != {"b": [ids["b"]]}:
        wrong.append(f"answering a's interrupt left {again}, expected b's again under {ids['b']!r}")
    fail_if({NODE_IDS: wrong})


def check_step_all(ctx: CheckContext) -> None:
    """Nodes a and b (no edges, one step) both ask: both agents run in the task's invocation, which ends
    with stopReason interrupt and the interrupts of both."""
    spec = graph([node("a", asker(ctx, "agent-a")), node("b", asker(ctx, "agent-b"))])
    out = ctx.client.invoke(ctx.client.create_orchestrator(spec), {"prompt": "task"})
    wrong: list[str] = []
    if set(ran(out)) != {"a", "b"}:
        wrong.append(f"the node agents {ran(out)} ran in the step, expected a and b")
    got = {n: len(v) for n, v in by_node(out, "node").items()}
    if stop_reason(out) != "interrupt" or got != {"a": 1, "b": 1}:
        wrong.append(f"the step gave {shown(out)} ({got}), expected one interrupt of a and one of b")
    fail_if({STEP_ALL: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-GRAPH-001",
        (GATE_FIRED,),
        check_gate_fired,
        ("core", PROFILE),
        "BeforeNodeCall fires before a node's agent runs, and every callback runs in each firing",
    ),
    (
        "explicit:ROC-GRAPH-002",
        (GATE_REPORTED,),
        check_gate_reported,
        ("core", PROFILE),
        "BeforeNodeCall interrupts are reported one per callback and hold the node's agent back",
    ),
    (
        "explicit:ROC-GRAPH-003",
        (GATE_NAMES,),
        check_gate_names,
        ("core", PROFILE),
        "a name raised twice for one node and visit is DUPLICATE_INTERRUPT_NAME; for two nodes it is not",
    ),
    (
        "explicit:ROC-GRAPH-004",
        (GATE_CANCEL,),
        check_gate_cancel,
        ("core", PROFILE),
        "a cancelled node does not run, is reported with its message, and its dependants never run",
    ),
    (
        "explicit:ROC-GRAPH-005",
        (GATE_DECISION,),
        check_gate_decision,
        ("core", PROFILE, "decisions"),
        "an unhandled decline of a BeforeNodeCall interrupt cancels the node with the decision text",
    ),
    (
        "explicit:ROC-GRAPH-006",
        (GATE_REPLAY,),
        check_gate_replay,
        ("core", PROFILE),
        "BeforeNodeCall fires again on resume and its callbacks get their stored answers",
    ),
    (
        "explicit:ROC-GRAPH-007",
        (NODE_WRAPPED,),
        check_node_wrapped,
        ("core", PROFILE),
        "a node agent's interrupt is reported with source node, nodeId, inner, and its members copied",
    ),
    (
        "explicit:ROC-GRAPH-008",
        (NODE_IDS,),
        check_node_ids,
        ("core", PROFILE),
        "two nodes whose agents report one interrupt id get distinct ids, kept when reported again",
    ),
    (
        "explicit:ROC-GRAPH-009",
        (STEP_ALL,),
        check_step_all,
        ("core", PROFILE),
        "every node run of a step runs, and the interrupts of every waiting node are reported",
    ),
)


def orchestration_checks() -> list[Check]:
    """The multi-agent checks, the resume and result ones (ROC-GRAPH-010..017) included."""
    from roc_conformance.checks.orchestration_resume import orchestration_resume_checks

    return [*explicit_checks_of(_SPECS), *orchestration_resume_checks()]
