"""Malformed resume bodies (ROC-RESUME-004, ROC-RESUME-005), sent as the raw JSON of harness protocol 2.

The oracle-driven checks name interrupts symbolically and send well-formed bodies; this check sends each
malformed shape the spec names (and the two it adds in 3.4) to an agent paused on a real interrupt, with the
real id wherever the shape has one, so an implementation that drops an unknown member and takes the rest as
an answer is caught. Every case gets a fresh agent: one wrong answer never spoils the judgement of the next.

Per case the implementation must refuse with the case's code, run nothing (ROC-RESUME-011), leave the
history and, when the adapter can show it, the interrupt state as they were (ROC-RESUME-010), and then
accept the real answer. A crash is also ROC-ERR-001. A case whose refusal went wrong ends there: what follows
would be a consequence of that failure, not evidence about another requirement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext
from roc_conformance.checks.snapshot_support import error_code
from roc_conformance.errors import ConformanceViolation

MALFORMED = "ROC-RESUME-004"
MISSING_RESPONSE = "ROC-RESUME-005"
METADATA = "ROC-RESUME-015"
UNCHANGED = "ROC-RESUME-010"
NOTHING_RUNS = "ROC-RESUME-011"
NO_CRASH = "ROC-ERR-001"
ANSWER = "y"


@dataclass(frozen=True)
class Case:
    """One malformed input, built from the id of the pending interrupt."""

    label: str
    build: Callable[[str], dict[str, Any]]
    code: str
    requirement: str


def _bodies(*bodies: Any) -> dict[str, Any]:
    return {"interruptResponses": list(bodies)}


CASES: tuple[Case, ...] = (
    Case("interruptId missing", lambda iid: _bodies({"response": ANSWER}), "INVALID_RESUME", MALFORMED),
    Case(
        "interruptId a number",
        lambda iid: _bodies({"interruptId": 5, "response": ANSWER}),
        "INVALID_RESUME",
        MALFORMED,
    ),
    Case(
        "interruptId empty",
        lambda iid: _bodies({"interruptId": "", "response": ANSWER}),
        "INVALID_RESUME",
        MALFORMED,
    ),
    Case(
        "a member beside interruptId and response",
        lambda iid: _bodies({"interruptId": iid, "response": ANSWER, "status": "approved"}),
        "INVALID_RESUME",
        MALFORMED,
    ),
    Case("the body is not an object", lambda iid: _bodies(iid), "INVALID_RESUME", MALFORMED),
    Case(
        "a member beside interruptResponse in the block",
        lambda iid: {
            "content": [{"interruptResponse": {"interruptId": iid, "response": ANSWER}, "note": "x"}]
        },
        "INVALID_RESUME",
        MALFORMED,
    ),
    Case("response missing", lambda iid: _bodies({"interruptId": iid}), "INVALID_RESPONSE", MISSING_RESPONSE),
    Case(
        "metadata that is not an object",
        lambda iid: _bodies({"interruptId": iid, "response": ANSWER, "metadata": "alice"}),
        "INVALID_RESPONSE",
        METADATA,
    ),
)


def _answers(out: dict[str, Any]) -> list[Any] | None:
    """The answers the ``ask`` tool echoed in its result, or None when there is no such result."""
    for message in out.get("messages", []):
        for block in message.get("content", []):
            result = block.get("toolResult") if isinstance(block, dict) else None
            if isinstance(result, dict) and result.get("toolUseId") == "t1":
                for item in result.get("content", []):
                    if isinstance(item, dict) and isinstance(item.get("json"), dict):
                        answers = item["json"].get("answers")
                        return answers if isinstance(answers, list) else None
    return None


def _judge(ctx: CheckContext, case: Case, wrong: dict[str, list[str]]) -> None:
    inspect = "inspect" in ctx.description.capabilities
    agent = ctx.client.create_agent(sc.one_question("malformed", executor=sc.executor_for(ctx.profiles)))
    first = ctx.client.invoke(agent, {"prompt": "go"})
    interrupts = (first.get("result") or {}).get("interrupts") or []
    if not interrupts:
        raise ConformanceViolation("ROC-STOP-001", f"expected an interrupt to answer, got {first}")
    iid = str(interrupts[0].get("id"))
    before = ctx.client.inspect(agent) if inspect else None
    mark = ctx.client.mark()
    out = ctx.client.invoke(agent, case.build(iid))
    where = f"{case.label}: "
    code = error_code(out)
    if "crash" in out:
        crash = out["crash"]
        ctx.note(f"{case.label}: crash {crash.get('type')}")
        wrong.setdefault(case.requirement, []).append(
            f"{where}crashed with {crash.get('type')}: {crash.get('message')!r}, expected {case.code}"
        )
        wrong.setdefault(NO_CRASH, []).append(f"{where}{crash.get('type')} instead of an error value")
        return
    got = code or (out.get("result") or {}).get("stopReason") or sorted(out)
    ctx.note(f"{case.label}: {got}")
    if code != case.code:
        detail = ctx.client.transcript_text(since=mark)
        wrong.setdefault(case.requirement, []).append(f"{where}got {got}, expected {case.code}\n{detail}")
        return
    kinds = [e.get("kind") for e in out.get("trace", [])]
    if kinds != ["invocation_start"]:
        wrong.setdefault(NOTHING_RUNS, []).append(f"{where}the refused input ran {kinds[1:]}")
    if out.get("messages") != first.get("messages"):
        wrong.setdefault(UNCHANGED, []).append(f"{where}the history changed: {out.get('messages')}")
    if before is not None and ctx.client.inspect(agent) != before:
        wrong.setdefault(UNCHANGED, []).append(f"{where}the interrupt state changed")
    done = ctx.client.invoke(agent, _bodies({"interruptId": iid, "response": ANSWER}))
    if (done.get("result") or {}).get("stopReason") != "end_turn" or _answers(done) != [ANSWER]:
        shown = done.get("error") or done.get("crash") or _answers(done)
        wrong.setdefault(UNCHANGED, []).append(f"{where}afterwards the real answer gave {shown}")
    ctx.client.dispose_agent(agent)


def _judge_metadata_accepted(ctx: CheckContext, wrong: dict[str, list[str]]) -> None:
    """An answer carrying ``metadata`` (an approver's identity, say) is taken, and the unit gets only the
    response (ROC-RESUME-015)."""
    agent = ctx.client.create_agent(sc.one_question("metadata", executor=sc.executor_for(ctx.profiles)))
    first = ctx.client.invoke(agent, {"prompt": "go"})
    interrupts = (first.get("result") or {}).get("interrupts") or []
    if not interrupts:
        raise ConformanceViolation("ROC-STOP-001", f"expected an interrupt to answer, got {first}")
    body = {
        "interruptId": str(interrupts[0].get("id")),
        "response": ANSWER,
        "metadata": {"approver": "alice"},
    }
    done = ctx.client.invoke(agent, _bodies(body))
    if (done.get("result") or {}).get("stopReason") != "end_turn" or _answers(done) != [ANSWER]:
        shown = done.get("error") or done.get("crash") or _answers(done)
        wrong.setdefault(METADATA, []).append(f"an answer with metadata {body['metadata']} gave {shown}")
    ctx.client.dispose_agent(agent)


def check_malformed_responses(ctx: CheckContext) -> None:
    wrong: dict[str, list[str]] = {}
    for case in CASES:
        _judge(ctx, case, wrong)
    _judge_metadata_accepted(ctx, wrong)
    if wrong:
        raise ConformanceViolation(tuple(wrong), "; ".join(f"[{r}] {'; '.join(m)}" for r, m in wrong.items()))


def resume_shape_checks() -> list[Check]:
    return [
        Check(
            name="explicit:malformed-responses",
            requirements=(MALFORMED, MISSING_RESPONSE, METADATA, UNCHANGED, NOTHING_RUNS, NO_CRASH),
            run=check_malformed_responses,
            profiles=("core",),
            kind="explicit",
            description="malformed interruptResponse bodies are refused with their code and change nothing",
        )
    ]
