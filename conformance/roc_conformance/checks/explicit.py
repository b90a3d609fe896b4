"""Explicit checks: deterministic scenarios for rules the oracle-driven checks do not observe directly
(error value shape, snapshot documents, snapshot refusal, portability of a foreign snapshot, the handshake).

Each check is a plain function over the client; it raises ``ConformanceViolation`` naming what broke.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_bytes
from roc_conformance.checks.approval import approval_checks
from roc_conformance.checks.audit import audit_checks
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.limits import limit_checks
from roc_conformance.checks.metadata import metadata_checks
from roc_conformance.checks.prompts import prompt_checks
from roc_conformance.checks.questions import question_checks
from roc_conformance.checks.response_schema import response_schema_checks
from roc_conformance.checks.resume_shape import resume_shape_checks
from roc_conformance.checks.snapshot_support import error_code, fail_if
from roc_conformance.checks.snapshots import snapshot_checks
from roc_conformance.checks.streaming import streaming_checks
from roc_conformance.client import CAPABILITIES
from roc_conformance.errors import ConformanceViolation
from roc_conformance.specdoc import vocabulary


def one_tool_scenario(agent_id: str = "explicit", *, executor: str = "sequential") -> dict[str, Any]:
    """A model that calls one tool which asks one question, then ends its turn."""
    return sc.one_question(agent_id, executor=executor)


def interrupted_agent(ctx: CheckContext, spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Create an agent from ``spec`` and invoke it until it interrupts; returns (handle, result)."""
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"})
    result = out.get("result")
    if not result or result.get("stopReason") != "interrupt" or not result.get("interrupts"):
        raise ConformanceViolation(
            "ROC-STOP-001", f"expected an interrupt result, got {out.get('result') or out}"
        )
    return agent, result


# ---------------------------------------------------------------------------------------------
# Error values (ROC-ERR-003, -004, -005)


def check_error_shape(ctx: CheckContext) -> None:
    agent, result = interrupted_agent(
        ctx, one_tool_scenario("errors", executor=sc.executor_for(ctx.profiles))
    )
    iid = result["interrupts"][0]["id"]
    probes: list[tuple[str, dict[str, Any], str | None]] = [
        ("prompt while interrupted", {"prompt": "hello"}, None),
        (
            "unknown id",
            {"interruptResponses": [{"interruptId": "no-such-id", "response": "y"}]},
            "no-such-id",
        ),
        (
            "same id twice",
            {
                "interruptResponses": [
                    {"interruptId": iid, "response": "a"},
                    {"interruptId": iid, "response": "b"},
                ]
            },
            iid,
        ),
        ("null response", {"interruptResponses": [{"interruptId": iid, "response": None}]}, iid),
        ("empty resume", {"interruptResponses": []}, None),
    ]
    should: list[str] = []
    for label, inp, offending in probes:
        out = ctx.client.invoke(agent, inp)
        err = out.get("error")
        if err is None:
            continue  # a missing error is the oracle-driven checks' finding (ROC-RESUME-*), not this one's
        if not isinstance(err.get("message"), str) or not err["message"].strip():
            raise ConformanceViolation(
                "ROC-ERR-003", f"{label}: error {err.get('code')} has an empty message"
            )
        details = err.get("details")
        if "details" in err and not isinstance(details, dict):
            raise ConformanceViolation("ROC-ERR-004", f"{label}: details is not a JSON object: {details!r}")
        names_id = err.get("code") in ("UNKNOWN_INTERRUPT", "DUPLICATE_RESPONSE", "INVALID_RESPONSE")
        if offending is not None and names_id:  # noqa: SIM102 - one rule per condition reads better
            if not isinstance(details, dict) or details.get("interruptId") != offending:
                should.append(f"{label}: {err.get('code')} details lack interruptId {offending!r}")
    if should:
        raise ConformanceViolation("ROC-ERR-005", "; ".join(should))


# ---------------------------------------------------------------------------------------------
# Cancel with `true` (ROC-CANCEL-003)


def check_cancel_true(ctx: CheckContext) -> None:
    """A cancel without a message (``true``) gives one non-empty text block, per tool and per batch."""
    executor = sc.executor_for(ctx.profiles)
    wrong: list[str] = []
    for event in ("BeforeToolCall", "BeforeTools"):
        spec = sc.agent_spec(
            "cancel-true",
            executor=executor,
            turns=[sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("done"))],
            tools=[sc.tool("x", sc.returns("ran"))],
            hooks=[sc.hook(event, sc.cancel())],
        )
        agent = ctx.client.create_agent(spec)
        out = ctx.client.invoke(agent, {"prompt": "go"})
        results = [
            b["toolResult"]
            for m in out.get("messages", [])
            for b in m.get("content", [])
            if "toolResult" in b
        ]
        content = results[0].get("content") if len(results) == 1 else None
        ok = (
            isinstance(content, list)
            and len(content) == 1
            and isinstance(content[0].get("text"), str)
            and content[0]["text"] != ""
            and results[0].get("status") == "error"
        )
        if not ok:
            wrong.append(f"{event} cancel=true gave {results or out.get('error') or out.get('crash')}")
    if wrong:
        raise ConformanceViolation("ROC-CANCEL-003", "; ".join(wrong))


# ---------------------------------------------------------------------------------------------
# Invocation and model-call events (ROC-HOOK-001, -002, -004, -005, -014)


def _kinds(out: dict[str, Any]) -> list[str]:
    return [str(e.get("kind")) for e in out.get("trace", [])]


def _invocation_problems(
    label: str, out: dict[str, Any], wrong: dict[str, list[str]], *, hooks: bool
) -> None:
    kinds = [k for k in _kinds(out) if k not in ("invocation_start", "invocation_end")]
    if kinds.count("before_invocation") != 1 or kinds[0] != "before_invocation":
        wrong.setdefault("ROC-HOOK-001", []).append(f"{label}: events {kinds}")
    if kinds.count("after_invocation") != 1 or kinds[-1] != "after_invocation":
        wrong.setdefault("ROC-HOOK-002", []).append(f"{label}: events {kinds}")
    if hooks:
        for i, kind in enumerate(kinds):
            if kind == "model_call" and not (
                0 < i < len(kinds) - 1
                and kinds[i - 1] == "before_model_call"
                and kinds[i + 1] == "after_model_call"
            ):
                wrong.setdefault("ROC-HOOK-005", []).append(f"{label}: model call not framed: {kinds}")
        if kinds.count("before_model_call") != kinds.count("model_call"):
            wrong.setdefault("ROC-HOOK-005", []).append(f"{label}: {kinds}")


def check_invocation_events(ctx: CheckContext) -> None:
    """BeforeInvocation / AfterInvocation bracket every accepted invocation; the prompt is appended between
    BeforeInvocation and the first model call; BeforeModelCall / AfterModelCall frame every model call."""
    hooks = "hooks" in ctx.profiles
    executor = sc.executor_for(ctx.profiles)
    wrong: dict[str, list[str]] = {}
    spec = {**one_tool_scenario("events", executor=executor)}
    spec["hooks"] = [{"event": "AfterToolCall", "steps": []}, {"event": "AfterToolCall", "steps": []}]
    agent = ctx.client.create_agent(spec)
    first = ctx.client.invoke(agent, {"prompt": "go"})
    _invocation_problems("prompt", first, wrong, hooks=hooks)
    kinds = _kinds(first)
    users = [
        i
        for i, e in enumerate(first["trace"])
        if e.get("kind") == "message_added" and e.get("role") == "user"
    ]
    model = kinds.index("model_call") if "model_call" in kinds else len(kinds)
    begin = kinds.index("before_invocation") if "before_invocation" in kinds else -1
    prompt_messages = [m for m in first.get("messages", []) if m.get("role") == "user"]
    if (
        len(users) != 1
        or not begin < users[0] < model
        or prompt_messages[:1] != [{"role": "user", "content": [{"text": "go"}]}]
    ):
        wrong.setdefault("ROC-HOOK-004", []).append(f"prompt appended at {users} of {kinds}")
    rejected = ctx.client.invoke(agent, {"prompt": "not now"})
    if "error" in rejected and "before_invocation" in _kinds(rejected):
        wrong.setdefault("ROC-HOOK-001", []).append("BeforeInvocation fired for a rejected input")
    iid = (first.get("result") or {}).get("interrupts", [{}])[0].get("id", "none")
    second = ctx.client.invoke(agent, {"interruptResponses": [{"interruptId": iid, "response": "y"}]})
    _invocation_problems("resume", second, wrong, hooks=hooks)
    if hooks:
        order = [
            e.get("hookIndex")
            for e in second["trace"]
            if e.get("kind") == "hook_callback" and e.get("event") == "AfterToolCall"
        ]
        if order != [1, 0]:
            wrong.setdefault("ROC-HOOK-014", []).append(f"AfterToolCall callbacks ran in order {order}")
    # An invocation that ends with an error mid-run still fires AfterInvocation (ROC-HOOK-002).
    clash = {**one_tool_scenario("events-error", executor=executor)}
    clash["tools"] = [{"name": "ask", "steps": [{"interrupt": {"name": "q"}}, {"interrupt": {"name": "q"}}]}]
    failing = ctx.client.create_agent(clash)
    paused = ctx.client.invoke(failing, {"prompt": "go"})
    qid = (paused.get("result") or {}).get("interrupts", [{}])[0].get("id", "none")
    errored = ctx.client.invoke(failing, {"interruptResponses": [{"interruptId": qid, "response": "y"}]})
    if "error" in errored:
        _invocation_problems("invocation ending in an error", errored, wrong, hooks=False)
    # Every step above runs whatever an earlier one found, so each declared rule was judged on its own
    # evidence: a failure of one (e.g. BeforeInvocation fired for a rejected input) blocks none of the others.
    fail_if(wrong)


# ---------------------------------------------------------------------------------------------
# Empty interrupt names (ROC-STOP-007) and hooks on direct calls (ROC-DIRECT-002)


EMPTY_NAME = "ROC-STOP-007"  # a raise whose name is "" fails with INVALID_REASON
VALUES_VALID = "ROC-MODEL-001"  # every emitted Interrupt validates (its name has minLength 1)


def _empty_name_scenarios(ctx: CheckContext) -> list[tuple[str, dict[str, Any]]]:
    """One scenario per layer that can raise: a tool body, and with ``hooks`` both interruptible events."""
    executor = sc.executor_for(ctx.profiles)
    turns = [sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("done"))]
    body = sc.agent_spec(
        "empty-name-tool",
        executor=executor,
        turns=turns,
        tools=[sc.tool("x", sc.interrupt(""), sc.returns("ran"))],
    )
    out = [("a tool body", body)]
    if "hooks" in ctx.profiles:
        for event in ("BeforeToolCall", "BeforeTools"):
            spec = sc.agent_spec(
                f"empty-name-{event}",
                executor=executor,
                turns=turns,
                tools=[sc.tool("x", sc.returns("ran"))],
                hooks=[sc.hook(event, sc.interrupt(""))],
            )
            out.append((f"a {event} callback", spec))
    return out


def check_empty_name(ctx: CheckContext) -> None:
    """``interrupt("")`` fails the invocation with INVALID_REASON, wherever it is raised.

    Each layer is its own scenario: a runtime may check names in tool bodies and not in hook callbacks. An
    implementation that pauses instead also emits an Interrupt whose empty name its schema refuses
    (ROC-MODEL-001), which is reported too, since the run that judges emitted values may not have seen it.
    """
    from roc_conformance.checks.wire_schema import SchemaObserver

    wrong: dict[str, list[str]] = {}
    for label, spec in _empty_name_scenarios(ctx):
        out = ctx.client.invoke(ctx.client.create_agent(spec), {"prompt": "go"})
        if error_code(out) == "INVALID_REASON":
            continue
        wrong.setdefault(EMPTY_NAME, []).append(f"an empty name raised in {label} gave {_outcome(out)}")
        schema = SchemaObserver()
        schema("Invoke", out)
        if schema.problems:
            wrong.setdefault(VALUES_VALID, []).append(f"{label}: {'; '.join(schema.problems)}")
    if wrong:
        raise ConformanceViolation(tuple(wrong), "; ".join(f"[{r}] {'; '.join(m)}" for r, m in wrong.items()))


def check_direct_call_hooks(ctx: CheckContext) -> None:
    """A BeforeToolCall interrupt on a direct call, if the hook fires at all, fails the call."""
    executor = sc.executor_for(ctx.profiles)
    spec = one_tool_scenario("direct-hooks", executor=executor)
    spec["tools"] = [{"name": "plain", "steps": [{"return": {"value": 1}}]}]
    spec["hooks"] = [{"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "gate"}}]}]
    out = ctx.client.invoke(ctx.client.create_agent(spec), {"directToolCall": {"name": "plain", "input": {}}})
    fired = any(e.get("kind") == "hook_callback" for e in out.get("trace", []))
    if fired and error_code(out) != "DIRECT_CALL_INTERRUPT":
        got = error_code(out) or sorted(k for k in out if k not in ("trace", "messages"))
        raise ConformanceViolation(
            "ROC-DIRECT-002", f"a BeforeToolCall interrupt on a direct call gave {got}"
        )
    if fired:
        ctx.note("BeforeToolCall fired for the direct call and its interrupt was refused")
    else:
        ctx.note("the implementation fires no BeforeToolCall for direct calls (the rule holds vacuously)")


# ---------------------------------------------------------------------------------------------
# A failing tool body (ROC-TOOL-008) and a refused direct call (ROC-DIRECT-003)

FAILURE_MESSAGE = "disk full: “Q3.txt” not written"


def _results_by_id(out: dict[str, Any]) -> dict[str, Any]:
    return {
        b["toolResult"].get("toolUseId"): b["toolResult"]
        for m in out.get("messages", [])
        for b in m.get("content", [])
        if isinstance(b, dict) and isinstance(b.get("toolResult"), dict)
    }


def check_tool_failure(ctx: CheckContext) -> None:
    """A tool body that fails gives exactly ``[{"text": message}]`` with status error, and the batch and
    the invocation go on.

    The oracle-driven checks see a wrong error text too, but only as a history that differs; this check
    names the rule. The scenario's ``fail`` step must fail the body the runtime's ordinary way (an exception
    or error the SDK catches), so what is judged is the runtime's conversion, not the adapter's.
    """
    spec = sc.agent_spec(
        "tool-failure",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "broken"), sc.tool_use("t2", "plain")), sc.turn(sc.text("done"))],
        tools=[
            sc.tool("broken", {"fail": {"message": FAILURE_MESSAGE}}),
            sc.tool("plain", sc.returns("fine")),
        ],
    )
    out = ctx.client.invoke(ctx.client.create_agent(spec), {"prompt": "go"})
    wrong: list[str] = []
    if (out.get("result") or {}).get("stopReason") != "end_turn":
        got = out.get("error") or out.get("crash") or out.get("result")
        wrong.append(f"a failing tool did not let the invocation finish: {got}")
    results = _results_by_id(out)
    failed = results.get("t1")
    want = {"toolUseId": "t1", "status": "error", "content": [{"text": FAILURE_MESSAGE}]}
    if failed != want:
        wrong.append(f"the failing tool's result is {failed}, expected {want}")
    if (results.get("t2") or {}).get("status") != "success":
        wrong.append(f"the batch did not go on after the failure: t2 got {results.get('t2')}")
    if wrong:
        raise ConformanceViolation("ROC-TOOL-008", "; ".join(wrong))


def check_direct_call_refused(ctx: CheckContext) -> None:
    """A direct call whose body writes state and then interrupts is refused with DIRECT_CALL_INTERRUPT and
    leaves the agent idle and as it was: same history, same state (ROC-DIRECT-003).

    The body writes state before it asks, so a runtime that does not roll the call back shows it.
    """
    spec = sc.agent_spec(
        "direct-refused",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "plain")), sc.turn(sc.text("done")), sc.turn(sc.text("again"))],
        tools=[
            sc.tool("plain", sc.returns("fine")),
            sc.tool("ask", {"setState": {"key": "asked", "value": True}}, sc.interrupt("q"), sc.returns("a")),
        ],
        state={"user": "u1"},
    )
    agent = ctx.client.create_agent(spec)
    before = ctx.client.invoke(agent, {"prompt": "go"})
    if (before.get("result") or {}).get("stopReason") != "end_turn":
        raise ConformanceViolation("ROC-TOOL-001", f"the set-up invocation did not end its turn: {before}")
    refused = ctx.client.invoke(agent, {"directToolCall": {"name": "ask", "input": {}}})
    code = error_code(refused)
    if code != "DIRECT_CALL_INTERRUPT":
        # Without the refusal there is no "after DIRECT_CALL_INTERRUPT" to judge; the refusal is the finding.
        got = code or sorted(k for k in refused if k not in ("trace", "messages", "state"))
        raise ConformanceViolation("ROC-DIRECT-001", f"a direct call whose body interrupts gave {got}")
    wrong: list[str] = []
    for member in ("messages", "state"):
        if member in refused and canonical_bytes(refused[member]) != canonical_bytes(before.get(member)):
            wrong.append(f"{member} changed: {before.get(member)!r} -> {refused[member]!r}")
    after = ctx.client.invoke(agent, {"prompt": "next"})
    if (after.get("result") or {}).get("stopReason") != "end_turn":
        shown = after.get("error") or after.get("crash") or after.get("result")
        wrong.append(f"the agent is not idle after the refused call: a prompt gave {shown}")
    if wrong:
        raise ConformanceViolation("ROC-DIRECT-003", "; ".join(wrong))


# ---------------------------------------------------------------------------------------------
# Handshake


# The profile names of this spec version (chapter 1), as the spec lint knows them: one list.
DEFINED_PROFILES = frozenset(vocabulary.PROFILES)
RESERVED_PROFILES = frozenset(vocabulary.RESERVED_PROFILES)


# Spec 1.3 profiles built on others: (profile, what it needs, the requirement that says so).
_NEEDS_SINCE_1_3: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("questions", ("response-schema",), "ROC-CONF-008"),
    ("approval", ("hooks", "response-schema"), "ROC-CONF-009"),
    ("audit", ("sessions",), "ROC-CONF-010"),
)


def check_handshake(ctx: CheckContext) -> None:
    """The claim made at Describe (spec chapter 1 and 9)."""
    desc = ctx.description
    impl = desc.implementation
    wrong: dict[str, list[str]] = {}
    if not impl.get("name") or not impl.get("version") or not desc.spec_versions or not desc.profiles:
        wrong.setdefault("ROC-CONF-001", []).append(
            f"name {impl.get('name')!r}, version {impl.get('version')!r}, spec versions "
            f"{list(desc.spec_versions)}, profiles {sorted(desc.profiles)}: each must be declared"
        )
    if "core" not in desc.profiles:
        wrong.setdefault("ROC-CONF-002", []).append("the claim does not include 'core'")
    if not desc.profiles & {"sequential-executor", "concurrent-executor"}:
        wrong.setdefault("ROC-CONF-003", []).append("the claim includes no executor profile")
    if "portable-snapshot" in desc.profiles and "sessions" not in desc.profiles:
        wrong.setdefault("ROC-CONF-004", []).append("'portable-snapshot' is claimed without 'sessions'")
    for needs_sessions in ("session-store", "snapshot-integrity"):
        if needs_sessions in desc.profiles and "sessions" not in desc.profiles:
            wrong.setdefault("ROC-CONF-006", []).append(f"'{needs_sessions}' is claimed without 'sessions'")
    if "expiry" in desc.profiles and "decisions" not in desc.profiles:
        wrong.setdefault("ROC-CONF-007", []).append("'expiry' is claimed without 'decisions'")
    for profile, needs, req in _NEEDS_SINCE_1_3:
        missing = [n for n in needs if n not in desc.profiles]
        if profile in desc.profiles and missing:
            wrong.setdefault(req, []).append(f"'{profile}' is claimed without {missing}")
    undefined = sorted(desc.profiles - DEFINED_PROFILES)
    if undefined:
        reserved = [p for p in undefined if p in RESERVED_PROFILES]
        wrong.setdefault("ROC-CONF-005", []).append(f"undefined profiles {undefined} (reserved: {reserved})")
    if "1.0" not in desc.spec_versions:
        wrong.setdefault("ROC-VER-001", []).append(f"spec versions {list(desc.spec_versions)} lack '1.0'")
    unknown = sorted(desc.capabilities - CAPABILITIES)
    if unknown:
        # Not a requirement of the spec (capabilities belong to the harness), but a misspelled one would
        # silently skip the checks that need it, so the report says so.
        ctx.note(f"capabilities {unknown} are not defined by harness protocol 2 and are ignored")
    found = {req: msgs for req, msgs in wrong.items() if msgs}
    if found:
        raise ConformanceViolation(tuple(found), "; ".join(f"[{r}] {'; '.join(m)}" for r, m in found.items()))


_EXPLICIT: tuple[ExplicitSpec, ...] = (
    (
        "explicit:direct-call-hooks",
        ("ROC-DIRECT-002",),
        check_direct_call_hooks,
        ("core", "hooks", "direct-tool-call"),
        "an interrupt from a hook on a direct call is refused",
    ),
    (
        "explicit:empty-interrupt-name",
        ("ROC-STOP-007",),
        check_empty_name,
        ("core",),
        "an interrupt name must be a non-empty string",
    ),
    (
        "explicit:invocation-events",
        ("ROC-HOOK-001", "ROC-HOOK-002", "ROC-HOOK-004", "ROC-HOOK-005", "ROC-HOOK-014"),
        check_invocation_events,
        ("core", "hooks"),
        "invocation and model-call events bracket what they should",
    ),
    (
        "explicit:cancel-true",
        ("ROC-CANCEL-003",),
        check_cancel_true,
        ("core", "hooks"),
        "cancel set to true uses a default message",
    ),
    (
        "explicit:tool-failure",
        ("ROC-TOOL-008",),
        check_tool_failure,
        ("core",),
        "a failing tool body gives an error result with its message; the batch goes on",
    ),
    (
        "explicit:direct-call-refused",
        ("ROC-DIRECT-003",),
        check_direct_call_refused,
        ("core", "direct-tool-call"),
        "a direct call refused with DIRECT_CALL_INTERRUPT leaves the agent idle and unchanged",
    ),
    (
        "explicit:handshake",
        (
            "ROC-CONF-001",
            "ROC-CONF-002",
            "ROC-CONF-003",
            "ROC-CONF-004",
            "ROC-CONF-005",
            "ROC-CONF-006",
            "ROC-CONF-007",
            "ROC-CONF-008",
            "ROC-CONF-009",
            "ROC-CONF-010",
            "ROC-VER-001",
        ),
        check_handshake,
        (),
        "the conformance claim made at Describe",
    ),
    (
        "explicit:error-shape",
        ("ROC-ERR-003", "ROC-ERR-004", "ROC-ERR-005"),
        check_error_shape,
        ("core",),
        "error values carry a message and object details",
    ),
)


def explicit_checks() -> list[Check]:
    checks = explicit_checks_of(_EXPLICIT)
    checks.extend(snapshot_checks())
    checks.extend(resume_shape_checks())
    checks.extend(limit_checks())
    checks.extend(prompt_checks())
    checks.extend(metadata_checks())
    checks.extend(chapter_11_checks())
    checks.extend(response_schema_checks())  # spec 14, profile response-schema
    checks.extend(question_checks())  # spec 15, profile questions
    checks.extend(streaming_checks())  # profile streaming (spec chapter 17)
    checks.extend(approval_checks())  # profile approval (spec chapter 16)
    checks.extend(audit_checks())  # profile audit (spec 10.7)
    return checks


def chapter_11_checks() -> list[Check]:
    """Decisions, abandon, expiry, the pending list and re-sent answers (spec chapter 11)."""
    from roc_conformance.checks.abandon import abandon_checks
    from roc_conformance.checks.decisions import decision_checks
    from roc_conformance.checks.drive_to_end import drive_to_end_checks
    from roc_conformance.checks.expiry import expiry_checks
    from roc_conformance.checks.pending import pending_checks

    checks = [*decision_checks(), *abandon_checks(), *expiry_checks(), *pending_checks()]
    return [*checks, *drive_to_end_checks()]


# ---------------------------------------------------------------------------------------------
# Divergences seen in strands-agents 1.62 that the oracle-driven checks cannot set up on their own.


def _resume(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {"interruptResponses": [{"interruptId": iid, "response": value} for iid, value in pairs]}


def _outcome(out: dict[str, Any]) -> str:
    """A short description of a reply, for messages."""
    if "crash" in out:
        return f"a crash {out['crash']}"
    if error_code(out) is not None:
        return f"error {error_code(out)}"
    return f"stopReason {(out.get('result') or {}).get('stopReason')!r}"


def _only_interrupt_id(out: dict[str, Any]) -> str | None:
    """The id of the one interrupt a reply stops with; None when it does not stop with exactly one."""
    result = out.get("result") or {}
    interrupts = result.get("interrupts") or []
    if result.get("stopReason") != "interrupt" or len(interrupts) != 1:
        return None
    return str(interrupts[0].get("id"))


def _consumed_answer_problems(ctx: CheckContext, label: str, spec: dict[str, Any]) -> dict[str, list[str]]:
    """Batch 1 stops and is answered; batch 2 stops at an equal raise point; batch 1's answer is re-sent.

    The scenario's unit raises one name before anything else, so batch 2 can get past its raise point
    without stopping only with an answer, and the only answer ever given for that raise point is batch 1's.
    """
    client = ctx.client
    agent = client.create_agent(spec)
    first = client.invoke(agent, {"prompt": "go"})
    first_id = _only_interrupt_id(first)
    if first_id is None:
        return {"ROC-STOP-001": [f"{label}: batch 1 should stop with one interrupt, got {_outcome(first)}"]}
    second = client.invoke(agent, _resume((first_id, "first")))
    second_id = _only_interrupt_id(second)
    stop = (second.get("result") or {}).get("stopReason")
    if second_id is None and stop is not None and stop != "interrupt":
        msg = f"{label}: batch 2 did not stop ({stop!r}) at the raise point batch 1's answer was for"
        return {"ROC-ANSWER-010": [msg]}
    if second_id is None and error_code(second) == "DUPLICATE_INTERRUPT_NAME":
        # Each unit raises one name once, so the only interrupt the name can clash with is batch 1's,
        # which completion should have consumed.
        msg = f"{label}: batch 2 failed with DUPLICATE_INTERRUPT_NAME: batch 1's interrupt was not consumed"
        return {"ROC-ANSWER-007": [msg]}
    if second_id is None:
        return {"ROC-STOP-001": [f"{label}: batch 2 should stop with one interrupt, got {_outcome(second)}"]}
    wrong: dict[str, list[str]] = {}
    if second_id == first_id:
        wrong["ROC-MODEL-008"] = [f"{label}: batch 2's interrupt reuses batch 1's id {first_id!r}"]
    resent = client.invoke(agent, _resume((first_id, "again")))
    if error_code(resent) != "UNKNOWN_INTERRUPT":
        wrong["ROC-ANSWER-009"] = [
            f"{label}: batch 1's consumed answer sent again while batch 2 is interrupted gave "
            f"{_outcome(resent)}, not UNKNOWN_INTERRUPT"
        ]
        if "result" in resent and second_id == first_id:
            wrong["ROC-ANSWER-010"] = [
                f"{label}: the re-sent consumed answer was taken as the answer to batch 2's interrupt"
            ]
    return wrong


def check_consumed_answer_later_batch(ctx: CheckContext) -> None:
    """A later batch raising at an equal raise point gets a new id, and a consumed answer never answers it.

    The raise point is a BeforeTools callback's: it has no tool use to tell one batch from the next (a tool
    body's or BeforeToolCall callback's raise point holds a toolUseId, and the scenario language keeps those
    distinct across the script).
    """
    spec = sc.agent_spec(
        "consumed-batch",
        executor=sc.executor_for(ctx.profiles),
        turns=[
            sc.turn(sc.tool_use("t1", "plain")),
            sc.turn(sc.tool_use("t2", "plain")),
            sc.turn(sc.text("done")),
        ],
        tools=[sc.tool("plain", sc.returns("ran"))],
        hooks=[sc.hook("BeforeTools", sc.interrupt("batch"))],
    )
    wrong = _consumed_answer_problems(ctx, "BeforeTools callback", spec)
    if wrong:
        raise ConformanceViolation(tuple(wrong), "; ".join(f"[{r}] {'; '.join(m)}" for r, m in wrong.items()))


ERROR_UNCHANGED = "ROC-ERR-006"  # an invocation that ends with an Error leaves the agent as it was
BEFORE_INVOCATION_FIRST = "ROC-HOOK-001"  # BeforeInvocation fires once, before every other event


def _failed_resume_problems(ctx: CheckContext) -> dict[str, list[str]]:
    """A resume that fails with DUPLICATE_INTERRUPT_NAME (the replayed body raises its name twice) keeps
    no answer: the same resume fails the same way again, instead of finding the interrupt answered."""
    spec = sc.agent_spec(
        "after-error-resume",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "ask")), sc.turn(sc.text("end"))],
        tools=[sc.tool("ask", sc.interrupt("q"), sc.interrupt("q"), sc.returns("ran"))],
    )
    agent = ctx.client.create_agent(spec)
    paused = ctx.client.invoke(agent, {"prompt": "go"})
    iid = _only_interrupt_id(paused)
    if iid is None:
        return {"ROC-STOP-001": [f"a tool body's interrupt gave {_outcome(paused)}"]}
    outcomes = [ctx.client.invoke(agent, _resume((iid, "y"))) for _ in range(2)]
    if error_code(outcomes[0]) != "DUPLICATE_INTERRUPT_NAME":
        return {"ROC-TOOL-014": [f"a tool body raising one name twice gave {_outcome(outcomes[0])}"]}
    wrong: dict[str, list[str]] = {}
    for what in ("messages", "state"):
        if outcomes[0].get(what) != paused.get(what):
            wrong.setdefault(ERROR_UNCHANGED, []).append(
                f"the failed resume changed the {what}: {paused.get(what)} -> {outcomes[0].get(what)}"
            )
    if error_code(outcomes[1]) != "DUPLICATE_INTERRUPT_NAME":
        wrong.setdefault(ERROR_UNCHANGED, []).append(
            f"the same resume sent again gave {_outcome(outcomes[1])}: the failed one left its answer stored"
        )
    return wrong


def _failed_prompt_problems(ctx: CheckContext) -> dict[str, list[str]]:
    """A prompt whose BeforeToolCall firing raises one name from two callbacks fails after the model answered
    and a callback wrote the state; the next prompt then starts from the agent as it was."""
    spec = sc.agent_spec(
        "after-error-prompt",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("end"))],
        tools=[sc.tool("x", sc.returns("ran"))],
        hooks=[
            sc.hook("BeforeToolCall", {"setState": {"key": "seen", "value": True}}, sc.interrupt("approval")),
            sc.hook("BeforeToolCall", sc.interrupt("approval")),
        ],
    )
    agent = ctx.client.create_agent(spec)
    failed = ctx.client.invoke(agent, {"prompt": "go"})
    if error_code(failed) != "DUPLICATE_INTERRUPT_NAME":
        return {"ROC-HOOK-021": [f"two callbacks of one firing raising one name gave {_outcome(failed)}"]}
    wrong: dict[str, list[str]] = {}
    if failed.get("messages") or failed.get("state"):
        wrong.setdefault(ERROR_UNCHANGED, []).append(
            f"the failed prompt left history {failed.get('messages')} and state {failed.get('state')}"
        )
    after = ctx.client.invoke(agent, {"prompt": "again"})
    kinds = [k for k in _kinds(after) if k not in ("invocation_start", "invocation_end")]
    if kinds[:1] != ["before_invocation"] or kinds.count("before_invocation") != 1:
        wrong.setdefault(BEFORE_INVOCATION_FIRST, []).append(f"the next prompt's events were {kinds}")
    expected = [
        {"role": "user", "content": [sc.text("again")]},
        {"role": "assistant", "content": [sc.text("end")]},
    ]
    history = [{k: m.get(k) for k in ("role", "content")} for m in after.get("messages") or []]
    if "result" in after and history != expected:
        wrong.setdefault(ERROR_UNCHANGED, []).append(
            f"after the failed prompt, the next one left history {history}, expected {expected}"
        )
    return wrong


def check_after_invocation_error(ctx: CheckContext) -> None:
    """An invocation that fails with DUPLICATE_INTERRUPT_NAME leaves nothing behind (ROC-ERR-006), and the
    next invocation starts clean, with BeforeInvocation as its first event (ROC-HOOK-001).

    An implementation that appends as it goes and does not roll back keeps the prompt and the toolUse; one
    that then repairs the dangling toolUse at the next prompt appends a result nobody produced, typically
    before that invocation's BeforeInvocation. A failed resume must not keep the answer it carried either.
    """
    wrong = _failed_resume_problems(ctx)
    if "hooks" in ctx.profiles:
        for req, msgs in _failed_prompt_problems(ctx).items():
            wrong.setdefault(req, []).extend(msgs)
    if wrong:
        raise ConformanceViolation(tuple(wrong), "; ".join(f"[{r}] {'; '.join(m)}" for r, m in wrong.items()))


_EXPLICIT += (
    (
        "explicit:consumed-answer-later-batch",
        ("ROC-MODEL-008", "ROC-ANSWER-007", "ROC-ANSWER-009", "ROC-ANSWER-010"),
        check_consumed_answer_later_batch,
        ("core", "hooks"),
        "a later batch's interrupt at an equal raise point gets a new id; a consumed answer never answers it",
    ),
    (
        "explicit:after-invocation-error",
        (ERROR_UNCHANGED, BEFORE_INVOCATION_FIRST),
        check_after_invocation_error,
        ("core",),
        "an invocation failing with DUPLICATE_INTERRUPT_NAME leaves nothing behind for the next prompt",
    ),
)
