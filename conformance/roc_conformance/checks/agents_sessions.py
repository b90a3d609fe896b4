"""Agent-as-tool across snapshots (profiles agent-as-tool and sessions, spec chapter 12): kept sub-agents
travel in ``interruptState.children`` and are resumed after a restore (ROC-AGENT-008), and a loader refuses
a document whose kept sub-agents do not fit its pending batch, or a definition of another agent
(ROC-AGENT-009). Each requirement is judged on its own; a set-up that an earlier rule spoils is recorded as
a consequence of that rule.
"""

from __future__ import annotations

import copy
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.agents_support import (
    AGENT_KEPT,
    AGENT_LOADER,
    LEAF_TEXT,
    MID_TEXT,
    PROFILE,
    TOP_TEXT,
    answers_of,
    followed,
    leaf,
    middle,
    one_id,
    outer,
    pause,
    reprompted,
    resumed_not_reprompted,
    shown,
    spoiled_by_reprompt,
    sub_tool,
    tool_results,
)
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.snapshot_support import SESSION_SAME_IDS, error_code, fail_if


def _children(doc: Any) -> dict[str, Any]:
    state = doc.get("interruptState") if isinstance(doc, dict) else None
    children = state.get("children") if isinstance(state, dict) else None
    return children if isinstance(children, dict) else {}


def _cases(ctx: CheckContext) -> list[tuple[str, dict[str, Any], list[tuple[tuple[str, ...], str]], str]]:
    """(label, tool, the kept sub-agents as (path, pending tool use), the answer t1 gets) at depth 1 and 3."""
    return [
        ("depth 1", sub_tool("sub", leaf(ctx)), [(("t1",), "c1")], LEAF_TEXT),
        (
            "depth 3",
            sub_tool("sub", middle(ctx, leaf(ctx))),
            [(("t1",), "m1"), (("t1", "m1"), "c1")],
            MID_TEXT,
        ),
    ]


def check_kept(ctx: CheckContext) -> None:
    """A snapshot taken while a sub-agent is kept (depth 1 and 3) carries it in ``interruptState.children``
    under the outer toolUseId (and, at depth 3, the middle one's under ``m1``); an agent restored from it
    accepts the answer and resumes each sub-agent (no prompt again, its pending tool use first), ending with
    the sub-agent's text as t1's answer."""
    wrong: list[str] = []
    for label, tool, kept, text in _cases(ctx):
        spec = outer(f"aat-kept-{label[-1]}", sc.executor_for(ctx.profiles), [("t1", "sub")], [tool])
        paused = pause(ctx, spec, AGENT_KEPT, {"t1": 1})
        if paused is None:
            continue
        agent, first = paused
        doc = ctx.client.take_snapshot(agent).get("snapshot")
        children = _children(doc)
        if set(children) != {"t1"}:
            wrong.append(f"{label}: the snapshot keeps sub-agents {sorted(children)}, expected t1's")
        elif label == "depth 3" and set(_children(children["t1"])) != {"m1"}:
            wrong.append(
                f"{label}: the kept sub-agent of t1 keeps {sorted(_children(children['t1']))}, expected m1's"
            )
        if not isinstance(doc, dict):
            wrong.append(f"{label}: no snapshot was taken: {doc!r}")
            continue
        restored = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
        handle = restored.get("agent")
        if handle is None:
            wrong.append(f"{label}: its own snapshot was refused: {restored.get('error')}")
            continue
        out = ctx.client.invoke(handle, sc.resume(sc.answer(str(one_id(first, "t1")), "y")))
        if reprompted(out):
            # The original agent, resumed without a snapshot in between: if it prompts again too, the fault is
            # ROC-AGENT-005's, not the snapshot's.
            control = ctx.client.invoke(agent, sc.resume(sc.answer(str(one_id(first, "t1")), "y")))
            if spoiled_by_reprompt(ctx, AGENT_KEPT, control, f"{label}, without a snapshot"):
                continue
        if "result" not in out:
            followed(
                ctx,
                AGENT_KEPT,
                f"{label}: the restored agent refused the answer: {shown(out)}",
                SESSION_SAME_IDS,
            )
            continue
        for path, pending in kept:
            why = resumed_not_reprompted(out, path, pending)
            if why is not None:
                wrong.append(f"{label}, restored: {why}")
        if (
            answers_of(tool_results(out).get("t1")) != [text]
            or (out.get("result") or {}).get("stopReason") != "end_turn"
        ):
            wrong.append(
                f"{label}, restored: the answer gave {shown(out)}, t1 {tool_results(out).get('t1')}, "
                f"expected answers [{text!r}] and {TOP_TEXT!r}"
            )
    fail_if({AGENT_KEPT: wrong})


def _refused(ctx: CheckContext, doc: Any, spec: dict[str, Any], iid: str, what: str) -> str | None:
    """What a damaged document or a mismatched definition led to, when it was not SNAPSHOT_INVALID: the
    restore's refusal, or else the resume's. A resume that prompts the sub-agent again never looked at the
    kept one: recorded as a consequence of ROC-AGENT-005, not judged."""
    restored = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    err = restored.get("error")
    if err is not None:
        return None if err.get("code") == "SNAPSHOT_INVALID" else f"restore refused with {err.get('code')}"
    out = ctx.client.invoke(str(restored.get("agent")), sc.resume(sc.answer(iid, "y")))
    if error_code(out) == "SNAPSHOT_INVALID" or spoiled_by_reprompt(ctx, AGENT_LOADER, out, what):
        return None
    return f"restore accepted it, and the resume gave {shown(out)}"


def check_loader(ctx: CheckContext) -> None:
    """Damaged copies of a snapshot with a kept sub-agent (t1) next to a completed sibling (t0): a child for a
    tool use the pending batch does not run, one for t0, whose result is completed, and a propagated
    interrupt whose inner id waits in no child, are refused with SNAPSHOT_INVALID; so is a restore whose
    sub-agent definition names another agent (at the restore or, at the latest, when the sub-agent is
    resumed). The unmodified snapshot is restored first: if that fails, nothing is judged."""
    wrong: list[str] = []
    definition = leaf(ctx)
    spec = outer(
        "aat-loader",
        sc.executor_for(ctx.profiles),
        [("t0", "plain"), ("t1", "sub")],
        [sc.tool("plain", sc.returns("p")), sub_tool("sub", definition)],
    )
    paused = pause(ctx, spec, AGENT_LOADER, {"t1": 1})
    if paused is None:
        fail_if({})
        return
    agent, first = paused
    iid = str(one_id(first, "t1"))
    doc = ctx.client.take_snapshot(agent).get("snapshot")
    if not isinstance(doc, dict) or set(_children(doc)) != {"t1"}:
        followed(ctx, AGENT_LOADER, f"the snapshot keeps no sub-agent for t1: {_children(doc)}", AGENT_KEPT)
        fail_if({})
        return
    if "agent" not in ctx.client.restore_agent(doc, spec, model_turn_offset=1):
        followed(ctx, AGENT_LOADER, "the unmodified snapshot is refused", SESSION_SAME_IDS)
        fail_if({})
        return
    stray = copy.deepcopy(doc)
    stray["interruptState"]["children"] = {"t9": stray["interruptState"]["children"]["t1"]}
    done = copy.deepcopy(doc)
    done["interruptState"]["children"]["t0"] = copy.deepcopy(done["interruptState"]["children"]["t1"])
    orphan = copy.deepcopy(doc)
    for item in orphan["interruptState"].get("interrupts") or []:
        inner = (item.get("source") or {}).get("inner")
        if isinstance(inner, dict):
            inner["interruptId"] = "no-such-inner-interrupt"
    renamed = copy.deepcopy(spec)
    renamed["tools"][1]["steps"][0]["runAgent"]["agent"]["agentId"] = "someone-else"
    for what, damaged, with_spec in (
        ("a child kept for t9, a tool use the pending batch does not run", stray, spec),
        ("a child kept for t0, a tool use with a completed result", done, spec),
        ("a propagated interrupt whose inner id waits in no child", orphan, spec),
        ("a sub-agent definition with another agent id than the kept one", doc, renamed),
    ):
        why = _refused(ctx, damaged, with_spec, iid, what)
        if why is not None:
            wrong.append(f"{what}: {why}, expected SNAPSHOT_INVALID")
    fail_if({AGENT_LOADER: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-AGENT-008",
        (AGENT_KEPT,),
        check_kept,
        ("core", PROFILE, "sessions"),
        "a snapshot carries kept sub-agents, and a restored agent resumes them",
    ),
    (
        "explicit:ROC-AGENT-009",
        (AGENT_LOADER,),
        check_loader,
        ("core", PROFILE, "sessions"),
        "a loader refuses inconsistent kept sub-agents and a definition of another agent",
    ),
)


def agent_session_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
