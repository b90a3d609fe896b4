"""The limits of what an implementation accepts (spec 10.6): every accepted value fits in a snapshot.

Through the harness only the size limits of answers and reasons can be sent: protobuf refuses deep nesting on
its own (its recursion limit is below the 64 levels of a JSON value), cannot carry a lone surrogate, and
carries numbers as doubles. Snapshots travel as JSON text, so the loader's limits are all sent as they are.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext
from roc_conformance.checks.snapshot_support import (
    error_code,
    executor_of,
    fail_if,
    interrupt_first,
    take_snapshot,
    two_tool_scenario,
    units_ran,
)

ANSWER_LIMIT = "ROC-SEC-011"
REASON_LIMIT = "ROC-SEC-012"
RESUME_LIMIT = "ROC-SEC-013"
LOADER_LIMITS = "ROC-SEC-014"
LOADER_TIMES = "ROC-SEC-015"
DIGEST_CHECKED = "ROC-SEC-017"
NOTHING_RUNS = "ROC-RESUME-011"

OVER_VALUE = "x" * (256 * 1024 + 1)  # one byte over the canonical size of an answer or a reason
QUARTER = "x" * (250 * 1024)  # under the per-answer limit; five of them are over the per-input limit


def _outcome(out: dict[str, Any]) -> str:
    """An Invoke reply in a few words: its error code, its stop reason, or that it crashed (the replies here
    can carry a 256 KiB value, which a finding must not repeat)."""
    if "crash" in out:
        return f"crashed ({(out['crash'] or {}).get('type')})"
    return error_code(out) or f"accepted ({(out.get('result') or {}).get('stopReason')})"


def check_value_limits(ctx: CheckContext) -> None:
    """An answer over 256 KiB is INVALID_RESPONSE, a resume over 1 MiB is INVALID_RESUME, a reason over
    256 KiB fails the raise with INVALID_REASON; nothing runs, and the real answer is still taken.

    Each oversized input goes to an agent of its own, just interrupted: one that an earlier case's accepted
    answer already resumed would refuse the next case as NOT_INTERRUPTED, hiding whether its own limit holds.
    """
    wrong: dict[str, list[str]] = {}
    spec = sc.one_question("limits", executor=sc.executor_for(ctx.profiles))
    cases: list[tuple[str, str, Callable[[str], list[dict[str, Any]]], str]] = [
        (
            ANSWER_LIMIT,
            "an answer of 256 KiB + 1",
            lambda iid: [{"interruptId": iid, "response": OVER_VALUE}],
            "INVALID_RESPONSE",
        ),
        (
            ANSWER_LIMIT,
            "an answer whose metadata is 256 KiB + 1",
            lambda iid: [{"interruptId": iid, "response": "y", "metadata": {"note": OVER_VALUE}}],
            "INVALID_RESPONSE",
        ),
        (
            RESUME_LIMIT,
            "five answers of 250 KiB (to unknown ids)",
            lambda iid: [{"interruptId": f"{iid}-{n}", "response": QUARTER} for n in range(5)],
            "INVALID_RESUME",
        ),
    ]
    for rid, label, bodies, code in cases:
        agent, out = interrupt_first(ctx, spec)
        iid = out["result"]["interrupts"][0]["id"]
        got = ctx.client.invoke(agent, {"interruptResponses": bodies(iid)})
        if error_code(got) != code:
            wrong.setdefault(rid, []).append(f"{label}: {_outcome(got)}, expected {code}")
            continue
        if units_ran(got):
            wrong.setdefault(NOTHING_RUNS, []).append(f"{label}: refused, yet {units_ran(got)} ran")
        final = ctx.client.invoke(agent, {"interruptResponses": [{"interruptId": iid, "response": "y"}]})
        if (final.get("result") or {}).get("stopReason") != "end_turn":
            wrong.setdefault(rid, []).append(f"{label}: refused, then the real answer gave {_outcome(final)}")
    raising = sc.one_question("limits-reason", executor=sc.executor_for(ctx.profiles), reason=OVER_VALUE)
    got = ctx.client.invoke(ctx.client.create_agent(raising), {"prompt": "go"})
    if error_code(got) != "INVALID_REASON":
        wrong.setdefault(REASON_LIMIT, []).append(f"a reason of 256 KiB + 1: {_outcome(got)}")
    meta = sc.agent_spec(
        "limits-metadata",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("t1", "ask")), sc.turn(sc.text("done"))],
        tools=[sc.tool("ask", {"interrupt": {"name": "approve", "metadata": {"note": OVER_VALUE}}})],
    )
    got = ctx.client.invoke(ctx.client.create_agent(meta), {"prompt": "go"})
    if error_code(got) != "INVALID_REASON":
        wrong.setdefault(REASON_LIMIT, []).append(f"metadata of 256 KiB + 1: {_outcome(got)}")
    fail_if(wrong)


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def check_snapshot_limits(ctx: CheckContext) -> None:
    """Copies of the implementation's own snapshot, each over one limit, are refused with SNAPSHOT_INVALID
    (and nothing else, whatever the input); so is a pending tool input changed after its digest was taken."""
    spec = two_tool_scenario(executor=executor_of(ctx))
    agent, _ = interrupt_first(ctx, spec)
    good = take_snapshot(ctx, agent)
    wrong: dict[str, list[str]] = {}
    deep_state = copy.deepcopy(good)
    deep_state["agent"]["state"]["deep"] = _deep(130)
    big_reason = copy.deepcopy(good)
    big_reason["interruptState"]["interrupts"][0]["reason"] = OVER_VALUE
    bad_expiry = copy.deepcopy(good)
    bad_expiry["interruptState"]["interrupts"][0]["expiresAt"] = "2026-13-01T00:00:00Z"
    no_zone = copy.deepcopy(good)
    no_zone["createdAt"] = "2026-12-01T10:00:00"
    edited = copy.deepcopy(good)
    for block in edited["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"]:
        if "toolUse" in block and block["toolUse"]["toolUseId"] == "t1":
            block["toolUse"]["input"] = {"edited": "after the stop"}
    cases: list[tuple[str, str, dict[str, Any] | str]] = [
        (LOADER_LIMITS, "a state value 130 deep", deep_state),
        (LOADER_LIMITS, "a reason of 256 KiB + 1", big_reason),
        (LOADER_LIMITS, "JSON text 100,000 arrays deep", "[" * 100_000 + "]" * 100_000),
        (
            LOADER_LIMITS,
            "an integer of 5,000 digits",
            '{"schemaVersion": "2.0", "revision": ' + "9" * 5000 + "}",
        ),
        (LOADER_TIMES, "expiresAt in month 13", bad_expiry),
        (LOADER_TIMES, "createdAt without a time zone", no_zone),
        (DIGEST_CHECKED, "the pending tool input changed, its digest kept", edited),
    ]
    for rid, label, doc in cases:
        out = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
        code = error_code(out)
        if code != "SNAPSHOT_INVALID":
            wrong.setdefault(rid, []).append(f"{label}: {code or ('accepted' if 'agent' in out else out)}")
    fail_if(wrong)


def limit_checks() -> list[Check]:
    return [
        Check(
            name="explicit:value-limits",
            requirements=(ANSWER_LIMIT, RESUME_LIMIT, REASON_LIMIT, NOTHING_RUNS),
            run=check_value_limits,
            profiles=("core",),
            description="answers, resume inputs and reasons over the size limits of 10.6 are refused",
        ),
        Check(
            name="explicit:snapshot-limits",
            requirements=(LOADER_LIMITS, LOADER_TIMES, DIGEST_CHECKED),
            run=check_snapshot_limits,
            profiles=("sessions",),
            description="snapshots over the limits of 10.6, with bad times or an edited pending input",
        ),
    ]
