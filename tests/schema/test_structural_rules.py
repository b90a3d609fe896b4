"""The structural checker itself: it accepts a well-formed transcript and names each broken rule."""

from __future__ import annotations

from typing import Any

from structural_rules import Violation, agent_spec_violations, transcript_violations


def _use(i: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": i, "name": "x", "input": {}}}


def _result(i: str) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": i, "status": "success", "content": []}}


def _msg(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


def test_complete_tool_cycles_pass() -> None:
    messages = [
        _msg("user", {"text": "go"}),
        _msg("assistant", _use("a"), _use("b")),
        _msg("user", _result("b"), _result("a")),
        _msg("assistant", {"text": "done"}),
    ]
    assert transcript_violations(messages, "$") == []


def test_partly_answered_tool_uses_are_dangling() -> None:
    messages = [_msg("assistant", _use("a"), _use("b")), _msg("user", _result("a"))]
    assert transcript_violations(messages, "$") == [Violation("dangling-tool-use", "$[0]")]


def test_result_must_follow_its_use_immediately() -> None:
    messages = [_msg("assistant", _use("a")), _msg("assistant", {"text": "hm"}), _msg("user", _result("a"))]
    assert transcript_violations(messages, "$") == [
        Violation("dangling-tool-use", "$[0]"),
        Violation("orphan-tool-result", "$[2].content[0]"),
    ]


def test_tool_names_and_use_ids_must_be_distinct() -> None:
    spec = {
        "agentId": "a",
        "executor": "sequential",
        "model": {"turns": [{"content": [_use("t1")]}, {"content": [_use("t1")]}]},
        "tools": [{"name": "x", "steps": []}, {"name": "x", "steps": []}],
    }
    assert agent_spec_violations(spec) == [
        Violation("duplicate-tool-name", "$.tools[1].name"),
        Violation("duplicate-tool-use-id", "$.model.turns[1].content[0].toolUse.toolUseId"),
    ]
