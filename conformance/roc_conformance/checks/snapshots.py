"""Snapshot checks (profiles sessions and portable-snapshot): the document an implementation writes, the
documents it must refuse, and a snapshot written by *another* implementation that it must resume.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_bytes, input_digest, snapshot_mac
from roc_conformance.checks.base import Check, CheckContext, Finding
from roc_conformance.checks.sessions import (
    check_session_claim,
    check_session_round_trip,
    check_session_store,
    check_stored_integrity,
)
from roc_conformance.checks.snapshot_support import (
    CANONICAL_PROBE,
    PORTABLE_FOREIGN_ID,
    PORTABLE_RESTORE,
    PORTABLE_WRITE,
    SEC_ORDER,
    SEC_SESSION_ID,
    SEC_SIGN,
    SEC_VERIFY,
    SESSION_AGENT_ID,
    SESSION_CAS,
    SESSION_CONFLICT_CLEAN,
    SESSION_IDEMPOTENT,
    SESSION_NO_RERUN,
    SESSION_QUIET_RESTORE,
    SESSION_REUSE_ID,
    SESSION_REVISIONS,
    SESSION_SAME_IDS,
    SESSION_SAME_OUTCOME,
    SESSION_SAVE_FIRST,
    SESSION_SAVE_POINTS,
    SESSION_STORED_ANSWERS,
    SESSION_STORED_CURRENT,
    SNAP_ACTIVATED,
    SNAP_AGENT,
    SNAP_CANONICAL,
    SNAP_DIGEST,
    SNAP_INTERRUPTS,
    SNAP_NO_EFFECT,
    SNAP_PENDING,
    SNAP_REFUSE_ACTIVATED,
    SNAP_REFUSE_DANGLING,
    SNAP_REFUSE_DIGEST,
    SNAP_REFUSE_DUPLICATE,
    SNAP_REFUSE_SCHEMA,
    SNAP_REFUSE_TOOL_USE,
    SNAP_SCHEMA,
    VER_BAD_VERSION,
    VER_CLOSED_MINOR,
    VER_FROZEN_INVALID,
    VER_LATER_MINOR,
    VER_NO_AGENT,
    VER_SNAPSHOT_VERSIONS,
    VER_UNKNOWN_MAJOR,
    VER_UNKNOWN_SPEC_MAJOR,
    VER_WRITES_OWN,
    error_code,
    executor_of,
    fail_if,
    interrupt_first,
    outcome,
    own_snapshot_refused,
    strip_volatile,
    take_snapshot,
    two_tool_scenario,
    written_versions,
)
from roc_conformance.client import HarnessClient
from roc_conformance.errors import ConformanceViolation
from roc_conformance.oracle.reqs import TRANSCRIPT


def _schema_path() -> Path | None:
    here = Path(__file__).resolve()
    for directory in here.parents:
        candidate = directory / "spec" / "schema" / "v1" / "snapshot.schema.json"
        if candidate.is_file():
            return candidate
    return None


def _validate_snapshot(doc: Any) -> list[str]:
    path = _schema_path()
    if path is None:
        return []
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    resources = []
    for sibling in path.parent.glob("*.schema.json"):
        schema = json.loads(sibling.read_text(encoding="utf-8"))
        resources.append((schema.get("$id", sibling.name), Resource.from_contents(schema)))
    registry: Registry[Any] = Registry().with_resources(resources)
    validator = Draft202012Validator(json.loads(path.read_text(encoding="utf-8")), registry=registry)
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
        for e in validator.iter_errors(doc)
    ]


def check_snapshot_document(ctx: CheckContext) -> None:
    spec = two_tool_scenario(executor=executor_of(ctx))
    idle = ctx.client.create_agent(spec)
    idle_doc = take_snapshot(ctx, idle)
    agent, out = interrupt_first(ctx, spec)
    doc = take_snapshot(ctx, agent)
    again = take_snapshot(ctx, agent)
    wrong: dict[str, list[str]] = {}
    problems = _validate_snapshot(doc) + _validate_snapshot(idle_doc)
    if problems:
        raise ConformanceViolation(
            SNAP_SCHEMA, "snapshot does not match the schema: " + "; ".join(problems[:5])
        )
    result = out["result"]
    state = doc.get("interruptState") or {}
    add = wrong.setdefault
    schema_version, spec_version = written_versions(ctx)
    if doc.get("schemaVersion") != schema_version or doc.get("specVersion") != spec_version:
        add(VER_SNAPSHOT_VERSIONS, []).append(
            f"schemaVersion {doc.get('schemaVersion')!r} / specVersion {doc.get('specVersion')!r}, expected "
            f"{schema_version!r} / {spec_version!r} for spec versions {sorted(ctx.description.spec_versions)}"
        )
    if (
        state.get("activated") is not True
        or (idle_doc.get("interruptState") or {}).get("activated") is not False
    ):
        add(SNAP_ACTIVATED, []).append(
            "interruptState.activated is not true when interrupted / false when idle"
        )
    stored = [i for i in state.get("interrupts") or [] if isinstance(i, dict)]
    reported = {i["id"]: i for i in result["interrupts"]}
    if sorted(i.get("id", "") for i in stored) != sorted(reported):
        add(SNAP_INTERRUPTS, []).append(
            f"stored ids {[i.get('id') for i in stored]} != pending {sorted(reported)}"
        )
    for item in stored:
        want = reported.get(item.get("id", ""))
        if want is None:
            continue
        for member in ("name", "reason", "source"):
            if canonical_bytes(item.get(member)) != canonical_bytes(want.get(member)):
                add(SNAP_INTERRUPTS, []).append(
                    f"{item.get('id')}: {member} differs from the reported interrupt"
                )
        if "response" in item:
            add(SNAP_INTERRUPTS, []).append(f"{item.get('id')}: an unanswered interrupt carries a response")
        digest = item.get("inputDigest")
        want_digest = input_digest(CANONICAL_PROBE)
        if digest is None:
            add(SNAP_DIGEST, []).append(f"{item.get('id')}: tool-bound interrupt without inputDigest")
        elif digest != want_digest:
            add(SNAP_CANONICAL, []).append(f"inputDigest {digest} is not the canonical digest {want_digest}")
    pending = state.get("pendingToolExecution") or {}
    # The paused assistant message is what the scripted model said, not the result's message: a wrong
    # result message is ROC-STOP-005's finding and must not fail the snapshot too.
    paused = {"role": "assistant", "content": spec["model"]["turns"][0]["content"]}
    if canonical_bytes(pending.get("assistantMessage")) != canonical_bytes(paused):
        add(SNAP_PENDING, []).append(
            "pendingToolExecution.assistantMessage is not the interrupted assistant message"
        )
    completed = [r.get("toolUseId") for r in pending.get("completedToolResults") or [] if isinstance(r, dict)]
    if completed != ["t2"]:
        add(SNAP_PENDING, []).append(f"completedToolResults hold {completed}, expected exactly ['t2']")
    agent_doc = doc.get("agent") or {}
    history = list(out["messages"])
    pending_message = (state.get("pendingToolExecution") or {}).get("assistantMessage")
    shown = history[-1] if history else None
    if pending_message is not None and canonical_bytes(shown) == canonical_bytes(pending_message):
        # The history shows the paused assistant message (ROC-TOOL-005, judged on the history itself); the
        # snapshot rightly keeps it in pendingToolExecution only.
        message = "the snapshot's messages differ from a history showing the paused assistant message"
        ctx.evidence.consequences.append(Finding((SNAP_AGENT,), message, after=(TRANSCRIPT,)))
        history.pop()
    if agent_doc.get("agentId") != "snap" or canonical_bytes(agent_doc.get("messages")) != canonical_bytes(
        history
    ):
        add(SNAP_AGENT, []).append("agent.agentId / agent.messages differ from the agent's id and history")
    if agent_doc.get("state") != out.get("state"):
        add(SNAP_AGENT, []).append(
            f"agent.state is {agent_doc.get('state')!r}, the agent holds {out.get('state')!r}"
        )
    if canonical_bytes(strip_volatile(doc)) != canonical_bytes(strip_volatile(again)):
        add(SNAP_NO_EFFECT, []).append(
            "a second snapshot differs from the first: taking one changed the agent"
        )
    fail_if(wrong)


def _frozen_dir() -> Path | None:
    schema = _schema_path()
    if schema is None:
        return None
    directory = schema.parents[2] / "examples" / "Snapshot"
    return directory if directory.is_dir() else None


SNAP_REFUSE_DUPLICATE_NAMES = "ROC-SNAP-015"  # a JSON text that repeats a member name

# Invalid frozen fixture -> (the code it names, the requirement it breaks). Unlisted: schema-rejected,
# SNAPSHOT_INVALID, ROC-SNAP-009. Integrity fixtures are checked with a key (check_integrity).
_FROZEN_INVALID: dict[str, tuple[str, str]] = {
    "wrong-schema-version.json": ("SNAPSHOT_VERSION_UNSUPPORTED", VER_UNKNOWN_MAJOR),
    "unsupported-spec-version.json": ("SNAPSHOT_VERSION_UNSUPPORTED", VER_UNKNOWN_SPEC_MAJOR),
    "missing-schema-version.json": ("SNAPSHOT_INVALID", VER_BAD_VERSION),
    "malformed-schema-version.json": ("SNAPSHOT_INVALID", VER_BAD_VERSION),
    "unknown-top-level-member.json": ("SNAPSHOT_INVALID", VER_CLOSED_MINOR),
    "dangling-tool-use.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_DANGLING),
    "orphan-tool-result.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_DANGLING),
    "activated-without-interrupts.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_ACTIVATED),
    "completed-result-for-unknown-tool-use.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_TOOL_USE),
    "completed-result-for-interrupted-tool.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_TOOL_USE),
    "interrupt-for-unknown-tool-use.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_TOOL_USE),
    "input-digest-mismatch.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_DIGEST),
    "duplicate-interrupt-ids.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_DUPLICATE),
    "duplicate-member-names.json": ("SNAPSHOT_INVALID", SNAP_REFUSE_DUPLICATE_NAMES),
}
_INTEGRITY_FIXTURES = ("integrity-mac-mismatch.json",)
_CODE_IN_ROW = re.compile(r"^\|\s*`([^`]+\.json)`\s*\|(.*)$")
_CODE = re.compile(r"`((?:SNAPSHOT|SESSION)_[A-Z_]+)`")


def fixture_codes(directory: Path) -> dict[str, str]:
    """The code each invalid fixture names, read from the fixture index (spec/examples/Snapshot/README.md).

    A row whose rule names a code in backticks uses it; a schema-rejected row means SNAPSHOT_INVALID.
    """
    codes: dict[str, str] = {}
    readme = directory / "README.md"
    if not readme.is_file():
        return codes
    for line in readme.read_text(encoding="utf-8").splitlines():
        row = _CODE_IN_ROW.match(line.strip())
        if row:
            named = _CODE.search(row.group(2))
            codes[row.group(1)] = named.group(1) if named else "SNAPSHOT_INVALID"
    return codes


def _tool_uses(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    blocks = content if isinstance(content, list) else []
    return [b["toolUse"] for b in blocks if isinstance(b, dict) and isinstance(b.get("toolUse"), dict)]


def spec_for_snapshot(doc: dict[str, Any], executor: str, *, nested: bool = False) -> dict[str, Any]:
    """An agent definition that can continue ``doc``: its tools and hooks raise the stored interrupts, and a
    tool use that keeps a sub-agent (format 2.2) runs one built the same way from the kept part. A sub-agent's
    model answers by the assistant turns of its history (``nested``): turn 0 is its pending batch."""
    agent: dict[str, Any] = doc["agent"] if isinstance(doc.get("agent"), dict) else {}
    state: dict[str, Any] = doc["interruptState"] if isinstance(doc.get("interruptState"), dict) else {}
    pending: dict[str, Any] = (
        state["pendingToolExecution"] if isinstance(state.get("pendingToolExecution"), dict) else {}
    )
    messages = [
        m for m in [*(agent.get("messages") or []), pending.get("assistantMessage")] if isinstance(m, dict)
    ]
    tools: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        for use in _tool_uses(message):
            tools.setdefault(str(use.get("name")), [])
    hooks: list[dict[str, Any]] = []
    for item in state.get("interrupts") or []:
        source = item.get("source") or {} if isinstance(item, dict) else {}
        step = sc.interrupt(item.get("name", ""))
        if source.get("kind") == "tool" and source.get("toolName") in tools:
            if step not in tools[source["toolName"]]:  # two uses of one tool raise the same name once each
                tools[source["toolName"]].append(step)
        elif source.get("kind") == "before_tool_call":
            hooks.append({"event": "BeforeToolCall", "toolName": source.get("toolName"), "steps": [step]})
        elif source.get("kind") == "before_tools":
            hooks.append(sc.hook("BeforeTools", step))
    children: dict[str, Any] = state["children"] if isinstance(state.get("children"), dict) else {}
    for use in _tool_uses(pending.get("assistantMessage")):
        kept = children.get(str(use.get("toolUseId")))
        if isinstance(kept, dict) and str(use.get("name")) in tools:
            child = spec_for_snapshot(kept, executor, nested=True)
            tools[str(use["name"])].insert(0, {"runAgent": {"agent": child, "prompt": "continue"}})
    done = [sc.turn(sc.text("done"))]
    return sc.agent_spec(
        str(agent.get("agentId") or "agent"),
        executor=executor,
        turns=[sc.turn(sc.text("pending")), *done] if nested else done,
        tools=[sc.tool(n, *steps, sc.returns("ran")) for n, steps in tools.items()],
        hooks=hooks,
    )


def _read_by(ctx: CheckContext, doc: Any) -> bool:
    """Whether a fixture is of a format version the implementation reads as its own: format 2.1 fixtures are
    for readers of spec 1.1 (ROC-VER-010 covers the supported format versions; a reader of 2.0 takes a 2.1
    document as a later minor, ROC-VER-007, which ``check_snapshot_refusal`` judges with a document of its
    own writing)."""
    version = doc.get("schemaVersion") if isinstance(doc, dict) else None
    written = written_versions(ctx)[0]
    if version == "2.2":  # kept sub-agents: for readers of spec 1.2 on that run sub-agents (chapter 12)
        return written in ("2.2", "2.3") and "agent-as-tool" in ctx.profiles
    if version == "2.3":  # kept response metadata: for readers of spec 1.3 that keep it (spec 10.7)
        state = doc.get("interruptState")
        kept_sub_agents = isinstance(state, dict) and bool(state.get("children"))
        return (
            written == "2.3"
            and "audit" in ctx.profiles
            and (not kept_sub_agents or "agent-as-tool" in ctx.profiles)
        )
    return version != "2.1" or written in ("2.1", "2.2", "2.3")


def check_frozen_invalid(ctx: CheckContext) -> None:
    directory = _frozen_dir()
    if directory is None:
        raise RuntimeError("spec/examples/Snapshot is not available to this suite installation")
    wrong: dict[str, list[str]] = {}
    named = fixture_codes(directory)
    for path in sorted((directory / "invalid").glob("*.json")):
        if path.name in _INTEGRITY_FIXTURES or named.get(path.name) == "SNAPSHOT_INTEGRITY":
            continue  # needs a configured key: check_integrity
        code, req = _FROZEN_INVALID.get(path.name, ("SNAPSHOT_INVALID", SNAP_REFUSE_SCHEMA))
        code = named.get(path.name, code)
        text = path.read_text(encoding="utf-8")
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            doc = {}
        if not _read_by(ctx, doc):
            continue
        spec = spec_for_snapshot(doc if isinstance(doc, dict) else {}, executor_of(ctx))
        out = ctx.client.restore_agent(text, spec, model_turn_offset=0)
        if "agent" in out:
            wrong.setdefault(VER_NO_AGENT, []).append(f"{path.name}: accepted")
            wrong.setdefault(req, []).append(f"{path.name}: accepted, expected {code}")
            wrong.setdefault(VER_FROZEN_INVALID, []).append(path.name)
        elif error_code(out) != code:
            got = error_code(out)
            wrong.setdefault(req, []).append(f"{path.name}: refused with {got}, expected {code}")
            wrong.setdefault(VER_FROZEN_INVALID, []).append(path.name)
    fail_if(wrong)


def check_snapshot_refusal(ctx: CheckContext) -> None:
    """Damaged copies of the implementation's own snapshot, a later minor, and another agent's snapshot."""
    spec = two_tool_scenario(executor=executor_of(ctx))
    agent, first = interrupt_first(ctx, spec)
    good = take_snapshot(ctx, agent)
    wrong: dict[str, list[str]] = {}
    future = {**copy.deepcopy(good), "schemaVersion": "3.0", "agent": "anything goes in a later major"}
    withdrawn = {**copy.deepcopy(good), "schemaVersion": "1.0"}  # the pre-release format (spec 9.3)
    cases: list[tuple[str, dict[str, Any] | str, str, str]] = [
        ("schemaVersion 3.0 with a foreign shape", future, "SNAPSHOT_VERSION_UNSUPPORTED", VER_UNKNOWN_MAJOR),
        ("schemaVersion 1.0 (withdrawn)", withdrawn, "SNAPSHOT_VERSION_UNSUPPORTED", VER_UNKNOWN_MAJOR),
        ("not JSON", "{this is not json", "SNAPSHOT_INVALID", SNAP_REFUSE_SCHEMA),
        ("a JSON array", "[]", "SNAPSHOT_INVALID", SNAP_REFUSE_SCHEMA),
        ("unknown member in 2.0", {**copy.deepcopy(good), "extra": 1}, "SNAPSHOT_INVALID", VER_CLOSED_MINOR),
    ]
    for label, doc, code, req in cases:
        out = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
        got = error_code(out)
        if "agent" in out:
            wrong.setdefault(VER_NO_AGENT, []).append(f"{label}: accepted")
            wrong.setdefault(req, []).append(f"{label}: accepted, expected {code}")
        elif got != code:
            wrong.setdefault(req, []).append(f"{label}: refused with {got}, expected {code}")
    other = ctx.client.restore_agent(good, {**spec, "agentId": "someone-else"}, model_turn_offset=1)
    if error_code(other) != "SNAPSHOT_INVALID":
        wrong.setdefault(SESSION_AGENT_ID, []).append(
            f"restoring agent 'snap' as 'someone-else' gave {other}"
        )
    later = copy.deepcopy(good)
    later["schemaVersion"] = "2.9"
    later["futureMember"] = {"from": "a later minor"}
    # A later minor may tag with an algorithm this reader lacks; without keys it ignores the tag (spec 10.3).
    later["integrity"] = {"alg": "HMAC-SHA3-256", "keyId": "later", "mac": "A" * 43}
    later["interruptState"]["interrupts"][0]["futureHint"] = {"from": "a later minor"}  # nested, too
    out = ctx.client.restore_agent(later, spec, model_turn_offset=1)
    if "agent" not in out:
        message = f"schemaVersion 2.9 with an unknown member and a later tag algorithm refused: {out}"
        if not own_snapshot_refused(ctx, good, spec, VER_LATER_MINOR, message):
            wrong.setdefault(VER_LATER_MINOR, []).append(message)
    else:
        # ROC-SESSION-007: the re-snapshot equals the restored document but for createdAt, revision,
        # integrity, schemaVersion and the members format 2.0 does not define.
        fresh = take_snapshot(ctx, out["agent"])
        known = copy.deepcopy(later)
        del known["futureMember"]
        del known["interruptState"]["interrupts"][0]["futureHint"]
        volatile = ("createdAt", "revision", "integrity", "schemaVersion")
        if canonical_bytes({k: v for k, v in fresh.items() if k not in volatile}) != canonical_bytes(
            {k: v for k, v in known.items() if k not in volatile}
        ):
            wrong.setdefault(SESSION_IDEMPOTENT, []).append(
                "the snapshot of an agent restored from a 2.9 document differs from that document in more "
                "than createdAt, revision, integrity, schemaVersion and the members 2.0 does not define"
            )
        iid = first["result"]["interrupts"][0]["id"]
        resumed = ctx.client.invoke(
            out["agent"], {"interruptResponses": [{"interruptId": iid, "response": "y"}]}
        )
        if (resumed.get("result") or {}).get("stopReason") != "end_turn":
            wrong.setdefault(VER_LATER_MINOR, []).append(f"the 2.9 snapshot did not continue: {resumed}")
        rewritten = take_snapshot(ctx, out["agent"])
        if rewritten.get("schemaVersion") != written_versions(ctx)[0]:
            wrong.setdefault(VER_WRITES_OWN, []).append(
                f"after restoring a 2.9 snapshot it wrote schemaVersion {rewritten.get('schemaVersion')!r}"
            )
    fail_if(wrong)


FOREIGN_A = "elsewhere/7f3a:approve"
FOREIGN_B = "elsewhere/7f3b:confirm"
"""Ids minted by some other implementation: opaque, and unlike anything the one under test mints."""


def foreign_snapshot(*, b_answer: Any = None) -> dict[str, Any]:
    """A canonical snapshot as another implementation would write it: t2 done, t1 and t3 asked."""
    uses = [("t2", "plain", {"n": 2}), ("t1", "ask", {"path": "a.txt"}), ("t3", "confirm", {"x": True})]
    assistant = {
        "role": "assistant",
        "content": [{"text": "three tools"}]
        + [{"toolUse": {"toolUseId": u, "name": n, "input": i}} for u, n, i in uses],
    }

    b: dict[str, Any] = {
        "id": FOREIGN_B,
        "name": "confirm",
        "reason": "sure?",
        "source": {"kind": "tool", "toolUseId": "t3", "toolName": "confirm"},
        "inputDigest": input_digest({"x": True}),
    }
    if b_answer is not None:
        b["response"] = b_answer
    return {
        "schemaVersion": "2.0",
        "specVersion": "1.0",
        "createdAt": "2026-01-02T03:04:05Z",
        "revision": 3,
        "agent": {
            "agentId": "foreign",
            "messages": [{"role": "user", "content": [{"text": "go"}]}],
            "state": {"user": "u1"},
        },
        "interruptState": {
            "activated": True,
            "interrupts": [
                {
                    "id": FOREIGN_A,
                    "name": "approve",
                    "reason": {"path": "a.txt"},
                    "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"},
                    "inputDigest": input_digest({"path": "a.txt"}),
                },
                b,
            ],
            "pendingToolExecution": {
                "assistantMessage": assistant,
                "completedToolResults": [
                    {
                        "toolUseId": "t2",
                        "status": "success",
                        "content": [{"json": {"answers": [], "value": "foreign"}}],
                    }
                ],
            },
        },
    }


def foreign_spec(executor: str) -> dict[str, Any]:
    return sc.agent_spec(
        "foreign",
        executor=executor,
        turns=[sc.turn(sc.text("unused")), sc.turn(sc.text("done"))],
        tools=[
            sc.tool("ask", sc.interrupt("approve"), sc.returns("asked")),
            sc.tool("confirm", sc.interrupt("confirm"), sc.returns("confirmed")),
            sc.tool("plain", sc.returns("plain")),
        ],
    )


def _results(out: dict[str, Any]) -> dict[str, Any]:
    return {
        b["toolResult"].get("toolUseId"): b["toolResult"].get("content")
        for m in out.get("messages", [])
        for b in m.get("content", [])
        if "toolResult" in b
    }


def check_foreign_snapshot(ctx: CheckContext) -> None:
    executor = executor_of(ctx)
    wrong: dict[str, list[str]] = {}
    restored = ctx.client.restore_agent(foreign_snapshot(), foreign_spec(executor), model_turn_offset=1)
    if "agent" not in restored:
        raise ConformanceViolation(PORTABLE_RESTORE, f"a valid foreign snapshot was refused: {restored}")
    first = ctx.client.invoke(
        restored["agent"], {"interruptResponses": [{"interruptId": FOREIGN_A, "response": "yes"}]}
    )
    res = first.get("result") or {}
    ids = [i.get("id") for i in res.get("interrupts") or []]
    if "error" in first:
        wrong.setdefault(PORTABLE_FOREIGN_ID, []).append(f"answering a foreign id failed: {first['error']}")
    elif ids != [FOREIGN_B]:
        wrong.setdefault(SESSION_REUSE_ID, []).append(
            f"the re-raised interrupt has ids {ids}, not [{FOREIGN_B!r}]"
        )
        wrong.setdefault(PORTABLE_FOREIGN_ID, []).append(f"the foreign id {FOREIGN_B!r} was not kept")
    else:
        second = ctx.client.invoke(
            restored["agent"], {"interruptResponses": [{"interruptId": FOREIGN_B, "response": "ok"}]}
        )
        starts = [
            e["toolUseId"] for t in (first, second) for e in t["trace"] if e.get("kind") == "tool_start"
        ]
        got = _results(second)
        if (second.get("result") or {}).get("stopReason") != "end_turn":
            wrong.setdefault(PORTABLE_RESTORE, []).append(f"did not complete: {json.dumps(second)[:600]}")
        if "t2" in starts:
            wrong.setdefault(SESSION_NO_RERUN, []).append("t2 ran although its result was in the snapshot")
        if got.get("t2") != [{"json": {"answers": [], "value": "foreign"}}]:
            wrong.setdefault(PORTABLE_RESTORE, []).append(
                f"the preserved result of t2 was not kept: {got.get('t2')}"
            )
        if got.get("t1") != [{"json": {"answers": ["yes"], "value": "asked"}}]:
            wrong.setdefault(PORTABLE_RESTORE, []).append(f"t1 did not get its answer: {got.get('t1')}")
        if (second.get("state") or {}).get("user") != "u1":
            wrong.setdefault(PORTABLE_RESTORE, []).append("agent.state from the snapshot was not restored")
    stored = ctx.client.restore_agent(
        foreign_snapshot(b_answer="stored"), foreign_spec(executor), model_turn_offset=1
    )
    if "agent" not in stored:
        wrong.setdefault(PORTABLE_RESTORE, []).append(f"a partially answered snapshot was refused: {stored}")
    else:
        out = ctx.client.invoke(
            stored["agent"], {"interruptResponses": [{"interruptId": FOREIGN_A, "response": "yes"}]}
        )
        if _results(out).get("t3") != [{"json": {"answers": ["stored"], "value": "confirmed"}}]:
            wrong.setdefault(SESSION_STORED_ANSWERS, []).append(
                f"t3 did not receive the answer stored in the snapshot: {json.dumps(out)[:600]}"
            )
    fail_if(wrong)


def check_frozen_valid(ctx: CheckContext) -> None:
    """Every valid frozen fixture restores, snapshots back unchanged, and continues when answered."""
    directory = _frozen_dir()
    if directory is None:
        raise RuntimeError("spec/examples/Snapshot is not available to this suite installation")
    wrong: dict[str, list[str]] = {}
    for path in sorted((directory / "valid").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not _read_by(ctx, doc):
            continue
        spec = spec_for_snapshot(doc, executor_of(ctx))
        out = ctx.client.restore_agent(doc, spec, model_turn_offset=0)
        if "agent" not in out:
            wrong.setdefault(PORTABLE_RESTORE, []).append(f"{path.name}: refused with {out.get('error')}")
            continue
        again = take_snapshot(ctx, out["agent"])
        if canonical_bytes(strip_volatile(again)) != canonical_bytes(strip_volatile(doc)):
            wrong.setdefault(SESSION_IDEMPOTENT, []).append(
                f"{path.name}: the snapshot after restoring differs"
            )
        state = doc.get("interruptState") or {}
        # A stored decline or cancel (format 2.1) is a decision to a reader of spec 1.1, which knows the
        # member; a reader of format 2.0 drops it (ROC-VER-007) and asks again, so the suite answers it there.
        decided = "1.1" in ctx.description.spec_versions
        pending = [
            i["id"]
            for i in state.get("interrupts") or []
            if "response" not in i and not (decided and "decision" in i)
        ]
        if not state.get("activated"):
            continue
        answer = {"interruptResponses": [{"interruptId": i, "response": "yes"} for i in pending]}
        resumed = ctx.client.invoke(out["agent"], answer)
        if "error" in resumed:
            wrong.setdefault(PORTABLE_FOREIGN_ID, []).append(
                f"{path.name}: answers refused: {resumed['error']}"
            )
        elif (resumed.get("result") or {}).get("stopReason") != "end_turn":
            wrong.setdefault(PORTABLE_RESTORE, []).append(
                f"{path.name}: did not complete: {json.dumps(resumed.get('result'))[:400]}"
            )
    fail_if(wrong)


INTEGRITY_KEY = {"keyId": "roc-examples-2026", "secret": "roc-example-key-not-secret"}
"""The public example key of spec/examples/Snapshot (tests only)."""


def check_integrity(ctx: CheckContext) -> None:
    spec = {**two_tool_scenario(executor=executor_of(ctx)), "integrity": dict(INTEGRITY_KEY)}
    agent, _ = interrupt_first(ctx, spec)
    doc = take_snapshot(ctx, agent)
    wrong: dict[str, list[str]] = {}
    tag = doc.get("integrity") or {}
    if tag.get("alg") != "HMAC-SHA256" or tag.get("keyId") != INTEGRITY_KEY["keyId"]:
        wrong.setdefault(SEC_SIGN, []).append(f"integrity member is {tag!r}")
    elif tag.get("mac") != snapshot_mac(doc, INTEGRITY_KEY["secret"]):
        wrong.setdefault(SEC_SIGN, []).append("integrity.mac is not the HMAC-SHA256 of the canonical form")
    unsigned = {k: v for k, v in doc.items() if k != "integrity"}
    tampered = copy.deepcopy(doc)
    tampered["agent"]["state"] = {"user": "mallory"}
    unknown_key = copy.deepcopy(doc)
    unknown_key["integrity"] = {**tag, "keyId": "no-such-key"}
    broken_shape = copy.deepcopy(doc)
    broken_shape.pop("agent", None)
    cases = [
        ("no integrity member", unsigned, SEC_VERIFY),
        ("tampered state", tampered, SEC_VERIFY),
        ("unknown keyId", unknown_key, SEC_VERIFY),
        ("tampered and malformed", broken_shape, SEC_ORDER),
    ]
    for label, bad, req in cases:
        out = ctx.client.restore_agent(bad, spec, model_turn_offset=1)
        code = error_code(out)
        if code != "SNAPSHOT_INTEGRITY":
            wrong.setdefault(req, []).append(f"{label}: {'accepted' if 'agent' in out else code}")
    good = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    if "agent" not in good:
        message = f"its own signed snapshot was refused: {good}"
        if not own_snapshot_refused(
            ctx, unsigned, {k: v for k, v in spec.items() if k != "integrity"}, SEC_VERIFY, message
        ):
            wrong.setdefault(SEC_VERIFY, []).append(message)
    if "session-store" in ctx.description.profiles:
        for req, msgs in check_stored_integrity(
            ctx, spec, INTEGRITY_KEY["keyId"], INTEGRITY_KEY["secret"]
        ).items():
            wrong.setdefault(req, []).extend(msgs)
    else:
        ctx.note("no session-store profile: tags of stored snapshots not checked")
    directory = _frozen_dir()
    if directory is not None:
        named = fixture_codes(directory)
        keyed = sorted({*_INTEGRITY_FIXTURES, *(n for n, c in named.items() if c == "SNAPSHOT_INTEGRITY")})
        for name in keyed:
            fixture = json.loads((directory / "invalid" / name).read_text(encoding="utf-8"))
            fspec = {**spec_for_snapshot(fixture, executor_of(ctx)), "integrity": dict(INTEGRITY_KEY)}
            out = ctx.client.restore_agent(fixture, fspec, model_turn_offset=0)
            if error_code(out) != "SNAPSHOT_INTEGRITY":
                wrong.setdefault(VER_FROZEN_INVALID, []).append(f"{name}: {out.get('error') or 'accepted'}")
    fail_if(wrong)


_SNAPSHOT_CHECKS: tuple[tuple[str, tuple[str, ...], Callable[[CheckContext], None], tuple[str, ...]], ...] = (
    (
        "explicit:snapshot-document",
        (
            SNAP_SCHEMA,
            SNAP_AGENT,
            SNAP_ACTIVATED,
            SNAP_INTERRUPTS,
            SNAP_PENDING,
            SNAP_DIGEST,
            SNAP_NO_EFFECT,
            SNAP_CANONICAL,
            VER_SNAPSHOT_VERSIONS,
        ),
        check_snapshot_document,
        ("core", "sessions"),
    ),
    (
        "explicit:snapshot-refusal",
        (
            VER_UNKNOWN_MAJOR,
            SNAP_REFUSE_SCHEMA,
            VER_CLOSED_MINOR,
            VER_NO_AGENT,
            SESSION_AGENT_ID,
            VER_LATER_MINOR,
            VER_WRITES_OWN,
            SESSION_IDEMPOTENT,
        ),
        check_snapshot_refusal,
        ("core", "sessions"),
    ),
    (
        "explicit:frozen-invalid-snapshots",
        (
            VER_FROZEN_INVALID,
            SNAP_REFUSE_SCHEMA,
            SNAP_REFUSE_DANGLING,
            SNAP_REFUSE_ACTIVATED,
            SNAP_REFUSE_TOOL_USE,
            SNAP_REFUSE_DIGEST,
            SNAP_REFUSE_DUPLICATE,
            SNAP_REFUSE_DUPLICATE_NAMES,
            VER_BAD_VERSION,
            VER_UNKNOWN_MAJOR,
            VER_UNKNOWN_SPEC_MAJOR,
            VER_CLOSED_MINOR,
            VER_NO_AGENT,
        ),
        check_frozen_invalid,
        ("core", "sessions"),
    ),
    (
        "explicit:session-round-trip",
        (SESSION_SAME_OUTCOME, SESSION_SAME_IDS, SESSION_NO_RERUN, SESSION_QUIET_RESTORE, SESSION_IDEMPOTENT),
        check_session_round_trip,
        ("core", "sessions"),
    ),
    (
        "explicit:session-store",
        (
            SESSION_REVISIONS,
            SESSION_SAVE_POINTS,
            SESSION_CAS,
            SESSION_SAVE_FIRST,
            SESSION_CONFLICT_CLEAN,
            SESSION_STORED_CURRENT,
            SEC_SESSION_ID,
        ),
        check_session_store,
        ("core", "sessions", "session-store"),
    ),
    (
        "explicit:session-claim",
        ("ROC-SESSION-018", "ROC-SESSION-019", "ROC-SESSION-020"),
        check_session_claim,
        ("core", "sessions", "session-store"),
    ),
    (
        "explicit:integrity",
        (SEC_SIGN, SEC_VERIFY, SEC_ORDER, VER_FROZEN_INVALID),
        check_integrity,
        ("core", "sessions", "snapshot-integrity"),
    ),
    (
        "explicit:foreign-snapshot",
        (PORTABLE_RESTORE, PORTABLE_FOREIGN_ID, SESSION_REUSE_ID, SESSION_STORED_ANSWERS, SESSION_NO_RERUN),
        check_foreign_snapshot,
        ("core", "sessions", "portable-snapshot"),
    ),
    (
        "explicit:frozen-valid-snapshots",
        (PORTABLE_RESTORE, PORTABLE_FOREIGN_ID, SESSION_IDEMPOTENT),
        check_frozen_valid,
        ("core", "sessions", "portable-snapshot"),
    ),
)


def check_portable_to_peer(ctx: CheckContext) -> None:
    """Snapshots this implementation writes continue in the peer adapter (--peer) from document + definition.

    The writer is judged by the reader's own standard: the peer continuing this implementation's snapshot
    must reach the outcome the peer reaches continuing its own snapshot of the same scenario, same answers.
    Comparing with how this implementation itself continues would charge its other divergences (history,
    result order) to portability. A peer that cannot continue even its own snapshot proves nothing here.
    """
    from roc_conformance.errors import CheckSkipped

    peer = ctx.peer
    if peer is None:
        raise CheckSkipped(
            "no peer adapter given (--peer): portability to another implementation not checked"
        )
    peer_desc = peer.describe()
    if not {"sessions", "portable-snapshot"} <= peer_desc.profiles:
        raise CheckSkipped("the peer adapter does not declare sessions + portable-snapshot")
    wrong: list[str] = []
    compared = 0
    for executor in ("sequential", "concurrent"):
        if f"{executor}-executor" not in ctx.profiles or f"{executor}-executor" not in peer_desc.profiles:
            continue
        spec = two_tool_scenario(agent_id="portable", executor=executor)
        agent, first = interrupt_first(ctx, spec)
        doc = take_snapshot(ctx, agent)
        ctx.client.dispose_agent(agent)
        own = _peer_own_continuation(peer, spec)
        if own is None:
            continue
        if not _peer_keeps_foreign_ids(peer, executor):
            raise CheckSkipped(READER_DROPS_FOREIGN_IDS)
        restored = peer.restore_agent(doc, spec, model_turn_offset=1)
        compared += 1
        if "agent" not in restored:
            wrong.append(f"{executor}: the peer refused the snapshot: {restored.get('error')}")
            continue
        theirs = peer.invoke(restored["agent"], _answer_all(first, "yes"))
        peer.dispose_agent(restored["agent"])
        if canonical_bytes(outcome(own)) != canonical_bytes(outcome(theirs)):
            wrong.append(
                f"{executor}: the peer continuing its own snapshot {json.dumps(outcome(own))[:800]} vs "
                f"the peer continuing this snapshot {json.dumps(outcome(theirs))[:800]}"
            )
    if wrong:
        raise ConformanceViolation(PORTABLE_WRITE, "; ".join(wrong))
    if not compared:
        raise CheckSkipped("the peer adapter cannot continue its own snapshot: it cannot judge another's")


def _answer_all(out: dict[str, Any], value: Any) -> dict[str, Any]:
    interrupts = (out.get("result") or {}).get("interrupts") or []
    return {"interruptResponses": [{"interruptId": i["id"], "response": value} for i in interrupts]}


READER_DROPS_FOREIGN_IDS = (
    "the peer adapter does not continue foreign snapshots (a restored foreign interrupt id is not kept: its "
    "own ROC-SESSION-014/015), so it cannot judge another's; give the reference as peer"
)


def _peer_keeps_foreign_ids(peer: HarnessClient, executor: str) -> bool:
    """Whether the peer continues the suite's own foreign document: answering its first interrupt re-raises
    the second under the id the document gave it."""
    restored = peer.restore_agent(foreign_snapshot(), foreign_spec(executor), model_turn_offset=1)
    if "agent" not in restored:
        return False
    answer = {"interruptResponses": [{"interruptId": FOREIGN_A, "response": "yes"}]}
    out = peer.invoke(restored["agent"], answer)
    peer.dispose_agent(restored["agent"])
    return [i.get("id") for i in (out.get("result") or {}).get("interrupts") or []] == [FOREIGN_B]


def _peer_own_continuation(peer: HarnessClient, spec: dict[str, Any]) -> dict[str, Any] | None:
    """The peer's outcome of ``spec`` through its own snapshot: pause, snapshot, restore, answer. ``None``
    when the peer does not get through that itself (it is then no judge of a foreign snapshot)."""
    agent = peer.create_agent(spec)
    first = peer.invoke(agent, {"prompt": "go"})
    snap = peer.take_snapshot(agent)
    peer.dispose_agent(agent)
    if not (first.get("result") or {}).get("interrupts") or snap.get("snapshot") is None:
        return None
    restored = peer.restore_agent(snap["snapshot"], spec, model_turn_offset=1)
    if "agent" not in restored:
        return None
    out: dict[str, Any] = peer.invoke(restored["agent"], _answer_all(first, "yes"))
    peer.dispose_agent(restored["agent"])
    return out if out.get("error") is None and "crash" not in out else None


def snapshot_checks() -> list[Check]:
    portable = Check(
        name="explicit:portable-to-peer",
        requirements=(PORTABLE_WRITE,),
        run=check_portable_to_peer,
        profiles=("core", "sessions", "portable-snapshot"),
        kind="explicit",
    )
    return [
        portable,
        *[
            Check(
                name=name,
                requirements=reqs,
                run=fn,
                profiles=profiles,
                kind="explicit",
            )
            for name, reqs, fn, profiles in _SNAPSHOT_CHECKS
        ],
    ]
