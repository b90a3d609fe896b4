"""The oracle names the requirement a divergence really breaks (divergences seen in strands-agents 1.62).

Each test builds the oracle's prediction for a small scenario, feeds the checks the observation an
implementation with that divergence would give, and asserts the finding names the right requirement (and not
the rule a naive reading of the observation would blame).
"""

from __future__ import annotations

import copy
from typing import Any

from roc_conformance.oracle import OracleAgent, Prompt, parse_spec, reqs
from roc_conformance.oracle.check import IdBinder, Violation, check_error, check_interrupts, check_trace
from roc_conformance.oracle.engine import Key, Outcome, Response, Resume, UnknownRef

T1 = {"content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}}]}
END = {"content": [{"text": "end"}]}


def agent(hooks: list[dict[str, Any]], turns: list[dict[str, Any]] | None = None) -> OracleAgent:
    return OracleAgent(
        parse_spec(
            {
                "agentId": "a1",
                "executor": "sequential",
                "model": {"turns": turns or [T1, END]},
                "tools": [{"name": "x", "steps": [{"return": {"value": "ran"}}]}],
                "hooks": hooks,
                "state": {},
            }
        )
    )


def named(found: list[Violation]) -> set[str]:
    return {r for v in found for r in v.requirements}


def with_tool_run(outcome: Outcome, tuid: str) -> list[dict[str, Any]]:
    """The expected trace, but the tool body runs and returns (as when a cancel is ignored)."""
    trace = copy.deepcopy(outcome.trace)
    for n, event in enumerate(trace):
        if event.get("kind") == "after_tool_call" and event.get("toolUseId") == tuid:
            event["status"] = "success"
            trace[n:n] = [
                {"kind": "tool_start", "toolUseId": tuid, "name": "x"},
                {"kind": "tool_end", "toolUseId": tuid, "outcome": "returned"},
            ]
            return trace
    raise AssertionError(f"no after_tool_call for {tuid}")


def test_an_ignored_empty_cancel_is_reported_under_cancel_004() -> None:
    outcome = agent([{"event": "BeforeToolCall", "steps": [{"cancel": {"message": ""}}]}]).invoke(
        Prompt([{"text": "p"}])
    )
    found = named(check_trace(outcome, with_tool_run(outcome, "t1"), "sequential"))
    assert reqs.CANCEL_EMPTY_MESSAGE in found
    assert reqs.CANCEL_TOOL not in found


def test_an_ignored_cancel_with_a_message_stays_cancel_001() -> None:
    outcome = agent([{"event": "BeforeToolCall", "steps": [{"cancel": {"message": "no"}}]}]).invoke(
        Prompt([{"text": "p"}])
    )
    found = named(check_trace(outcome, with_tool_run(outcome, "t1"), "sequential"))
    assert found == {reqs.CANCEL_TOOL, reqs.AFTER_TOOL_CALL}


BT_EVERY_BATCH = [{"event": "BeforeTools", "steps": [{"interrupt": {"name": "b"}}]}]
B: Key = ("before_tools", None, "b")


def test_a_consumed_id_reissued_to_a_later_batch_stays_consumed() -> None:
    """An implementation that gives batch 2 batch 1's id: re-sending that id is a consumed answer, not a
    valid answer to batch 2, and taking it delivers the consumed answer (ANSWER-009, ANSWER-010)."""
    binder = IdBinder()
    oracle = agent(BT_EVERY_BATCH, [T1, {"content": [{"toolUse": {"toolUseId": "t2", "name": "x"}}]}, END])
    oracle.invoke(Prompt([{"text": "p"}]))
    binder.bind(B, "same-id", [])
    oracle.invoke(Resume((Response(B, "y"),)))  # batch 1 completes, batch 2 stops at "b" again
    binder.retire()
    out: list[Violation] = []
    binder.bind(B, "same-id", out)
    assert named(out) == {reqs.ID_NOT_REUSED}
    ref = binder.resolve("same-id")
    assert isinstance(ref, UnknownRef)
    assert ref.consumed
    assert ref.reissued
    outcome = oracle.invoke(Resume((Response(ref, "again"),)))
    assert outcome.codes == {"UNKNOWN_INTERRUPT"}
    accepted = {"result": {"stopReason": "end_turn"}, "trace": []}
    assert named(check_error(outcome, accepted)) == {reqs.CONSUMED_UNKNOWN, reqs.CONSUMED_NOT_DELIVERED}


TWO_GATES = [
    {"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "a"}}]},
    {"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "b"}}]},
]
A: Key = ("before_tool_call", "t1", "a")
GATE_B: Key = ("before_tool_call", "t1", "b")


def test_an_answer_kept_from_a_rejected_resume_is_resume_010() -> None:
    oracle = agent(TWO_GATES)
    oracle.invoke(Prompt([{"text": "p"}]))
    rejected = oracle.invoke(Resume((Response(A, "y"), Response(UnknownRef("no-such"), "y"))))
    assert rejected.is_error
    outcome = oracle.invoke(Resume((Response(GATE_B, "y"),)))
    assert [i.key for i in outcome.interrupts] == [A]
    out: list[Violation] = []
    check_interrupts(outcome, [], IdBinder(), out)  # a is not asked again: it kept the rejected answer
    assert named(out) == {reqs.RESUME_UNCHANGED}
    assert outcome.tool_reasons["t1"] == "rejected_kept"


def test_an_interrupt_named_only_by_an_accepted_resume_is_not_blamed_on_resume_010() -> None:
    oracle = agent(TWO_GATES)
    oracle.invoke(Prompt([{"text": "p"}]))
    outcome = oracle.invoke(Resume((Response(GATE_B, "y"),)))
    out: list[Violation] = []
    check_interrupts(outcome, [], IdBinder(), out)
    assert named(out) == {reqs.STOP_ALL_INTERRUPTS}


def test_a_withdrawn_interrupt_reported_again_is_answer_005() -> None:
    hooks = [
        {
            "event": "BeforeToolCall",
            "steps": [{"interrupt": {"name": "a"}}, {"setState": {"key": "k", "fromAnswer": True}}],
        },
        {
            "event": "BeforeToolCall",
            "steps": [{"skipIfState": {"key": "k", "equals": "skip"}}, {"interrupt": {"name": "b"}}],
        },
        {"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "c"}}]},
    ]
    oracle = agent(hooks)
    oracle.invoke(Prompt([{"text": "p"}]))
    outcome = oracle.invoke(Resume((Response(A, "skip"),)))  # b is withdrawn, c asks again
    assert outcome.withdrawn == {GATE_B}
    got = [
        {
            "id": "i-c",
            "name": "c",
            "source": {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "x"},
        },
        {
            "id": "i-b",
            "name": "b",
            "source": {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "x"},
        },
    ]
    out: list[Violation] = []
    check_interrupts(outcome, got, IdBinder(), out)
    assert named(out) == {reqs.WITHDRAWN}


def test_an_error_that_never_came_is_not_blamed_on_err_006() -> None:
    clash = [
        {"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "same"}}]},
        {"event": "BeforeToolCall", "steps": [{"interrupt": {"name": "same"}}]},
    ]
    outcome = agent(clash).invoke(Prompt([{"text": "p"}]))
    assert outcome.codes == {"DUPLICATE_INTERRUPT_NAME"}
    assert reqs.ERROR_UNCHANGED in outcome.error_reqs
    found = named(check_error(outcome, {"result": {"stopReason": "end_turn"}, "trace": []}))
    assert found == {reqs.DUPLICATE_NAME}
