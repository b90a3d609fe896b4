"""Audit checks (profile audit, spec 10.7): the registered response metadata keys ``answeredBy`` and
``answeredAt`` are checked; the metadata of the block that answered or decided an interrupt is kept with the
answer (InspectAgent's ``responseMetadata``, a snapshot's stored interrupt, after restore) until the batch
completes; the resume guard sees it (``recordResumeGuard``, harness protocol 6); and the runtime never acts on
it by itself. One check per requirement; each finds its own evidence.

The scenario: tool uses ``t1`` (tool ``a``) and ``t2`` (tool ``b``) of one batch each ask one question, so
that after ``a`` is answered its answer is kept while ``b`` waits (with either executor); a second prompt
starts a new batch whose tool use ``t3`` (tool ``a``) asks again.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_bytes
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.snapshot_support import error_code, fail_if, take_snapshot, units_ran
from roc_conformance.errors import ConformanceViolation

AUDIT_BY = "ROC-AUDIT-001"
AUDIT_AT = "ROC-AUDIT-002"
AUDIT_KEPT = "ROC-AUDIT-003"
AUDIT_CONSUMED = "ROC-AUDIT-004"
AUDIT_GUARD = "ROC-AUDIT-005"
AUDIT_NOT_ACTED_ON = "ROC-AUDIT-006"

PROFILE = "audit"
WHO = {"answeredBy": "alice@example.com", "answeredAt": "2026-12-06T07:39:12+01:00", "x-acme-channel": "web"}
BOB = {"answeredBy": "bob", "answeredAt": "2026-12-06T06:40:00Z"}


def audit_spec(ctx: CheckContext, agent_id: str, *, record_guard: bool = False) -> dict[str, Any]:
    turns = [
        sc.turn(sc.text("two questions"), sc.tool_use("t1", "a"), sc.tool_use("t2", "b")),
        sc.turn(sc.text("done")),
        sc.turn(sc.text("again"), sc.tool_use("t3", "a")),
        sc.turn(sc.text("done again")),
    ]
    tools = [
        sc.tool("a", sc.interrupt("qa"), sc.returns("a")),
        sc.tool("b", sc.interrupt("qb"), sc.returns("b")),
    ]
    spec = sc.agent_spec(agent_id, executor=sc.executor_for(ctx.profiles), turns=turns, tools=tools)
    if record_guard:
        spec["recordResumeGuard"] = True
    return spec


def _same(a: Any, b: Any) -> bool:
    return canonical_bytes(a) == canonical_bytes(b)


def _interrupt_ids(out: dict[str, Any]) -> dict[str, str]:
    """name -> id of the interrupts an Invoke reply's result reports."""
    found = (out.get("result") or {}).get("interrupts") or []
    return {str(i.get("name")): str(i.get("id")) for i in found if isinstance(i, dict)}


def _paused_at_a(ctx: CheckContext, spec: dict[str, Any]) -> tuple[str, str]:
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"})
    ids = _interrupt_ids(out)
    if "qa" not in ids:
        raise ConformanceViolation("ROC-STOP-001", f"expected a pause at qa, got {str(out)[:400]}")
    return agent, ids["qa"]


def _stored(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    entries = (doc.get("interruptState") or {}).get("interrupts") or []
    return {str(e.get("id")): e for e in entries if isinstance(e, dict)}


def _inspected(ctx: CheckContext, agent: str) -> dict[str, dict[str, Any]] | None:
    if "inspect" not in ctx.description.capabilities:
        return None
    entries = ctx.client.inspect(agent).get("interrupts") or []
    return {str(e.get("id")): e for e in entries if isinstance(e, dict)}


def _guard_events(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in out.get("trace", []) if e.get("kind") == "resume_guard" and not e.get("agentPath")]


# --- ROC-AUDIT-001 / 002: the registered keys are checked -------------------------------------------


def _key_check(ctx: CheckContext, key: str, bad: list[Any], good: list[str], requirement: str) -> None:
    """Each ``bad`` value of ``key`` is refused with INVALID_RESPONSE naming ``/metadata/<key>``, running
    nothing; each ``good`` value is accepted."""
    wrong: list[str] = []
    path = f"/metadata/{key}"
    for value in bad:
        agent, qa = _paused_at_a(ctx, audit_spec(ctx, "audit-keys"))
        out = ctx.client.invoke(agent, sc.resume(sc.answer(qa, "A", metadata={key: value})))
        details = (out.get("error") or {}).get("details") or {}
        if error_code(out) != "INVALID_RESPONSE":
            wrong.append(
                f"{key} {value!r}: got {out.get('error') or out.get('result')}, not INVALID_RESPONSE"
            )
        elif details.get("path") != path or details.get("interruptId") != qa:
            wrong.append(f"{key} {value!r}: details {details} do not name interruptId {qa!r} and path {path}")
        elif units_ran(out):
            wrong.append(f"{key} {value!r}: the refused input ran {units_ran(out)}")
    for value in good:
        agent, qa = _paused_at_a(ctx, audit_spec(ctx, "audit-keys"))
        out = ctx.client.invoke(agent, sc.resume(sc.answer(qa, "A", metadata={key: value})))
        if "error" in out:
            wrong.append(f"{key} {value[:40]!r}: refused with {out['error']}")
    fail_if({requirement: wrong})


def check_answered_by(ctx: CheckContext) -> None:
    """``answeredBy`` is a non-empty string of at most 256 code points (a 256-emoji name is 512 UTF-16 units
    and is accepted)."""
    bad: list[Any] = ["", 7, None, ["alice"], "a" * 257, "\U0001f600" * 257]
    _key_check(ctx, "answeredBy", bad, ["a" * 256, "\U0001f600" * 256], AUDIT_BY)


def check_answered_at(ctx: CheckContext) -> None:
    """``answeredAt`` is an RFC 3339 date-time with a zone and in-range fields."""
    bad: list[Any] = ["2026-12-06T06:30:00", "2026-12-06", "2026-13-06T06:30:00Z", "yesterday", 1765000000]
    good = ["2026-12-06T06:30:00Z", "2026-12-06T06:30:00.5-05:30"]
    _key_check(ctx, "answeredAt", bad, good, AUDIT_AT)


# --- ROC-AUDIT-003 / 004: kept with the answer until the batch completes -----------------------------


def check_kept(ctx: CheckContext) -> None:
    """The metadata of ``a``'s answer is in InspectAgent, in the snapshot, and in both after a restore."""
    wrong: list[str] = []
    spec = audit_spec(ctx, "audit-kept")
    agent, qa = _paused_at_a(ctx, spec)
    out = ctx.client.invoke(agent, sc.resume(sc.answer(qa, "A", metadata=WHO)))
    if "qb" not in _interrupt_ids(out):
        raise ConformanceViolation("ROC-ANSWER-003", f"answering qa did not pause at qb: {str(out)[:400]}")
    inspected = _inspected(ctx, agent)
    if inspected is not None and not _same(inspected.get(qa, {}).get("responseMetadata"), WHO):
        wrong.append(f"InspectAgent shows responseMetadata {inspected.get(qa, {}).get('responseMetadata')!r}")
    doc = take_snapshot(ctx, agent)
    kept = _stored(doc).get(qa, {}).get("responseMetadata")
    if not _same(kept, WHO):
        wrong.append(f"the snapshot's stored interrupt {qa} has responseMetadata {kept!r}, not {WHO}")
    restored = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    if "agent" not in restored:
        wrong.append(f"its own snapshot is refused: {restored.get('error')}")
        fail_if({AUDIT_KEPT: wrong})
    again = _stored(take_snapshot(ctx, restored["agent"])).get(qa, {}).get("responseMetadata")
    if not _same(again, WHO):
        wrong.append(f"after restore the snapshot holds responseMetadata {again!r}")
    inspected = _inspected(ctx, restored["agent"])
    if inspected is not None and not _same(inspected.get(qa, {}).get("responseMetadata"), WHO):
        wrong.append(f"after restore InspectAgent shows {inspected.get(qa, {}).get('responseMetadata')!r}")
    fail_if({AUDIT_KEPT: wrong})


def check_consumed(ctx: CheckContext) -> None:
    """Once the batch completes no snapshot carries its metadata and the next batch's guard is shown none."""
    wrong: list[str] = []
    agent, qa = _paused_at_a(ctx, audit_spec(ctx, "audit-consumed", record_guard=True))
    qb = _interrupt_ids(ctx.client.invoke(agent, sc.resume(sc.answer(qa, "A", metadata=WHO)))).get("qb", "qb")
    done = ctx.client.invoke(agent, sc.resume(sc.answer(qb, "B", metadata=BOB)))
    if (done.get("result") or {}).get("stopReason") != "end_turn":
        raise ConformanceViolation("ROC-ANSWER-001", f"the batch did not complete: {str(done)[:400]}")
    doc = take_snapshot(ctx, agent)
    if "responseMetadata" in str(doc.get("interruptState")):
        wrong.append(
            f"the snapshot after the batch completed still holds responseMetadata: {doc['interruptState']}"
        )
    again = _interrupt_ids(ctx.client.invoke(agent, {"prompt": "again"}))
    if "qa" in again:
        out = ctx.client.invoke(agent, sc.resume(sc.answer(again["qa"], "A2", metadata=WHO)))
        kept = [e.get("kept") for e in _guard_events(out)]
        if any(k for k in kept):
            wrong.append(f"the guard of the next batch was shown kept metadata {kept}")
    fail_if({AUDIT_CONSUMED: wrong})


# --- ROC-AUDIT-005 / 006: the guard sees it; nothing else acts on it ---------------------------------


def check_guard_sees(ctx: CheckContext) -> None:
    """The guard sees each block as sent (metadata, decision and message included) and the kept metadata."""
    wrong: list[str] = []
    agent, qa = _paused_at_a(ctx, audit_spec(ctx, "audit-guard", record_guard=True))
    first_block = sc.answer(qa, "A", metadata=WHO)
    first = ctx.client.invoke(agent, sc.resume(first_block))
    qb = _interrupt_ids(first).get("qb", "qb")
    decided = "decisions" in ctx.profiles
    second_block = sc.decline(qb, "later", metadata=BOB) if decided else sc.answer(qb, "B", metadata=BOB)
    second = ctx.client.invoke(agent, sc.resume(second_block))
    expected = [
        ("first resume", first, [first_block], []),
        ("second resume", second, [second_block], [{"interruptId": qa, "metadata": WHO}]),
    ]
    for label, out, responses, kept in expected:
        events = _guard_events(out)
        if len(events) != 1:
            wrong.append(f"{label}: {len(events)} resume_guard events, expected one")
            continue
        if not _same(events[0].get("responses"), responses):
            wrong.append(f"{label}: the guard saw {events[0].get('responses')}, not the blocks {responses}")
        if not _same(events[0].get("kept") or [], kept):
            wrong.append(f"{label}: the guard was shown kept {events[0].get('kept')}, not {kept}")
    fail_if({AUDIT_GUARD: wrong})


def check_not_acted_on(ctx: CheckContext) -> None:
    """The same answers with no metadata, an "admin", an unknown name or any other key give the same run."""

    def run(metadata: dict[str, Any] | None) -> Any:
        agent, qa = _paused_at_a(ctx, audit_spec(ctx, "audit-inert"))
        first = ctx.client.invoke(agent, sc.resume(sc.answer(qa, "A", metadata=metadata)))
        qb = _interrupt_ids(first).get("qb", "qb")
        second = ctx.client.invoke(agent, sc.resume(sc.answer(qb, "B", metadata=metadata)))
        return [
            {k: o.get(k) for k in ("result", "error", "messages", "state")} | {"ran": units_ran(o)}
            for o in (first, second)
        ]

    plain = run(None)
    wrong: list[str] = []
    for metadata in ({"answeredBy": "admin"}, {"answeredBy": "nobody", **BOB}, {"x-acme-role": "root"}):
        got = run(metadata)
        if not _same(got, plain):
            wrong.append(
                f"answers with metadata {metadata} ran differently: {str(got)[:300]} vs {str(plain)[:300]}"
            )
    fail_if({AUDIT_NOT_ACTED_ON: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-AUDIT-001",
        (AUDIT_BY,),
        check_answered_by,
        ("core", PROFILE),
        "a malformed answeredBy is INVALID_RESPONSE with details.path /metadata/answeredBy",
    ),
    (
        "explicit:ROC-AUDIT-002",
        (AUDIT_AT,),
        check_answered_at,
        ("core", PROFILE),
        "a malformed answeredAt is INVALID_RESPONSE with details.path /metadata/answeredAt",
    ),
    (
        "explicit:ROC-AUDIT-003",
        (AUDIT_KEPT,),
        check_kept,
        ("core", PROFILE),
        "an answer's metadata is kept: inspected, in the snapshot, after restore",
    ),
    (
        "explicit:ROC-AUDIT-004",
        (AUDIT_CONSUMED,),
        check_consumed,
        ("core", PROFILE),
        "a completed batch's metadata is consumed: not in later snapshots, not shown to the next guard",
    ),
    (
        "explicit:ROC-AUDIT-005",
        (AUDIT_GUARD,),
        check_guard_sees,
        ("core", PROFILE),
        "the resume guard sees each block with its metadata and the metadata kept for earlier answers",
    ),
    (
        "explicit:ROC-AUDIT-006",
        (AUDIT_NOT_ACTED_ON,),
        check_not_acted_on,
        ("core", PROFILE),
        "who answered changes nothing the runtime does",
    ),
)


def audit_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
