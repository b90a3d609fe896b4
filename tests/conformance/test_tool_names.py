"""Every tool name the suite sends stays within ^[a-zA-Z0-9_-]{1,64}$ (the limit of both Strands SDKs), and
the client refuses to send a scenario that breaks it (a suite bug would otherwise look like an SDK's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from roc_conformance.client import TOOL_NAME, HarnessClient
from roc_conformance.oracle.vectors import load_vectors
from roc_conformance.scenarios import one_question
from roc_conformance.strategies import scenarios

ROOT = Path(__file__).resolve().parents[2]


def _names(spec: dict) -> list[str]:
    names = [t["name"] for t in spec.get("tools", [])]
    names += [h["toolName"] for h in spec.get("hooks", []) if "toolName" in h]
    names += [
        b["toolUse"]["name"] for t in spec["model"]["turns"] for b in t["content"] if "toolUse" in b
    ]
    return names


def test_the_client_pattern_is_the_schema_pattern():
    schema = json.loads((ROOT / "spec/schema/v1/agent-spec.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["toolName"]["pattern"] == TOOL_NAME.pattern
    assert schema["$defs"]["tool"]["properties"]["name"] == {"$ref": "#/$defs/toolName"}
    assert schema["$defs"]["hook"]["properties"]["toolName"]["$ref"] == "#/$defs/toolName"


@pytest.mark.parametrize("name", ["a", "tool_1", "x-y", "A" * 64])
def test_names_within_the_limit_match(name):
    assert TOOL_NAME.fullmatch(name)


@pytest.mark.parametrize("name", ["", "a b", "a.b", "tool/1", "é", "A" * 65, "a\n"])
def test_names_outside_the_limit_do_not_match(name):
    assert not TOOL_NAME.fullmatch(name)


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_generated_scenarios_use_valid_tool_names(spec):
    assert all(TOOL_NAME.fullmatch(n) for n in _names(spec))


def test_vector_tool_names_are_valid():
    for vector in load_vectors():
        bad = [n for n in _names(vector["agent"]) if not TOOL_NAME.fullmatch(n)]
        assert not bad, (vector["id"], bad)


def test_the_client_refuses_to_send_an_invalid_tool_name():
    client = HarnessClient.__new__(HarnessClient)  # no channel needed: the check runs before any RPC
    spec = one_question("a1")
    spec["tools"][0]["name"] = "ask me"
    with pytest.raises(ValueError, match="tool names"):
        client.try_create_agent(spec)
    hooked = one_question("a1")
    hooked["hooks"] = [{"event": "BeforeToolCall", "toolName": "a.b", "steps": []}]
    with pytest.raises(ValueError, match="tool names"):
        client.restore_agent("{}", hooked)
