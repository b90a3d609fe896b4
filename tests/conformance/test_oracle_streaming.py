"""The lockstep driver streams some of its invocations when the implementation claims ``streaming`` (spec
chapter 17): which ones is a function of the input alone, the stream's events are taken out of the trace
before the oracle compares it, and what the stream adds is judged against the reply's own result."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from roc_conformance import scenarios as sc
from roc_conformance.oracle import Driver, Prompt, reqs
from roc_conformance.oracle.streams import check_stream, streams, take_streamed
from roc_harness_support import client_for, serving
from roc_reference.harness.server import HarnessServicer

BROKEN = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "broken"
ON = frozenset({"core", "streaming"})
SPEC = sc.agent_spec(
    "oracle-stream",
    turns=[sc.turn(sc.text("asking"), sc.tool_use("t1", "ask")), sc.turn(sc.text("done"))],
    tools=[sc.tool("ask", sc.interrupt("q"), sc.returns("ran"))],
)
INTERRUPT = {"id": "i1", "name": "q", "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}}
RESULT = {
    "stopReason": "interrupt",
    "message": {"role": "assistant", "content": []},
    "interrupts": [INTERRUPT],
}


def _prompt(streamed: bool) -> str:
    """A prompt text the driver streams (or not)."""
    return next(t for n in range(100) if streams(ON, {"prompt": (t := f"go {n}")}) is streamed)


def test_which_invocations_stream_depends_on_the_claim_and_the_input_alone() -> None:
    prompts = [{"prompt": f"go {n}"} for n in range(200)]
    chosen = [p for p in prompts if streams(ON, p)]
    assert 50 < len(chosen) < 150  # about half
    assert chosen == [p for p in prompts if streams(ON, p)]  # the same every time
    assert not any(streams(frozenset({"core"}), p) for p in prompts)
    assert not streams(ON | {"direct-tool-call"}, {"directToolCall": {"name": "x", "input": {}}})
    assert not any(streams(ON, {"abandon": {"message": f"m{n}"}}) for n in range(20))


def test_the_streamed_events_leave_the_trace_and_are_judged_against_the_result() -> None:
    observed: dict[str, Any] = {
        "trace": [{"kind": "invocation_start"}, {"kind": "streamed_interrupt", "interrupt": INTERRUPT}],
        "result": RESULT,
    }
    got = take_streamed(observed)
    assert got == [INTERRUPT]
    assert observed["trace"] == [{"kind": "invocation_start"}]
    assert check_stream(observed, got) == []
    assert [v.requirements for v in check_stream(observed, [])] == [(reqs.STREAM_ONCE,)]
    assert [v.requirements for v in check_stream(observed, [INTERRUPT, INTERRUPT])] == [(reqs.STREAM_ONCE,)]
    changed = {**INTERRUPT, "reason": "other"}
    assert [v.requirements for v in check_stream(observed, [changed])] == [(reqs.STREAM_ONCE,)]
    other = {**INTERRUPT, "id": "i2"}
    assert [v.requirements for v in check_stream(observed, [INTERRUPT, other])] == [(reqs.STREAM_ONLY,)]
    broken = {"crash": {"type": "StreamBroken", "message": "1 event(s) after the final event"}}
    assert [v.requirements for v in check_stream(broken, [])] == [(reqs.STREAM_FINAL,)]
    assert check_stream({"error": {"code": "INTERNAL", "message": "m"}}, [INTERRUPT]) == []


def _drive(streamed: bool) -> tuple[Driver, list[Any]]:
    """One prompt, streamed or not, driven in lockstep against the reference: the driver and its findings."""
    with serving(HarnessServicer()) as (address, _), client_for(address) as client:
        driver = Driver(client, SPEC, profiles=ON | {"sequential-executor"})
        text = _prompt(streamed)
        found = driver.invoke({"prompt": text}, Prompt([{"text": text}]))
        driver.dispose()
        return driver, found


@pytest.mark.req("ROC-STREAM-002")
@pytest.mark.parametrize("streamed", [True, False])
def test_the_driver_streams_the_chosen_invocation_and_the_reference_passes(streamed: bool) -> None:
    driver, found = _drive(streamed)
    assert found == []
    (invoke,) = [e for e in driver.log if e.request.get("rpc") == "Invoke"]
    assert invoke.request.get("stream", False) is streamed
    assert not [e for e in invoke.response.get("trace", []) if e.get("kind") == "streamed_interrupt"]


def _fixture(name: str) -> Any:
    """A broken fixture, loaded the way test_broken.py loads them (through their ``_support``)."""
    spec = importlib.util.spec_from_file_location("roc_broken_support", BROKEN / "_support.py")
    assert spec is not None
    assert spec.loader is not None
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    return support.load(name)


@pytest.mark.req("ROC-STREAM-002")
def test_the_driver_finds_a_repeated_event() -> None:
    with _fixture("stream_repeats_interrupt").patch():
        _, found = _drive(True)
    assert [v.requirements for v in found] == [(reqs.STREAM_ONCE,)]
