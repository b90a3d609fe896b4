"""Explicit checks judge each case on its own evidence: one case the adapter cannot report, or one the
implementation gets wrong first, does not decide the verdict of the others.

The checks run against a scripted client (no adapter): each test scripts the replies of a runtime that
differs from the spec in the way strands-agents 1.62 does.
"""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.checks.base import CheckContext
from roc_conformance.checks.limits import check_value_limits
from roc_conformance.checks.prompts import check_malformed_prompt
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.client import Description
from roc_conformance.errors import AdapterError, ConformanceViolation
from roc_conformance.settings import CERTIFY


class ScriptedClient:
    """Creates agents and answers each Invoke with ``reply(agent, request)``; latches faults like
    HarnessClient, so a check that goes on after one must reset the latch itself."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.observers: list[Any] = [SchemaObserver()]
        self.latched: AdapterError | None = None
        self.agents = 0

    def create_agent(self, spec: dict[str, Any]) -> str:
        self.agents += 1
        return f"a{self.agents}"

    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        if self.latched is not None:
            raise self.latched
        try:
            out: dict[str, Any] = self.reply(agent, inp)
        except AdapterError as fault:
            self.latched = fault
            raise
        for observe in self.observers:
            observe("Invoke", out)
        return out

    def reset_latch(self) -> None:
        self.latched = None


def _context(client: ScriptedClient) -> CheckContext:
    description = Description(3, {"name": "scripted"}, ("1.0",), frozenset({"core", "sequential-executor"}))
    return CheckContext(client=client, description=description, settings=CERTIFY)  # type: ignore[arg-type]


def _ended(history: list[dict[str, Any]]) -> dict[str, Any]:
    message = {"role": "assistant", "content": [{"text": "hello"}]}
    return {
        "result": {"stopReason": "end_turn", "message": message, "interrupts": []},
        "messages": [*history, message],
        "state": {},
        "trace": [{"kind": "invocation_start"}, {"kind": "invocation_end", "stopReason": "end_turn"}],
    }


def takes_every_prompt(agent: str, inp: dict[str, Any]) -> dict[str, Any]:
    """Takes any prompt into its history; a text block holding a number cannot be put in a reply."""
    content = inp.get("content") or [{"text": inp.get("prompt", "")}]
    if any(isinstance(b, dict) and not isinstance(b.get("text", ""), str) for b in content):
        raise AdapterError("Invoke", "harness_error: cannot encode reply: text must be a string")
    return _ended([{"role": "user", "content": content}])


def test_a_case_the_adapter_cannot_report_is_not_judged_and_the_others_still_are():
    client = ScriptedClient(takes_every_prompt)
    ctx = _context(client)
    with pytest.raises(ConformanceViolation) as failed:
        check_malformed_prompt(ctx)
    assert failed.value.requirements == ("ROC-ERR-010",)
    assert "an empty array: accepted (end_turn)" in failed.value.message
    assert "a text block holding a number" not in failed.value.message  # not judged, not a FAIL
    assert any("a text block holding a number: not judged" in n for n in ctx.notes)
    # The malformed prompts the runtime took in are judged once, by ROC-ERR-010, not as messages it made.
    assert client.observers[0].problems == []


def test_a_check_whose_only_evidence_the_adapter_cannot_report_is_an_error():
    def refuses_all_but_one(agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        if "content" in inp:
            takes_every_prompt(agent, inp)  # the unreportable case faults
            return {"error": {"code": "INVALID_INPUT", "message": "no"}, "messages": [], "state": {}}
        return _ended([{"role": "user", "content": [{"text": "go"}]}])

    with pytest.raises(AdapterError):
        check_malformed_prompt(_context(ScriptedClient(refuses_all_but_one)))


def interrupted(agent: str) -> dict[str, Any]:
    interrupt = {
        "id": f"{agent}-q",
        "name": "q",
        "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"},
    }
    return {
        "result": {
            "stopReason": "interrupt",
            "message": {"role": "assistant", "content": []},
            "interrupts": [interrupt],
        },
        "messages": [],
        "state": {},
        "trace": [],
    }


def test_every_oversized_input_is_judged_on_an_agent_of_its_own():
    """A runtime with no size limits takes the first oversized answer, which resumes its agent. The other
    cases must still be judged on their own limit, not refused as NOT_INTERRUPTED by a resumed agent."""
    resumed: set[str] = set()

    def no_limits(agent: str, inp: dict[str, Any]) -> dict[str, Any]:
        if "prompt" in inp:
            return interrupted(agent)
        if agent in resumed:
            return {"error": {"code": "NOT_INTERRUPTED", "message": "idle"}, "messages": [], "state": {}}
        ids = {r["interruptId"] for r in inp["interruptResponses"]}
        if ids != {f"{agent}-q"}:
            return {"error": {"code": "UNKNOWN_INTERRUPT", "message": "?"}, "messages": [], "state": {}}
        resumed.add(agent)
        return _ended([])

    with pytest.raises(ConformanceViolation) as failed:
        check_value_limits(_context(ScriptedClient(no_limits)))
    message = failed.value.message
    assert "an answer whose metadata is 256 KiB + 1: accepted (end_turn)" in message
    assert "five answers of 250 KiB (to unknown ids): UNKNOWN_INTERRUPT, expected INVALID_RESUME" in message
    assert "NOT_INTERRUPTED" not in message
    assert len(message) < 2000, "a finding names outcomes, it does not repeat the oversized values"
