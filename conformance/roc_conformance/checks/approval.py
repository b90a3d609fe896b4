"""Approval checks (profile approval, spec chapter 16): the ready approval hook, the approval interrupt and
its derived schema, the answer's rules, approve / edit / reject, and the effective input. One check per
requirement.

Every expectation is computed here from the scenario and the chapter's text (``approval_schema`` is the
chapter's derivation, written out again), never from the implementation's own output. Scenarios use
``AgentSpec.approval`` and ``ToolSpec.inputSchema`` (harness protocol 6); what a body ran with is the input
its ``tool_start`` trace event carries.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_text, input_digest
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    DECLINE_TEXT,
    answer,
    decide,
    interrupts,
    pause,
    resume,
    shown,
    stop_reason,
    tool_results,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if, own_snapshot_refused

# Requirement IDs (spec/16-approval.md); one place for renumbering.
APPROVE_HOOK = "ROC-APPROVE-001"
APPROVE_SHAPE = "ROC-APPROVE-002"
APPROVE_SCHEMA = "ROC-APPROVE-003"
APPROVE_RULES = "ROC-APPROVE-004"
APPROVE_EDIT_VALID = "ROC-APPROVE-005"
APPROVE_APPROVE = "ROC-APPROVE-006"
APPROVE_REJECT = "ROC-APPROVE-007"
APPROVE_EDIT = "ROC-APPROVE-008"
APPROVE_PREFIX = "ROC-APPROVE-009"
APPROVE_HISTORY = "ROC-APPROVE-010"
APPROVE_DECIDED = "ROC-APPROVE-011"
APPROVE_DATA = "ROC-APPROVE-012"
APPROVE_DIGEST = "ROC-APPROVE-013"
APPROVE_LOADER = "ROC-APPROVE-014"

PROFILES = ("core", "hooks", "response-schema", "approval")
SNAPSHOT_PROFILES = (*PROFILES, "sessions")

DECISIONS = ("approve", "edit", "reject")
REJECT_TEXT = "The person rejected this tool call."
EDIT_PREFIX = "The person edited the input of this tool call before it ran; it ran with: "
PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}},
    "required": ["path"],
    "additionalProperties": False,
}
PROPOSED: dict[str, Any] = {"path": "/tmp/x"}
EDITED: dict[str, Any] = {"path": "/tmp/y"}


def approval_schema(decisions: Sequence[str], input_schema: dict[str, Any] | None) -> dict[str, Any]:
    """The approval schema of spec 16.2 (ROC-APPROVE-003), as the chapter states it."""
    properties: dict[str, Any] = {"decision": {"enum": list(decisions)}}
    if "edit" in decisions:
        properties["input"] = input_schema if input_schema is not None else {"type": "object"}
    properties["message"] = {"type": "string"}
    return {
        "type": "object",
        "properties": properties,
        "required": ["decision"],
        "additionalProperties": False,
    }


def same(a: Any, b: Any) -> bool:
    """JSON equality (``true`` is not ``1``)."""
    return canonical_text(a) == canonical_text(b)


def guarded(
    agent_id: str,
    ctx: CheckContext,
    *,
    decisions: Sequence[str] = (),
    body: Sequence[dict[str, Any]] = (),
    schema: bool = True,
    echo: bool = False,
) -> dict[str, Any]:
    """Tool ``delete`` (tool use ``t1``, input ``PROPOSED``; input schema ``PATH_SCHEMA`` unless ``schema``
    is false) opted in to approval with ``decisions`` (none: all three); its body runs ``body``, then returns
    ``"ran"``. With ``echo``, the same turn also calls tool ``echo`` (``t2``), not opted in."""
    uses = [sc.tool_use("t1", "delete", dict(PROPOSED))]
    tools = [sc.tool("delete", *body, sc.returns("ran"))]
    if echo:
        uses.append(sc.tool_use("t2", "echo", {"text": "hi"}))
        tools.append(sc.tool("echo", sc.returns("echoed")))
    if schema:
        tools[0]["inputSchema"] = copy.deepcopy(PATH_SCHEMA)
    spec = sc.agent_spec(
        agent_id,
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.text("deleting"), *uses), sc.turn(sc.text("done"))],
        tools=tools,
    )
    spec["approval"] = {"delete": {"decisions": list(decisions)} if decisions else {}}
    return spec


def approval_of(out: dict[str, Any]) -> dict[str, Any] | None:
    """The interrupt of tool use ``t1`` named ``approval`` in a reply, if any."""
    for raised in interrupts(out):
        if raised.get("name") == "approval" and (raised.get("source") or {}).get("toolUseId") == "t1":
            return raised
    return None


def paused(ctx: CheckContext, spec: dict[str, Any], requirement: str) -> tuple[str, dict[str, Any], str]:
    """Create the agent and prompt it until tool use ``t1`` waits for its approval: (agent, reply, its id).
    Without one, the set-up failed: ROC-APPROVE-001's finding, reported under ``requirement``."""
    agent, out = pause(ctx, spec)
    raised = approval_of(out)
    if raised is None:
        fail_if({requirement: [f"expected an approval interrupt for t1, got {shown(out)}"]})
        raise AssertionError("unreachable")
    return agent, out, str(raised.get("id"))


def started(out: dict[str, Any], tool_use_id: str = "t1") -> list[dict[str, Any]]:
    """The ``tool_start`` events of one tool use in a reply's trace."""
    return [
        e
        for e in out.get("trace") or []
        if e.get("kind") == "tool_start" and e.get("toolUseId") == tool_use_id
    ]


def ran_with(out: dict[str, Any], wrong: list[str], expected: dict[str, Any], what: str) -> None:
    """The body of ``t1`` started in this reply, each time with ``expected`` as its input."""
    starts = started(out)
    if not starts:
        wrong.append(f"after {what} the body of t1 did not run: {shown(out)}")
    for event in starts:
        if "input" not in event:
            wrong.append(f"after {what} the tool_start of t1 carries no input (harness protocol 6)")
        elif not same(event["input"], expected):
            wrong.append(f"after {what} the body of t1 ran with {event['input']!r}, expected {expected!r}")


def result_of(out: dict[str, Any], tool_use_id: str = "t1") -> dict[str, Any]:
    return tool_results(out).get(tool_use_id) or {}


def edit(iid: str, tool_input: Any = None) -> dict[str, Any]:
    return answer(iid, {"decision": "edit", "input": dict(EDITED) if tool_input is None else tool_input})


# --- 16.1, 16.2 ----------------------------------------------------------------------------------------


def check_hook(ctx: CheckContext) -> None:
    """Only the opted-in tool asks, once per tool use; approved, it is not asked again."""
    wrong: list[str] = []
    agent, out, iid = paused(ctx, guarded("approve-hook", ctx, echo=True), APPROVE_HOOK)
    seen = list(interrupts(out))
    for _ in range(3):
        if stop_reason(out) != "interrupt":
            break
        pending = interrupts(out)
        out = ctx.client.invoke(
            agent, resume(*(answer(str(i.get("id")), {"decision": "approve"}) for i in pending))
        )
        seen += interrupts(out)
    if stop_reason(out) != "end_turn":
        wrong.append(f"approving every approval did not complete the invocation: {shown(out)}")
    by_use: dict[str, list[str]] = {}
    for raised in seen:
        source = raised.get("source") or {}
        by_use.setdefault(str(source.get("toolUseId")), []).append(str(raised.get("id")))
    if "t2" in by_use:
        wrong.append(f"the tool echo, not opted in, raised {by_use['t2']}")
    if set(by_use.get("t1", [])) != {iid}:
        wrong.append(f"tool use t1 raised {by_use.get('t1')}, expected its one approval {iid!r}")
    fail_if({APPROVE_HOOK: wrong})


def check_shape(ctx: CheckContext) -> None:
    """Name, source, metadata kind and reason of the approval interrupt, for all and for some decisions."""
    wrong: list[str] = []
    for decisions in ((), ("reject", "approve")):
        _, out, _ = paused(ctx, guarded("approve-shape", ctx, decisions=decisions), APPROVE_SHAPE)
        raised = approval_of(out) or {}
        source = raised.get("source") or {}
        if source.get("kind") != "before_tool_call" or source.get("toolName") != "delete":
            wrong.append(f"the approval's source is {source!r}, expected before_tool_call of delete t1")
        if not same(raised.get("metadata"), {"kind": "approval"}):
            wrong.append(f'the metadata is {raised.get("metadata")!r}, expected {{"kind": "approval"}}')
        allowed = [d for d in DECISIONS if d in decisions or not decisions]
        want = {"toolName": "delete", "input": PROPOSED, "decisions": allowed}
        if not same(raised.get("reason"), want):
            wrong.append(f"the reason is {raised.get('reason')!r}, expected {want!r}")
    fail_if({APPROVE_SHAPE: wrong})


def check_schema(ctx: CheckContext) -> None:
    """The responseSchema is the chapter's approval schema: the allowed decisions, the tool's input schema
    (or ``{"type": "object"}``) exactly when edit is allowed."""
    wrong: list[str] = []
    cases: tuple[tuple[tuple[str, ...], bool], ...] = (((), True), (("approve", "reject"), True), ((), False))
    for decisions, schema in cases:
        spec = guarded("approve-schema", ctx, decisions=decisions, schema=schema)
        _, out, _ = paused(ctx, spec, APPROVE_SCHEMA)
        allowed = [d for d in DECISIONS if d in decisions or not decisions]
        want = approval_schema(allowed, PATH_SCHEMA if schema else None)
        got = (approval_of(out) or {}).get("responseSchema")
        if not same(got, want):
            wrong.append(f"with decisions {allowed} the responseSchema is {got!r}, expected {want!r}")
    fail_if({APPROVE_SCHEMA: wrong})


# --- 16.3 ------------------------------------------------------------------------------------------------

_BROKEN_RULES: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("an edit without input", {"decision": "edit"}, "/input"),
    ("an approve with an input", {"decision": "approve", "input": dict(EDITED)}, "/input"),
    ("an approve with a message", {"decision": "approve", "message": "fine"}, "/message"),
    ("an edit with a message", {"decision": "edit", "input": dict(EDITED), "message": "m"}, "/message"),
)


def _refused(
    ctx: CheckContext, agent: str, iid: str, response: Any, path: str, label: str, wrong: list[str]
) -> None:
    out = ctx.client.invoke(agent, resume(answer(iid, response)))
    details = (out.get("error") or {}).get("details") or {}
    if error_code(out) != "INVALID_RESPONSE":
        wrong.append(f"{label} gave {shown(out)}, not INVALID_RESPONSE")
    elif details.get("path") != path:
        wrong.append(f"{label} was refused with details.path {details.get('path')!r}, expected {path!r}")
    if started(out):
        wrong.append(f"{label} ran the tool")


def check_rules(ctx: CheckContext) -> None:
    """Each rule beyond the schema rejects the whole input with its path; the approval stays answerable."""
    agent, _, iid = paused(ctx, guarded("approve-rules", ctx), APPROVE_RULES)
    wrong: list[str] = []
    for label, response, path in _BROKEN_RULES:
        _refused(ctx, agent, iid, response, path, label, wrong)
    out = ctx.client.invoke(agent, resume(answer(iid, {"decision": "approve"})))
    if stop_reason(out) != "end_turn":
        wrong.append(f"after the refused inputs, an approve gave {shown(out)}")
    fail_if({APPROVE_RULES: wrong})


_BAD_EDITS: tuple[tuple[str, Any, str], ...] = (
    ("an empty path", {"path": ""}, "/input/path"),
    ("no path", {}, "/input/path"),
    ("an extra member", {"path": "/a", "force": True}, "/input/force"),
    ("a string", "/tmp/y", "/input"),
)


def check_edit_validated(ctx: CheckContext) -> None:
    """An edit outside the tool's input schema is INVALID_RESPONSE under /input; nothing runs or is stored."""
    agent, _, iid = paused(ctx, guarded("approve-edit-valid", ctx), APPROVE_EDIT_VALID)
    wrong: list[str] = []
    for label, edited, path in _BAD_EDITS:
        _refused(ctx, agent, iid, {"decision": "edit", "input": edited}, path, f"an edit with {label}", wrong)
    out = ctx.client.invoke(agent, resume(edit(iid)))
    if stop_reason(out) != "end_turn":
        wrong.append(f"after the refused edits, a valid edit gave {shown(out)}")
    fail_if({APPROVE_EDIT_VALID: wrong})


# --- 16.4 ------------------------------------------------------------------------------------------------


def check_approve(ctx: CheckContext) -> None:
    """After approve the body runs with the proposed input, and its result is its own."""
    agent, _, iid = paused(ctx, guarded("approve-approve", ctx), APPROVE_APPROVE)
    out = ctx.client.invoke(agent, resume(answer(iid, {"decision": "approve"})))
    wrong: list[str] = []
    ran_with(out, wrong, PROPOSED, "an approve")
    content = result_of(out).get("content")
    if not same(content, [{"json": {"answers": [], "value": "ran"}}]):
        wrong.append(f"after an approve the result content is {content!r}, expected the body's own")
    fail_if({APPROVE_APPROVE: wrong})


def check_reject(ctx: CheckContext) -> None:
    """After reject the body does not run; the error result is the message, or the fixed text."""
    wrong: list[str] = []
    for message in (None, "not that file", ""):
        agent, _, iid = paused(ctx, guarded("approve-reject", ctx), APPROVE_REJECT)
        response: dict[str, Any] = {"decision": "reject"}
        if message is not None:
            response["message"] = message
        out = ctx.client.invoke(agent, resume(answer(iid, response)))
        if started(out):
            wrong.append(f"a reject (message {message!r}) ran the tool")
        result = result_of(out)
        want = [{"text": REJECT_TEXT if message is None else message}]
        if result.get("status") != "error" or not same(result.get("content"), want):
            wrong.append(
                f"a reject (message {message!r}) gave the result {result!r}, expected error {want!r}"
            )
    fail_if({APPROVE_REJECT: wrong})


def check_edit(ctx: CheckContext) -> None:
    """After edit the body runs with the edited input, also when a question of its own replays it."""
    wrong: list[str] = []
    agent, _, iid = paused(ctx, guarded("approve-edit", ctx), APPROVE_EDIT)
    ran_with(ctx.client.invoke(agent, resume(edit(iid))), wrong, EDITED, "an edit")
    spec = guarded("approve-edit-replay", ctx, body=[sc.interrupt("sure")])
    agent, _, iid = paused(ctx, spec, APPROVE_EDIT)
    asked = ctx.client.invoke(agent, resume(edit(iid)))
    ran_with(asked, wrong, EDITED, "an edit")
    sure = [i for i in interrupts(asked) if i.get("name") == "sure"]
    if sure:
        replayed = ctx.client.invoke(agent, resume(answer(str(sure[0].get("id")), "yes")))
        ran_with(replayed, wrong, EDITED, "an edit and the body's own question")
    else:
        wrong.append(f"after an edit the body's interrupt 'sure' was not raised: {shown(asked)}")
    fail_if({APPROVE_EDIT: wrong})


def check_prefix(ctx: CheckContext) -> None:
    """The result of a body that ran with an edited input starts with the fixed text and canonical JSON."""
    agent, _, iid = paused(ctx, guarded("approve-prefix", ctx), APPROVE_PREFIX)
    tool_input = {"path": "/tmp/é y", "b": [1, 2.5], "a": True}
    spec_schema_free = guarded("approve-prefix-free", ctx, schema=False)
    wrong: list[str] = []
    for spec, edited in ((None, EDITED), (spec_schema_free, tool_input)):
        if spec is not None:
            agent, _, iid = paused(ctx, spec, APPROVE_PREFIX)
        out = ctx.client.invoke(agent, resume(edit(iid, edited)))
        want = [{"text": EDIT_PREFIX + canonical_text(edited)}, {"json": {"answers": [], "value": "ran"}}]
        result = result_of(out)
        if result.get("status") != "success" or not same(result.get("content"), want):
            wrong.append(f"after an edit to {edited!r} the result is {result!r}, expected content {want!r}")
    fail_if({APPROVE_PREFIX: wrong})


def check_history(ctx: CheckContext) -> None:
    """After an edit the history keeps the toolUse input the model proposed."""
    agent, _, iid = paused(ctx, guarded("approve-history", ctx), APPROVE_HISTORY)
    out = ctx.client.invoke(agent, resume(edit(iid)))
    uses = [
        b["toolUse"]
        for m in out.get("messages") or []
        for b in m.get("content") or []
        if isinstance(b, dict)
        and isinstance(b.get("toolUse"), dict)
        and b["toolUse"].get("toolUseId") == "t1"
    ]
    wrong: list[str] = []
    if len(uses) != 1 or not same(uses[0].get("input"), PROPOSED):
        wrong.append(f"after an edit the history's toolUse t1 is {uses!r}, expected its input {PROPOSED!r}")
    fail_if({APPROVE_HISTORY: wrong})


def check_decided(ctx: CheckContext) -> None:
    """A decline or cancel of an approval cancels the tool use with the decision text."""
    wrong: list[str] = []
    for decision, message, text in (
        ("decline", None, DECLINE_TEXT),
        ("cancel", "later", "later"),
    ):
        agent, _, iid = paused(ctx, guarded("approve-decided", ctx), APPROVE_DECIDED)
        out = ctx.client.invoke(agent, resume(decide(iid, decision, message)))
        result = result_of(out)
        if started(out):
            wrong.append(f"a {decision} of the approval ran the tool")
        if result.get("status") != "error" or not same(result.get("content"), [{"text": text}]):
            wrong.append(f"a {decision} of the approval gave {result!r}, expected the error text {text!r}")
    fail_if({APPROVE_DECIDED: wrong})


# --- 16.5 ------------------------------------------------------------------------------------------------


def _stored(doc: dict[str, Any], name: str) -> dict[str, Any]:
    for stored in (doc.get("interruptState") or {}).get("interrupts") or []:
        if stored.get("name") == name:
            return dict(stored)
    return {}


def _edited_and_asked(
    ctx: CheckContext, agent_id: str, requirement: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An edit, then the body's own question ``sure``: (the spec, the snapshot taken at that stop)."""
    spec = guarded(agent_id, ctx, body=[sc.interrupt("sure")])
    agent, _, iid = paused(ctx, spec, requirement)
    asked = ctx.client.invoke(agent, resume(edit(iid)))
    if not any(i.get("name") == "sure" for i in interrupts(asked)):
        fail_if({requirement: [f"after an edit the body's interrupt 'sure' was not raised: {shown(asked)}"]})
    taken = ctx.client.take_snapshot(agent)
    doc = taken.get("snapshot")
    if not isinstance(doc, dict):
        fail_if({requirement: [f"no snapshot after the edit: {taken}"]})
        raise AssertionError("unreachable")
    return spec, doc


def check_data(ctx: CheckContext) -> None:
    """Restored without the hook, an approval still has its rules and its edit decides what runs."""
    spec = guarded("approve-data", ctx)
    agent, _, iid = paused(ctx, spec, APPROVE_DATA)
    taken = ctx.client.take_snapshot(agent).get("snapshot")
    bare = {k: v for k, v in spec.items() if k != "approval"}
    restored = ctx.client.restore_agent(taken, bare, model_turn_offset=1) if isinstance(taken, dict) else {}
    if "agent" not in restored:
        fail_if({APPROVE_DATA: [f"the snapshot of a pending approval was not restored: {restored}"]})
    again = str(restored["agent"])
    wrong: list[str] = []
    _refused(
        ctx,
        again,
        iid,
        {"decision": "approve", "message": "fine"},
        "/message",
        "after restore, a message",
        wrong,
    )
    out = ctx.client.invoke(again, resume(edit(iid)))
    ran_with(out, wrong, EDITED, "restore and an edit")
    content = result_of(out).get("content") or [{}]
    if not str(content[0].get("text", "")).startswith(EDIT_PREFIX):
        wrong.append(f"after restore and an edit the result content is {content!r}, without the edit text")
    fail_if({APPROVE_DATA: wrong})


def check_digest(ctx: CheckContext) -> None:
    """The body's interrupt after an edit binds the edited input; the approval binds the proposed one."""
    _, doc = _edited_and_asked(ctx, "approve-digest", APPROVE_DIGEST)
    wrong: list[str] = []
    approval, sure = _stored(doc, "approval"), _stored(doc, "sure")
    if approval.get("inputDigest") != input_digest(PROPOSED):
        wrong.append(
            f"the approval's inputDigest is {approval.get('inputDigest')!r}, not the proposed input's"
        )
    if sure.get("inputDigest") != input_digest(EDITED):
        wrong.append(
            f"the body's interrupt has inputDigest {sure.get('inputDigest')!r}, not the edited input's"
        )
    fail_if({APPROVE_DIGEST: wrong})


def check_loader(ctx: CheckContext) -> None:
    """A snapshot whose body interrupt is bound to another input than the effective one is refused."""
    spec, doc = _edited_and_asked(ctx, "approve-loader", APPROVE_LOADER)
    if own_snapshot_refused(ctx, doc, spec, APPROVE_LOADER, "a snapshot after an edit"):
        return
    proposed = copy.deepcopy(doc)
    for stored in proposed["interruptState"]["interrupts"]:
        if stored.get("name") == "sure":
            stored["inputDigest"] = input_digest(PROPOSED)
    changed = copy.deepcopy(doc)
    for stored in changed["interruptState"]["interrupts"]:
        if stored.get("name") == "approval" and isinstance(stored.get("response"), dict):
            stored["response"]["input"] = {"path": "/etc"}
    wrong: list[str] = []
    for label, bad in (("bound to the proposed input", proposed), ("whose edit was changed", changed)):
        out = ctx.client.restore_agent(bad, spec, model_turn_offset=1)
        if error_code(out) != "SNAPSHOT_INVALID":
            wrong.append(f"a snapshot with a body interrupt {label} gave {shown(out)}, not SNAPSHOT_INVALID")
    fail_if({APPROVE_LOADER: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    ("explicit:ROC-APPROVE-001", (APPROVE_HOOK,), check_hook, PROFILES, "only opted-in tools ask, once"),
    ("explicit:ROC-APPROVE-002", (APPROVE_SHAPE,), check_shape, PROFILES, "the approval interrupt's shape"),
    ("explicit:ROC-APPROVE-003", (APPROVE_SCHEMA,), check_schema, PROFILES, "the derived approval schema"),
    ("explicit:ROC-APPROVE-004", (APPROVE_RULES,), check_rules, PROFILES, "the rules beyond the schema"),
    (
        "explicit:ROC-APPROVE-005",
        (APPROVE_EDIT_VALID,),
        check_edit_validated,
        PROFILES,
        "an edit outside the tool's input schema is INVALID_RESPONSE under /input",
    ),
    ("explicit:ROC-APPROVE-006", (APPROVE_APPROVE,), check_approve, PROFILES, "approve runs the proposal"),
    ("explicit:ROC-APPROVE-007", (APPROVE_REJECT,), check_reject, PROFILES, "reject cancels with its text"),
    ("explicit:ROC-APPROVE-008", (APPROVE_EDIT,), check_edit, PROFILES, "edit runs the edited input"),
    (
        "explicit:ROC-APPROVE-009",
        (APPROVE_PREFIX,),
        check_prefix,
        PROFILES,
        "the edit text prefixes the result",
    ),
    (
        "explicit:ROC-APPROVE-010",
        (APPROVE_HISTORY,),
        check_history,
        PROFILES,
        "the toolUse stays as proposed",
    ),
    (
        "explicit:ROC-APPROVE-011",
        (APPROVE_DECIDED,),
        check_decided,
        (*PROFILES, "decisions"),
        "a decided approval cancels the tool with the decision text",
    ),
    (
        "explicit:ROC-APPROVE-012",
        (APPROVE_DATA,),
        check_data,
        SNAPSHOT_PROFILES,
        "an approval is recognized from its data after restore, without the hook",
    ),
    (
        "explicit:ROC-APPROVE-013",
        (APPROVE_DIGEST,),
        check_digest,
        SNAPSHOT_PROFILES,
        "body interrupts bind the effective input, the approval the proposed one",
    ),
    (
        "explicit:ROC-APPROVE-014",
        (APPROVE_LOADER,),
        check_loader,
        SNAPSHOT_PROFILES,
        "the loader refuses a body digest of another input than the effective one",
    ),
)


def approval_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
