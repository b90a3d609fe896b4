"""Session checks (profile sessions): a restored agent behaves like the original, and agents bound to one
session store save with exact revisions and a compare-and-set.
"""

from __future__ import annotations

import json
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_bytes, snapshot_mac
from roc_conformance.checks.base import CheckContext
from roc_conformance.checks.snapshot_support import (
    SEC_SESSION_ID,
    SEC_SIGN,
    SEC_VERIFY,
    SESSION_CAS,
    SESSION_CONFLICT_CLEAN,
    SESSION_IDEMPOTENT,
    SESSION_NO_RERUN,
    SESSION_QUIET_RESTORE,
    SESSION_REVISIONS,
    SESSION_SAME_IDS,
    SESSION_SAME_OUTCOME,
    SESSION_SAVE_FIRST,
    SESSION_SAVE_POINTS,
    SESSION_STORED_CURRENT,
    error_code,
    executor_of,
    fail_if,
    interrupt_first,
    outcome,
    strip_volatile,
    take_snapshot,
    two_tool_scenario,
    units_ran,
)
from roc_conformance.errors import ConformanceViolation


def check_session_round_trip(ctx: CheckContext) -> None:
    """Answer the original and a restored copy the same way: both must reach the same outcome."""
    spec = two_tool_scenario(executor=executor_of(ctx))
    original, first = interrupt_first(ctx, spec)
    doc = take_snapshot(ctx, original)
    restored = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    if "agent" not in restored:
        raise ConformanceViolation(SESSION_SAME_IDS, f"restore of its own snapshot failed: {restored}")
    wrong: dict[str, list[str]] = {}
    if restored.get("trace"):
        wrong.setdefault(SESSION_QUIET_RESTORE, []).append(f"restoring fired {restored['trace']}")
    again = take_snapshot(ctx, restored["agent"])
    if canonical_bytes(strip_volatile(again)) != canonical_bytes(strip_volatile(doc)):
        wrong.setdefault(SESSION_IDEMPOTENT, []).append("the snapshot of the restored agent differs")
    answers = {
        "interruptResponses": [
            {"interruptId": i["id"], "response": "yes"} for i in first["result"]["interrupts"]
        ]
    }
    a = ctx.client.invoke(original, answers)
    b = ctx.client.invoke(restored["agent"], answers)
    if "error" in b and "error" not in a:
        wrong.setdefault(SESSION_SAME_IDS, []).append(
            f"the restored agent refused the original ids: {b['error']}"
        )
    elif canonical_bytes(outcome(a)) != canonical_bytes(outcome(b)):
        wrong.setdefault(SESSION_SAME_OUTCOME, []).append(
            f"original {json.dumps(outcome(a))[:1200]} vs restored {json.dumps(outcome(b))[:1200]}"
        )
    if "t2" in outcome(b)["toolStarts"]:
        wrong.setdefault(SESSION_NO_RERUN, []).append("the restored agent ran t2, whose result was preserved")
    fail_if(wrong)


def _stored(ctx: CheckContext, agent: str) -> Any:
    snap = ctx.client.take_snapshot(agent, stored=True)
    return snap.get("snapshot")


# Save points per invocation (spec 8.5): one before the agent runs anything, one when the invocation ends.
_SAVES_PER_INVOCATION = 2


def _revision_step(
    wrong: dict[str, list[str]], label: str, before: Any, after: Any, saves: int = _SAVES_PER_INVOCATION
) -> None:
    """The stored revision after one invocation over a store holding ``before`` (``None``: an empty store,
    whose first save stores 0).

    ROC-SESSION-009 (MUST): every save stores the revision it replaces plus one, and an invocation saves at
    least at its ``saves`` save points, so the revision grows by at least ``saves``. ROC-SESSION-017 (SHOULD
    NOT): saving only at those points makes it grow by exactly ``saves``. From outside, a skipped revision
    and an extra save (allowed, for durability) look the same, so only a smaller step, which no run of
    +1 saves can give, is judged under the MUST; any other step than ``saves`` is judged under 017.
    """
    old = before.get("revision") if isinstance(before, dict) else -1
    got = after.get("revision") if isinstance(after, dict) else None
    if not isinstance(old, int):
        return  # already reported for the earlier snapshot
    start = "an empty store" if old == -1 else f"revision {old}"
    if not isinstance(got, int) or isinstance(got, bool) or got < old + saves:
        wrong.setdefault(SESSION_REVISIONS, []).append(
            f"{label}: stored revision {got!r} after an invocation over {start}, expected at least "
            f"{old + saves} (at least {saves} saves, each storing the revision it replaces plus one)"
        )
    elif got != old + saves:
        wrong.setdefault(SESSION_SAVE_POINTS, []).append(
            f"{label}: stored revision {got} after an invocation over {start}: {got - old} saves or skipped "
            f"revisions, where the {saves} save points of spec 8.5 give {old + saves}"
        )


def check_session_store(ctx: CheckContext) -> None:
    """Agents bound to one stored session: saves, exact revisions, the compare-and-set, and session ids."""
    import uuid

    store = f"store-{uuid.uuid4().hex[:8]}"
    base = two_tool_scenario(executor=executor_of(ctx))
    spec = {**base, "session": {"store": store, "sessionId": "s1"}}
    wrong: dict[str, list[str]] = {}
    a = ctx.client.create_agent(spec)
    b = ctx.client.create_agent(spec)  # loads the same (still empty) session
    stored0 = _stored(ctx, a)
    if stored0 is not None:  # building an agent is no save point
        wrong.setdefault(SESSION_SAVE_POINTS, []).append("building an agent stored a snapshot")
    first = ctx.client.invoke(a, {"prompt": "go"})
    stored1 = _stored(ctx, a)
    if not isinstance(stored1, dict):
        raise ConformanceViolation(SESSION_STORED_CURRENT, "the store holds nothing after an invocation")
    taken = take_snapshot(ctx, a)
    if canonical_bytes(strip_volatile(stored1)) != canonical_bytes(strip_volatile(taken)):
        wrong.setdefault(SESSION_STORED_CURRENT, []).append("after the interrupt the store lags the agent")
    rev1 = stored1.get("revision")
    if not isinstance(rev1, int) or rev1 < 0:
        wrong.setdefault(SESSION_REVISIONS, []).append(f"first stored revision is {rev1!r}")
    elif "result" in first:
        _revision_step(wrong, "first invocation", stored0, stored1)
    stale = ctx.client.invoke(b, {"prompt": "me too"})
    code = error_code(stale)
    if code != "SESSION_CONFLICT":
        wrong.setdefault(SESSION_CAS, []).append(f"a stale agent's invocation gave {code or 'a result'}")
    if ran := units_ran(stale):
        wrong.setdefault(SESSION_CONFLICT_CLEAN, []).append(f"the conflicting invocation ran {ran}")
        wrong.setdefault(SESSION_SAVE_FIRST, []).append("the model or a unit ran before the failed save")
    if canonical_bytes(_stored(ctx, a)) != canonical_bytes(stored1):
        wrong.setdefault(SESSION_CAS, []).append("the failed save changed what the store holds")
    iid = first["result"]["interrupts"][0]["id"] if first.get("result", {}).get("interrupts") else "none"
    done = ctx.client.invoke(a, {"interruptResponses": [{"interruptId": iid, "response": "y"}]})
    stored2 = _stored(ctx, a)
    if "result" in done and isinstance(stored2, dict):
        if canonical_bytes(strip_volatile(stored2)) != canonical_bytes(strip_volatile(take_snapshot(ctx, a))):
            wrong.setdefault(SESSION_STORED_CURRENT, []).append("after the result the store lags the agent")
        _revision_step(wrong, "resuming invocation", stored1, stored2)
        # A new agent continues from the stored revision it loads, not from one it saved itself.
        c = ctx.client.create_agent(spec)
        # d loads the same revision as c: once c has saved, d is stale although it loaded a stored
        # revision (not an empty session), so its first save must fail too (ROC-SESSION-010).
        d = ctx.client.create_agent(spec)
        again = ctx.client.invoke(c, {"prompt": "again"})
        if "result" in again:
            stored3 = _stored(ctx, c)
            _revision_step(wrong, "invocation of an agent that loaded the session", stored2, stored3)
            _stale_save(
                ctx,
                wrong,
                d,
                stored3,
                f"an agent that loaded revision {stored2.get('revision')!r} before another agent saved",
            )
    for bad_id in BAD_SESSION_IDS:
        out = ctx.client.try_create_agent({**base, "session": {"store": store, "sessionId": bad_id}})
        code = error_code(out)
        if code != "SNAPSHOT_INVALID":
            wrong.setdefault(SEC_SESSION_ID, []).append(f"session id {bad_id[:20]!r}: {code or 'accepted'}")
    fail_if(wrong)


SESSION_CLAIM = "ROC-SESSION-018"  # the opening save claims the revision; others conflict before running
SESSION_CLAIM_ENDS = "ROC-SESSION-019"  # the claim ends with the end save (or a failure before a tool ran)
SESSION_CLAIM_KEPT = "ROC-SESSION-020"  # a claimed tool completed, the invocation failed: the claim stays


def _claim_scenario(executor: str) -> dict[str, Any]:
    """One approval for a batch of two tools; the second one's BeforeToolCall raises one name from two
    callbacks, so the approved invocation fails (DUPLICATE_INTERRUPT_NAME) after ``pay`` completed."""
    return sc.agent_spec(
        "claim",
        executor=executor,
        turns=[
            sc.turn(sc.tool_use("t1", "pay", {"amount": 5}), sc.tool_use("t2", "check", {"n": 2})),
            sc.turn(sc.text("done")),
        ],
        tools=[sc.tool("pay", sc.returns("paid")), sc.tool("check", sc.returns("checked"))],
        hooks=[
            sc.hook("BeforeTools", sc.interrupt("approve")),
            sc.hook("BeforeToolCall", sc.interrupt("dup"), tool_name="check"),
            sc.hook("BeforeToolCall", sc.interrupt("dup"), tool_name="check"),
        ],
    )


def _paid(out: dict[str, Any]) -> int:
    """How often the approved tool ``pay`` started in one reply's trace."""
    trace = out.get("trace", [])
    return sum(1 for e in trace if e.get("kind") == "tool_start" and e.get("toolUseId") == "t1")


def check_session_claim(ctx: CheckContext) -> None:
    """An approved batch runs once per stored revision, whoever loads it (ROC-SESSION-018, ROC-SESSION-020).

    Through the harness a claim can be seen when it outlives its invocation: the approved invocation fails
    (DUPLICATE_INTERRUPT_NAME) after the approved tool ``pay`` completed. The same agent retrying, and then
    a new agent that loads the session as it now stands, must both get SESSION_CONFLICT and run nothing:
    without a claim that records the batch as taken, each of them ran ``pay`` again.
    """
    import uuid

    spec = {
        **_claim_scenario(executor_of(ctx)),
        "session": {"store": f"claim-{uuid.uuid4().hex[:8]}", "sessionId": "s1"},
    }
    a = ctx.client.create_agent(spec)
    paused = ctx.client.invoke(a, {"prompt": "go"})
    interrupts = (paused.get("result") or {}).get("interrupts") or []
    if len(interrupts) != 1:
        raise ConformanceViolation("ROC-HOOK-010", f"a BeforeTools interrupt gave {json.dumps(paused)[:400]}")
    resume = {"interruptResponses": [{"interruptId": interrupts[0]["id"], "response": "y"}]}
    failed = ctx.client.invoke(a, resume)
    code = error_code(failed)
    if code != "DUPLICATE_INTERRUPT_NAME" or _paid(failed) != 1:
        ctx.note(f"the approved invocation gave {code or 'a result'} after {_paid(failed)} runs of pay")
        raise ConformanceViolation(
            "ROC-HOOK-021",
            f"two callbacks raising one name after an approved tool gave {json.dumps(failed)[:400]}",
        )
    wrong: dict[str, list[str]] = {}
    retry = ctx.client.invoke(a, resume)
    code = error_code(retry)
    if code != "SESSION_CONFLICT" or units_ran(retry):
        wrong.setdefault(SESSION_CLAIM_KEPT, []).append(
            f"the same answer sent again after the failed invocation gave {code or 'a result'} and ran "
            f"{units_ran(retry) or 'nothing'} (pay ran {1 + _paid(retry)} times in all)"
        )
    b = ctx.client.create_agent(spec)  # loads what the store holds now
    other = ctx.client.invoke(b, resume)
    code = error_code(other)
    if code != "SESSION_CONFLICT" or units_ran(other):
        wrong.setdefault(SESSION_CLAIM, []).append(
            f"an agent that loaded the session after the claim gave {code or 'a result'} and ran "
            f"{units_ran(other) or 'nothing'} (pay ran {_paid(other)} more times)"
        )
    _claim_ends(ctx, wrong)
    fail_if(wrong)


def _claim_ends(ctx: CheckContext, wrong: dict[str, list[str]]) -> None:
    """ROC-SESSION-019: a completed invocation, and one that failed before a claimed tool completed, leave
    no claim behind: an agent loading the session afterwards runs its prompt."""
    import uuid

    base = two_tool_scenario(agent_id="claim-ends", executor=executor_of(ctx))
    spec = {**base, "session": {"store": f"claim-ends-{uuid.uuid4().hex[:8]}", "sessionId": "s1"}}
    a = ctx.client.create_agent(spec)
    paused = ctx.client.invoke(a, {"prompt": "go"})
    interrupts = (paused.get("result") or {}).get("interrupts") or []
    answers = [{"interruptId": i["id"], "response": "y"} for i in interrupts]
    done = ctx.client.invoke(a, {"interruptResponses": answers})
    if "result" not in done:
        ctx.note(f"the resume gave {json.dumps(done)[:300]}: the end of a claim not checked")
        return
    b = ctx.client.create_agent(spec)
    later = ctx.client.invoke(b, {"prompt": "later"})
    if "result" not in later:
        code = error_code(later)
        wrong.setdefault(SESSION_CLAIM_ENDS, []).append(
            f"after a completed invocation, an agent that loaded the session got {code or 'no result'}"
        )
    failing = {
        **sc.agent_spec(
            "claim-ends-failing",
            executor=executor_of(ctx),
            turns=[sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("end"))],
            tools=[sc.tool("x", sc.returns("ran"))],
            hooks=[sc.hook("BeforeToolCall", sc.interrupt("n")) for _ in range(2)],
        ),
        "session": {"store": f"claim-fails-{uuid.uuid4().hex[:8]}", "sessionId": "s1"},
    }
    c = ctx.client.create_agent(failing)
    first = ctx.client.invoke(c, {"prompt": "go"})
    if error_code(first) != "DUPLICATE_INTERRUPT_NAME":
        return  # ROC-HOOK-021 is judged elsewhere
    d = ctx.client.create_agent(failing)
    again = ctx.client.invoke(d, {"prompt": "go"})
    code = error_code(again)
    if code != "DUPLICATE_INTERRUPT_NAME":
        wrong.setdefault(SESSION_CLAIM_ENDS, []).append(
            "after an invocation that failed before any claimed tool ran, an agent that loaded the session "
            f"got {code or 'a result'} instead of running its prompt (and failing the same way)"
        )


# Ids outside ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ (ROC-SEC-006), one per way a store's own test can miss:
# path forms, the first-character rule (".", "..", hidden and option-like names), characters outside the
# class anywhere in the id (a prefix match or a "$" that matches before a final newline lets these
# through), and the length bound (129 is one past it).
BAD_SESSION_IDS: tuple[str, ...] = (
    "../escape",
    "",
    "a/b",
    "a\\b",
    "x" * 200,
    "x" * 129,
    ".",
    "..",
    ".hidden",
    "-rf",
    "_tmp",
    "a b",
    "ok\n",
    "tab\there",
    "colon:id",
    "café",
)


def _stale_save(ctx: CheckContext, wrong: dict[str, list[str]], agent: str, stored: Any, who: str) -> None:
    """``agent`` holds an older revision than the store: its invocation fails with SESSION_CONFLICT,
    stores nothing and runs nothing (ROC-SESSION-010, ROC-SESSION-012)."""
    out = ctx.client.invoke(agent, {"prompt": "late"})
    code = error_code(out)
    if code != "SESSION_CONFLICT":
        wrong.setdefault(SESSION_CAS, []).append(f"{who}: its invocation gave {code or 'a result'}")
    if units_ran(out):
        wrong.setdefault(SESSION_CONFLICT_CLEAN, []).append(
            f"{who}: the conflicting invocation ran {units_ran(out)}"
        )
    if canonical_bytes(_stored(ctx, agent)) != canonical_bytes(stored):
        wrong.setdefault(SESSION_CAS, []).append(f"{who}: the failed save changed what the store holds")


def check_stored_integrity(
    ctx: CheckContext, spec: dict[str, Any], key_id: str, secret: str
) -> dict[str, list[str]]:
    """A session store written by an agent configured with an integrity key (``spec["integrity"]``):
    every stored snapshot carries a correct tag (ROC-SEC-002), and an agent loading the session accepts it
    (ROC-SEC-003).

    The stored path is its own writer: a store may sign the document it writes rather than the snapshot,
    or sign a save incrementally from the previous one, so the tag is checked after the first save, after
    a later save of the same agent, and after a save of an agent that loaded the session.
    """
    import uuid

    bound = {**spec, "session": {"store": f"signed-{uuid.uuid4().hex[:8]}", "sessionId": "s1"}}
    wrong: dict[str, list[str]] = {}

    def tagged(label: str, agent: str) -> None:
        reply = ctx.client.take_snapshot(agent, stored=True)
        doc = reply.get("snapshot")
        if not isinstance(doc, dict):
            # The adapter reads the store through the runtime, which may refuse its own bad tag.
            got = reply.get("error") or "nothing"
            wrong.setdefault(SEC_SIGN, []).append(f"{label}: reading the stored snapshot gave {got}")
            return
        tag = doc.get("integrity") or {}
        if tag.get("alg") != "HMAC-SHA256" or tag.get("keyId") != key_id:
            wrong.setdefault(SEC_SIGN, []).append(f"{label}: stored integrity member is {tag!r}")
        elif tag.get("mac") != snapshot_mac(doc, secret):
            wrong.setdefault(SEC_SIGN, []).append(
                f"{label}: stored integrity.mac is not the HMAC-SHA256 of the snapshot's canonical form"
            )

    a = ctx.client.create_agent(bound)
    first = ctx.client.invoke(a, {"prompt": "go"})
    tagged("after the first invocation", a)
    ids = [i["id"] for i in (first.get("result") or {}).get("interrupts") or []]
    answers = {"interruptResponses": [{"interruptId": i, "response": "y"} for i in ids]}
    if ids and "result" in ctx.client.invoke(a, answers):
        tagged("after the resuming invocation", a)
    loaded = ctx.client.try_create_agent(bound)
    if "agent" not in loaded:
        if not wrong:  # the tags were right, so refusing them is the reader's fault
            wrong.setdefault(SEC_VERIFY, []).append(
                f"loading the signed session failed: {loaded.get('error')}"
            )
        return wrong
    if "result" in ctx.client.invoke(loaded["agent"], {"prompt": "again"}):
        tagged("after an invocation of an agent that loaded the session", loaded["agent"])
    return wrong
