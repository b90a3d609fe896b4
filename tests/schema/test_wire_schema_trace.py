"""The runner's wire observer validates trace events against trace-event.schema.json.

A malformed event is the adapter's fault (ERROR, never FAIL); an unknown stopReason in ``invocation_end`` is
the implementation's own value echoed, so it fails ROC-MODEL-011 like an unknown stopReason in a result.
"""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.checks.base import Status
from roc_conformance.checks.wire_schema import SchemaObserver

RESULT: dict[str, Any] = {
    "stopReason": "end_turn",
    "message": {"role": "assistant", "content": [{"text": "ok"}]},
    "interrupts": [],
}
GOOD_TRACE: list[dict[str, Any]] = [
    {"kind": "invocation_start"},
    {"kind": "before_invocation"},
    {"kind": "message_added", "role": "user"},
    {"kind": "before_model_call"},
    {"kind": "model_call", "turn": 0},
    {"kind": "after_model_call"},
    {"kind": "message_added", "role": "assistant"},
    {"kind": "after_invocation"},
    {"kind": "invocation_end", "stopReason": "end_turn"},
]


def _observe(trace: list[dict[str, Any]], rpc: str = "Invoke") -> SchemaObserver:
    observer = SchemaObserver()
    reply: dict[str, Any] = {"trace": trace}
    if rpc == "Invoke":
        reply["result"] = RESULT
    else:
        reply["agent"] = "h1"
    observer(rpc, reply)
    return observer


def test_a_well_formed_trace_passes_and_is_counted() -> None:
    observer = _observe(GOOD_TRACE)
    assert observer.result().status is Status.PASS
    assert observer.observed == 1 + len(GOOD_TRACE)


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "after_model_call", "turn": 0},
        {"kind": "BeforeInvocation"},
        {"kind": "hook_callback", "event": "BeforeTools", "hookIndex": 0, "toolUseId": "t1"},
        {"kind": "before_tools", "toolUseIds": []},
    ],
    ids=["member-on-empty-kind", "unknown-kind", "batch-hook-with-tool-use", "empty-batch"],
)
def test_a_malformed_event_is_an_adapter_error(event: dict[str, Any]) -> None:
    verdict = _observe([*GOOD_TRACE[:-1], event, GOOD_TRACE[-1]]).result()
    assert verdict.status is Status.ERROR
    assert verdict.fault_kind == "adapter"
    assert verdict.failed_requirements == ()
    assert "trace[8]" in verdict.message


def test_restore_traces_are_validated_too() -> None:
    verdict = _observe([{"kind": "model_call"}], rpc="RestoreAgent").result()
    assert verdict.status is Status.ERROR
    assert "RestoreAgent trace[0]" in verdict.message


@pytest.mark.req("ROC-MODEL-011")
def test_an_undefined_stop_reason_in_the_trace_fails_model_011() -> None:
    verdict = _observe([*GOOD_TRACE[:-1], {"kind": "invocation_end", "stopReason": "paused"}]).result()
    assert verdict.status is Status.FAIL
    assert verdict.failed_requirements == ("ROC-MODEL-011",)


@pytest.mark.req("ROC-MODEL-001")
def test_a_data_model_failure_still_fails_when_the_trace_is_also_broken() -> None:
    observer = _observe([{"kind": "model_call"}])
    observer("Invoke", {"error": {"code": "NOT_A_CODE", "message": "x"}, "trace": []})
    verdict = observer.result()
    assert verdict.status is Status.FAIL
    assert verdict.failed_requirements == ("ROC-MODEL-001",)
    assert "traceEvent" in verdict.message
