"""Abandon checks (profile abandon, spec 11.2): ending a pending batch from outside. One check per
requirement, each judged on its own evidence.

Harness protocol 4 carries the abandon message as a string and ``then`` as a flag, so a malformed abandon
(ROC-ABANDON-006) cannot be sent; the spec lists it among the requirements the harness cannot observe.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    ABANDON_ACCEPTED,
    ABANDON_IDLE,
    ABANDON_QUIET,
    ABANDON_RESULTS,
    ABANDON_TEXT,
    ABANDON_THEN,
    PAST,
    abandon,
    answer,
    ask,
    decide,
    error_result,
    followed,
    ids_by_name,
    kinds,
    one_tool,
    pause,
    resume,
    returned,
    shown,
    stop_reason,
    tools_started,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if


def _two_raises(
    ctx: CheckContext, agent_id: str, *, handle: bool = False, expires: bool = False
) -> dict[str, Any]:
    """``t1`` raises ``a`` and then ``b`` (``b`` expired long ago with ``expires``); a second model turn
    calls the tool again as ``t2``."""
    b = ask("b", expires_at=PAST) if expires else ask("b")
    return one_tool(agent_id, ctx, ask("a", handle=handle), b, sc.returns("ran"), extra_turns=1)


def _pending_kinds(ctx: CheckContext) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(what is pending, scenario, the resume that leaves ``a`` stored before the abandon), per kind the
    claim can produce."""
    out: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
        ("one unanswered interrupt", _two_raises(ctx, "abandon-unanswered"), None),
        ("an answered and an unanswered interrupt", _two_raises(ctx, "abandon-answered"), {"a": "answer"}),
    ]
    if "decisions" in ctx.profiles:
        out.append(
            (
                "a declined and an unanswered one",
                _two_raises(ctx, "abandon-declined", handle=True),
                {"a": "decline"},
            )
        )
        out.append(
            (
                "a cancelled and an unanswered one",
                _two_raises(ctx, "abandon-cancelled", handle=True),
                {"a": "cancel"},
            )
        )
    if "expiry" in ctx.profiles:
        out.append(
            (
                "an answered and an expired interrupt",
                _two_raises(ctx, "abandon-expired", expires=True),
                {"a": "answer"},
            )
        )
    return out


def _paused_with(
    ctx: CheckContext, spec: dict[str, Any], first: dict[str, Any] | None
) -> tuple[str, dict[str, Any]] | None:
    """Pause at ``a``; with ``first``, decide ``a`` that way and pause again at ``b``. None when the set-up
    input is refused (another rule's finding)."""
    agent, out = pause(ctx, spec)
    if first is None:
        return agent, out
    iid = ids_by_name(out)["a"]
    kind = first["a"]
    body = answer(iid, "A") if kind == "answer" else decide(iid, kind)
    out = ctx.client.invoke(agent, resume(body))
    if "b" not in ids_by_name(out):
        return None
    return agent, out


def check_abandon_accepted(ctx: CheckContext) -> None:
    """An interrupted agent accepts an abandon whatever its pending interrupts are."""
    wrong: list[str] = []
    for label, spec, first in _pending_kinds(ctx):
        paused = _paused_with(ctx, spec, first)
        if paused is None:
            ctx.evidence.block([ABANDON_ACCEPTED], f"{label}: the set-up resume was refused")
            continue
        out = ctx.client.invoke(paused[0], abandon())
        if "result" not in out:
            wrong.append(f"{label}: an abandon gave {shown(out)}")
    fail_if({ABANDON_ACCEPTED: wrong})


def check_abandon_idle(ctx: CheckContext) -> None:
    """An abandon of an agent that is not interrupted (new, or idle after a result) is NOT_INTERRUPTED and
    changes nothing: the next prompt runs as it would have."""
    spec = sc.agent_spec(
        "abandon-idle",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.text("one")), sc.turn(sc.text("two"))],
        state={"k": 1},
    )
    wrong: list[str] = []
    agent = ctx.client.create_agent(spec)
    for label in ("a new agent", "an agent idle after a result"):
        out = ctx.client.invoke(agent, abandon("bye"))
        if error_code(out) != "NOT_INTERRUPTED":
            wrong.append(f"an abandon of {label} gave {shown(out)}, not NOT_INTERRUPTED")
        if label == "a new agent":
            done = ctx.client.invoke(agent, {"prompt": "hi"})
            want = [
                {"role": "user", "content": [sc.text("hi")]},
                {"role": "assistant", "content": [sc.text("one")]},
            ]
            got = [{k: m.get(k) for k in ("role", "content")} for m in done.get("messages") or []]
            if got != want or done.get("state") != {"k": 1}:
                wrong.append(
                    f"after the refused abandon a prompt left history {got} and state {done.get('state')}"
                )
        else:
            before = done.get("messages")
            if "messages" in out and out.get("messages") != before:
                wrong.append(f"the refused abandon changed the history: {before} -> {out.get('messages')}")
            again = ctx.client.invoke(agent, {"prompt": "again"})
            last = (again.get("result") or {}).get("message")
            if (last or {}).get("content") != [sc.text("two")]:
                wrong.append(f"after the refused abandon the next prompt gave {shown(again)}, message {last}")
    fail_if({ABANDON_IDLE: wrong})


def _batch_scenario(ctx: CheckContext, agent_id: str) -> dict[str, Any]:
    """One turn: ``t1`` plain (completes), ``t2`` asks, ``t3`` plain (not started under the sequential
    executor, completed under the concurrent one); then ``t4`` asks in the next turn."""
    return sc.agent_spec(
        agent_id,
        executor=sc.executor_for(ctx.profiles),
        turns=[
            sc.turn(
                sc.text("three tools"),
                sc.tool_use("t1", "plain"),
                sc.tool_use("t2", "ask"),
                sc.tool_use("t3", "plain"),
            ),
            sc.turn(sc.text("after"), sc.tool_use("t4", "ask")),
            sc.turn(sc.text("done")),
        ],
        tools=[
            sc.tool("plain", sc.returns("p")),
            sc.tool("ask", ask("a", handle=True), ask("b"), sc.returns("ran")),
        ],
    )


def check_abandon_results(ctx: CheckContext) -> None:
    """The abandoned batch completes: error results with the abandon text for every tool use without a
    preserved result, preserved results kept, the assistant message and the result message appended in
    tool-use order; the stored answers and decisions are consumed (the next batch asks again)."""
    concurrent = sc.executor_for(ctx.profiles) == "concurrent"
    wrong: list[str] = []
    stored = "decline" if "decisions" in ctx.profiles else "answer"
    for message, text in (("Stopped by the user.", "Stopped by the user."), (None, ABANDON_TEXT)):
        spec = _batch_scenario(ctx, "abandon-results")
        agent, first = pause(ctx, spec)
        a_id = ids_by_name(first).get("a")
        second = ctx.client.invoke(
            agent, resume(answer(str(a_id), "A") if stored == "answer" else decide(str(a_id), "decline"))
        )
        if "b" not in ids_by_name(second):
            ctx.evidence.block([ABANDON_RESULTS], f"the set-up {stored} of a gave {shown(second)}")
            continue
        out = ctx.client.invoke(agent, abandon(message))
        if "result" not in out:
            followed(ctx, ABANDON_RESULTS, f"the abandon was refused: {shown(out)}", ABANDON_ACCEPTED)
            continue
        assistant = {
            "role": "assistant",
            "content": [
                sc.text("three tools"),
                sc.tool_use("t1", "plain"),
                sc.tool_use("t2", "ask"),
                sc.tool_use("t3", "plain"),
            ],
        }
        results = [
            returned("t1", [], "p"),
            error_result("t2", text),
            returned("t3", [], "p") if concurrent else error_result("t3", text),
        ]
        want = [assistant, {"role": "user", "content": [{"toolResult": r} for r in results]}]
        history = [{k: m.get(k) for k in ("role", "content")} for m in out.get("messages") or []]
        if history[-2:] != want:
            wrong.append(
                f"abandon (message {message!r}): the history ends with {history[-2:]}, expected {want}"
            )
        if stop_reason(out) != "abandoned":
            continue  # ABANDON-005's finding; the next prompt would meet another state
        nxt = ctx.client.invoke(agent, {"prompt": "next"})
        again = ids_by_name(nxt).get("a")
        if again is None:
            wrong.append(
                f"the next batch's raise of a did not pause ({shown(nxt)}): the abandoned batch's "
                f"{stored} of a was not consumed"
            )
    fail_if({ABANDON_RESULTS: wrong})


_QUIET_EVENTS = ("BeforeTools", "BeforeToolCall", "AfterToolCall", "AfterTools")


def check_abandon_quiet(ctx: CheckContext) -> None:
    """An abandon runs no tool body and no tool-cycle callback (every tool event has a callback here)."""
    hooks = "hooks" in ctx.profiles
    spec = _batch_scenario(ctx, "abandon-quiet")
    if hooks:
        spec["hooks"] = [sc.hook(event) for event in _QUIET_EVENTS]
    agent, _ = pause(ctx, spec)
    out = ctx.client.invoke(agent, abandon())
    if "result" not in out:
        followed(ctx, ABANDON_QUIET, f"the abandon was refused: {shown(out)}", ABANDON_ACCEPTED)
        return
    wrong: list[str] = []
    if ran := tools_started(out):
        wrong.append(f"the abandon ran tool bodies {ran}")
    fired = [
        str(e.get("event"))
        for e in out.get("trace") or []
        if e.get("kind") == "hook_callback" and e.get("event") in _QUIET_EVENTS
    ]
    if fired:
        wrong.append(f"the abandon ran callbacks of {fired}")
    events = [
        k for k in kinds(out) if k in ("before_tools", "before_tool_call", "after_tool_call", "after_tools")
    ]
    if hooks and events:
        wrong.append(f"the abandon fired tool events {events}")
    fail_if({ABANDON_QUIET: wrong})


def check_abandon_then(ctx: CheckContext) -> None:
    """``then: "end"``: no model call, stopReason "abandoned", the batch's assistant message, no
    interrupts, the agent idle; ``then: "continue"``: the model is called next and the loop goes on."""
    wrong: list[str] = []
    spec = one_tool("abandon-then", ctx, ask("q"), sc.returns("ran"))
    agent, _ = pause(ctx, spec)
    out = ctx.client.invoke(agent, abandon())
    if "result" not in out:
        followed(ctx, ABANDON_THEN, f"the abandon was refused: {shown(out)}", ABANDON_ACCEPTED)
    else:
        result = out["result"]
        message = {k: (result.get("message") or {}).get(k) for k in ("role", "content")}
        want = {"role": "assistant", "content": [sc.text("asking"), sc.tool_use("t1", "ask")]}
        if "model_call" in kinds(out):
            wrong.append("then end: the model was called")
        if result.get("stopReason") != "abandoned" or result.get("interrupts") not in ([], None):
            wrong.append(
                f"then end: stopReason {result.get('stopReason')!r}, interrupts {result.get('interrupts')}"
            )
        if message != want:
            wrong.append(f"then end: message {message}, expected the batch's assistant message {want}")
        nxt = ctx.client.invoke(agent, {"prompt": "next"})
        if stop_reason(nxt) != "end_turn":
            wrong.append(f"then end: the agent is not idle after it, a prompt gave {shown(nxt)}")
    agent, _ = pause(ctx, spec)
    out = ctx.client.invoke(agent, abandon(then="continue"))
    if "result" not in out:
        followed(ctx, ABANDON_THEN, f"the abandon (continue) was refused: {shown(out)}", ABANDON_ACCEPTED)
    else:
        calls = [e.get("turn") for e in out.get("trace") or [] if e.get("kind") == "model_call"]
        final = (out["result"].get("message") or {}).get("content")
        if calls != [1] or stop_reason(out) != "end_turn" or final != [sc.text("done")]:
            wrong.append(f"then continue: model calls {calls} (expected [1]), {shown(out)}, message {final}")
    fail_if({ABANDON_THEN: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-ABANDON-001",
        (ABANDON_ACCEPTED,),
        check_abandon_accepted,
        ("core", "abandon"),
        "an interrupted agent accepts an abandon whatever is pending",
    ),
    (
        "explicit:ROC-ABANDON-002",
        (ABANDON_IDLE,),
        check_abandon_idle,
        ("core", "abandon"),
        "an abandon of an agent that is not interrupted is NOT_INTERRUPTED and changes nothing",
    ),
    (
        "explicit:ROC-ABANDON-003",
        (ABANDON_RESULTS,),
        check_abandon_results,
        ("core", "abandon"),
        "an abandon completes the batch with error results, keeps preserved ones, consumes the answers",
    ),
    (
        "explicit:ROC-ABANDON-004",
        (ABANDON_QUIET,),
        check_abandon_quiet,
        ("core", "abandon"),
        "an abandon runs no tool body and no tool-cycle callback",
    ),
    (
        "explicit:ROC-ABANDON-005",
        (ABANDON_THEN,),
        check_abandon_then,
        ("core", "abandon"),
        "then end stops without a model call (stopReason abandoned); then continue calls the model",
    ),
)


def abandon_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
