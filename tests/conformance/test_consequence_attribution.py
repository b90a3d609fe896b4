"""A divergence is reported on the rule it breaks; what it forces afterwards is folded under it.

Each test runs the lockstep driver against an in-process implementation that differs from the oracle in one
rule only (the way strands-agents 1.62 does), and asserts that the primary findings name that rule alone and
that the findings it forces are consequences, listed under it.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from roc_conformance.checks.base import CheckContext
from roc_conformance.checks.vectors import vector_check
from roc_conformance.client import Description
from roc_conformance.errors import ConformanceViolation
from roc_conformance.machine import RocMachine
from roc_conformance.oracle.check import crash_text
from roc_conformance.oracle.engine import Direct, OracleAgent
from roc_conformance.oracle.fake import FakeImplementation
from roc_conformance.oracle.scenario import ScenarioError, parse_spec
from roc_conformance.oracle.vectors import load_vectors, run_vector
from roc_conformance.settings import CERTIFY

PROFILES = frozenset({"core", "hooks", "sequential-executor"})
VECTORS = {v["id"]: v for v in load_vectors()}


def _requirements(found: list[Any]) -> set[str]:
    return {r for v in found for r in v.requirements}


class IgnoresEmptyCancel(FakeImplementation):
    """A cancel whose message is "" has no effect (a truthiness test, as in strands-agents 1.62's
    ``if before_event.cancel_tool:``): the callback runs, the tool runs anyway."""

    def create_agent(self, spec: dict[str, Any]) -> str:
        spec = copy.deepcopy(spec)
        for hook in spec.get("hooks", []):
            hook["steps"] = [s for s in hook["steps"] if s.get("cancel", {}).get("message") != ""]
        return super().create_agent(spec)


def _empty_cancel_of_an_interrupting_tool() -> dict[str, Any]:
    tool_use = {"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}
    return {
        "id": "empty-cancel-interrupting-tool",
        "requirements": ["ROC-CANCEL-004"],
        "agent": {
            "agentId": "a1",
            "executor": "sequential",
            "model": {"turns": [{"content": [tool_use]}, {"content": [{"text": "end"}]}]},
            "tools": [{"name": "ask", "steps": [{"interrupt": {"name": "q"}}, {"return": {"value": "a"}}]}],
            "hooks": [{"event": "BeforeToolCall", "steps": [{"cancel": {"message": ""}}]}],
        },
        "steps": [{"invoke": {"prompt": "p"}}],
    }


def test_the_stop_reason_forced_by_an_ignored_cancel_is_a_consequence_of_the_cancel_rule():
    """The tool that must have been cancelled ran and interrupted: ROC-CANCEL-004 is broken. Stopping with
    'interrupt' is what its interrupt forces, not a divergence of the replay or loop rules."""
    found, driver = run_vector(_empty_cancel_of_an_interrupting_tool(), IgnoresEmptyCancel(PROFILES))
    assert _requirements(found) == {"ROC-CANCEL-004"}, [v.message for v in found]
    folded = [(v, after) for v, after in driver.consequences if "stopReason" in v.message]
    assert folded, "the stop reason difference is still reported, under its cause"
    assert {"ROC-REPLAY-003", "ROC-TOOL-001"} <= _requirements([v for v, _ in folded])
    assert all(after == ("ROC-CANCEL-004",) for _, after in folded)


def test_a_wrong_stop_reason_with_no_cause_in_view_stays_a_failure_of_its_own():
    """Without the cancel the same interrupt is expected: an implementation that then ends the turn instead
    is judged on the stop rule itself (the folding needs every reported interrupt to be explained)."""

    class EndsTurnInstead(FakeImplementation):
        def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
            out = super().invoke(agent, inp)
            if "result" in out:
                out["result"] = {**out["result"], "stopReason": "end_turn", "interrupts": []}
            return out

    vector = _empty_cancel_of_an_interrupting_tool()
    vector["agent"]["hooks"] = []
    found, _ = run_vector(vector, EndsTurnInstead(PROFILES))
    assert "ROC-STOP-001" in _requirements(found)


class KeepsWhatAFailedPromptAppended(FakeImplementation):
    """An invocation that fails mid-run (DUPLICATE_INTERRUPT_NAME) keeps the prompt and the assistant message
    it appended; the next prompt first adds an error result for the lone toolUse (strands-agents 1.62)."""

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        held = self._agents[agent]
        lone = [
            b["toolUse"]["toolUseId"]
            for m in held.messages[-1:]
            for b in m.get("content", [])
            if isinstance(b, dict) and "toolUse" in b
        ]
        if lone and "prompt" in inp:
            results = [
                {"toolResult": {"toolUseId": t, "status": "error", "content": [{"text": "x"}]}} for t in lone
            ]
            held.messages.append({"role": "user", "content": results})
        before = copy.deepcopy(held.messages)
        out = super().invoke(agent, inp)
        if lone and "prompt" in inp:  # the added results are a message of this invocation, before the others
            out["trace"] = [out["trace"][0], {"kind": "message_added", "role": "user"}, *out["trace"][1:]]
        if (out.get("error") or {}).get("code") == "DUPLICATE_INTERRUPT_NAME":
            turn = held.spec.turns[0]
            held.messages = [
                *before,
                {"role": "user", "content": [{"text": str(inp.get("prompt"))}]},
                {"role": "assistant", "content": copy.deepcopy(list(turn))},
            ]
            out["messages"] = copy.deepcopy(held.messages)
        return out


def test_history_left_by_a_rejected_input_is_a_consequence_of_that_failure_later():
    """The leftover breaks ROC-ERR-006 at the failed prompt. The next prompt's history differs only because of
    it: not a failure of the deferred-append rule or of ROC-RESUME-013 (no resume was sent)."""
    vector = VECTORS["duplicate-interrupt-name"]
    found, driver = run_vector(vector, KeepsWhatAFailedPromptAppended(PROFILES))
    assert _requirements(found) == {"ROC-ERR-006"}, [v.message for v in found]
    later = [(v, after) for v, after in driver.consequences if "step 1" in v.message]
    assert later, "the later history difference is still reported, under the failure that caused it"
    assert all(after == ("ROC-ERR-006",) for _, after in later)


def test_a_crash_is_named_by_its_exception_and_where_the_runtime_raised_it():
    details = (
        "Traceback (most recent call last):\n"
        '  File "/work/adapter/service.py", line 359, in _invoke_locked\n'
        "    result = self.adapter.invoke(live.agent, _invoke_input(inp))\n"
        '  File "/venv/lib/python3.11/site-packages/strands/interrupt.py", line 146, in resume\n'
        '    interrupt_id = content["interruptResponse"]["interruptId"]\n'
        "KeyError: 'interruptId'\n"
    )
    text = crash_text({"type": "KeyError", "message": "'interruptId'", "details": details})
    assert text == "KeyError: \"'interruptId'\" (raised at strands/interrupt.py:146)"


class ReportsOnlyTheBatchInterrupt(FakeImplementation):
    """When a BeforeTools interrupt stops the cycle, the unanswered interrupts of earlier cycles whose units
    did not run are not reported again (strands-agents 1.62 reports only what the stopping cycle raised)."""

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        out = super().invoke(agent, inp)
        interrupts = (out.get("result") or {}).get("interrupts") or []
        batch = [i for i in interrupts if i["source"]["kind"] == "before_tools"]
        if batch:
            out["result"] = {**out["result"], "interrupts": batch}
        return out


def test_an_earlier_cycles_interrupt_left_out_is_the_stop_rule_not_the_concurrent_report_rule():
    """ROC-EXEC-006 is about interrupts several tool uses raise in one cycle; here the stopping cycle raised
    only the BeforeTools interrupt, and the one left out was raised a cycle earlier (ROC-STOP-002)."""
    found, _ = run_vector(
        VECTORS["unit-not-run-keeps-interrupt"],
        ReportsOnlyTheBatchInterrupt(frozenset({"core", "hooks", "concurrent-executor"})),
    )
    assert _requirements(found) == {"ROC-STOP-002"}, [v.message for v in found]


def test_a_vector_blocks_only_what_its_divergence_kept_from_being_judged():
    """Step 0 judged ROC-EXEC-005 (both tools ran and were reported) before the divergence of step 1: that
    stays evidence. ROC-ANSWER-005, which only the later steps reach, is cut short."""
    vector = VECTORS["unit-not-run-keeps-interrupt"]
    impl = ReportsOnlyTheBatchInterrupt(frozenset({"core", "hooks", "concurrent-executor"}))
    description = Description(3, {"name": "fake"}, ("1.0",), impl.profiles)
    ctx = CheckContext(client=impl, description=description, settings=CERTIFY)  # type: ignore[arg-type]
    vector_check(vector).run(ctx)
    assert ctx.evidence.failed == ("ROC-STOP-002",)
    assert "ROC-ANSWER-005" in ctx.evidence.blocked
    assert "ROC-EXEC-005" not in ctx.evidence.blocked


def _after_tool_call_sets_state() -> dict[str, Any]:
    return {
        "agentId": "a1",
        "executor": "sequential",
        "model": {"turns": [{"content": [{"text": "done"}]}]},
        "tools": [{"name": "tool0", "steps": []}],
        "hooks": [{"event": "AfterToolCall", "steps": [{"setState": {"key": "seen0", "value": True}}]}],
        "state": {},
    }


def test_a_direct_call_is_not_drawn_for_a_tool_whose_call_events_have_callbacks():
    """Whether AfterToolCall fires for a direct call is the runtime's choice (strands-agents 1.62 fires it),
    so a state its callback writes cannot be predicted: the machine does not call such a tool directly, and
    the oracle refuses to model it, instead of charging the state to ROC-MODEL-012 / ROC-REPLAY-008."""
    spec = parse_spec(_after_tool_call_sets_state())
    stub = SimpleNamespace(direct_calls=True, d=SimpleNamespace(spec=spec))
    assert RocMachine._direct_tool(stub) is None  # type: ignore[arg-type]
    with pytest.raises(ScenarioError, match="AfterToolCall"):
        OracleAgent(spec).invoke(Direct("tool0", {}))


class RefusesItsOwnLeftovers(KeepsWhatAFailedPromptAppended):
    """... and its snapshot loader refuses a history that holds a toolUse without its result."""

    def restore_agent(
        self, snapshot: dict[str, Any] | str, spec: dict[str, Any], *, model_turn_offset: int = 0
    ) -> dict[str, Any]:
        assert isinstance(snapshot, dict)
        messages = snapshot["agent"]["messages"]
        if messages and any("toolUse" in b for b in messages[-1]["content"]):
            return {"error": {"code": "SNAPSHOT_INVALID", "message": "toolUse without toolResult"}}
        return super().restore_agent(snapshot, spec, model_turn_offset=model_turn_offset)


def test_a_restore_refused_for_what_a_rejected_input_left_behind_is_a_consequence():
    vector = copy.deepcopy(VECTORS["duplicate-interrupt-name"])
    vector["steps"] = [vector["steps"][0], {"restore": True}]
    found, driver = run_vector(vector, RefusesItsOwnLeftovers(PROFILES | {"sessions"}))
    assert _requirements(found) == {"ROC-ERR-006"}, [v.message for v in found]
    refused = [(v, after) for v, after in driver.consequences if "RestoreAgent failed" in v.message]
    assert refused
    assert all(after == ("ROC-ERR-006",) for _, after in refused)


def test_interrupts_a_sequential_run_never_reached_are_a_consequence_of_the_unit_that_stopped_it():
    """t1's "" cancel is ignored, so t1 runs and interrupts, and the sequential executor rightly stops there:
    t2's interrupt is missing only because of that. One failure, of ROC-CANCEL-004."""
    vector = {
        "id": "empty-cancel-before-another-interrupt",
        "requirements": ["ROC-CANCEL-004"],
        "agent": {
            "agentId": "a1",
            "executor": "sequential",
            "model": {
                "turns": [
                    {
                        "content": [
                            {"toolUse": {"toolUseId": "t1", "name": "a", "input": {}}},
                            {"toolUse": {"toolUseId": "t2", "name": "b", "input": {}}},
                        ]
                    },
                    {"content": [{"text": "end"}]},
                ]
            },
            "tools": [
                {"name": "a", "steps": [{"interrupt": {"name": "qa"}}, {"return": {}}]},
                {"name": "b", "steps": [{"interrupt": {"name": "qb"}}, {"return": {}}]},
            ],
            "hooks": [{"event": "BeforeToolCall", "toolName": "a", "steps": [{"cancel": {"message": ""}}]}],
        },
        "steps": [{"invoke": {"prompt": "p"}}],
    }
    found, driver = run_vector(vector, IgnoresEmptyCancel(PROFILES))
    assert _requirements(found) == {"ROC-CANCEL-004"}, [v.message for v in found]
    assert any("missing from the result" in v.message for v, _ in driver.consequences)


class PadsAfterToolsOfAPausedBatch(FakeImplementation):
    """AfterTools of a paused concurrent batch also carries the tool uses that have no result yet (as
    @strands-agents/sdk 1.19 does with placeholder results): a wrong event payload, the same units ran."""

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        out = super().invoke(agent, inp)
        if (out.get("result") or {}).get("stopReason") == "interrupt":
            uses = [
                b["toolUse"]["toolUseId"]
                for turn in self._agents[agent].spec.turns
                for b in turn
                if isinstance(b, dict) and "toolUse" in b
            ]
            for event in out["trace"]:
                if event.get("kind") == "after_tools":
                    event["toolUseIds"] = uses
        return out


def test_a_wrong_after_tools_payload_leaves_the_rest_of_the_scenario_judged():
    """ROC-HOOK-011 fails at step 0; the answers of the later steps are still judged in sync (ROC-ANSWER-001
    and the concurrent rules are evidence, not blocked behind it)."""
    vector = VECTORS["partial-answers"]
    impl = PadsAfterToolsOfAPausedBatch(frozenset({"core", "hooks", "concurrent-executor"}))
    found, driver = run_vector(vector, impl)
    assert _requirements(found) == {"ROC-HOOK-011"}, [v.message for v in found]
    assert "ROC-ANSWER-001" in driver.exercised_in_sync


def test_answers_a_refused_resume_stored_are_found_at_the_refusal_when_the_adapter_can_inspect():
    """The fixture stores the answers before the unknown id (as both Strands SDKs do). Read with InspectAgent
    right after the refusal, that is ROC-RESUME-010 at step 1; without inspection only a later step shows it,
    and a random scenario may reach it first through something else (a restore the stored answers spoil)."""
    import importlib.util
    from pathlib import Path

    from roc_conformance.client import HarnessClient
    from roc_harness_support import serving

    broken = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "broken"
    spec = importlib.util.spec_from_file_location("roc_broken_support_attr", broken / "_support.py")
    assert spec is not None
    assert spec.loader is not None
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    vector = VECTORS["rejected-resume-keeps-nothing"]
    steps: dict[bool, set[str]] = {}
    with support.load("rejected_resume_keeps_answers").patch(), serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            for inspect in (True, False):
                found, _ = run_vector(vector, client, inspect=inspect)
                assert "ROC-RESUME-010" in _requirements(found), [v.message for v in found]
                steps[inspect] = {m for v in found for m in ("step 1", "step 2") if m in v.message}
                if inspect:  # found where it happened, alone: the later steps follow from it
                    assert _requirements(found) == {"ROC-RESUME-010"}, [v.message for v in found]
        finally:
            client.close()
    assert steps == {True: {"step 1"}, False: {"step 2"}}


class FiresBeforeInvocationOnRejection:
    """A client whose implementation fires BeforeInvocation (and AfterInvocation) for an input it then rejects
    (as both Strands SDKs do); everything else is the reference's."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self.client.invoke(agent, inp)
        if "error" in out and not any(e.get("kind") == "before_invocation" for e in out.get("trace", [])):
            bracket = [{"kind": "before_invocation"}, {"kind": "after_invocation"}]
            out["trace"] = [bracket[0], *out.get("trace", []), bracket[1]]
        return out


def test_invocation_events_are_judged_each_on_its_own():
    """ROC-HOOK-001 fails; the prompt's placement, the model-call framing, AfterInvocation and the After*
    order were all checked on the same replies and are evidence, not blocked behind it."""
    from roc_conformance.checks import all_checks
    from roc_conformance.client import HarnessClient
    from roc_harness_support import serving

    check = next(c for c in all_checks() if c.name == "explicit:invocation-events")
    with serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            description = client.describe()
            ctx = CheckContext(
                client=FiresBeforeInvocationOnRejection(client),  # type: ignore[arg-type]
                description=description,
                settings=CERTIFY,
            )
            with pytest.raises(ConformanceViolation) as caught:
                check.run(ctx)
        finally:
            client.close()
    assert caught.value.requirements == ("ROC-HOOK-001",)
    assert caught.value.exhaustive  # the check's other requirements were judged and passed


class WrongMessageThenTakesAnswersWhenIdle(FakeImplementation):
    """The interrupted result carries the prompt as its message (re-synchronised past: a reporting fault), and
    an answer sent after completion is taken as a new turn (an input accepted that must be refused)."""

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        out = super().invoke(agent, inp)
        if (out.get("error") or {}).get("code") == "NOT_INTERRUPTED":
            return {"result": {"stopReason": "end_turn", "message": {"role": "assistant", "content": []}}}
        if (out.get("result") or {}).get("stopReason") == "interrupt":
            out["result"] = {**out["result"], "message": {"role": "user", "content": [{"text": "p"}]}}
        return out


def test_what_a_scenario_lost_is_named_after_the_divergence_that_ended_it():
    """ROC-STOP-005 at step 0 is re-synchronised past; step 2 ends the scenario on another rule, and the
    requirements it cut short are blocked by that rule, not by the earlier, harmless one."""
    vector = VECTORS["tool-interrupt-approve"]
    impl = WrongMessageThenTakesAnswersWhenIdle(PROFILES)
    description = Description(3, {"name": "fake"}, ("1.0",), impl.profiles)
    ctx = CheckContext(client=impl, description=description, settings=CERTIFY)  # type: ignore[arg-type]
    vector_check(vector).run(ctx)
    assert "ROC-STOP-005" in ctx.evidence.failed
    reasons = set(ctx.evidence.blocked.values())
    assert reasons, "the scenario ended early: something was cut short"
    assert all("step 2" in r and "ROC-STOP-005" not in r for r in reasons), reasons


class LeftInterruptedByAFailedPrompt(KeepsWhatAFailedPromptAppended):
    """After DUPLICATE_INTERRUPT_NAME the runtime went on and is now interrupted (@strands-agents/sdk 1.19's
    cleanup drain runs further cycles): the next prompt is refused with INTERRUPT_PENDING."""

    failed: bool = False

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        if self.failed and "prompt" in inp:
            return {
                "error": {"code": "INTERRUPT_PENDING", "message": "interrupted"},
                "trace": [],
                "messages": copy.deepcopy(self._agents[agent].messages),
                "state": {},
            }
        out = super().invoke(agent, inp)
        self.failed = (out.get("error") or {}).get("code") == "DUPLICATE_INTERRUPT_NAME"
        return out


def test_a_refusal_that_a_failed_input_left_behind_is_a_consequence_of_that_failure():
    vector = VECTORS["duplicate-interrupt-name"]
    found, driver = run_vector(vector, LeftInterruptedByAFailedPrompt(PROFILES))
    assert _requirements(found) == {"ROC-ERR-006"}, [v.message for v in found]
    refused = [(v, after) for v, after in driver.consequences if "expected a result" in v.message]
    assert refused, "the refused prompt is still reported, under the failure that caused it"
    assert all(after == ("ROC-ERR-006",) for _, after in refused)
