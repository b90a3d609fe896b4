"""What the checks of spec chapter 11 share: requirement IDs, the fixed texts, scenario pieces, and small
helpers to pause an agent, decide its interrupts, list what is pending and read the results.

Every expectation here is computed from the scenario and the spec's texts, never from the implementation's
own output.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import CheckContext, Finding
from roc_conformance.errors import AdapterError, ConformanceViolation

# The fixed texts of chapter 11 and the suite's deadlines, one copy each in the suite (re-exported).
from roc_conformance.oracle.engine import ABANDON_TEXT as ABANDON_TEXT
from roc_conformance.oracle.engine import CANCEL_TEXT as CANCEL_TEXT
from roc_conformance.oracle.engine import DECLINE_TEXT as DECLINE_TEXT
from roc_conformance.oracle.engine import EXPIRY_TEXT as EXPIRY_TEXT
from roc_conformance.strategies import FUTURE as FUTURE
from roc_conformance.strategies import PAST as PAST

# Requirement IDs (spec/11-decisions.md); one place for renumbering.
DECIDE_ACCEPTED = "ROC-DECIDE-001"
DECIDE_SHAPE = "ROC-DECIDE-002"
DECIDE_REPORTED = "ROC-DECIDE-003"
DECIDE_TOOL = "ROC-DECIDE-004"
DECIDE_TOOL_CALL = "ROC-DECIDE-005"
DECIDE_TOOLS = "ROC-DECIDE-006"
DECIDE_TEXT = "ROC-DECIDE-007"
DECIDE_ANSWERED = "ROC-DECIDE-008"
DECIDE_EXPIRED = "ROC-DECIDE-009"
ABANDON_ACCEPTED = "ROC-ABANDON-001"
ABANDON_IDLE = "ROC-ABANDON-002"
ABANDON_RESULTS = "ROC-ABANDON-003"
ABANDON_QUIET = "ROC-ABANDON-004"
ABANDON_THEN = "ROC-ABANDON-005"
EXPIRY_AT = "ROC-EXPIRY-001"
EXPIRY_OUTCOME = "ROC-EXPIRY-002"
EXPIRY_CLOCK = "ROC-EXPIRY-003"
EXPIRY_REFUSED = "ROC-EXPIRY-004"
EXPIRY_RESOLVED = "ROC-EXPIRY-005"
EXPIRY_RANK = "ROC-EXPIRY-006"
PENDING_AGENT = "ROC-PENDING-001"
PENDING_ANSWER = "ROC-PENDING-002"
PENDING_QUIET = "ROC-PENDING-003"
PENDING_SNAPSHOT = "ROC-PENDING-004"
PENDING_ERROR = "ROC-PENDING-005"
RESEND_MARKED = "ROC-RESEND-001"
RESEND_DIFFERS = "ROC-RESEND-002"
RESEND_RESTORED = "ROC-RESEND-003"




def ask(
    name: str,
    *,
    handle: bool = False,
    expires_at: str | None = None,
    on_expiry: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An interrupt step: ``handle`` takes a decline or cancel as the last answer and goes on (harness
    protocol 4, ``handleDecision``); ``expires_at`` / ``on_expiry`` go to the raise as they are."""
    return sc.interrupt(name, handle_decision=handle, expires_at=expires_at, on_expiry=on_expiry)


def answer(iid: str, response: Any) -> dict[str, Any]:
    return sc.answer(iid, response)


def decide(iid: str, decision: str, message: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"interruptId": iid, "decision": decision}
    if message is not None:
        body["message"] = message
    return body


resume = sc.resume


def abandon(message: str | None = None, *, then: str = "end") -> dict[str, Any]:
    """An abandon input as the harness carries it (``continueModel`` for ``then: "continue"``)."""
    return sc.abandon(message, continue_model=then == "continue")


def shown(out: dict[str, Any]) -> str:
    """A short description of an Invoke reply, for messages."""
    if "crash" in out:
        return f"a crash {out['crash']}"
    err = out.get("error")
    if isinstance(err, dict):
        return f"error {err.get('code')} {err.get('details') or ''}".rstrip()
    result = out.get("result") or {}
    return f"stopReason {result.get('stopReason')!r}"


def stop_reason(out: dict[str, Any]) -> str | None:
    reason = (out.get("result") or {}).get("stopReason")
    return reason if isinstance(reason, str) else None


def interrupts(out: dict[str, Any]) -> list[dict[str, Any]]:
    """The interrupts of an interrupt result (``[]`` for any other reply)."""
    result = out.get("result") or {}
    if result.get("stopReason") != "interrupt":
        return []
    return [i for i in result.get("interrupts") or [] if isinstance(i, dict)]


def ids_by_name(out: dict[str, Any]) -> dict[str, str]:
    return {str(i.get("name")): str(i.get("id")) for i in interrupts(out)}


def tool_results(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool results in the reply's history, by toolUseId."""
    return {
        str(b["toolResult"].get("toolUseId")): b["toolResult"]
        for m in out.get("messages") or []
        for b in m.get("content") or []
        if isinstance(b, dict) and isinstance(b.get("toolResult"), dict)
    }


def kinds(out: dict[str, Any]) -> list[str]:
    return [str(e.get("kind")) for e in out.get("trace") or []]


def tools_started(out: dict[str, Any]) -> list[str]:
    return [str(e.get("toolUseId")) for e in out.get("trace") or [] if e.get("kind") == "tool_start"]


def error_result(tool_use_id: str, text: str) -> dict[str, Any]:
    return {"toolUseId": tool_use_id, "status": "error", "content": [{"text": text}]}


def returned(tool_use_id: str, answers: list[Any], value: Any) -> dict[str, Any]:
    """The result of the scenario language's ``return`` step (conformance/README.md, "Programs")."""
    return {
        "toolUseId": tool_use_id,
        "status": "success",
        "content": [{"json": {"answers": answers, "value": value}}],
    }


def pause(ctx: CheckContext, spec: dict[str, Any], prompt: str = "go") -> tuple[str, dict[str, Any]]:
    """Create an agent and prompt it until it interrupts (a 1.0 rule when it does not)."""
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": prompt})
    if not interrupts(out):
        raise ConformanceViolation("ROC-STOP-001", f"expected an interrupt result, got {shown(out)}")
    return agent, out


def one_tool(
    agent_id: str, ctx: CheckContext, *steps: dict[str, Any], extra_turns: int = 0
) -> dict[str, Any]:
    """A model turn with one tool use ``t1`` of tool ``ask`` running ``steps``, then a closing ``done``
    (and ``extra_turns`` more turns that each call ``ask`` again, as ``t2``, ``t3``, ...)."""
    turns = [sc.turn(sc.text("asking"), sc.tool_use("t1", "ask"))]
    turns += [sc.turn(sc.tool_use(f"t{n + 2}", "ask")) for n in range(extra_turns)]
    turns.append(sc.turn(sc.text("done")))
    return sc.agent_spec(
        agent_id, executor=sc.executor_for(ctx.profiles), turns=turns, tools=[sc.tool("ask", *steps)]
    )


def two_unanswered(
    ctx: CheckContext, agent_id: str, first: dict[str, Any], second: dict[str, Any]
) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """A scenario whose first batch stops with two unanswered interrupts raised by ``first`` and ``second``
    (interrupt steps), and the toolUseIds whose results show each one's default outcome; None when the claim
    cannot produce one (neither ``hooks`` nor the concurrent executor).

    With ``hooks``: two BeforeToolCall callbacks of tool ``x`` (``t1``), so both outcomes land on ``t1`` and
    ``t2`` runs ``y`` to show the batch went on. Else two tool bodies under the concurrent executor.
    """
    executor = sc.executor_for(ctx.profiles)
    if "hooks" in ctx.profiles:
        spec = sc.agent_spec(
            agent_id,
            executor=executor,
            turns=[sc.turn(sc.tool_use("t1", "x")), sc.turn(sc.text("done"))],
            tools=[sc.tool("x", sc.returns("x ran"))],
            hooks=[
                sc.hook("BeforeToolCall", first, tool_name="x"),
                sc.hook("BeforeToolCall", second, tool_name="x"),
            ],
        )
        return spec, ("t1", "t1")
    if "concurrent-executor" in ctx.profiles:
        spec = sc.agent_spec(
            agent_id,
            executor="concurrent",
            turns=[sc.turn(sc.tool_use("t1", "a"), sc.tool_use("t2", "b")), sc.turn(sc.text("done"))],
            tools=[sc.tool("a", first, sc.returns("a ran")), sc.tool("b", second, sc.returns("b ran"))],
        )
        return spec, ("t1", "t2")
    return None


def _listed(out: dict[str, Any], what: str) -> dict[str, Any]:
    """A ListPending reply; an adapter that cannot list is the harness's fault (ERROR), not the runtime's."""
    if "harness_error" in out:
        raise AdapterError("ListPending", f"{what}: {out['harness_error']}")
    return out


def list_pending(ctx: CheckContext, agent: str) -> dict[str, Any]:
    """``{"pending": [...]}`` or ``{"error": Error}`` for a live agent (harness protocol 4, ListPending)."""
    return _listed(ctx.client.list_pending(agent), "listing an agent")


def list_pending_of(ctx: CheckContext, doc: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """The same for a snapshot document, without restoring it."""
    return _listed(ctx.client.list_pending_snapshot(doc, spec), "listing a snapshot")


def by_id(entries: Any) -> dict[str, Any]:
    """A pending list keyed by id (its order is a SHOULD, ROC-STOP-010, and judged elsewhere)."""
    if not isinstance(entries, list):
        return {}
    return {str(e.get("id")): e for e in entries if isinstance(e, dict)}


def followed(ctx: CheckContext, requirement: str, message: str, after: str) -> None:
    """Record what ``requirement`` could not be judged on because ``after`` failed first (never a FAIL)."""
    ctx.evidence.consequences.append(Finding((requirement,), message, after=(after,)))
