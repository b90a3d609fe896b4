"""The oracle's model of spec chapter 11 (decisions, abandon, expiry), and the state machine that drives it.

The expectations are written out by hand from the chapter's text, not read back from the oracle.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from roc_conformance.errors import ConformanceViolation
from roc_conformance.machine import DecisionMachine, MachineLedger, RocMachine, make_machine
from roc_conformance.oracle import OracleAgent, Prompt, parse_spec, reqs
from roc_conformance.oracle.check import IdBinder, check_result
from roc_conformance.oracle.engine import (
    ABANDON_TEXT,
    CANCEL_TEXT,
    DECLINE_TEXT,
    EXPIRY_TEXT,
    MISSING,
    Abandon,
    Key,
    Outcome,
    Response,
    Resume,
)
from roc_conformance.oracle.fake import ALL_PROFILES, FakeImplementation
from roc_conformance.oracle.vectors import load_vectors, run_vector

NEW = ("decisions", "abandon", "expiry", "pending-list")
PAST, FUTURE = "2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"
TWO = {
    "content": [
        {"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}},
        {"toolUse": {"toolUseId": "t2", "name": "y", "input": {}}},
    ]
}
END = {"content": [{"text": "end"}]}


def agent(
    x_steps: list[dict[str, Any]],
    hooks: list[dict[str, Any]] | None = None,
    profiles: tuple[str, ...] = NEW,
    executor: str = "sequential",
) -> OracleAgent:
    doc = {
        "agentId": "a1",
        "executor": executor,
        "model": {"turns": [TWO, END]},
        "tools": [{"name": "x", "steps": x_steps}, {"name": "y", "steps": [{"return": {"value": "y"}}]}],
        "hooks": hooks or [],
        "state": {},
    }
    return OracleAgent(parse_spec(doc), frozenset(profiles))


def ask(name: str = "q", **extra: Any) -> dict[str, Any]:
    return {"interrupt": {"name": name, **extra}}


def decide(key: Key, decision: Any, message: Any = MISSING, response: Any = MISSING) -> Resume:
    return Resume((Response(key, response, decision, message),))


def results(a: OracleAgent) -> dict[str, dict[str, Any]]:
    """The tool results of the last completed batch, by toolUseId."""
    last = a.messages[-2]["content"] if a.messages[-1]["role"] == "assistant" else a.messages[-1]["content"]
    return {b["toolResult"]["toolUseId"]: b["toolResult"] for b in last if "toolResult" in b}


def text_error(tuid: str, text: str) -> dict[str, Any]:
    return {"toolUseId": tuid, "status": "error", "content": [{"text": text}]}


def paused(a: OracleAgent) -> Key:
    out = a.invoke(Prompt([{"text": "go"}]))
    assert out.stop_reason == "interrupt", out
    return out.interrupts[0].key


# ---- decisions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "message", "text"),
    [
        ("decline", MISSING, DECLINE_TEXT),
        ("cancel", MISSING, CANCEL_TEXT),
        ("decline", "", ""),
        ("cancel", "no", "no"),
    ],
)
def test_an_unhandled_decision_in_a_tool_body_is_its_error_result(
    decision: str, message: Any, text: str
) -> None:
    a = agent([ask(), {"return": {"value": "ran"}}])
    out = a.invoke(decide(paused(a), decision, message))
    assert out.stop_reason == "end_turn"
    assert results(a)["t1"] == text_error("t1", text)  # ROC-DECIDE-004, -007
    assert ("tool_end", "failed") in [
        (e["kind"], e.get("outcome")) for e in out.trace if e.get("toolUseId") == "t1"
    ]
    assert {"kind": "after_tool_call", "toolUseId": "t1", "status": "error"} in out.trace
    assert results(a)["t2"]["status"] == "success"  # the batch goes on
    assert {reqs.DECIDE_TOOL, reqs.DECIDE_DELIVERED, reqs.DECIDE_ACCEPT} <= out.exercised


def test_a_handled_decision_is_the_programs_last_answer() -> None:
    a = agent([ask(handleDecision=True), {"return": {"value": "ran"}}])
    a.invoke(decide(paused(a), "cancel", "later"))
    content = results(a)["t1"]["content"][0]["json"]
    assert content == {"answers": [{"decision": "cancel", "message": "later"}], "value": "ran"}


def test_an_unhandled_decision_in_before_tool_call_cancels_that_tool() -> None:
    hooks = [{"event": "BeforeToolCall", "toolName": "x", "steps": [ask("h")]}]
    a = agent([{"return": {"value": "ran"}}], hooks)
    out = a.invoke(decide(paused(a), "decline"))
    assert results(a)["t1"] == text_error("t1", DECLINE_TEXT)  # ROC-DECIDE-005: as cancel_tool
    assert not [e for e in out.trace if e["kind"] == "tool_start" and e["toolUseId"] == "t1"]
    assert out.tool_reasons["t1"] == "btc_declined"


def test_an_unhandled_decision_in_before_tools_cancels_the_batch() -> None:
    hooks = [{"event": "BeforeTools", "steps": [ask("b")]}]
    a = agent([{"return": {"value": "ran"}}], hooks)
    out = a.invoke(decide(paused(a), "cancel", "stop"))
    assert results(a) == {"t1": text_error("t1", "stop"), "t2": text_error("t2", "stop")}  # ROC-DECIDE-006
    assert not [e for e in out.trace if e["kind"] in ("tool_start", "after_tool_call")]


def test_decisions_mix_with_answers_and_a_decided_interrupt_counts_as_answered() -> None:
    hooks = [{"event": "BeforeToolCall", "steps": [ask("h")]}]
    a = agent([{"return": {"value": "ran"}}], hooks, executor="concurrent")
    out = a.invoke(Prompt([{"text": "go"}]))
    k1, k2 = (i.key for i in out.interrupts)
    out = a.invoke(Resume((Response(k1, MISSING, "decline"),)))  # partial (ROC-DECIDE-001)
    assert [i.key for i in out.interrupts] == [k2]
    again = a.invoke(decide(k1, "cancel"))
    assert again.codes == {"UNKNOWN_INTERRUPT"}
    assert reqs.DECIDE_ANSWERED in again.error_reqs
    out = a.invoke(Resume((Response(k2, "y"),)))
    assert results(a)["t1"] == text_error("t1", DECLINE_TEXT)
    assert results(a)["t2"]["status"] == "success"


@pytest.mark.parametrize(
    ("decision", "message", "response"),
    [("maybe", MISSING, MISSING), ("decline", MISSING, "y"), ("answer", "why", "y"), ("cancel", 5, MISSING)],
)
def test_malformed_decisions_are_invalid_resume(decision: Any, message: Any, response: Any) -> None:
    a = agent([ask(), {"return": {}}])
    out = a.invoke(decide(paused(a), decision, message, response))
    assert out.codes == {"INVALID_RESUME"}
    assert reqs.DECIDE_SHAPE in out.error_reqs


def test_without_the_profile_a_decision_is_a_malformed_block() -> None:
    a = agent([ask(), {"return": {}}], profiles=())
    out = a.invoke(decide(paused(a), "decline"))
    assert out.codes == {"INVALID_RESUME"}
    assert out.error_reqs == (reqs.RESUME_MALFORMED,)


# ---- expiry ---------------------------------------------------------------------------------------


def test_expiry_is_reported_and_an_answer_too_late_is_expired() -> None:
    a = agent([ask(expiresAt=PAST, onExpiry={"decision": "cancel"}), {"return": {}}])
    out = a.invoke(Prompt([{"text": "go"}]))
    assert out.interrupts[0].extra == {"expiresAt": PAST, "onExpiry": {"decision": "cancel"}}
    late = a.invoke(Resume((Response(out.interrupts[0].key, "y"),)))
    assert late.codes == {"EXPIRED"}
    assert late.error_reqs == (reqs.EXPIRY_ANSWER,)
    ok = a.invoke(decide(out.interrupts[0].key, "decline"))  # ROC-DECIDE-009
    assert ok.stop_reason == "end_turn"
    assert reqs.DECIDE_EXPIRED in ok.exercised


def test_a_future_deadline_takes_answers() -> None:
    a = agent([ask(expiresAt=FUTURE), {"return": {"value": 1}}])
    out = a.invoke(Resume((Response(paused(a), "y"),)))
    assert out.stop_reason == "end_turn"
    assert results(a)["t1"]["status"] == "success"


@pytest.mark.parametrize(
    ("on_expiry", "text"),
    [
        (None, EXPIRY_TEXT),
        ({"decision": "cancel"}, EXPIRY_TEXT),
        ({"decision": "decline", "message": "m"}, "m"),
    ],
)
def test_an_accepted_resume_resolves_the_expired_interrupts_it_leaves(on_expiry: Any, text: str) -> None:
    expiring = ask("late", expiresAt=PAST, **({} if on_expiry is None else {"onExpiry": on_expiry}))
    hooks = [{"event": "BeforeToolCall", "toolName": "x", "steps": [expiring]}]
    hooks.append({"event": "BeforeToolCall", "toolName": "y", "steps": [ask("on-time")]})
    a = agent([{"return": {}}], hooks, executor="concurrent")
    out = a.invoke(Prompt([{"text": "go"}]))
    on_time = next(i.key for i in out.interrupts if i.name == "on-time")
    out = a.invoke(Resume((Response(on_time, "y"),)))
    assert out.stop_reason == "end_turn"  # ROC-EXPIRY-005: "late" was resolved, not asked again
    assert results(a)["t1"] == text_error("t1", text)


def test_without_the_profile_a_deadline_changes_nothing() -> None:
    a = agent([ask(expiresAt=PAST), {"return": {}}], profiles=("decisions",))
    assert a.invoke(Resume((Response(paused(a), "y"),))).stop_reason == "end_turn"


# ---- abandon --------------------------------------------------------------------------------------


def test_abandon_end_completes_the_batch_without_running_anything() -> None:
    a = agent([{"return": {"value": 1}}], [{"event": "BeforeToolCall", "toolName": "y", "steps": [ask("h")]}])
    out = a.invoke(Prompt([{"text": "go"}]))
    assert [i.name for i in out.interrupts] == ["h"]  # t1 completed, t2 asks
    pending = a.pending_assistant
    out = a.invoke(Abandon())
    assert out.stop_reason == "abandoned"
    assert out.message == pending
    assert out.interrupts == []
    assert results(a)["t1"]["status"] == "success"  # preserved (ROC-ABANDON-003)
    assert results(a)["t2"] == text_error("t2", ABANDON_TEXT)
    kinds = [e["kind"] for e in out.trace]
    assert kinds == ["invocation_start", "message_added", "message_added", "invocation_end"]  # ABANDON-004
    assert not a.activated
    assert a.invoke(Abandon("x")).codes == {"NOT_INTERRUPTED"}  # ROC-ABANDON-002


def test_abandon_continue_calls_the_model_next() -> None:
    a = agent([ask(), {"return": {}}])
    paused(a)
    out = a.invoke(Abandon("gone", "continue"))
    assert out.stop_reason == "end_turn"
    assert [e["turn"] for e in out.trace if e["kind"] == "model_call"] == [1]
    assert results(a)["t1"] == text_error("t1", "gone")


# ---- the checks name chapter 11 -------------------------------------------------------------------


def test_a_decision_asked_again_is_charged_to_decide_003() -> None:
    a = agent([ask(), {"return": {}}])
    key = paused(a)
    out = a.invoke(decide(key, "decline"))
    wrong = {
        "result": {
            "stopReason": "interrupt",
            "message": TWO | {"role": "assistant"},
            "interrupts": [
                {"id": "i1", "name": "q", "source": {"kind": "tool", "toolUseId": "t1", "toolName": "x"}}
            ],
        },
        "trace": out.trace,
    }
    found = check_result(out, wrong, IdBinder(), "sequential")
    assert reqs.DECIDE_DELIVERED in {r for v in found for r in v.requirements}


def test_a_wrong_abandon_stop_reason_is_abandon_005() -> None:
    a = agent([ask(), {"return": {}}])
    paused(a)
    out = a.invoke(Abandon())
    observed = {
        "result": {"stopReason": "end_turn", "message": out.message, "interrupts": []},
        "trace": out.trace,
    }
    found = check_result(out, observed, IdBinder(), "sequential")
    assert {r for v in found for r in v.requirements} == {reqs.ABANDON_THEN}


# ---- the state machine ----------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=40,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
PROFILES = frozenset((*ALL_PROFILES, *NEW))


def test_the_machine_has_the_new_rules_only_under_the_new_profiles() -> None:
    assert issubclass(make_machine(FakeImplementation, PROFILES), DecisionMachine)
    old = make_machine(FakeImplementation, frozenset(ALL_PROFILES))
    assert not issubclass(old, DecisionMachine)
    assert issubclass(old, RocMachine)


def test_the_machine_passes_on_the_oracle_fake_and_exercises_chapter_11(pinned_constants: None) -> None:
    ledger = MachineLedger()
    enough = settings(SETTINGS, max_examples=200, stateful_step_count=20)
    machine = make_machine(lambda: FakeImplementation(tuple(PROFILES)), PROFILES, enough, ledger=ledger)
    run_state_machine_as_test(machine, settings=enough)
    wanted = {
        reqs.DECIDE_ACCEPT,
        reqs.DECIDE_SHAPE,
        reqs.DECIDE_DELIVERED,
        reqs.DECIDE_TOOL,
        reqs.DECIDE_TEXT,
        reqs.DECIDE_ANSWERED,
        reqs.DECIDE_EXPIRED,
        reqs.ABANDON_ACCEPT,
        reqs.ABANDON_IDLE,
        reqs.ABANDON_RESULTS,
        reqs.ABANDON_THEN,
        reqs.EXPIRY_AT,
        reqs.EXPIRY_ANSWER,
        reqs.EXPIRY_RESOLVED,
    }
    assert wanted <= ledger.exercised_in_sync, sorted(wanted - ledger.exercised_in_sync)


class _DeclineIgnored(OracleAgent):
    """A runtime that treats a decline as the answer ``True`` (the unsafe reading chapter 11 forbids)."""

    def invoke(self, inp: Any) -> Outcome:
        if isinstance(inp, Resume):
            inp = Resume(tuple(Response(r.ref, True) if not r.is_answer else r for r in inp.responses))
        return super().invoke(inp)


class _ExpiryStuck(OracleAgent):
    """A runtime that never resolves expired interrupts: it asks them again."""

    def _resolve_expired(self, now: Any) -> None:
        return None


class _AbandonRunsTools(OracleAgent):
    """A runtime whose abandon replays the batch instead of completing it (as a resume would)."""

    def invoke(self, inp: Any) -> Outcome:
        if isinstance(inp, Abandon) and self.activated:
            return super().invoke(Resume(tuple(Response(k, MISSING, "decline") for k in self.pending_keys())))
        return super().invoke(inp)


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        # (an ignored decline of an expired interrupt is an answer too late: ROC-DECIDE-009)
        (
            _DeclineIgnored,
            {
                reqs.DECIDE_TOOL,
                reqs.DECIDE_BTC,
                reqs.DECIDE_BT,
                reqs.DECIDE_DELIVERED,
                reqs.DECIDE_EXPIRED,
                reqs.PENDING_DETAILS,  # the decline is listed as the answer it was taken for
                reqs.DECIDE_SHAPE,  # a malformed decision taken as an answer
            },
        ),
        (_ExpiryStuck, {reqs.EXPIRY_RESOLVED, reqs.DECIDE_DELIVERED}),
        (_AbandonRunsTools, {reqs.ABANDON_RUNS_NOTHING, reqs.ABANDON_RESULTS, reqs.ABANDON_THEN}),
    ],
)
def test_the_machine_finds_a_broken_chapter_11_rule(
    factory: type[OracleAgent], expected: set[str], pinned_constants: None
) -> None:
    class Broken(FakeImplementation):
        agent_factory = factory

    # Finding it is the point; shrinking the counterexample would only cost time.
    found = settings(
        SETTINGS,
        max_examples=300,
        stateful_step_count=20,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    machine = make_machine(lambda: Broken(tuple(PROFILES)), PROFILES, found)
    with pytest.raises(ConformanceViolation) as caught:
        run_state_machine_as_test(machine, settings=found)
    assert set(caught.value.requirements) & expected, caught.value


class _PendingOmitsAnswers(FakeImplementation):
    """Lists the pending interrupts in INTERRUPT_PENDING but leaves out what is stored for them."""

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        doc = super().invoke(agent, inp)
        for entry in ((doc.get("error") or {}).get("details") or {}).get("pending") or []:
            entry.pop("answer", None)
        return doc


@pytest.mark.parametrize(("impl", "fails"), [(FakeImplementation, False), (_PendingOmitsAnswers, True)])
def test_interrupt_pending_details_are_compared_with_what_is_stored(
    impl: type[FakeImplementation], fails: bool
):
    vector = next(v for v in load_vectors() if v["id"] == "interrupt-pending-details")
    found, _ = run_vector(vector, impl((*ALL_PROFILES, *vector["profiles"])))
    assert bool(found) == fails
    assert all(reqs.PENDING_DETAILS in v.requirements for v in found)
