"""Pending-list checks (profile pending-list, spec 11.4) and re-sent answer checks (profile
idempotent-resume, spec 11.5). One check per requirement; the expected lists are built from the interrupts
the agent reported and the answers the check sent.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_bytes
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    EXPIRY_RESOLVED,
    EXPIRY_TEXT,
    PAST,
    PENDING_AGENT,
    PENDING_ANSWER,
    PENDING_ERROR,
    PENDING_QUIET,
    PENDING_SNAPSHOT,
    RESEND_DIFFERS,
    RESEND_MARKED,
    RESEND_RESTORED,
    answer,
    ask,
    by_id,
    decide,
    followed,
    interrupts,
    list_pending,
    list_pending_of,
    one_tool,
    pause,
    resume,
    shown,
    stop_reason,
    tools_started,
    two_unanswered,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if, strip_volatile, take_snapshot

RESPONSE = {"ok": True, "n": [1, 2.5], "note": "“quoted”"}


def _same(a: Any, b: Any) -> bool:
    return canonical_bytes(a) == canonical_bytes(b)


def _list_problems(label: str, got: Any, want: dict[str, dict[str, Any]]) -> list[str]:
    """How a pending list differs from ``want`` (id -> the reported Interrupt) in ROC-PENDING-001's terms:
    the same interrupts, each once, with every reported member (``answer`` is judged by 002)."""
    if not isinstance(got, list):
        return [f"{label}: the list is {got!r}"]
    problems: list[str] = []
    ids = [str(e.get("id")) if isinstance(e, dict) else repr(e) for e in got]
    if sorted(ids) != sorted(want):
        problems.append(f"{label}: listed ids {ids}, expected {sorted(want)}")
    for entry in got:
        if not isinstance(entry, dict) or str(entry.get("id")) not in want:
            continue
        members = {k: v for k, v in entry.items() if k != "answer"}
        if not _same(members, want[str(entry["id"])]):
            problems.append(
                f"{label}: entry {members} differs from the reported interrupt {want[str(entry['id'])]}"
            )
    return problems


def _answer_problems(label: str, got: Any, want: dict[str, Any | None]) -> list[str]:
    """How the ``answer`` members of a list differ from ``want`` (id -> expected answer, None: absent)."""
    entries = by_id(got)
    problems: list[str] = []
    for iid, expected in want.items():
        entry = entries.get(iid)
        if entry is None:
            continue  # a missing entry is ROC-PENDING-001's finding
        if expected is None and "answer" in entry:
            problems.append(f"{label}: {iid} has no stored decision but lists answer {entry['answer']}")
        elif expected is not None and not _same(entry.get("answer"), expected):
            problems.append(f"{label}: {iid} lists answer {entry.get('answer')!r}, expected {expected}")
    return problems


def _list_rule(got: Any, want: list[dict[str, Any]]) -> str:
    """The rule a wrong list breaks: ROC-PENDING-002 when only ``answer`` members differ, else 001."""

    def bare(entries: Any) -> Any:
        return {k: {m: v for m, v in e.items() if m != "answer"} for k, e in by_id(entries).items()}

    return PENDING_ANSWER if _same(bare(got), bare(want)) else PENDING_AGENT


def _scenario(ctx: CheckContext, agent_id: str, *, handle: bool = False) -> dict[str, Any]:
    """``t1`` raises ``a`` and then ``b``; then the model ends its turn."""
    return one_tool(agent_id, ctx, ask("a", handle=handle), ask("b"), sc.returns("ran"))


def _listed(ctx: CheckContext, agent: str, label: str, requirement: str, wrong: dict[str, list[str]]) -> Any:
    out = list_pending(ctx, agent)
    if "pending" not in out:
        wrong.setdefault(requirement, []).append(f"{label}: listing gave {shown(out)}")
        return None
    return out["pending"]


def check_pending_agent(ctx: CheckContext) -> None:
    """The list of a new agent is empty; at ``a`` it holds ``a``; at ``b`` (``a`` answered) both; after the
    result it is empty again."""
    wrong: dict[str, list[str]] = {}
    spec = _scenario(ctx, "pending-agent")
    agent = ctx.client.create_agent(spec)
    got = _listed(ctx, agent, "a new agent", PENDING_AGENT, wrong)
    if got is not None and got != []:
        wrong.setdefault(PENDING_AGENT, []).append(f"a new agent lists {got}")
    first = ctx.client.invoke(agent, {"prompt": "go"})
    reported = {str(i.get("id")): i for i in interrupts(first)}
    if len(reported) != 1:
        fail_if({"ROC-STOP-001": [f"expected one interrupt, got {shown(first)}"]})
    got = _listed(ctx, agent, "paused at a", PENDING_AGENT, wrong)
    wrong.setdefault(PENDING_AGENT, []).extend(_list_problems("paused at a", got, reported))
    second = ctx.client.invoke(agent, resume(answer(next(iter(reported)), "A")))
    reported.update({str(i.get("id")): i for i in interrupts(second)})
    if len(reported) != 2:
        fail_if({**wrong, "ROC-ANSWER-003": [f"answering a gave {shown(second)}, not a pause at b"]})
    got = _listed(ctx, agent, "paused at b, a answered", PENDING_AGENT, wrong)
    wrong.setdefault(PENDING_AGENT, []).extend(_list_problems("paused at b, a answered", got, reported))
    b_id = str(interrupts(second)[0].get("id"))
    done = ctx.client.invoke(agent, resume(answer(b_id, "B")))
    if stop_reason(done) == "end_turn":
        got = _listed(ctx, agent, "idle after the result", PENDING_AGENT, wrong)
        if got is not None and got != []:
            wrong.setdefault(PENDING_AGENT, []).append(f"an idle agent lists {got}")
    fail_if(wrong)


def check_pending_answer(ctx: CheckContext) -> None:
    """``answer`` carries exactly what was stored: the response sent, or the decision with its message."""
    wrong: dict[str, list[str]] = {}
    cases: list[tuple[str, Any, dict[str, Any]]] = [
        ("an answer", answer("", RESPONSE), {"decision": "answer", "response": RESPONSE}),
    ]
    if "decisions" in ctx.profiles:
        cases += [
            (
                "a decline with a message",
                decide("", "decline", "not the backups"),
                {"decision": "decline", "message": "not the backups"},
            ),
            ("a cancel", decide("", "cancel"), {"decision": "cancel"}),
            (
                "a decline with an empty message",
                decide("", "decline", ""),
                {"decision": "decline", "message": ""},
            ),
        ]
    for label, body, stored in cases:
        agent, first = pause(ctx, _scenario(ctx, "pending-answer", handle=True))
        a_id = str(interrupts(first)[0].get("id"))
        got = _listed(ctx, agent, "paused at a", PENDING_ANSWER, wrong)
        if got is not None:
            wrong.setdefault(PENDING_ANSWER, []).extend(_answer_problems("paused at a", got, {a_id: None}))
        second = ctx.client.invoke(agent, resume({**body, "interruptId": a_id}))
        if not interrupts(second):
            followed(ctx, PENDING_ANSWER, f"{label} of a gave {shown(second)}", "ROC-DECIDE-001")
            continue
        b_id = str(interrupts(second)[0].get("id"))
        got = _listed(ctx, agent, f"after {label}", PENDING_ANSWER, wrong)
        if got is not None:
            wrong.setdefault(PENDING_ANSWER, []).extend(
                _answer_problems(f"after {label}", got, {a_id: stored, b_id: None})
            )
    if "expiry" in ctx.profiles:
        for req, msgs in _expiry_outcome_problems(ctx).items():
            wrong.setdefault(req, []).extend(msgs)
    fail_if(wrong)


def _expiry_outcome_problems(ctx: CheckContext) -> dict[str, list[str]]:
    """An expiry outcome stored by ROC-EXPIRY-005 is listed as the decision it resolved to: ``a`` is answered
    while ``e`` (expired, handled) resolves and its unit goes on to raise ``f``: the batch stays pending."""
    pair = two_unanswered(ctx, "pending-expired", ask("a"), ask("e", expires_at=PAST, handle=True))
    if pair is None:
        return {}
    spec, _ = pair
    if "hooks" in ctx.profiles:
        spec["hooks"][1]["steps"].append(ask("f"))
    else:
        spec["tools"][1]["steps"].insert(1, ask("f"))
    agent, first = pause(ctx, spec)
    ids = {str(i.get("name")): str(i.get("id")) for i in interrupts(first)}
    out = ctx.client.invoke(agent, resume(answer(ids.get("a", "a"), "y")))
    if "f" not in {str(i.get("name")) for i in interrupts(out)}:
        followed(ctx, PENDING_ANSWER, f"the expired e did not resolve: {shown(out)}", EXPIRY_RESOLVED)
        return {}
    wrong: dict[str, list[str]] = {}
    got = _listed(ctx, agent, "after e expired", PENDING_ANSWER, wrong)
    if got is not None:
        stored = {"decision": "decline", "message": EXPIRY_TEXT}
        wrong.setdefault(PENDING_ANSWER, []).extend(
            _answer_problems("after e expired", got, {ids.get("e", "e"): stored})
        )
    return wrong


def check_pending_quiet(ctx: CheckContext) -> None:
    """Listing twice gives the same list and changes nothing: no model turn is used up (the resume then
    gets turn 1), the tool runs once when resumed, and the snapshot (with sessions) and the inspected state
    (with the capability inspect) are as before."""
    wrong: dict[str, list[str]] = {}
    spec = _scenario(ctx, "pending-quiet")
    agent, first = pause(ctx, spec)
    a_id = str(interrupts(first)[0].get("id"))
    second = ctx.client.invoke(agent, resume(answer(a_id, "A")))
    if not interrupts(second):
        fail_if({"ROC-ANSWER-003": [f"answering a gave {shown(second)}, not a pause at b"]})
    sessions = "sessions" in ctx.profiles
    inspect = "inspect" in ctx.description.capabilities
    snap = strip_volatile(take_snapshot(ctx, agent)) if sessions else None
    seen = ctx.client.inspect(agent) if inspect else None
    lists = [list_pending(ctx, agent) for _ in range(2)]
    if not _same(lists[0], lists[1]):
        wrong.setdefault(PENDING_QUIET, []).append(f"two listings differ: {lists[0]} then {lists[1]}")
    if sessions and not _same(strip_volatile(take_snapshot(ctx, agent)), snap):
        wrong.setdefault(PENDING_QUIET, []).append("the agent's snapshot changed while listing")
    if inspect and not _same(ctx.client.inspect(agent), seen):
        wrong.setdefault(PENDING_QUIET, []).append("the agent's inspected state changed while listing")
    b_id = str(interrupts(second)[0].get("id"))
    done = ctx.client.invoke(agent, resume(answer(b_id, "B")))
    turns = [e.get("turn") for e in done.get("trace") or [] if e.get("kind") == "model_call"]
    if turns != [1] or tools_started(done) != ["t1"] or stop_reason(done) != "end_turn":
        wrong.setdefault(PENDING_QUIET, []).append(
            f"after listing, the resume called the model for turns {turns} (expected [1]) and started "
            f"{tools_started(done)} (expected ['t1']): {shown(done)}"
        )
    fail_if(wrong)


def check_pending_snapshot(ctx: CheckContext) -> None:
    """A snapshot document lists what its writer lists (``a`` answered, ``b`` unanswered); a document the
    loader refuses is refused with the loader's code."""
    wrong: dict[str, list[str]] = {}
    spec = _scenario(ctx, "pending-snapshot")
    agent, first = pause(ctx, spec)
    a = interrupts(first)[0]
    second = ctx.client.invoke(agent, resume(answer(str(a.get("id")), RESPONSE)))
    if not interrupts(second):
        fail_if({"ROC-ANSWER-003": [f"answering a gave {shown(second)}, not a pause at b"]})
    b = interrupts(second)[0]
    want = [{**a, "answer": {"decision": "answer", "response": RESPONSE}}, b]
    doc = take_snapshot(ctx, agent)
    out = list_pending_of(ctx, doc, spec)
    got = out.get("pending")
    if got is None:
        wrong.setdefault(PENDING_SNAPSHOT, []).append(f"listing the agent's own snapshot gave {shown(out)}")
    elif not _same(by_id(got), by_id(want)):
        own = list_pending(ctx, agent).get("pending")
        if own is not None and _same(by_id(own), by_id(got)):
            followed(
                ctx,
                PENDING_SNAPSHOT,
                f"the snapshot lists {got}, as its writer does; expected {want}",
                _list_rule(got, want),
            )
        else:
            wrong.setdefault(PENDING_SNAPSHOT, []).append(
                f"the snapshot lists {got}, its writer {own}; expected {want}"
            )
    broken = {k: v for k, v in doc.items() if k != "agent"}
    for label, bad, code in (
        ("a document of format 3.0", {**doc, "schemaVersion": "3.0"}, "SNAPSHOT_VERSION_UNSUPPORTED"),
        ("a document without its agent", broken, "SNAPSHOT_INVALID"),
    ):
        out = list_pending_of(ctx, bad, spec)
        if error_code(out) != code:
            wrong.setdefault(PENDING_SNAPSHOT, []).append(
                f"listing {label} gave {shown(out)}, expected {code}"
            )
    fail_if(wrong)


def check_pending_error(ctx: CheckContext) -> None:
    """A prompt to an interrupted agent is INTERRUPT_PENDING with the pending list in details.pending."""
    wrong: list[str] = []
    agent, first = pause(ctx, _scenario(ctx, "pending-error"))
    a = interrupts(first)[0]
    second = ctx.client.invoke(agent, resume(answer(str(a.get("id")), "A")))
    if not interrupts(second):
        fail_if({"ROC-ANSWER-003": [f"answering a gave {shown(second)}, not a pause at b"]})
    want = [{**a, "answer": {"decision": "answer", "response": "A"}}, interrupts(second)[0]]
    out = ctx.client.invoke(agent, {"prompt": "hello"})
    if error_code(out) != "INTERRUPT_PENDING":
        followed(ctx, PENDING_ERROR, f"a prompt to an interrupted agent gave {shown(out)}", "ROC-RESUME-002")
        return
    got = ((out.get("error") or {}).get("details") or {}).get("pending")
    if not isinstance(got, list) or not _same(by_id(got), by_id(want)) or len(got) != len(want):
        own = list_pending(ctx, agent).get("pending") if "pending-list" in ctx.profiles else None
        if isinstance(got, list) and own is not None and _same(own, got):
            msg = f"details.pending is {got}, the agent's own list; expected {want}"
            followed(ctx, PENDING_ERROR, msg, _list_rule(got, want))
        else:
            wrong.append(f"INTERRUPT_PENDING details.pending is {got!r}, expected {want}")
    fail_if({PENDING_ERROR: wrong})


# ---------------------------------------------------------------------------------------------
# Re-sent answers (ROC-RESEND-*)


def _marked(out: dict[str, Any]) -> Any:
    return ((out.get("error") or {}).get("details") or {}).get("alreadyAnswered")


def _resend_probe(
    wrong: dict[str, list[str]], label: str, out: dict[str, Any], code: str | None, listed: list[str] | None
) -> None:
    """``listed`` None: a differing block, which must not be listed (ROC-RESEND-002); else the exact list
    and the chapter-3 code ``code`` (ROC-RESEND-001)."""
    if listed is None:
        marked = _marked(out)
        if isinstance(marked, list) and marked:
            wrong.setdefault(RESEND_DIFFERS, []).append(f"{label}: alreadyAnswered {marked}")
        return
    if error_code(out) != code or _marked(out) != listed:
        wrong.setdefault(RESEND_MARKED, []).append(
            f"{label} gave {shown(out)} with alreadyAnswered {_marked(out)!r}, expected {code} with {listed}"
        )


def _resend_cases(ctx: CheckContext, wrong: dict[str, list[str]], *, differing: bool) -> None:
    """The three places a decision can be: stored for the pending batch, consumed by the batch that just
    completed (agent idle), consumed while a later batch is interrupted."""
    agent, first = pause(ctx, _scenario(ctx, "resend-stored"))
    a_id = str(interrupts(first)[0].get("id"))
    second = ctx.client.invoke(agent, resume(answer(a_id, RESPONSE)))
    if not interrupts(second):
        fail_if({"ROC-ANSWER-003": [f"answering a gave {shown(second)}, not a pause at b"]})
    b_id = str(interrupts(second)[0].get("id"))
    if differing:
        probes: list[tuple[str, dict[str, Any], str | None, list[str] | None]] = [
            ("another response for the stored a", resume(answer(a_id, {"ok": False})), None, None),
            ("a bogus id", resume(answer("no-such-id", RESPONSE)), None, None),
        ]
        if "decisions" in ctx.profiles:
            probes.append(("a decline of the answered a", resume(decide(a_id, "decline")), None, None))
    else:
        probes = [
            ("the stored answer of a again", resume(answer(a_id, RESPONSE)), "UNKNOWN_INTERRUPT", [a_id]),
            (
                "the stored answer of a again, with metadata",
                resume({**answer(a_id, RESPONSE), "metadata": {"retry": 1}}),
                "UNKNOWN_INTERRUPT",
                [a_id],
            ),
            (
                "the stored answer of a and b's answer",
                resume(answer(b_id, "B"), answer(a_id, RESPONSE)),
                "UNKNOWN_INTERRUPT",
                [a_id],
            ),
        ]
    for label, inp, code, listed in probes:
        _resend_probe(wrong, label, ctx.client.invoke(agent, inp), code, listed)
    agent, first = pause(
        ctx, one_tool("resend-consumed", ctx, ask("q", handle=True), sc.returns("ran"), extra_turns=1)
    )
    q1 = str(interrupts(first)[0].get("id"))
    kept = decide(q1, "decline", "no") if "decisions" in ctx.profiles else answer(q1, "y")
    nxt = ctx.client.invoke(agent, resume(kept))
    if not interrupts(nxt):
        fail_if({**wrong, "ROC-ANSWER-007": [f"the first batch's {kept} gave {shown(nxt)}, not batch 2"]})
    later = ("consumed while a later batch is interrupted", "UNKNOWN_INTERRUPT")
    other = {**kept, "message": "no!"} if "decision" in kept else {**kept, "response": "n"}
    q2 = str(interrupts(nxt)[0].get("id"))
    out = ctx.client.invoke(agent, resume(other if differing else kept))
    _resend_probe(
        wrong,
        f"{'a differing ' if differing else ''}{kept} {later[0]}",
        out,
        later[1],
        None if differing else [q1],
    )
    done = ctx.client.invoke(agent, resume(answer(q2, "y2")))
    if stop_reason(done) != "end_turn":
        return
    if differing:
        out = ctx.client.invoke(agent, resume(answer(q2, "n2")))
        _resend_probe(wrong, "another answer for the interrupt the batch just consumed", out, None, None)
    else:
        out = ctx.client.invoke(agent, resume(answer(q2, "y2")))
        _resend_probe(wrong, "the answer the batch just consumed", out, "NOT_INTERRUPTED", [q2])


def check_resend_marked(ctx: CheckContext) -> None:
    """An identical re-sent decision keeps its chapter-3 code and is named in details.alreadyAnswered (once,
    in input order; metadata is not compared)."""
    wrong: dict[str, list[str]] = {}
    _resend_cases(ctx, wrong, differing=False)
    agent, first = pause(ctx, _scenario(ctx, "resend-twice"))
    a_id = str(interrupts(first)[0].get("id"))
    if interrupts(ctx.client.invoke(agent, resume(answer(a_id, "A")))):
        out = ctx.client.invoke(agent, resume(answer(a_id, "A"), answer(a_id, "A")))
        if _marked(out) != [a_id] or "error" not in out:
            wrong.setdefault(RESEND_MARKED, []).append(
                f"the stored answer of a twice in one input gave {shown(out)} with alreadyAnswered "
                f"{_marked(out)!r}, expected [{a_id!r}] once"
            )
    fail_if(wrong)


def check_resend_differs(ctx: CheckContext) -> None:
    """A block that differs from the stored or consumed decision (response, decision or message) is never
    named in alreadyAnswered."""
    wrong: dict[str, list[str]] = {}
    _resend_cases(ctx, wrong, differing=True)
    fail_if(wrong)


def check_resend_restored(ctx: CheckContext) -> None:
    """An agent restored from a snapshot taken after a batch completed marks a re-sent answer of that batch
    as the writer does."""
    wrong: dict[str, list[str]] = {}
    spec = one_tool("resend-restored", ctx, ask("q"), sc.returns("ran"), extra_turns=1)
    agent, first = pause(ctx, spec)
    q1 = str(interrupts(first)[0].get("id"))
    nxt = ctx.client.invoke(agent, resume(answer(q1, RESPONSE)))
    if not interrupts(nxt):
        fail_if({"ROC-ANSWER-007": [f"answering batch 1 gave {shown(nxt)}, not batch 2"]})
    doc = take_snapshot(ctx, agent)
    restored = ctx.client.restore_agent(doc, spec, model_turn_offset=2)
    if "agent" not in restored:
        followed(ctx, RESEND_RESTORED, f"the agent's own snapshot was refused: {restored}", "ROC-SESSION-002")
        return
    writer = ctx.client.invoke(agent, resume(answer(q1, RESPONSE)))
    if _marked(writer) != [q1]:
        followed(ctx, RESEND_RESTORED, f"the writer itself marks nothing: {shown(writer)}", RESEND_MARKED)
        return
    out = ctx.client.invoke(restored["agent"], resume(answer(q1, RESPONSE)))
    if error_code(out) != "UNKNOWN_INTERRUPT" or _marked(out) != [q1]:
        wrong.setdefault(RESEND_RESTORED, []).append(
            f"the restored agent answered the re-sent answer with {shown(out)}, alreadyAnswered "
            f"{_marked(out)!r}; its writer with UNKNOWN_INTERRUPT and {[q1]}"
        )
    fail_if(wrong)


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-PENDING-001",
        (PENDING_AGENT,),
        check_pending_agent,
        ("core", "pending-list"),
        "the pending list holds exactly the pending interrupts as reported; empty when idle",
    ),
    (
        "explicit:ROC-PENDING-002",
        (PENDING_ANSWER,),
        check_pending_answer,
        ("core", "pending-list"),
        "a listed interrupt carries its stored decision in answer, exactly as sent",
    ),
    (
        "explicit:ROC-PENDING-003",
        (PENDING_QUIET,),
        check_pending_quiet,
        ("core", "pending-list"),
        "listing changes nothing and runs nothing",
    ),
    (
        "explicit:ROC-PENDING-004",
        (PENDING_SNAPSHOT,),
        check_pending_snapshot,
        ("core", "pending-list", "sessions"),
        "a snapshot document lists what its writer lists; a refused document gets the loader's code",
    ),
    (
        "explicit:ROC-PENDING-005",
        (PENDING_ERROR,),
        check_pending_error,
        ("core", "pending-list"),
        "INTERRUPT_PENDING carries the pending list",
    ),
    (
        "explicit:ROC-RESEND-001",
        (RESEND_MARKED,),
        check_resend_marked,
        ("core", "idempotent-resume"),
        "an identical re-sent decision keeps its code and is named in alreadyAnswered",
    ),
    (
        "explicit:ROC-RESEND-002",
        (RESEND_DIFFERS,),
        check_resend_differs,
        ("core", "idempotent-resume"),
        "a differing block is never named in alreadyAnswered",
    ),
    (
        "explicit:ROC-RESEND-003",
        (RESEND_RESTORED,),
        check_resend_restored,
        ("core", "idempotent-resume", "sessions"),
        "the record of consumed decisions survives snapshot and restore",
    ),
)


def pending_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
