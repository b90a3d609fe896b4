"""Decision checks (profile decisions, spec 11.1): decline and cancel as responses, how the unit sees them,
and the default outcomes when it does not handle them. One check per requirement, each judged on its own
evidence; a set-up that another rule spoils is recorded as a consequence of that rule.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    CANCEL_TEXT,
    DECIDE_ACCEPTED,
    DECIDE_ANSWERED,
    DECIDE_EXPIRED,
    DECIDE_REPORTED,
    DECIDE_SHAPE,
    DECIDE_TEXT,
    DECIDE_TOOL,
    DECIDE_TOOL_CALL,
    DECIDE_TOOLS,
    DECLINE_TEXT,
    PAST,
    answer,
    ask,
    decide,
    error_result,
    followed,
    ids_by_name,
    interrupts,
    one_tool,
    pause,
    resume,
    returned,
    shown,
    stop_reason,
    tool_results,
    tools_started,
    two_unanswered,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if
from roc_conformance.errors import ConformanceViolation


def _only_id(out: dict[str, Any]) -> str:
    return str(interrupts(out)[0].get("id"))


def check_decision_accepted(ctx: CheckContext) -> None:
    """A decline or cancel, with or without a message, is accepted for an unanswered interrupt; with two
    unanswered interrupts, an answer and a decline mix in one input, and a decline of one alone is partial."""
    wrong: dict[str, list[str]] = {}
    for decision, message in (("decline", None), ("cancel", None), ("decline", "no"), ("cancel", "later")):
        agent, first = pause(ctx, one_tool("decide-accepted", ctx, ask("q"), sc.returns("ran")))
        out = ctx.client.invoke(agent, resume(decide(_only_id(first), decision, message)))
        if "result" not in out:
            wrong.setdefault(DECIDE_ACCEPTED, []).append(
                f"a {decision} (message {message!r}) gave {shown(out)}"
            )
    pair = two_unanswered(ctx, "decide-mixed", ask("a"), ask("b"))
    if pair is not None:
        spec, _ = pair
        agent, first = pause(ctx, spec)
        ids = ids_by_name(first)
        if set(ids) != {"a", "b"}:
            raise ConformanceViolation("ROC-STOP-001", f"expected interrupts a and b, got {shown(first)}")
        mixed = ctx.client.invoke(agent, resume(answer(ids["a"], "y"), decide(ids["b"], "decline")))
        if "result" not in mixed:
            wrong.setdefault(DECIDE_ACCEPTED, []).append(
                f"an answer and a decline in one input gave {shown(mixed)}"
            )
        agent, first = pause(ctx, spec)
        partial = ctx.client.invoke(agent, resume(decide(ids_by_name(first)["a"], "cancel")))
        again = ids_by_name(partial)
        if "result" not in partial:
            wrong.setdefault(DECIDE_ACCEPTED, []).append(
                f"a cancel of one of two interrupts gave {shown(partial)}"
            )
        elif again != {"b": ids_by_name(first)["b"]}:
            wrong.setdefault(DECIDE_ACCEPTED, []).append(
                f"after a cancel of one of two interrupts the result holds {again}, expected b unanswered "
                f"with its id {ids_by_name(first)['b']!r} (a partial resume, spec 3.5)"
            )
    fail_if(wrong)


# Each malformed body and why it is one (ROC-DECIDE-002); the pending interrupt's id is added to each.
_MALFORMED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("an unknown decision", {"decision": "maybe"}),
    ("a decision that is not a string", {"decision": 1}),
    ("a null decision", {"decision": None}),
    ("a decline with a response", {"decision": "decline", "response": "y"}),
    ("a cancel with a response", {"decision": "cancel", "response": "y"}),
    ("an answer with a message", {"response": "y", "message": "m"}),
    ("an explicit answer with a message", {"decision": "answer", "response": "y", "message": "m"}),
    ("a decline whose message is a number", {"decision": "decline", "message": 5}),
    ("a cancel whose message is null", {"decision": "cancel", "message": None}),
)


def check_decision_shape(ctx: CheckContext) -> None:
    """Malformed decisions are INVALID_RESUME; ``"decision": "answer"`` with a response is an answer."""
    agent, first = pause(ctx, one_tool("decide-shape", ctx, ask("q"), sc.returns("ran")))
    iid = _only_id(first)
    wrong: dict[str, list[str]] = {}
    for label, body in _MALFORMED:
        out = ctx.client.invoke(agent, resume({"interruptId": iid, **body}))
        if error_code(out) != "INVALID_RESUME":
            wrong.setdefault(DECIDE_SHAPE, []).append(f"{label} gave {shown(out)}, not INVALID_RESUME")
            if "result" in out:  # the agent moved on: the later probes would meet another state
                break
    else:
        out = ctx.client.invoke(agent, resume({"interruptId": iid, "decision": "answer", "response": "y"}))
        want = returned("t1", ["y"], "ran")
        if tool_results(out).get("t1") != want:
            wrong.setdefault(DECIDE_SHAPE, []).append(
                f'an answer with "decision": "answer" gave {shown(out)}, t1 {tool_results(out).get("t1")}, '
                f"expected {want}"
            )
    fail_if(wrong)


def check_decision_reported(ctx: CheckContext) -> None:
    """A unit that handles decisions receives the kind and message (the scenario's program takes
    ``{"decision", "message"?}`` as its answer and returns it; with hooks, a BeforeToolCall callback stores
    it in the state) and goes on."""
    wrong: dict[str, list[str]] = {}
    for decision, message in (("decline", "not the backups"), ("cancel", None), ("decline", "")):
        agent, first = pause(ctx, one_tool("decide-reported", ctx, ask("q", handle=True), sc.returns("ran")))
        out = ctx.client.invoke(agent, resume(decide(_only_id(first), decision, message)))
        seen = {"decision": decision} if message is None else {"decision": decision, "message": message}
        want = returned("t1", [seen], "ran")
        if "result" not in out:
            followed(ctx, DECIDE_REPORTED, f"the {decision} was refused: {shown(out)}", DECIDE_ACCEPTED)
        elif tool_results(out).get("t1") != want:
            wrong.setdefault(DECIDE_REPORTED, []).append(
                f"a tool body handling a {decision} (message {message!r}) returned "
                f"{tool_results(out).get('t1')}, expected {want}"
            )
    if "hooks" in ctx.profiles:
        spec = sc.agent_spec(
            "decide-reported-hook",
            executor=sc.executor_for(ctx.profiles),
            turns=[sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("done"))],
            tools=[sc.tool("x", sc.returns("x ran"))],
            hooks=[
                sc.hook(
                    "BeforeToolCall",
                    ask("gate", handle=True),
                    {"setState": {"key": "seen", "fromAnswer": True}},
                )
            ],
        )
        agent, first = pause(ctx, spec)
        out = ctx.client.invoke(agent, resume(decide(_only_id(first), "cancel", "wrong file")))
        want_state = {"decision": "cancel", "message": "wrong file"}
        if "result" not in out:
            followed(ctx, DECIDE_REPORTED, f"the cancel was refused: {shown(out)}", DECIDE_ACCEPTED)
        elif (out.get("state") or {}).get("seen") != want_state or "t1" not in tools_started(out):
            wrong.setdefault(DECIDE_REPORTED, []).append(
                f"a BeforeToolCall callback handling a cancel stored {(out.get('state') or {}).get('seen')!r}"
                f" (expected {want_state}); the tool ran: {'t1' in tools_started(out)}"
            )
    fail_if(wrong)


def check_tool_default(ctx: CheckContext) -> None:
    """A tool body that does not handle a decline: an error result with exactly the decision text; the
    batch goes on (``t2`` runs); AfterToolCall fires for it with status error (with hooks)."""
    hooks = "hooks" in ctx.profiles
    spec = sc.agent_spec(
        "decide-tool",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "ask"), sc.tool_use("t2", "plain")), sc.turn(sc.text("done"))],
        tools=[sc.tool("ask", ask("q"), sc.returns("ran")), sc.tool("plain", sc.returns("fine"))],
        hooks=[sc.hook("AfterToolCall")] if hooks else [],
    )
    agent, first = pause(ctx, spec)
    out = ctx.client.invoke(agent, resume(decide(_only_id(first), "decline", "Not today.")))
    wrong: dict[str, list[str]] = {}
    if "result" not in out:
        followed(ctx, DECIDE_TOOL, f"the decline was refused: {shown(out)}", DECIDE_ACCEPTED)
        return
    results = tool_results(out)
    want = error_result("t1", "Not today.")
    if results.get("t1") != want:
        wrong.setdefault(DECIDE_TOOL, []).append(f"t1's result is {results.get('t1')}, expected {want}")
    if (results.get("t2") or {}).get("status") != "success" or stop_reason(out) != "end_turn":
        wrong.setdefault(DECIDE_TOOL, []).append(
            f"the batch did not go on as after a tool failure: t2 {results.get('t2')}, {shown(out)}"
        )
    if hooks:
        after = [
            e
            for e in out.get("trace") or []
            if e.get("kind") == "after_tool_call" and e.get("toolUseId") == "t1"
        ]
        if [e.get("status") for e in after] != ["error"]:
            wrong.setdefault(DECIDE_TOOL, []).append(
                f"AfterToolCall for t1 fired as {after}, expected once, error"
            )
    fail_if(wrong)


def check_tool_call_default(ctx: CheckContext) -> None:
    """A BeforeToolCall callback that does not handle a decline: as if it set cancel_tool to the decision
    text; the callback after it runs, the tool does not."""
    spec = sc.agent_spec(
        "decide-tool-call",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "x"), sc.tool_use("t2", "y")), sc.turn(sc.text("done"))],
        tools=[sc.tool("x", sc.returns("x ran")), sc.tool("y", sc.returns("y ran"))],
        hooks=[
            sc.hook("BeforeToolCall", ask("gate"), tool_name="x"),
            sc.hook("BeforeToolCall", {"setState": {"key": "second", "value": True}}, tool_name="x"),
        ],
    )
    agent, first = pause(ctx, spec)
    out = ctx.client.invoke(agent, resume(decide(_only_id(first), "decline", "Use y.")))
    if "result" not in out:
        followed(ctx, DECIDE_TOOL_CALL, f"the decline was refused: {shown(out)}", DECIDE_ACCEPTED)
        return
    wrong: list[str] = []
    results = tool_results(out)
    if results.get("t1") != error_result("t1", "Use y."):
        wrong.append(
            f"t1's result is {results.get('t1')}, expected the cancel's {error_result('t1', 'Use y.')}"
        )
    if "t1" in tools_started(out):
        wrong.append("the tool body of t1 ran")
    seconds = [
        e
        for e in out.get("trace") or []
        if e.get("kind") == "hook_callback" and e.get("hookIndex") == 1 and e.get("toolUseId") == "t1"
    ]
    if not seconds:
        wrong.append("the other BeforeToolCall callback of the firing did not run")
    if (results.get("t2") or {}).get("status") != "success":
        wrong.append(f"the batch did not go on: t2 {results.get('t2')}")
    fail_if({DECIDE_TOOL_CALL: wrong})


def check_tools_default(ctx: CheckContext) -> None:
    """A BeforeTools callback that does not handle a cancel: as if it set cancel to the decision text."""
    spec = sc.agent_spec(
        "decide-tools",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "x"), sc.tool_use("t2", "y")), sc.turn(sc.text("done"))],
        tools=[sc.tool("x", sc.returns("x ran")), sc.tool("y", sc.returns("y ran"))],
        hooks=[sc.hook("BeforeTools", ask("batch"))],
    )
    agent, first = pause(ctx, spec)
    out = ctx.client.invoke(agent, resume(decide(_only_id(first), "cancel")))
    if "result" not in out:
        followed(ctx, DECIDE_TOOLS, f"the cancel was refused: {shown(out)}", DECIDE_ACCEPTED)
        return
    wrong: list[str] = []
    results = tool_results(out)
    for tid in ("t1", "t2"):
        if results.get(tid) != error_result(tid, CANCEL_TEXT):
            wrong.append(f"{tid}'s result is {results.get(tid)}, expected {error_result(tid, CANCEL_TEXT)}")
    if ran := tools_started(out):
        wrong.append(f"tool bodies ran: {ran}")
    if stop_reason(out) != "end_turn":
        wrong.append(f"the invocation did not go on to the model: {shown(out)}")
    fail_if({DECIDE_TOOLS: wrong})


def check_decision_text(ctx: CheckContext) -> None:
    """The decision text: the message exactly (also ""), else the fixed text of the decision kind."""
    wrong: list[str] = []
    for decision, message, text in (
        ("decline", None, DECLINE_TEXT),
        ("cancel", None, CANCEL_TEXT),
        ("decline", "", ""),
        ("cancel", " Later, maybe. ", " Later, maybe. "),
    ):
        agent, first = pause(ctx, one_tool("decide-text", ctx, ask("q"), sc.returns("ran")))
        out = ctx.client.invoke(agent, resume(decide(_only_id(first), decision, message)))
        got = tool_results(out).get("t1") or {}
        content = got.get("content")
        label = f"a {decision} with message {message!r}"
        if "result" not in out:
            followed(ctx, DECIDE_TEXT, f"{label} was refused: {shown(out)}", DECIDE_ACCEPTED)
        elif not (
            isinstance(content, list)
            and len(content) == 1
            and isinstance(content[0], dict)
            and isinstance(content[0].get("text"), str)
        ):
            followed(ctx, DECIDE_TEXT, f"{label}: t1's result is {got}, not one text block", DECIDE_TOOL)
        elif content[0]["text"] != text:
            wrong.append(f"{label} gave the text {content[0]['text']!r}, expected {text!r}")
    fail_if({DECIDE_TEXT: wrong})


def check_decided_answered(ctx: CheckContext) -> None:
    """A body raises ``a`` (handling decisions) and then ``b``. Declining ``a`` pauses at ``b``: ``a`` is no
    longer unanswered (an answer or decision for it is UNKNOWN_INTERRUPT), its decline stays stored (the
    body gets it again when ``b`` is answered), and the next batch's raise of ``a`` is a new question."""
    spec = one_tool("decide-answered", ctx, ask("a", handle=True), ask("b"), sc.returns("ran"), extra_turns=1)
    agent, first = pause(ctx, spec)
    a_id = _only_id(first)
    second = ctx.client.invoke(agent, resume(decide(a_id, "decline", "no")))
    b_id = ids_by_name(second).get("b")
    if b_id is None:
        followed(ctx, DECIDE_ANSWERED, f"declining a gave {shown(second)}, not a pause at b", DECIDE_ACCEPTED)
        return
    wrong: list[str] = []
    for label, body in (("an answer", answer(a_id, "y")), ("a cancel", decide(a_id, "cancel"))):
        out = ctx.client.invoke(agent, resume(body))
        if error_code(out) != "UNKNOWN_INTERRUPT":
            wrong.append(f"{label} for the declined a gave {shown(out)}, not UNKNOWN_INTERRUPT")
            if "result" in out:
                fail_if({DECIDE_ANSWERED: wrong})
    third = ctx.client.invoke(agent, resume(answer(b_id, "B")))
    want = returned("t1", [{"decision": "decline", "message": "no"}, "B"], "ran")
    if tool_results(third).get("t1") != want:
        wrong.append(f"answering b gave t1 {tool_results(third).get('t1')} ({shown(third)}), expected {want}")
    later = ids_by_name(third).get("a")
    if later is None:
        wrong.append(f"the next batch's raise of a did not pause ({shown(third)}): the decline reached it")
    elif later == a_id:
        wrong.append(f"the next batch's interrupt a reuses the declined interrupt's id {a_id!r}")
    fail_if({DECIDE_ANSWERED: wrong})


def check_decline_expired(ctx: CheckContext) -> None:
    """A decline and a cancel are accepted for an interrupt whose deadline passed long ago."""
    wrong: list[str] = []
    for decision in ("decline", "cancel"):
        agent, first = pause(
            ctx, one_tool("decide-expired", ctx, ask("q", expires_at=PAST), sc.returns("ran"))
        )
        out = ctx.client.invoke(agent, resume(decide(_only_id(first), decision, "too late anyway")))
        if "result" not in out:
            wrong.append(f"a {decision} for an interrupt that expired at {PAST} gave {shown(out)}")
    fail_if({DECIDE_EXPIRED: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-DECIDE-001",
        (DECIDE_ACCEPTED,),
        check_decision_accepted,
        ("core", "decisions"),
        "a decline or cancel is accepted for an unanswered interrupt, also mixed with answers and partial",
    ),
    (
        "explicit:ROC-DECIDE-002",
        (DECIDE_SHAPE,),
        check_decision_shape,
        ("core", "decisions"),
        "a malformed decision is INVALID_RESUME",
    ),
    (
        "explicit:ROC-DECIDE-003",
        (DECIDE_REPORTED,),
        check_decision_reported,
        ("core", "decisions"),
        "a unit that handles decisions receives the kind and the message and goes on",
    ),
    (
        "explicit:ROC-DECIDE-004",
        (DECIDE_TOOL,),
        check_tool_default,
        ("core", "decisions"),
        "a tool body's unhandled decision gives an error result with the decision text",
    ),
    (
        "explicit:ROC-DECIDE-005",
        (DECIDE_TOOL_CALL,),
        check_tool_call_default,
        ("core", "decisions", "hooks"),
        "a BeforeToolCall callback's unhandled decision cancels that tool",
    ),
    (
        "explicit:ROC-DECIDE-006",
        (DECIDE_TOOLS,),
        check_tools_default,
        ("core", "decisions", "hooks"),
        "a BeforeTools callback's unhandled decision cancels the batch",
    ),
    (
        "explicit:ROC-DECIDE-007",
        (DECIDE_TEXT,),
        check_decision_text,
        ("core", "decisions"),
        "the decision text is the message, else the fixed text of the decision",
    ),
    (
        "explicit:ROC-DECIDE-008",
        (DECIDE_ANSWERED,),
        check_decided_answered,
        ("core", "decisions"),
        "a decided interrupt counts as answered until its batch completes, and never reaches a later batch",
    ),
    (
        "explicit:ROC-DECIDE-009",
        (DECIDE_EXPIRED,),
        check_decline_expired,
        ("core", "decisions", "expiry"),
        "a decline or cancel is accepted for an expired interrupt",
    ),
)


def decision_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
