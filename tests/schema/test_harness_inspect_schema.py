"""The wire observer validates InspectAgent replies: history and pending message as messages, each
inspected interrupt (without the harness's answered/response members) as an Interrupt; a wrong value is
ROC-MODEL-001."""

from __future__ import annotations

import copy
from typing import Any

from roc_conformance.checks.base import Status
from roc_conformance.checks.wire_schema import SchemaObserver

INSPECTION: dict[str, Any] = {
    "activated": True,
    "interrupts": [
        {
            "id": "i1",
            "name": "q",
            "reason": {"why": 1},
            "source": {"kind": "tool", "toolUseId": "t1", "toolName": "ask"},
            "answered": True,
            "response": False,
        },
        {"id": "i2", "name": "r", "source": {"kind": "before_tools"}, "answered": False},
    ],
    "preservedToolUseIds": ["t0"],
    "pendingAssistantMessage": {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}],
    },
    "messages": [{"role": "user", "content": [{"text": "go"}]}],
    "state": {},
}


def _observe(inspection: dict[str, Any]) -> SchemaObserver:
    observer = SchemaObserver()
    observer("InspectAgent", inspection)
    return observer


def test_a_well_formed_inspection_passes_and_every_value_is_counted() -> None:
    observer = _observe(INSPECTION)
    assert observer.result().status is Status.PASS
    assert observer.observed == 4  # one history message, the pending message, two interrupts


def test_a_malformed_history_message_fails_model_001() -> None:
    bad = copy.deepcopy(INSPECTION)
    bad["messages"][0]["role"] = "system"
    result = _observe(bad).result()
    assert result.status is Status.FAIL
    assert result.failed_requirements == ("ROC-MODEL-001",)


def test_a_malformed_interrupt_fails_model_001() -> None:
    bad = copy.deepcopy(INSPECTION)
    bad["interrupts"][1]["name"] = ""
    result = _observe(bad).result()
    assert result.status is Status.FAIL
    assert "InspectAgent interrupts" in result.message


def test_a_pending_message_without_a_tool_use_fails_model_001() -> None:
    bad = copy.deepcopy(INSPECTION)
    result_block = {"toolResult": {"toolUseId": "t1", "status": "success", "content": []}}
    bad["pendingAssistantMessage"]["content"] = [result_block]
    assert _observe(bad).result().status is Status.FAIL
