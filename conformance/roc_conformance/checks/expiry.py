"""Expiry checks (profile expiry, spec 11.3): ``expiresAt`` and ``onExpiry`` at the raise, what counts as
expired, the EXPIRED refusal and the expiry outcome. One check per requirement. The suite's deadlines are
2000-01-01 and 2999-01-01, so the 60 s tolerance of ROC-EXPIRY-003 never decides an outcome.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    DECIDE_TOOL,
    DECIDE_TOOL_CALL,
    EXPIRY_AT,
    EXPIRY_CLOCK,
    EXPIRY_OUTCOME,
    EXPIRY_RANK,
    EXPIRY_REFUSED,
    EXPIRY_RESOLVED,
    EXPIRY_TEXT,
    FUTURE,
    PAST,
    answer,
    ask,
    error_result,
    followed,
    ids_by_name,
    interrupts,
    one_tool,
    pause,
    resume,
    returned,
    shown,
    tool_results,
    two_unanswered,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if

# Accepted deadlines (RFC 3339 with a zone), all far in the future.
_VALID_AT = (
    FUTURE,
    "2999-01-01T00:00:00+02:00",
    "2999-06-30T23:59:59.125-05:30",
    "2999-01-01T00:00:00-00:00",
)
# Refused ones: no zone, no time, out-of-range fields, not a date-time at all.
_INVALID_AT = (
    "2999-01-01T00:00:00",
    "2999-01-01",
    "2999-13-01T00:00:00Z",
    "2999-02-30T00:00:00Z",
    "2999-01-01T24:00:01Z",
    "2999-01-01T00:00:00+25:00",
    "tomorrow",
    "",
)
_VALID_OUTCOMES: tuple[dict[str, Any], ...] = (
    {"decision": "decline"},
    {"decision": "cancel", "message": "Timed out."},
    {"decision": "decline", "message": ""},
)
_INVALID_OUTCOMES: tuple[dict[str, Any], ...] = (
    {"decision": "answer"},
    {"decision": "maybe"},
    {"decision": "Decline"},
)


def _raise_at(ctx: CheckContext, **options: Any) -> dict[str, Any]:
    return ctx.client.invoke(
        ctx.client.create_agent(one_tool("expiry-raise", ctx, ask("q", **options))), {"prompt": "go"}
    )


def check_expires_at(ctx: CheckContext) -> None:
    """A zoned RFC 3339 deadline is reported unchanged; any other value fails the raise (INVALID_REASON)."""
    wrong: list[str] = []
    for value in _VALID_AT:
        out = _raise_at(ctx, expires_at=value)
        got = [i.get("expiresAt") for i in interrupts(out)]
        if got != [value]:
            wrong.append(f"expiresAt {value!r} gave {shown(out)} with expiresAt {got}")
    for value in _INVALID_AT:
        out = _raise_at(ctx, expires_at=value)
        if error_code(out) != "INVALID_REASON":
            wrong.append(f"expiresAt {value!r} gave {shown(out)}, not INVALID_REASON")
    fail_if({EXPIRY_AT: wrong})


def check_on_expiry(ctx: CheckContext) -> None:
    """A decline or cancel outcome (optional string message) is reported unchanged; others fail the raise."""
    wrong: list[str] = []
    for value in _VALID_OUTCOMES:
        out = _raise_at(ctx, expires_at=FUTURE, on_expiry=value)
        got = [i.get("onExpiry") for i in interrupts(out)]
        if got != [value]:
            wrong.append(f"onExpiry {value} gave {shown(out)} with onExpiry {got}")
    for value in _INVALID_OUTCOMES:
        out = _raise_at(ctx, expires_at=FUTURE, on_expiry=value)
        if error_code(out) != "INVALID_REASON":
            wrong.append(f"onExpiry {value} gave {shown(out)}, not INVALID_REASON")
    fail_if({EXPIRY_OUTCOME: wrong})


def _answer_once(ctx: CheckContext, expires_at: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    agent, first = pause(
        ctx, one_tool("expiry-answer", ctx, ask("q", expires_at=expires_at), sc.returns("ran"))
    )
    iid = str(interrupts(first)[0].get("id"))
    return first, ctx.client.invoke(agent, resume(answer(iid, "y"))), iid


def check_clock(ctx: CheckContext) -> None:
    """A deadline long past counts as expired (its answer is refused), one far ahead does not (its answer is
    taken), whatever the zone the deadline is written in."""
    wrong: list[str] = []
    for value in (PAST, "2000-01-01T00:00:00+05:00", "1999-12-31T19:00:00-05:00"):
        _, out, _ = _answer_once(ctx, value)
        if "result" in out:
            wrong.append(f"an answer for an interrupt that expired at {value} was taken as an answer")
    for value in (FUTURE, "2999-01-01T00:00:00-05:00"):
        _, out, _ = _answer_once(ctx, value)
        if error_code(out) == "EXPIRED" or tool_results(out).get("t1") != returned("t1", ["y"], "ran"):
            wrong.append(f"an answer for an interrupt expiring at {value} gave {shown(out)}")
    fail_if({EXPIRY_CLOCK: wrong})


def check_expired_refused(ctx: CheckContext) -> None:
    """An answer for an expired interrupt: EXPIRED with details.interruptId, and nothing changes (the same
    answer is refused the same way, and a decline is still taken)."""
    wrong: list[str] = []
    first, out, iid = _answer_once(ctx, PAST)
    if "result" in out:
        followed(ctx, EXPIRY_REFUSED, "the answer for the expired interrupt was taken", EXPIRY_CLOCK)
        return
    err = out.get("error") or {}
    if err.get("code") != "EXPIRED" or (err.get("details") or {}).get("interruptId") != iid:
        wrong.append(f"an answer for an expired interrupt gave {shown(out)}, expected EXPIRED naming {iid!r}")
    for what in ("messages", "state"):
        if what in out and out.get(what) != first.get(what):
            wrong.append(f"the refused answer changed the {what}")
    fail_if({EXPIRY_REFUSED: wrong})


def check_expiry_resolved(ctx: CheckContext) -> None:
    """A resume that answers one interrupt resolves the other, expired, one by its outcome before the cycle
    runs; the unit sees it as a decision (unhandled: the decision text; handled: the kind and message)."""
    wrong: list[str] = []
    cases: tuple[tuple[dict[str, Any] | None, str, str], ...] = (
        (None, "decline", EXPIRY_TEXT),
        ({"decision": "cancel", "message": "Timed out."}, "cancel", "Timed out."),
        ({"decision": "cancel"}, "cancel", EXPIRY_TEXT),
    )
    for outcome, decision, text in cases:
        for handle in (False, True):
            pair = two_unanswered(
                ctx, "expiry-resolved", ask("a"), ask("e", expires_at=PAST, on_expiry=outcome, handle=handle)
            )
            if pair is None:
                return
            spec, (_, e_use) = pair
            if handle and "hooks" in ctx.profiles:
                spec["hooks"][1]["steps"].append({"setState": {"key": "seen", "fromAnswer": True}})
            agent, first = pause(ctx, spec)
            ids = ids_by_name(first)
            out = ctx.client.invoke(agent, resume(answer(ids.get("a", "a"), "y")))
            label = f"onExpiry {outcome}, {'handled' if handle else 'not handled'}"
            if "result" not in out:
                wrong.append(f"{label}: answering the other interrupt gave {shown(out)}")
                continue
            seen = {"decision": decision, "message": text}
            if not handle:
                want = error_result(e_use, text)
                got: Any = tool_results(out).get(e_use)
            elif "hooks" in ctx.profiles:
                want, got = seen, (out.get("state") or {}).get("seen")
            else:
                want, got = returned(e_use, [seen], "b ran"), tool_results(out).get(e_use)
            if got != want and not handle:
                # The unit saw a decision but its default outcome is wrong: that outcome's own rule.
                rule = DECIDE_TOOL_CALL if "hooks" in ctx.profiles else DECIDE_TOOL
                followed(ctx, EXPIRY_RESOLVED, f"{label}: got {got}, expected {want} ({shown(out)})", rule)
            elif got != want:
                wrong.append(f"{label}: got {got}, expected {want} ({shown(out)})")
    fail_if({EXPIRY_RESOLVED: wrong})


def check_expired_rank(ctx: CheckContext) -> None:
    """An input that answers an expired interrupt and has a fault of ROC-RESUME-014 gets that fault's code."""
    wrong: list[str] = []
    agent, first = pause(ctx, one_tool("expiry-rank", ctx, ask("q", expires_at=PAST), sc.returns("ran")))
    iid = str(interrupts(first)[0].get("id"))
    probes = (
        ("and an unknown id", resume(answer(iid, "y"), answer("no-such-id", "y")), "UNKNOWN_INTERRUPT"),
        ("twice", resume(answer(iid, "y"), answer(iid, "z")), "DUPLICATE_RESPONSE"),
        ("with a null response", resume(answer(iid, None)), "INVALID_RESPONSE"),
        (
            "and a prompt block",
            {"content": [sc.text("hi"), {"interruptResponse": answer(iid, "y")}]},
            "INTERRUPT_PENDING",
        ),
    )
    for label, inp, code in probes:
        out = ctx.client.invoke(agent, inp)
        if error_code(out) != code:
            wrong.append(f"an answer for the expired interrupt {label} gave {shown(out)}, expected {code}")
            if "result" in out:
                break
    fail_if({EXPIRY_RANK: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-EXPIRY-001",
        (EXPIRY_AT,),
        check_expires_at,
        ("core", "decisions", "expiry"),
        "expiresAt is a zoned RFC 3339 date-time, reported unchanged; others are INVALID_REASON",
    ),
    (
        "explicit:ROC-EXPIRY-002",
        (EXPIRY_OUTCOME,),
        check_on_expiry,
        ("core", "decisions", "expiry"),
        "onExpiry is a decline or cancel with an optional message, reported as is; others are INVALID_REASON",
    ),
    (
        "explicit:ROC-EXPIRY-003",
        (EXPIRY_CLOCK,),
        check_clock,
        ("core", "decisions", "expiry"),
        "a deadline long past counts as expired, one far ahead does not",
    ),
    (
        "explicit:ROC-EXPIRY-004",
        (EXPIRY_REFUSED,),
        check_expired_refused,
        ("core", "decisions", "expiry"),
        "an answer for an expired interrupt is EXPIRED and changes nothing",
    ),
    (
        "explicit:ROC-EXPIRY-005",
        (EXPIRY_RESOLVED,),
        check_expiry_resolved,
        ("core", "decisions", "expiry"),
        "an accepted resume resolves expired undecided interrupts by their expiry outcome",
    ),
    (
        "explicit:ROC-EXPIRY-006",
        (EXPIRY_RANK,),
        check_expired_rank,
        ("core", "decisions", "expiry"),
        "EXPIRED ranks after every code of ROC-RESUME-014",
    ),
)


def expiry_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
