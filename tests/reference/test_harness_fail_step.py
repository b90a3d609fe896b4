"""The reference adapter's ``fail`` step fails the tool body the ordinary way, by raising.

ROC-TOOL-008 is about what a runtime makes of a failing tool body. If the adapter built the error result
itself, the conformance suite would judge the adapter and never the runtime's conversion (a runtime that
decorated the message or crashed would pass), so the step must raise and leave the result to the runtime.
"""

from __future__ import annotations

from typing import Any

import pytest
import roc_reference.tools as tools
from roc_reference.harness.build import build_agent

SPEC: dict[str, Any] = {
    "agentId": "fail-step",
    "executor": "sequential",
    "model": {
        "turns": [
            {
                "content": [
                    {"toolUse": {"toolUseId": "t1", "name": "broken", "input": {}}},
                    {"toolUse": {"toolUseId": "t2", "name": "plain", "input": {}}},
                ]
            },
            {"content": [{"text": "done"}]},
        ]
    },
    "tools": [
        {"name": "broken", "steps": [{"fail": {"message": "disk full"}}]},
        {"name": "plain", "steps": [{"return": {"value": "fine"}}]},
    ],
}


def test_fail_step_raises_and_the_runtime_builds_the_error_result(monkeypatch: pytest.MonkeyPatch) -> None:
    converted: list[tuple[str, str]] = []
    original = tools.error_result

    def spy(tool_use_id: str, message: str) -> Any:
        converted.append((tool_use_id, message))
        return original(tool_use_id, message)

    monkeypatch.setattr(tools, "error_result", spy)
    built = build_agent(SPEC)
    result = built.agent.invoke("go")

    assert result.stop_reason == "end_turn"
    assert converted == [("t1", "disk full")]  # the runtime's failure path made the result
    results = {r.tool_use_id: r for m in built.agent.messages for r in m.tool_results()}
    assert results["t1"].to_json() == {
        "toolUseId": "t1",
        "status": "error",
        "content": [{"text": "disk full"}],
    }
    assert results["t2"].status == "success"  # the batch went on
    assert {"kind": "tool_end", "toolUseId": "t1", "outcome": "failed"} in built.trace.take()
