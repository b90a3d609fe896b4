"""What the snapshot and session checks share: requirement IDs, the scenario they start from, and small
helpers to interrupt an agent, take its snapshot and report findings.
"""

from __future__ import annotations

import json
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import CheckContext, Finding
from roc_conformance.errors import ConformanceViolation

# Requirement IDs (spec/08-sessions.md, 09-versioning.md, 10-security.md); one place for renumbering.
SNAP_SCHEMA = "ROC-SNAP-001"  # a snapshot validates against the Snapshot schema
SNAP_AGENT = "ROC-SNAP-002"  # agent member: id, history, state
SNAP_ACTIVATED = "ROC-SNAP-003"  # activated iff interrupted
SNAP_INTERRUPTS = "ROC-SNAP-004"  # exactly the pending interrupts, as reported
SNAP_PENDING = "ROC-SNAP-005"  # pendingToolExecution: assistant message + exactly the preserved results
SNAP_DIGEST = "ROC-SNAP-006"  # inputDigest on tool-bound interrupts
SNAP_NO_EFFECT = "ROC-SNAP-007"  # taking a snapshot changes nothing
SNAP_CANONICAL = "ROC-SNAP-008"  # digests over the canonical form
SNAP_REFUSE_SCHEMA = "ROC-SNAP-009"
SNAP_REFUSE_DANGLING = "ROC-SNAP-010"
SNAP_REFUSE_ACTIVATED = "ROC-SNAP-011"
SNAP_REFUSE_TOOL_USE = "ROC-SNAP-012"
SNAP_REFUSE_DIGEST = "ROC-SNAP-013"
SNAP_REFUSE_DUPLICATE = "ROC-SNAP-014"
SESSION_SAME_OUTCOME = "ROC-SESSION-001"  # restored agent answers like the original
SESSION_SAME_IDS = "ROC-SESSION-002"  # accepts responses keyed by the original ids
SESSION_REUSE_ID = "ROC-SESSION-003"  # re-raise at a restored raise point uses the restored id
SESSION_STORED_ANSWERS = "ROC-SESSION-004"  # stored answers delivered without resending
SESSION_NO_RERUN = "ROC-SESSION-005"  # completedToolResults never run again
SESSION_QUIET_RESTORE = "ROC-SESSION-006"  # restoring fires nothing
SESSION_IDEMPOTENT = "ROC-SESSION-007"  # snapshot of a fresh restore equals the restored snapshot
SESSION_AGENT_ID = "ROC-SESSION-008"  # agentId mismatch -> SNAPSHOT_INVALID
PORTABLE_RESTORE = "ROC-SESSION-014"  # restores snapshots written elsewhere (frozen fixtures)
PORTABLE_FOREIGN_ID = "ROC-SESSION-015"  # keeps ids another implementation minted
VER_SNAPSHOT_VERSIONS = "ROC-VER-002"  # the format and spec versions of the writer (written_versions)
VER_BAD_VERSION = "ROC-VER-004"  # missing / malformed schemaVersion -> SNAPSHOT_INVALID
VER_UNKNOWN_MAJOR = "ROC-VER-005"  # unknown major -> SNAPSHOT_VERSION_UNSUPPORTED
VER_UNKNOWN_SPEC_MAJOR = "ROC-VER-006"  # unknown specVersion major -> SNAPSHOT_VERSION_UNSUPPORTED
VER_LATER_MINOR = "ROC-VER-007"  # later minor accepted, unknown members ignored
VER_WRITES_OWN = "ROC-VER-003"  # a writer writes its own format version
VER_CLOSED_MINOR = "ROC-VER-008"  # known minor with unknown members -> SNAPSHOT_INVALID
VER_NO_AGENT = "ROC-VER-009"  # a refused snapshot creates no agent
VER_FROZEN_INVALID = "ROC-VER-010"  # every invalid frozen fixture refused with its code
SESSION_REVISIONS = "ROC-SESSION-009"  # revisions start at 0 and grow by one per save
SESSION_SAVE_POINTS = "ROC-SESSION-017"  # saves happen only at the two save points of an invocation
SESSION_CAS = "ROC-SESSION-010"  # a save with a stale revision fails with SESSION_CONFLICT, storing nothing
SESSION_SAVE_FIRST = "ROC-SESSION-011"  # save before calling the model or running a unit
SESSION_CONFLICT_CLEAN = "ROC-SESSION-012"  # a failed save fails the invocation before the model or a unit
SESSION_STORED_CURRENT = "ROC-SESSION-013"  # after a result the store holds the agent's state
SEC_SESSION_ID = "ROC-SEC-006"  # a malformed session id is refused with SNAPSHOT_INVALID
SEC_SIGN = "ROC-SEC-002"
SEC_VERIFY = "ROC-SEC-003"
SEC_ORDER = "ROC-SEC-004"
PORTABLE_WRITE = "ROC-SESSION-016"  # a snapshot it writes is continuable by another implementation


CANONICAL_PROBE: dict[str, Any] = {
    "path": "Überweisung/Q3 “final”.txt",
    "mode": "r",
    "limits": [3, 0.5, 0.00001, -12],
    "options": {"zeta": "tab\there", "alpha": 'bell\u0007 quote" slash\\', "\uff5a": 1, "\U0001f600": 2},
}
"""The tool input ``t1`` asks about. Its canonical form (spec 8.2, RFC 8785) differs from every near miss:
keys out of order at both levels (sorted by UTF-16 code units, so U+1F600 before U+FF5A, the reverse of
code point order), text outside ASCII (not escaped), control characters (``\t`` short, U+0007 as
``\u0007``), a quote and a backslash, and numbers that are not integers (``0.5``, and ``0.00001``, which
Python writes ``1e-05``). A digest or tag over ``json.dumps`` defaults, ASCII escapes, insertion order,
code point order or Python's number form comes out different (ROC-SNAP-008, ROC-SEC-002)."""


def two_tool_scenario(agent_id: str = "snap", executor: str = "sequential") -> dict[str, Any]:
    """t1 asks a question about ``CANONICAL_PROBE``, t2 completes at once (so the snapshot holds a
    preserved result)."""
    return sc.one_question(
        agent_id,
        executor=executor,
        lead="two tools",
        tool_input=CANONICAL_PROBE,
        reason={"path": "a.txt"},
        value="asked",
        before=[("t2", "plain", {"n": 2}, "plain")],
        state={"user": "u1"},
    )


def written_versions(ctx: CheckContext) -> tuple[str, str]:
    """``(schemaVersion, specVersion)`` the implementation writes (ROC-VER-002): the format of the latest spec
    version it declares (spec 9.2: 1.3 writes 2.3, 1.2 writes 2.2, 1.1 writes 2.1, 1.0 writes 2.0)."""
    declared = ctx.description.spec_versions
    latest = next((v for v in ("1.3", "1.2", "1.1") if v in declared), "1.0")
    return {"1.3": "2.3", "1.2": "2.2", "1.1": "2.1", "1.0": "2.0"}[latest], latest


def executor_of(ctx: CheckContext) -> str:
    return sc.executor_for(ctx.profiles)


def interrupt_first(ctx: CheckContext, spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"})
    result = out.get("result") or {}
    if result.get("stopReason") != "interrupt" or not result.get("interrupts"):
        raise ConformanceViolation("ROC-STOP-001", f"expected an interrupt, got {json.dumps(out)[:400]}")
    return agent, out


def take_snapshot(ctx: CheckContext, agent: str) -> dict[str, Any]:
    snap = ctx.client.take_snapshot(agent)
    if "error" in snap:
        raise ConformanceViolation(
            SNAP_SCHEMA, f"TakeSnapshot at an interrupt boundary failed: {snap['error']}"
        )
    if snap.get("snapshot") is None:
        decoded = snap.get("decodeError")
        raise ConformanceViolation(SNAP_SCHEMA, f"the snapshot is not RoC JSON (spec 8.2): {decoded}")
    doc: dict[str, Any] = snap["snapshot"]
    return doc


def fail_if(wrong: dict[str, list[str]]) -> None:
    """Raise one violation naming every requirement with findings."""
    found = {req: msgs for req, msgs in wrong.items() if msgs}
    if found:
        detail = "; ".join(f"[{req}] {'; '.join(msgs)}" for req, msgs in found.items())
        raise ConformanceViolation(tuple(found), detail, exhaustive=True)


def own_snapshot_refused(
    ctx: CheckContext, doc: dict[str, Any], spec: dict[str, Any], requirement: str, message: str
) -> bool:
    """Whether the implementation refuses even its own unmodified snapshot ``doc``. If so, a changed copy
    it also refused (``message``, against ``requirement``) says nothing new: it is recorded as a consequence
    of that failure, which ``explicit:session-round-trip`` judges once as ROC-SESSION-002."""
    out = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    if "agent" in out:
        return False
    detail = f"{message}; its own unmodified snapshot is refused too: {out.get('error')}"
    ctx.evidence.consequences.append(Finding((requirement,), detail, after=(SESSION_SAME_IDS,)))
    return True


def error_code(out: dict[str, Any]) -> str | None:
    """The code of an Invoke reply's error, or ``None`` when it has none."""
    err = out.get("error")
    return err.get("code") if isinstance(err, dict) else None


def units_ran(out: dict[str, Any]) -> list[str]:
    """What an Invoke reply's trace shows running: model calls, tool bodies, hook callbacks."""
    return [
        e["kind"]
        for e in out.get("trace", [])
        if e.get("kind") in ("model_call", "tool_start", "hook_callback")
    ]


def strip_volatile(doc: Any) -> Any:
    if not isinstance(doc, dict):
        return doc
    # The versions are the writer's own (ROC-VER-002, ROC-SESSION-007), judged by ROC-VER-002 alone.
    volatile = ("createdAt", "revision", "integrity", "schemaVersion", "specVersion")
    return {k: v for k, v in doc.items() if k not in volatile}


def outcome(o: dict[str, Any]) -> Any:
    tools = sorted(e["toolUseId"] for e in o.get("trace", []) if e.get("kind") == "tool_start")
    models = [e.get("turn") for e in o.get("trace", []) if e.get("kind") == "model_call"]
    return {
        "result": o.get("result"),
        "error": o.get("error"),
        "messages": o.get("messages"),
        "state": o.get("state"),
        "toolStarts": tools,
        "modelCalls": models,
    }
