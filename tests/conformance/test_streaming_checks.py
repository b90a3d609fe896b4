"""Streaming over the harness (profile streaming, harness protocol 6): ``InvokeRequest.stream`` reaches the
runtime's streaming API through the kit (``RuntimeAdapter.stream``, ``consume_stream``), each interrupt
event is a ``streamed_interrupt`` trace event recorded as the consumer receives it, ``awaitStreamed`` steps
wait for them; and the explicit checks of spec chapter 17, one per requirement, which the reference passes.
The broken fixtures that each break one rule are tests/conformance/test_broken.py's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from roc_conformance import scenarios as sc
from roc_conformance.adapter import (
    HarnessService,
    InvokeInput,
    ScenarioError,
    StateView,
    Trace,
    callback_stream,
    parse_scenario,
)
from roc_conformance.adapter.programs import run_program
from roc_conformance.adapter.service import Refused, StreamBroken, consume_stream
from roc_conformance.checks import Status, all_checks
from roc_conformance.checks.streaming import await_streamed
from roc_conformance.registry import load_registry
from roc_conformance.runner import run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target
from roc_harness_support import client_for, serving
from roc_reference import PROFILES
from roc_reference.harness.build import Built
from roc_reference.harness.server import (
    DRIVEN_PROFILES,
    SPEC_1_1_PROFILES,
    SPEC_1_2_PROFILES,
    HarnessServicer,
    ReferenceAdapter,
)
from roc_reference.streaming import run_streaming

STREAM_IDS = [f"ROC-STREAM-{n:03d}" for n in range(1, 6)]
CHECKS = [c for c in all_checks() if c.name.startswith("explicit:ROC-STREAM-")]
SETTINGS = RunSettings(
    name="streaming", derandomize=True, max_examples=1, stateful_step_count=1, shrink_seconds=0
)
ALL = tuple(dict.fromkeys((*PROFILES, *DRIVEN_PROFILES, *SPEC_1_1_PROFILES, *SPEC_1_2_PROFILES, "streaming")))


def test_one_check_per_requirement_named_after_it_in_the_profile() -> None:
    assert sorted(c.name for c in CHECKS) == sorted(f"explicit:{rid}" for rid in STREAM_IDS)
    for check in CHECKS:
        assert check.requirements == (check.name.removeprefix("explicit:"),)
        assert "streaming" in check.profiles
    assert {c.name for c in CHECKS if "concurrent-executor" in c.profiles} == {"explicit:ROC-STREAM-005"}
    known = load_registry().by_id()
    assert all(known[rid].profile == "streaming" for rid in STREAM_IDS)


def _judge(profiles: tuple[str, ...]) -> Any:
    with serving(HarnessServicer(profiles)) as (address, _):
        return run_suite(Target(address=address, label="reference"), CHECKS, load_registry(), SETTINGS)


@pytest.mark.req(*STREAM_IDS)
def test_the_reference_passes_every_streaming_check_without_consequences() -> None:
    result = _judge(ALL)
    assert {c.name for c in CHECKS} <= {c.name for c in result.checks}
    for check in result.checks:
        assert check.status is Status.PASS, (check.name, check.message)
        assert not check.consequences, (check.name, [c.message for c in check.consequences])


@pytest.mark.req("ROC-STREAM-001", "ROC-STREAM-004")
def test_sequential_only_the_early_event_check_is_skipped() -> None:
    result = _judge(("core", "sequential-executor", "streaming"))
    statuses = {c.name: c.status for c in result.checks if c.name.startswith("explicit:ROC-STREAM-")}
    assert statuses.pop("explicit:ROC-STREAM-005") is Status.SKIPPED
    assert set(statuses.values()) == {Status.PASS}, result.checks


def _early_spec() -> dict[str, Any]:
    turns = [sc.turn(sc.tool_use("t1", "ask"), sc.tool_use("t2", "waits")), sc.turn(sc.text("done"))]
    tools = [sc.tool("ask", sc.interrupt("q")), sc.tool("waits", await_streamed("q"), sc.returns("waited"))]
    return sc.agent_spec("early", executor="concurrent", turns=turns, tools=tools)


@pytest.mark.req("ROC-STREAM-005")
def test_a_streamed_invoke_records_the_event_before_the_waiting_sibling_ends() -> None:
    with serving() as (address, _), client_for(address) as client:
        agent = client.create_agent(_early_spec())
        out = client.invoke(agent, {"prompt": "go"}, stream=True)
    kinds = [(e["kind"], e.get("toolUseId")) for e in out["trace"]]
    assert kinds.index(("streamed_interrupt", None)) < kinds.index(("tool_end", "t2"))
    (event,) = [e for e in out["trace"] if e["kind"] == "streamed_interrupt"]
    assert event["interrupt"] == out["result"]["interrupts"][0]


def test_without_stream_nothing_is_streamed_and_the_wait_runs_out_quietly() -> None:
    spec = _early_spec()
    spec["tools"][1]["steps"][0] = await_streamed("q", 50)
    with serving() as (address, _), client_for(address) as client:
        agent = client.create_agent(spec)
        out = client.invoke(agent, {"prompt": "go"})
    assert out["result"]["stopReason"] == "interrupt"
    assert not [e for e in out["trace"] if e["kind"] == "streamed_interrupt"]


def test_stream_with_a_direct_tool_call_is_a_harness_error() -> None:
    with serving() as (address, _), client_for(address) as client:
        agent = client.create_agent(_early_spec())
        with pytest.raises(Exception, match="stream goes with"):
            client.invoke(agent, {"directToolCall": {"name": "ask", "input": {}}}, stream=True)


def _events(*events: Any) -> Iterator[Any]:
    yield from events


async def _async_events(*events: Any) -> AsyncIterator[Any]:
    for event in events:
        yield event


INTERRUPT = {"id": "i1", "name": "q", "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}}
RESULT = {
    "stopReason": "interrupt",
    "message": {"role": "assistant", "content": []},
    "interrupts": [INTERRUPT],
}


@pytest.mark.parametrize("source", [_events, _async_events])
def test_the_kit_records_each_interrupt_event_and_returns_the_final_result(source: Any) -> None:
    trace = Trace()
    assert consume_stream(source({"interrupt": INTERRUPT}, {"result": RESULT}), trace) == RESULT
    assert trace.take() == [{"kind": "streamed_interrupt", "interrupt": INTERRUPT}]


def test_the_kit_maps_an_error_event_to_the_refusal() -> None:
    with pytest.raises(Refused) as caught:
        consume_stream(_events({"error": {"code": "INTERRUPT_PENDING", "message": "m"}}), Trace())
    assert caught.value.error["code"] == "INTERRUPT_PENDING"


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        (({"interrupt": INTERRUPT},), "without a result or an error"),
        (({"result": RESULT}, {"interrupt": INTERRUPT}), "after the final event"),
        (({"result": RESULT}, {"result": RESULT}), "after the final event"),
        (({"progress": 1},), "not an interrupt"),
    ],
)
def test_a_stream_that_breaks_the_shape_is_a_crash(events: tuple[Any, ...], problem: str) -> None:
    with pytest.raises(StreamBroken, match=problem):
        consume_stream(_events(*events), Trace())


def test_await_streamed_wakes_on_the_name_and_forgets_it_at_the_next_invocation() -> None:
    trace = Trace()
    assert not trace.await_streamed("q", 0.01)
    trace.streamed_interrupt({"id": "x", "name": "q"})
    assert trace.nested("t1").await_streamed("q", 0.01)  # a sub-agent's body waits on the same stream
    trace.take()
    assert not trace.await_streamed("q", 0.01)


def _state() -> StateView:
    return StateView(get=lambda key: None, has=lambda key: False, put=lambda key, value: None)


def test_the_await_step_is_parsed_and_needs_the_adapters_wait() -> None:
    spec = sc.agent_spec("parse", tools=[sc.tool("waits", await_streamed("q", 10), sc.returns(1))])
    steps = parse_scenario(spec).tools[0].steps
    waited: list[tuple[str, float]] = []
    run_program(
        steps, interrupt=None, state=_state(), await_streamed=lambda n, t: bool(waited.append((n, t)))
    )
    assert waited == [("q", 0.01)]
    with pytest.raises(ScenarioError, match="awaitStreamed"):
        run_program(steps, interrupt=None, state=_state())
    for bad in ({"name": 1}, {"name": "q", "timeoutMs": -1}, {"name": "q", "timeoutMs": True}):
        broken = sc.agent_spec("bad", tools=[sc.tool("waits", {"awaitStreamed": bad})])
        with pytest.raises(ScenarioError, match="awaitStreamed"):
            parse_scenario(broken)


class CallbackAdapter(ReferenceAdapter):
    """The reference behind a callback-style streaming API, plugged in with the kit's ``callback_stream``."""

    def stream(self, agent: Built, inp: InvokeInput) -> Any:
        def run(on_interrupt: Callable[[Any], None]) -> dict[str, Any]:
            def sink(interrupts: Any) -> None:
                for interrupt in interrupts:
                    on_interrupt(interrupt.to_json())

            return run_streaming(agent.agent, inp.value, sink).to_json()

        return callback_stream(run)


@pytest.mark.req("ROC-STREAM-005")
def test_a_callback_streaming_api_plugs_in_with_callback_stream() -> None:
    with serving(HarnessService(CallbackAdapter())) as (address, _), client_for(address) as client:
        agent = client.create_agent(_early_spec())
        out = client.invoke(agent, {"prompt": "go"}, stream=True)
        refused = client.invoke(agent, {"prompt": "again"}, stream=True)
    kinds = [(e["kind"], e.get("toolUseId")) for e in out["trace"]]
    assert kinds.index(("streamed_interrupt", None)) < kinds.index(("tool_end", "t2"))
    assert refused["error"]["code"] == "INTERRUPT_PENDING"


def test_callback_stream_yields_each_event_then_the_result_or_raises() -> None:
    def run(on_interrupt: Callable[[Any], None]) -> dict[str, Any]:
        on_interrupt(INTERRUPT)
        return RESULT

    assert list(callback_stream(run)) == [{"interrupt": INTERRUPT}, {"result": RESULT}]

    def refuse(on_interrupt: Callable[[Any], None]) -> dict[str, Any]:
        raise Refused({"code": "INVALID_RESUME", "message": "no"})

    with pytest.raises(Refused):
        consume_stream(callback_stream(refuse), Trace())
