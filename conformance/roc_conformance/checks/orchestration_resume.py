"""Multi-agent checks of resume and results (profile multi-agent, spec 13.4 and 13.5): validation of a whole
resume input, routing to one node agent, resume never re-prompts, partial answers, no re-run of a finished
node, AfterNodeCall, and the order of node results. Same principles as ``orchestration``: each check judges
its own rule and records a set-up another rule spoiled as that rule's consequence.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.orchestration_support import (
    AFTER_NODE,
    EXPECTED,
    GATE_CANCEL,
    GRAPH_ORDER,
    NO_RERUN,
    PROFILE,
    RESUME_NOT_REPROMPTED,
    RESUME_PARTIAL,
    RESUME_ROUTED,
    RESUME_VALIDATED,
    STEP_ALL,
    SWARM_ORDER,
    after_node,
    asker,
    before_node,
    by_node,
    cancelled,
    error_code,
    followed,
    graph,
    hands_off,
    ids_of,
    interrupts,
    model_turns,
    node,
    node_hook_calls,
    noop,
    paused_nodes,
    plain,
    ran,
    reprompted,
    results,
    resume,
    resumed_first,
    shown,
    spoiled_by_reprompt,
    stop_reason,
    swarm,
    tool_outcomes,
)
from roc_conformance.checks.snapshot_support import fail_if


def _two_askers(
    ctx: CheckContext, requirement: str, label: str, **expect: str
) -> tuple[str, dict[str, str]] | None:
    """A graph of nodes a and b (one step), each agent asking once (failing its tool unless answered
    ``expect[node]`` when given); the handle and the interrupt id of each node, or ``None`` when the set-up
    was spoiled (recorded)."""
    spec = graph(
        [
            node("a", asker(ctx, "agent-a", expect=expect.get("a"))),
            node("b", asker(ctx, "agent-b", expect=expect.get("b"))),
        ]
    )
    found = paused_nodes(ctx, spec, requirement, {"a": 1, "b": 1}, label)
    if found is None:
        return None
    handle, out = found
    return handle, {n: ids_of(v)[0] for n, v in by_node(out, "node").items()}


def check_validated(ctx: CheckContext) -> None:
    """Nodes a and b wait. Each faulty input is rejected with its code, and nothing runs: a prompt
    (INTERRUPT_PENDING), an empty list (INVALID_RESUME), a body without a response (INVALID_RESPONSE), two
    answers to one id (DUPLICATE_RESPONSE), an unknown id next to a valid answer (UNKNOWN_INTERRUPT). A resume
    of an idle orchestrator is NOT_INTERRUPTED. After the rejections, answering both completes a and b."""
    found = _two_askers(ctx, RESUME_VALIDATED, "validation")
    if found is None:
        return
    handle, ids = found
    wrong: list[str] = []
    faulty: list[tuple[str, dict[str, Any], str]] = [
        ("a prompt", {"prompt": "again"}, "INTERRUPT_PENDING"),
        ("an empty resume", sc.resume(), "INVALID_RESUME"),
        ("a body without response", sc.resume({"interruptId": ids["a"]}), "INVALID_RESPONSE"),
        ("two answers to a's id", resume((ids["a"], "y"), (ids["a"], "n")), "DUPLICATE_RESPONSE"),
        ("a's answer and an unknown id", resume((ids["a"], "y"), ("no-such-id", "y")), "UNKNOWN_INTERRUPT"),
    ]
    for label, inp, code in faulty:
        out = ctx.client.invoke(handle, inp)
        if error_code(out) != code:
            wrong.append(f"{label} gave {shown(out)}, expected {code}")
        if ran(out) or node_hook_calls(out, "BeforeNodeCall"):
            wrong.append(f"{label}: node agents {ran(out)} ran before the input was rejected")
    out = ctx.client.invoke(handle, resume((ids["a"], "y"), (ids["b"], "y")))
    if stop_reason(out) != "completed" or sorted(n for n, _ in results(out)) != ["a", "b"]:
        wrong.append(
            f"answering both after the rejected inputs gave {shown(out)}, expected a and b completed"
        )
    idle = ctx.client.invoke(handle, resume((ids["a"], "y")))
    if error_code(idle) != "NOT_INTERRUPTED":
        wrong.append(f"a resume of the idle orchestrator gave {shown(idle)}, expected NOT_INTERRUPTED")
    fail_if({RESUME_VALIDATED: wrong})


def check_routed(ctx: CheckContext) -> None:
    """Nodes a and b wait; a's tool accepts only ``A``, b's only ``B``. Answering a with ``A`` and b with
    ``B``: both tools return (each answer reached exactly its node agent)."""
    found = _two_askers(ctx, RESUME_ROUTED, "routing", a=EXPECTED, b="B")
    if found is None:
        return
    handle, ids = found
    out = ctx.client.invoke(handle, resume((ids["a"], EXPECTED), (ids["b"], "B")))
    if spoiled_by_reprompt(ctx, RESUME_ROUTED, out, "routing", "a", "b"):
        return
    wrong: list[str] = []
    for node_id in ("a", "b"):
        outcome = tool_outcomes(out, node_id).get("c1")
        if outcome != "returned":
            wrong.append(f"node {node_id}'s tool ended {outcome!r} with its own answer, expected returned")
    fail_if({RESUME_ROUTED: wrong})


def check_not_reprompted(ctx: CheckContext) -> None:
    """Node a's agent waits in its tool use c1; answering resumes it: c1's body runs with the answer before
    the agent calls its model again (a prompted agent would call its model first), and node a completes."""
    spec = graph([node("a", asker(ctx, "agent-a"))])
    found = paused_nodes(ctx, spec, RESUME_NOT_REPROMPTED, {"a": 1}, "one asking node")
    if found is None:
        return
    handle, first = found
    out = ctx.client.invoke(handle, resume((ids_of(interrupts(first))[0], "y")))
    wrong: list[str] = []
    turns = model_turns(out, "a")
    if reprompted(out, "a") or tool_outcomes(out, "a").get("c1") != "returned":
        wrong.append(
            f"the resume made node a's agent do {resumed_first(out, 'a')!r} first (model turns {turns}, tool "
            f"c1 {tool_outcomes(out, 'a').get('c1')!r}), expected its paused tool use c1 resumed with the "
            "answer before any model call"
        )
    if stop_reason(out) != "completed" or [n for n, _ in results(out)] != ["a"]:
        wrong.append(f"the resume gave {shown(out)}, expected node a completed")
    fail_if({RESUME_NOT_REPROMPTED: wrong})


def check_partial(ctx: CheckContext) -> None:
    """Nodes a and b wait; answering only a's interrupt: b's agent is not invoked, and b's interrupt is
    reported again with the same id; a completes."""
    found = _two_askers(ctx, RESUME_PARTIAL, "partial answers", b="B")
    if found is None:
        return
    handle, ids = found
    out = ctx.client.invoke(handle, resume((ids["a"], "y")))
    if spoiled_by_reprompt(ctx, RESUME_PARTIAL, out, "partial answers", "a"):
        return
    wrong: list[str] = []
    if "b" in ran(out):
        wrong.append("node b's agent, sent nothing, was invoked")
    again = {n: ids_of(v) for n, v in by_node(out, "node").items()}
    if again != {"b": [ids["b"]]} or stop_reason(out) != "interrupt":
        wrong.append(f"answering only a gave {shown(out)}, expected b's interrupt again under {ids['b']!r}")
    fail_if({RESUME_PARTIAL: wrong})


def _finished_and_waiting(ctx: CheckContext) -> dict[str, Any]:
    """Nodes a (completes), b (asks) and c (cancelled), one step; a BeforeNodeCall callback and an
    AfterNodeCall callback for every node, so each firing shows in the trace."""
    return graph(
        [
            node("a", plain(ctx, "agent-a")),
            node("b", asker(ctx, "agent-b")),
            node("c", plain(ctx, "agent-c")),
        ],
        hooks=[
            before_node(noop()),
            before_node(sc.cancel("not c"), node_id="c"),
            after_node(noop()),
        ],
    )


def _spoiled_finish(ctx: CheckContext, requirement: str, first: dict[str, Any]) -> bool:
    """Whether the task's invocation of ``_finished_and_waiting`` failed to complete a, cancel c and leave b
    waiting; then the rule that broke (c's gate never fired: ROC-GRAPH-009; c not cancelled: ROC-GRAPH-004)
    is recorded as spoiling ``requirement``'s set-up."""
    if [n for n, _ in results(first)] == ["a"] and cancelled(first) == {"c": "not c"}:
        return False
    fired = {n for _, n, _ in node_hook_calls(first, "BeforeNodeCall")}
    cause = GATE_CANCEL if {"a", "c"} <= fired and cancelled(first) != {"c": "not c"} else STEP_ALL
    followed(ctx, requirement, f"the task gave {shown(first)}, expected a completed and c cancelled", cause)
    return True


def check_no_rerun(ctx: CheckContext) -> None:
    """a completes, c is cancelled and b waits in the first invocation; the resume that completes b runs
    neither a's nor c's BeforeNodeCall nor their agents."""
    found = paused_nodes(ctx, _finished_and_waiting(ctx), NO_RERUN, {"b": 1}, "a finished, b waiting")
    if found is None:
        return
    handle, first = found
    wrong: list[str] = []
    if _spoiled_finish(ctx, NO_RERUN, first):
        return
    out = ctx.client.invoke(handle, resume((ids_of(interrupts(first))[0], "y")))
    again = sorted({n for _, n, _ in node_hook_calls(out, "BeforeNodeCall")} & {"a", "c"})
    if again:
        wrong.append(f"BeforeNodeCall fired again for the finished nodes {again}")
    rerun = sorted({"a", "c"} & set(ran(out)))
    if rerun:
        wrong.append(f"the agents of the finished nodes {rerun} ran again")
    fail_if({NO_RERUN: wrong})


def check_after_node(ctx: CheckContext) -> None:
    """An AfterNodeCall callback for every node: in the task's invocation it fires for a (completed) only,
    not for b (waiting) or c (cancelled); the resume that completes b fires it once, for b."""
    handle = ctx.client.create_orchestrator(_finished_and_waiting(ctx))
    first = ctx.client.invoke(handle, {"prompt": "task"})
    if _spoiled_finish(ctx, AFTER_NODE, first):
        return
    wrong: list[str] = []
    fired = [(n, v) for _, n, v in node_hook_calls(first, "AfterNodeCall")]
    if fired != [("a", 1)]:
        wrong.append(f"AfterNodeCall fired for {fired} in the task's invocation, expected once for a")
    ids = ids_of(interrupts(first))
    if len(ids) == 1:
        out = ctx.client.invoke(handle, resume((ids[0], "y")))
        fired = [(n, v) for _, n, v in node_hook_calls(out, "AfterNodeCall")]
        rerun = sorted(
            ({n for _, n, _ in node_hook_calls(out, "BeforeNodeCall")} | set(ran(out))) & {"a", "c"}
        )
        if rerun:
            # A finished node run again (ROC-GRAPH-014's failure) completes again: its AfterNodeCall then
            # says nothing about this rule.
            followed(ctx, AFTER_NODE, f"the resume ran the finished nodes {rerun} again", NO_RERUN)
        elif fired != [("b", 1)]:
            wrong.append(f"AfterNodeCall fired for {fired} when b completed, expected once for b")
    fail_if({AFTER_NODE: wrong})


def check_graph_order(ctx: CheckContext) -> None:
    """Nodes a (asks) and b (answers at once), declared in that order: b completes first, a on resume; the
    results are a, b (declaration order), not b, a."""
    spec = graph([node("a", asker(ctx, "agent-a")), node("b", plain(ctx, "agent-b"))])
    found = paused_nodes(ctx, spec, GRAPH_ORDER, {"a": 1}, "a waiting, b completed")
    if found is None:
        return
    handle, first = found
    out = ctx.client.invoke(handle, resume((ids_of(interrupts(first))[0], "y")))
    if spoiled_by_reprompt(ctx, GRAPH_ORDER, out, "graph order", "a"):
        return
    got = [n for n, _ in results(out)]
    fail_if({GRAPH_ORDER: [] if got == ["a", "b"] else [f"the results are {got}, expected ['a', 'b']"]})


def check_swarm_order(ctx: CheckContext) -> None:
    """A swarm declared [y, x], entry x: x hands off to y, y back to x, x completes. The results are one per
    visit in execution order: (x, 1), (y, 1), (x, 2). The same with a gate interrupt before y's visit,
    answered in a second invocation."""
    wrong: list[str] = []
    nodes = [node("y", hands_off(ctx, "agent-y", "x")), node("x", hands_off(ctx, "agent-x", "y", None))]
    want = [("x", 1), ("y", 1), ("x", 2)]
    out = ctx.client.invoke(ctx.client.create_orchestrator(swarm(nodes, "x")), {"prompt": "task"})
    if results(out) != want or stop_reason(out) != "completed":
        wrong.append(f"the swarm gave {shown(out)}, expected results {want}")
    gated = swarm(nodes, "x", hooks=[before_node({"interrupt": {"name": "enter"}}, node_id="y")])
    handle = ctx.client.create_orchestrator(gated)
    first = ctx.client.invoke(handle, {"prompt": "task"})
    ids = ids_of(interrupts(first))
    if len(ids) != 1:
        wrong.append(f"the gated swarm gave {shown(first)}, expected one interrupt before y")
    else:
        out = ctx.client.invoke(handle, resume((ids[0], "y")))
        if results(out) != want or stop_reason(out) != "completed":
            wrong.append(f"the gated swarm's resume gave {shown(out)}, expected results {want}")
    fail_if({SWARM_ORDER: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-GRAPH-010",
        (RESUME_VALIDATED,),
        check_validated,
        ("core", PROFILE),
        "a resume input is validated as a whole, with the agent's codes, before anything runs",
    ),
    (
        "explicit:ROC-GRAPH-011",
        (RESUME_ROUTED,),
        check_routed,
        ("core", PROFILE),
        "an answer for a node interrupt reaches exactly the node agent that asked",
    ),
    (
        "explicit:ROC-GRAPH-012",
        (RESUME_NOT_REPROMPTED,),
        check_not_reprompted,
        ("core", PROFILE),
        "a paused node agent is resumed with its answers, never prompted again",
    ),
    (
        "explicit:ROC-GRAPH-013",
        (RESUME_PARTIAL,),
        check_partial,
        ("core", PROFILE),
        "a node agent sent none of its answers is not invoked, and its interrupts keep their ids",
    ),
    (
        "explicit:ROC-GRAPH-014",
        (NO_RERUN,),
        check_no_rerun,
        ("core", PROFILE),
        "a completed or cancelled node never runs again in the same run",
    ),
    (
        "explicit:ROC-GRAPH-015",
        (AFTER_NODE,),
        check_after_node,
        ("core", PROFILE),
        "AfterNodeCall fires once for a completed visit, never for a waiting or cancelled one",
    ),
    (
        "explicit:ROC-GRAPH-016",
        (GRAPH_ORDER,),
        check_graph_order,
        ("core", PROFILE),
        "a graph's results come in declaration order, whatever order the nodes completed in",
    ),
    (
        "explicit:ROC-GRAPH-017",
        (SWARM_ORDER,),
        check_swarm_order,
        ("core", PROFILE),
        "a swarm's results come one per completed visit, in execution order",
    ),
)


def orchestration_resume_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
