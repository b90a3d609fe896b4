"""Agent-as-tool checks (profile agent-as-tool, spec chapter 12): a tool body runs a sub-agent through the
runtime's sub-agent call (a ``runAgent`` step, harness protocol 5), and the sub-agent's interrupts become the
tool use's. One check per requirement, each judged on its own evidence: a set-up that an earlier rule spoils
(the interrupts do not surface at all) is recorded as a consequence of ROC-AGENT-001, never as a FAIL of the
rule the check is about. The trace's ``agentPath`` shows what each sub-agent ran; the session checks are in
``agents_sessions``.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.agents_support import (
    AGENT_CARRIED,
    AGENT_COMPLETED,
    AGENT_IDS,
    AGENT_INSTANCES,
    AGENT_ONE_CALL,
    AGENT_PROPAGATED,
    AGENT_RESUMED,
    AGENT_ROUTED,
    AGENT_UNTOUCHED,
    AGENT_VALIDATED,
    EXPECTED,
    LEAF_TEXT,
    MID_TEXT,
    PROFILE,
    QUICK_TEXT,
    TOP_TEXT,
    answers_of,
    by_tool_use,
    concurrent,
    events_at,
    executors,
    followed,
    inner_tool_use,
    interrupts,
    leaf,
    leaf_two,
    middle,
    misrouted,
    one_id,
    outer,
    pause,
    quick,
    ran,
    resumed_not_reprompted,
    run_agent,
    shown,
    spoiled_by_reprompt,
    sub_tool,
    tool_outcomes,
    tool_results,
    under,
)
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.snapshot_support import error_code, fail_if, strip_volatile
from roc_conformance.strategies import FUTURE


def _final_text(out: dict[str, Any]) -> str | None:
    result = out.get("result") or {}
    content = (result.get("message") or {}).get("content") or []
    texts = [str(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "".join(texts) if result.get("stopReason") == "end_turn" else None


def check_propagated(ctx: CheckContext) -> None:
    """Depth 1 under each claimed executor: a sibling that returns at once (``t0``), the tool use that runs
    the asking sub-agent (``t1``) and one after it (``t2``). The batch stops once with exactly one interrupt,
    for ``t1``; ``t0``'s result is preserved (not run again); answering completes the batch with every result
    and the sub-agent's text as ``t1``'s answer. With hooks, AfterTools fires once in the stopped cycle and
    once in the completing one, with every result of the batch (as in 1.0). Depth 3 (outer -> mid -> leaf):
    one interrupt surfaces at the top, and the answer completes all three. A sub-agent with two unanswered
    interrupts (concurrent) gives two."""
    wrong: list[str] = []
    hooks = "hooks" in ctx.profiles
    for executor in executors(ctx):
        spec = outer(
            f"aat-propagated-{executor}",
            executor,
            [("t0", "plain"), ("t1", "sub"), ("t2", "after")],
            [
                sc.tool("plain", sc.returns("p")),
                sub_tool("sub", leaf(ctx)),
                sc.tool("after", sc.returns("a")),
            ],
            hooks=[sc.hook("AfterTools")] if hooks else None,
        )
        agent = ctx.client.create_agent(spec)
        first = ctx.client.invoke(agent, {"prompt": "go"})
        got = by_tool_use(first)
        if set(got) != {"t1"} or len(got["t1"]) != 1:
            wrong.append(
                f"{executor}: the prompt gave {shown(first)}, interrupts by tool use {got}, expected one "
                "for t1"
            )
            continue
        stopped = [e.get("toolUseIds") for e in events_at(first) if e.get("kind") == "after_tools"]
        if hooks and (len(stopped) != 1 or "t1" in (stopped[0] or [])):
            wrong.append(
                f"{executor}: AfterTools fired {stopped} in the stopped cycle, expected once, without t1 "
                "(1.0)"
            )
        again = ctx.client.invoke(agent, sc.resume(sc.answer(str(got["t1"][0].get("id")), "y")))
        if spoiled_by_reprompt(ctx, AGENT_PROPAGATED, again, executor):
            continue
        results = tool_results(again)
        want: dict[str, Any] = {"t0": [], "t1": [LEAF_TEXT], "t2": []}
        seen = {tid: answers_of(results.get(tid)) for tid in want}
        if seen != want or _final_text(again) != TOP_TEXT:
            wrong.append(
                f"{executor}: answering gave {shown(again)} with answers by tool use {seen}, expected {want}"
            )
        if "t0" in [e.get("toolUseId") for e in events_at(again) if e.get("kind") == "tool_start"]:
            wrong.append(f"{executor}: t0, which completed in the stopped batch, ran again on resume")
        if hooks:
            after = [e.get("toolUseIds") for e in events_at(again) if e.get("kind") == "after_tools"]
            if after != [["t0", "t1", "t2"]]:
                wrong.append(
                    f"{executor}: AfterTools in the completing invocation fired with {after}, expected once "
                    "with t0, t1, t2"
                )
    deep = outer(
        "aat-propagated-deep",
        sc.executor_for(ctx.profiles),
        [("t1", "sub")],
        [sub_tool("sub", middle(ctx, leaf(ctx)))],
    )
    agent = ctx.client.create_agent(deep)
    first = ctx.client.invoke(agent, {"prompt": "go"})
    iid = one_id(first, "t1")
    if iid is None or len(interrupts(first)) != 1:
        wrong.append(
            f"depth 3: the prompt gave {shown(first)} with {interrupts(first)}, expected one interrupt for t1"
        )
    else:
        again = ctx.client.invoke(agent, sc.resume(sc.answer(iid, "y")))
        if spoiled_by_reprompt(ctx, AGENT_PROPAGATED, again, "depth 3"):
            pass
        elif answers_of(tool_results(again).get("t1")) != [MID_TEXT] or _final_text(again) != TOP_TEXT:
            wrong.append(f"depth 3: answering gave {shown(again)}, t1 {tool_results(again).get('t1')}")
    if concurrent(ctx):
        two = sc.agent_spec(
            "leaf2",
            executor="concurrent",
            turns=[sc.turn(sc.tool_use("c1", "ask"), sc.tool_use("c2", "ask")), sc.turn(sc.text(LEAF_TEXT))],
            tools=[sc.tool("ask", sc.interrupt("approve"), sc.returns("ok"))],
        )
        spec = outer("aat-propagated-two", "concurrent", [("t1", "sub")], [sub_tool("sub", two)])
        first = ctx.client.invoke(ctx.client.create_agent(spec), {"prompt": "go"})
        if len(by_tool_use(first).get("t1") or []) != 2 or len(interrupts(first)) != 2:
            wrong.append(
                f"a sub-agent with two unanswered interrupts: the tool use stopped with {interrupts(first)} "
                f"({shown(first)}), expected two"
            )
    fail_if({AGENT_PROPAGATED: wrong})


def check_ids(ctx: CheckContext) -> None:
    """Two tool uses run the same sub-agent definition and a sibling asks an interrupt of the same name
    (concurrent): three distinct ids. Answering one reports the others again with the same ids. Under the
    sequential executor, a depth-3 interrupt is reported with the same id when its batch is replayed after a
    rejected input."""
    wrong: list[str] = []
    if concurrent(ctx):
        definition = leaf(ctx)
        spec = outer(
            "aat-ids",
            "concurrent",
            [("t1", "sub"), ("t2", "sub"), ("t3", "own")],
            [
                sub_tool("sub", definition),
                sc.tool("own", sc.interrupt("approve", {"path": "/tmp/x"}), sc.returns("o")),
            ],
        )
        agent = ctx.client.create_agent(spec)
        first = ctx.client.invoke(agent, {"prompt": "go"})
        listed = [str(i.get("id")) for i in interrupts(first)]
        got = {tid: len(items) for tid, items in by_tool_use(first).items()}
        ids = {tid: str(items[0].get("id")) for tid, items in by_tool_use(first).items()}
        if len(set(listed)) != len(listed):  # shared ids are this rule's failure, whatever else is shown
            wrong.append(f"the pending interrupts share ids: {ids}")
        elif got != {"t1": 1, "t2": 1, "t3": 1}:
            followed(ctx, AGENT_IDS, f"the prompt gave interrupts per tool use {got} ({shown(first)})")
        else:
            again = ctx.client.invoke(agent, sc.resume(sc.answer(ids["t3"], "y")))
            later = {tid: str(items[0].get("id")) for tid, items in by_tool_use(again).items()}
            if later != {"t1": ids["t1"], "t2": ids["t2"]}:
                wrong.append(f"after t3 was answered the interrupts are {later}, expected {ids} less t3")
    deep = outer(
        "aat-ids-deep",
        sc.executor_for(ctx.profiles),
        [("t1", "sub")],
        [sub_tool("sub", middle(ctx, leaf(ctx)))],
    )
    paused = pause(ctx, deep, AGENT_IDS, {"t1": 1})
    if paused is not None:
        agent, first = paused
        iid = one_id(first, "t1")
        rejected = ctx.client.invoke(agent, sc.resume(sc.answer(f"{iid}-unknown", "y")))
        again = ctx.client.invoke(agent, sc.resume(sc.answer(str(iid), "y")))
        if "result" in rejected:
            followed(ctx, AGENT_IDS, f"an unknown id was accepted ({shown(rejected)})", AGENT_VALIDATED)
        elif "result" not in again:
            wrong.append(
                f"depth 3: the reported id {iid!r} was not accepted after a rejected input: {shown(again)}"
            )
    fail_if({AGENT_IDS: wrong})


def _expected_source(chain: list[tuple[str, str, str]], agents: list[str], innermost: dict[str, Any]) -> Any:
    """The source shape of ROC-AGENT-003 with the inner ids left as ``str`` placeholders."""
    source: Any = innermost
    for (tid, name, _), agent_id in zip(reversed(chain), reversed(agents), strict=True):
        source = {
            "kind": "agent_as_tool",
            "toolUseId": tid,
            "toolName": name,
            "inner": {"agentId": agent_id, "interruptId": str, "source": source},
        }
    return source


def _matches(got: Any, want: Any) -> bool:
    if want is str:
        return isinstance(got, str) and bool(got)
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and set(got) == set(want)
            and all(_matches(got[k], v) for k, v in want.items())
        )
    return bool(got == want)


def check_carried(ctx: CheckContext) -> None:
    """The inner interrupt's name, reason, metadata (and with expiry, expiresAt and onExpiry) arrive
    unchanged, with the nested agent_as_tool source down to the raising tool, at depth 1 and 3."""
    wrong: list[str] = []
    step: dict[str, Any] = {
        "name": "approve",
        "reason": {"path": "/tmp/x", "n": [1, 2]},
        "metadata": {"ui": {"danger": True}},
    }
    if "expiry" in ctx.profiles:
        step["expiresAt"] = FUTURE
        step["onExpiry"] = {"decision": "decline", "message": "too late"}
    inner_source = {"kind": "tool", "toolUseId": "c1", "toolName": "delete"}
    cases = (
        ("depth 1", sub_tool("sub", leaf(ctx, {"interrupt": step})), [("t1", "sub", "")], ["leaf"]),
        (
            "depth 3",
            sub_tool("sub", middle(ctx, leaf(ctx, {"interrupt": step}))),
            [("t1", "sub", ""), ("m1", "cleaner", "")],
            ["mid", "leaf"],
        ),
    )
    for label, tool, chain, agents in cases:
        spec = outer(f"aat-carried-{label[-1]}", sc.executor_for(ctx.profiles), [("t1", "sub")], [tool])
        paused = pause(ctx, spec, AGENT_CARRIED, {"t1": 1})
        if paused is None:
            continue
        got = interrupts(paused[1])[0]
        for member in ("name", "reason", "metadata", "expiresAt", "onExpiry"):
            if got.get(member) != step.get(member):
                wrong.append(
                    f"{label}: {member} is {got.get(member, '<absent>')!r}, the raiser gave "
                    f"{step.get(member, '<absent>')!r}"
                )
        want = _expected_source(chain, agents, inner_source)
        if not _matches(got.get("source"), want):
            wrong.append(
                f"{label}: source is {got.get('source')}, expected the shape {want} (inner ids any string)"
            )
    fail_if({AGENT_CARRIED: wrong})


def check_routed(ctx: CheckContext) -> None:
    """Two tool uses run the same definition, whose tool accepts only ``A`` (concurrent): answering t1's
    interrupt with ``A`` completes t1's sub-agent and nothing runs at t2's; then ``B`` for t2 makes t2's tool
    fail (it got B, not A). With decisions, a decline of t2's is delivered to t2's sub-agent only. At depth 3
    (any executor) the answer, and a decline, reach the leaf. A sub-agent with two unanswered interrupts
    (concurrent) gets each answer for the one it stands for alone (a partial answer first)."""
    wrong: list[str] = []
    if concurrent(ctx):
        spec = outer(
            "aat-routed",
            "concurrent",
            [("t1", "sub"), ("t2", "sub")],
            [sub_tool("sub", leaf(ctx, check_answer=True))],
        )
        kinds = ["answer", "decline"] if "decisions" in ctx.profiles else ["answer"]
        for body in kinds:
            paused = pause(ctx, spec, AGENT_ROUTED, {"t1": 1, "t2": 1})
            if paused is None:
                break
            agent, first = paused
            one = ctx.client.invoke(agent, sc.resume(sc.answer(str(one_id(first, "t1")), EXPECTED)))
            if spoiled_by_reprompt(ctx, AGENT_ROUTED, one, "answering t1"):
                continue
            if tool_outcomes(one, "t1") != {"c1": "returned"}:
                wrong.append(
                    f"answering t1's interrupt with {EXPECTED!r}: t1's sub-agent tool ended "
                    f"{tool_outcomes(one, 't1')}, expected c1 returned"
                )
            if ran(under(one, "t2")):
                wrong.append(f"answering t1's interrupt ran {ran(under(one, 't2'))} in t2's sub-agent")
            t2 = one_id(one, "t2")
            if t2 is None:
                followed(
                    ctx,
                    AGENT_ROUTED,
                    f"t2's interrupt is not reported again: {interrupts(one)}",
                    AGENT_UNTOUCHED,
                )
                continue
            reply = sc.answer(t2, "B") if body == "answer" else sc.decline(t2, "no")
            two = ctx.client.invoke(agent, sc.resume(reply))
            if spoiled_by_reprompt(ctx, AGENT_ROUTED, two, f"the {body} for t2"):
                continue
            if tool_outcomes(two, "t2") != {"c1": "failed"}:
                wrong.append(
                    f"the {body} for t2's interrupt: t2's sub-agent tool ended {tool_outcomes(two, 't2')}, "
                    f"expected c1 failed (it got no {EXPECTED!r})"
                )
            if ran(under(two, "t1")):
                wrong.append(
                    f"the {body} for t2's interrupt ran {ran(under(two, 't1'))} in t1's completed sub-agent"
                )
    deep = outer(
        "aat-routed-deep",
        sc.executor_for(ctx.profiles),
        [("t1", "sub")],
        [sub_tool("sub", middle(ctx, leaf(ctx, check_answer=True)))],
    )
    for label in ("an answer", "a decline") if "decisions" in ctx.profiles else ("an answer",):
        paused = pause(ctx, deep, AGENT_ROUTED, {"t1": 1})
        if paused is None:
            break
        agent, first = paused
        iid = str(one_id(first, "t1"))
        routed = sc.answer(iid, EXPECTED) if label == "an answer" else sc.decline(iid, "no")
        out = ctx.client.invoke(agent, sc.resume(routed))
        want = {"c1": "returned" if label == "an answer" else "failed"}
        if spoiled_by_reprompt(ctx, AGENT_ROUTED, out, f"depth 3, {label}"):
            continue
        if tool_outcomes(out, "t1", "m1") != want:
            wrong.append(
                f"depth 3, {label}: the leaf's tool ended {tool_outcomes(out, 't1', 'm1')}, expected {want}"
            )
    if concurrent(ctx):
        wrong += _partial_routing(ctx)
    fail_if({AGENT_ROUTED: wrong})


def _partial_routing(ctx: CheckContext) -> list[str]:
    """A sub-agent with two unanswered interrupts (c1, c2): the answer for c1's propagated interrupt reaches
    c1 alone (c1 returns, c2 asks again, reported with its id), then c2's reaches c2."""
    spec = outer("aat-routed-partial", "concurrent", [("t1", "sub")], [sub_tool("sub", leaf_two())])
    paused = pause(ctx, spec, AGENT_ROUTED, {"t1": 2})
    if paused is None:
        return []
    agent, first = paused
    by_inner = {inner_tool_use(i): str(i.get("id")) for i in interrupts(first)}
    if set(by_inner) != {"c1", "c2"}:
        followed(
            ctx, AGENT_ROUTED, f"the propagated sources do not name c1 and c2: {by_inner}", AGENT_CARRIED
        )
        return []
    wrong: list[str] = []
    one = ctx.client.invoke(agent, sc.resume(sc.answer(by_inner["c1"], EXPECTED)))
    if spoiled_by_reprompt(ctx, AGENT_ROUTED, one, "a partial answer"):
        return []
    if tool_outcomes(one, "t1") != {"c1": "returned", "c2": "interrupted"}:
        wrong.append(
            f"the answer for c1's interrupt alone: the sub-agent's tools ended {tool_outcomes(one, 't1')}, "
            "expected c1 returned and c2 asking again"
        )
    elif [inner_tool_use(i) for i in interrupts(one)] != ["c2"]:
        wrong.append(f"after the answer for c1's interrupt the pending interrupts are {interrupts(one)}")
    else:
        two = ctx.client.invoke(agent, sc.resume(sc.answer(str(interrupts(one)[0].get("id")), EXPECTED)))
        if tool_outcomes(two, "t1") != {"c2": "returned"} or answers_of(tool_results(two).get("t1")) != [
            LEAF_TEXT
        ]:
            wrong.append(
                f"the answer for c2's interrupt: the sub-agent's tools ended {tool_outcomes(two, 't1')}, "
                f"t1's result {tool_results(two).get('t1')}"
            )
    return wrong


def check_resumed(ctx: CheckContext) -> None:
    """On resume each kept sub-agent's pending tool use completes before its model is called, and it is
    never prompted again (no model turn 0 at its path), at depth 1 and depth 3, under each executor. With
    the concurrent executor, a partial answer to a sub-agent with two interrupts calls none of its model."""
    wrong: list[str] = []
    for executor in executors(ctx):
        for label, tool, paths in (
            ("depth 1", sub_tool("sub", leaf(ctx)), [(("t1",), "c1")]),
            ("depth 3", sub_tool("sub", middle(ctx, leaf(ctx))), [(("t1",), "m1"), (("t1", "m1"), "c1")]),
        ):
            spec = outer(f"aat-resumed-{executor}", executor, [("t1", "sub")], [tool])
            paused = pause(ctx, spec, AGENT_RESUMED, {"t1": 1})
            if paused is None:
                continue
            agent, first = paused
            out = ctx.client.invoke(agent, sc.resume(sc.answer(str(one_id(first, "t1")), "y")))
            for path, pending in paths:
                why = resumed_not_reprompted(out, path, pending)
                if why is not None:
                    wrong.append(f"{executor}, {label}: {why}")
            if "result" in out and _final_text(out) != TOP_TEXT:
                wrong.append(
                    f"{executor}, {label}: the resume ended with {shown(out)}, not the outer agent's "
                    f"{TOP_TEXT!r}"
                )
    if concurrent(ctx):
        # Two unanswered inner interrupts, one answered: the sub-agent's batch is not complete, so its model
        # must not be called, and it is not prompted again.
        spec = outer("aat-resumed-partial", "concurrent", [("t1", "sub")], [sub_tool("sub", leaf_two())])
        paused = pause(ctx, spec, AGENT_RESUMED, {"t1": 2})
        if paused is not None:
            agent, first = paused
            c1 = next((str(i.get("id")) for i in interrupts(first) if inner_tool_use(i) == "c1"), "")
            out = ctx.client.invoke(agent, sc.resume(sc.answer(c1, EXPECTED)))
            calls = [e.get("turn") for e in events_at(out, "t1") if e.get("kind") == "model_call"]
            if calls:
                wrong.append(
                    f"a partial answer: the sub-agent's model answered turns {calls} while c2 still waited"
                )
    fail_if({AGENT_RESUMED: wrong})


def check_untouched(ctx: CheckContext) -> None:
    """Two tool uses run sub-agents (concurrent; at depth 1 and depth 3): answering one's interrupt runs
    nothing in the other sub-agent (or below it), and the other's interrupt is reported again, same id."""
    if not concurrent(ctx):
        ctx.note("judged only with the concurrent executor: one batch holds two kept sub-agents")
        return
    wrong: list[str] = []
    for label, definition, leaf_path in (
        ("depth 1", leaf(ctx, check_answer=True), ("t1",)),
        ("depth 3", middle(ctx, leaf(ctx, check_answer=True)), ("t1", "m1")),
    ):
        spec = outer(
            f"aat-untouched-{label[-1]}",
            "concurrent",
            [("t1", "sub"), ("t2", "sub")],
            [sub_tool("sub", definition)],
        )
        paused = pause(ctx, spec, AGENT_UNTOUCHED, {"t1": 1, "t2": 1})
        if paused is None:
            continue
        agent, first = paused
        t1 = one_id(first, "t1")
        out = ctx.client.invoke(agent, sc.resume(sc.answer(str(one_id(first, "t2")), "B")))
        if spoiled_by_reprompt(ctx, AGENT_UNTOUCHED, out, label) or misrouted(
            ctx, AGENT_UNTOUCHED, out, leaf_path, label
        ):
            continue
        if ran(under(out, "t1")):
            wrong.append(f"{label}: answering t2's interrupt ran {ran(under(out, 't1'))} in t1's sub-agent")
        if one_id(out, "t1") != t1 or set(by_tool_use(out)) != {"t1"}:
            wrong.append(
                f"{label}: after t2's answer the interrupts are {interrupts(out)} ({shown(out)}), expected "
                f"t1's again with id {t1!r}"
            )
    fail_if({AGENT_UNTOUCHED: wrong})


def check_completed(ctx: CheckContext) -> None:
    """A body runs a sub-agent that completes at once, then asks ``confirm``; a sibling ``t2`` asks too.
    Answering ``confirm`` gives the body the recorded result (nothing runs at t1's path) and completes t1;
    answering t2 later does not run t1's body or its sub-agent again and keeps t1's result."""
    wrong: list[str] = []
    for executor in executors(ctx):
        spec = outer(
            f"aat-completed-{executor}",
            executor,
            [("t1", "sub"), ("t2", "own")],
            [
                sc.tool("sub", run_agent(quick()), sc.interrupt("confirm"), sc.returns("sub")),
                sc.tool("own", sc.interrupt("approve"), sc.returns("own")),
            ],
        )
        agent = ctx.client.create_agent(spec)
        first = ctx.client.invoke(agent, {"prompt": "go"})
        if [e.get("turn") for e in events_at(first, "t1") if e.get("kind") == "model_call"] != [0]:
            followed(
                ctx,
                AGENT_COMPLETED,
                f"{executor}: the sub-agent did not run once on the prompt: {ran(under(first, 't1'))}",
            )
            continue
        confirm = one_id(first, "t1")
        if confirm is None:
            wrong.append(
                f"{executor}: the body did not stop at confirm after its sub-agent completed: {shown(first)}"
            )
            continue
        second = ctx.client.invoke(agent, sc.resume(sc.answer(confirm, "yes")))
        if ran(under(second, "t1")):
            wrong.append(
                f"{executor}: the replayed body ran its completed sub-agent again: {ran(under(second, 't1'))}"
            )
        t2 = one_id(second, "t2")
        if t2 is None:
            followed(
                ctx,
                AGENT_COMPLETED,
                f"{executor}: after confirm, t2 did not ask: {shown(second)}",
                AGENT_PROPAGATED,
            )
            continue
        third = ctx.client.invoke(agent, sc.resume(sc.answer(t2, "ok")))
        if ran(under(third, "t1")) or "t1" in [
            e.get("toolUseId") for e in events_at(third) if e.get("kind") == "tool_start"
        ]:
            wrong.append(
                f"{executor}: answering t2 ran t1 again: {ran(events_at(third)) + ran(under(third, 't1'))}"
            )
        if answers_of(tool_results(third).get("t1")) != [QUICK_TEXT, "yes"]:
            wrong.append(
                f"{executor}: t1's result is {tool_results(third).get('t1')}, expected answers "
                f"{[QUICK_TEXT, 'yes']}"
            )
    fail_if({AGENT_COMPLETED: wrong})


def check_instances(ctx: CheckContext) -> None:
    """Two tool uses of one batch run the same definition (concurrent): each gets its own instance, started
    from turn 0 at its own path, paused with its own interrupt and resumed on its own."""
    wrong: list[str] = []
    spec = outer(
        "aat-instances",
        "concurrent",
        [("t1", "sub"), ("t2", "sub")],
        [sub_tool("sub", leaf(ctx, check_answer=True))],
    )
    paused = pause(ctx, spec, AGENT_INSTANCES, {"t1": 1, "t2": 1})
    if paused is None:
        fail_if({})
        return
    agent, first = paused
    for tid in ("t1", "t2"):
        turns = [e.get("turn") for e in events_at(first, tid) if e.get("kind") == "model_call"]
        if turns != [0]:
            wrong.append(
                f"the sub-agent of {tid} answered model turns {turns}, expected [0] (an instance of its own)"
            )
    ids = {tid: one_id(first, tid) for tid in ("t1", "t2")}
    one = ctx.client.invoke(agent, sc.resume(sc.answer(str(ids["t1"]), EXPECTED)))
    if spoiled_by_reprompt(ctx, AGENT_INSTANCES, one, "answering t1") or misrouted(
        ctx, AGENT_INSTANCES, one, ("t2",), "answering t1"
    ):
        fail_if({AGENT_INSTANCES: wrong})
        return
    done = [e.get("turn") for e in events_at(one, "t1") if e.get("kind") == "model_call"]
    # Whether t2's interrupt keeps its id is ROC-AGENT-002's (and -006's) to judge: here only that it waits.
    t2 = one_id(one, "t2")
    if done != [1] or t2 is None or set(by_tool_use(one)) != {"t2"}:
        wrong.append(
            f"answering t1: its sub-agent answered turns {done} (expected [1]), the pending interrupts are "
            f"{interrupts(one)} (expected t2's alone)"
        )
    two = ctx.client.invoke(agent, sc.resume(sc.answer(str(t2 or ids["t2"]), EXPECTED)))
    results = tool_results(two)
    if spoiled_by_reprompt(ctx, AGENT_INSTANCES, two, "answering t2"):
        pass
    elif [answers_of(results.get(t)) for t in ("t1", "t2")] != [[LEAF_TEXT], [LEAF_TEXT]]:
        wrong.append(f"after both answers the results are {results.get('t1')}, {results.get('t2')}")
    fail_if({AGENT_INSTANCES: wrong})


def check_one_call(ctx: CheckContext) -> None:
    """A body that runs two sub-agents fails at the second call: its result is an error, and no second
    sub-agent answer is returned."""
    spec = outer(
        "aat-one-call",
        sc.executor_for(ctx.profiles),
        [("t1", "twice")],
        [sc.tool("twice", run_agent(quick("first")), run_agent(quick("second")), sc.returns("both"))],
    )
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"})
    result = tool_results(out).get("t1")
    wrong = []
    if not isinstance(result, dict) or result.get("status") != "error":
        wrong.append(f"a body running two sub-agents gave {result} ({shown(out)}), expected an error result")
    fail_if({AGENT_ONE_CALL: wrong})


def check_validated(ctx: CheckContext) -> None:
    """With propagated interrupts pending (depth 1 and 3), resume inputs with an unknown id, a duplicate, or
    a valid answer next to an unknown id are refused with the codes of ROC-RESUME-014 before anything runs:
    no sub-agent event in the reply, the pending interrupts unchanged (and, with sessions, the snapshot,
    kept sub-agents included, unchanged); then the valid answer resumes normally."""
    wrong: list[str] = []
    sessions = "sessions" in ctx.profiles
    for label, definition in (("depth 1", leaf(ctx)), ("depth 3", middle(ctx, leaf(ctx)))):
        spec = outer(
            f"aat-validated-{label[-1]}",
            sc.executor_for(ctx.profiles),
            [("t1", "sub")],
            [sub_tool("sub", definition)],
        )
        paused = pause(ctx, spec, AGENT_VALIDATED, {"t1": 1})
        if paused is None:
            continue
        agent, first = paused
        iid = str(one_id(first, "t1"))
        before = strip_volatile(ctx.client.take_snapshot(agent).get("snapshot")) if sessions else None
        for what, body, code in (
            ("an unknown id", [sc.answer(iid + "x", "y")], "UNKNOWN_INTERRUPT"),
            ("a duplicate response", [sc.answer(iid, "y"), sc.answer(iid, "n")], "DUPLICATE_RESPONSE"),
            (
                "a valid answer next to an unknown id",
                [sc.answer(iid, "y"), sc.answer(iid + "x", "y")],
                "UNKNOWN_INTERRUPT",
            ),
        ):
            out = ctx.client.invoke(agent, {"interruptResponses": body})
            if error_code(out) != code:
                wrong.append(f"{label}: {what} gave {shown(out)}, expected {code}")
                if "result" in out:
                    break
            if ran(under(out, "t1")):
                wrong.append(f"{label}: {what} ran {ran(under(out, 't1'))} in the sub-agent")
        else:
            if sessions:
                after = strip_volatile(ctx.client.take_snapshot(agent).get("snapshot"))
                if after != before:
                    wrong.append(f"{label}: the rejected inputs changed the agent's snapshot")
            out = ctx.client.invoke(agent, sc.resume(sc.answer(iid, "y")))
            if spoiled_by_reprompt(ctx, AGENT_VALIDATED, out, f"{label}, the valid answer"):
                continue
            if _final_text(out) != TOP_TEXT:
                wrong.append(f"{label}: the valid answer after the rejected inputs gave {shown(out)}")
    fail_if({AGENT_VALIDATED: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-AGENT-001",
        (AGENT_PROPAGATED,),
        check_propagated,
        ("core", PROFILE),
        "a sub-agent's interrupts stop the tool use that runs it, one per unanswered interrupt, at any depth",
    ),
    (
        "explicit:ROC-AGENT-002",
        (AGENT_IDS,),
        check_ids,
        ("core", PROFILE),
        "a propagated interrupt's id is unique among the pending ones and stable across replay",
    ),
    (
        "explicit:ROC-AGENT-003",
        (AGENT_CARRIED,),
        check_carried,
        ("core", PROFILE),
        "a propagated interrupt carries the inner one's members and a nested agent_as_tool source",
    ),
    (
        "explicit:ROC-AGENT-004",
        (AGENT_ROUTED,),
        check_routed,
        ("core", PROFILE),
        "an answer or decision reaches exactly the inner interrupt it stands for",
    ),
    (
        "explicit:ROC-AGENT-005",
        (AGENT_RESUMED,),
        check_resumed,
        ("core", PROFILE),
        "a kept sub-agent is resumed with the answers, never prompted again",
    ),
    (
        "explicit:ROC-AGENT-006",
        (AGENT_UNTOUCHED,),
        check_untouched,
        ("core", PROFILE, "concurrent-executor"),
        "a sub-agent that receives nothing new is not resumed; its interrupts are reported again",
    ),
    (
        "explicit:ROC-AGENT-007",
        (AGENT_COMPLETED,),
        check_completed,
        ("core", PROFILE),
        "a completed sub-agent is not run again within its batch",
    ),
    (
        "explicit:ROC-AGENT-010",
        (AGENT_INSTANCES,),
        check_instances,
        ("core", PROFILE, "concurrent-executor"),
        "tool uses running one definition each get their own sub-agent instance",
    ),
    (
        "explicit:ROC-AGENT-011",
        (AGENT_ONE_CALL,),
        check_one_call,
        ("core", PROFILE),
        "a second sub-agent call in one body run fails the body",
    ),
    (
        "explicit:ROC-AGENT-012",
        (AGENT_VALIDATED,),
        check_validated,
        ("core", PROFILE),
        "a resume addressing propagated interrupts is validated completely before anything runs",
    ),
)


def agent_checks() -> list[Check]:
    """The agent-as-tool checks, the session ones (ROC-AGENT-008, ROC-AGENT-009) included."""
    from roc_conformance.checks.agents_sessions import agent_session_checks

    return [*explicit_checks_of(_SPECS), *agent_session_checks()]
