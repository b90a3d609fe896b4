"""Snapshots from another implementation that use what spec 2.3 leaves open: ``Message.metadata`` (the one
extension point, kept as found and never interpreted) and a ``toolUse.input`` that is not an object."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from roc_reference import Agent, Message, ScriptedModel, Tool, ToolUse
from roc_reference.errors import ErrorCode, RocError
from roc_reference.integrity import input_digest, sign

VALID = Path(__file__).resolve().parents[2] / "spec" / "examples" / "Snapshot" / "valid"
KEY_ID, KEY = "k1", b"foreign-key"
METADATA = {"usage": {"inputTokens": 12, "ratio": 1.0, "cost": 0.25}, "trace": ["x", None, True], "": {}}


def paused() -> dict[str, Any]:
    """A paused snapshot: pay_invoice (P1) waits for an answer; its assistant message is pending."""
    doc: dict[str, Any] = json.loads(
        (VALID / "paused-tool-interrupt-preserved-result.json").read_text("utf-8")
    )
    doc.pop("integrity", None)
    return doc


def pending_uses(doc: dict[str, Any]) -> list[dict[str, Any]]:
    content = doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"]
    return [b["toolUse"] for b in content if "toolUse" in b]


def with_metadata(doc: dict[str, Any]) -> dict[str, Any]:
    for index, message in enumerate(doc["agent"]["messages"]):
        message["metadata"] = {**copy.deepcopy(METADATA), "index": index}
    doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["metadata"] = {"pending": {"n": 2.0}}
    return doc


def with_input(doc: dict[str, Any], tool_input: Any) -> dict[str, Any]:
    use = pending_uses(doc)[1]  # P1, the tool use the stored interrupt is bound to
    use["input"] = tool_input
    doc["interruptState"]["interrupts"][0]["inputDigest"] = input_digest(tool_input)
    return doc


def tools() -> list[Tool]:
    return [
        Tool(name="lookup_account", fn=lambda **_: "acct"),
        Tool(name="pay_invoice", fn=lambda **_: "paid"),
    ]


def roundtrip(doc: dict[str, Any], **kw: Any) -> dict[str, Any]:
    agent = Agent.from_snapshot(copy.deepcopy(doc), model=ScriptedModel([]), tools=tools(), **kw)
    again: dict[str, Any] = json.loads(json.dumps(agent.take_snapshot()))
    return again


def same_content(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keep = ("agent", "interruptState")
    return {k: a[k] for k in keep} == {k: b[k] for k in keep}


@pytest.mark.req("ROC-SESSION-014", "ROC-SNAP-002")
def test_message_metadata_round_trips_unchanged() -> None:
    doc = with_metadata(paused())
    again = roundtrip(doc)
    assert same_content(again, doc)
    assert again["agent"]["messages"][0]["metadata"]["usage"]["ratio"] == 1.0  # kept as found, not rewritten


@pytest.mark.req("ROC-SESSION-014", "ROC-SNAP-002")
@pytest.mark.parametrize(
    "tool_input",
    # A tool input is a JSON object (spec 2.3); its members hold any JSON value.
    [
        {"v": [1, "x", 2.5]},
        {"v": "text"},
        {"v": 7},
        {"v": 0.5},
        {"v": None},
        {"v": True},
        {},
        {"nested": [{"a": None}]},
    ],
)
def test_a_tool_input_of_any_json_type_round_trips_unchanged(tool_input: Any) -> None:
    doc = with_input(with_metadata(paused()), tool_input)
    assert same_content(roundtrip(doc), doc)


@pytest.mark.req("ROC-SESSION-014", "ROC-SEC-003")
def test_a_signed_foreign_snapshot_verifies_and_round_trips() -> None:
    doc = sign(with_input(with_metadata(paused()), {"a": ["a", 1]}), KEY_ID, KEY)
    again = roundtrip(doc, integrity_keys={KEY_ID: KEY}, signing_key_id=KEY_ID)
    assert same_content(again, doc)
    assert Agent.from_snapshot(again, model=ScriptedModel([]), tools=tools(), integrity_keys={KEY_ID: KEY})
    edited = copy.deepcopy(doc)
    edited["agent"]["messages"][0]["metadata"]["usage"]["inputTokens"] = 13  # metadata is covered by the tag
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(edited, model=ScriptedModel([]), tools=tools(), integrity_keys={KEY_ID: KEY})
    assert info.value.code == ErrorCode.SNAPSHOT_INTEGRITY


@pytest.mark.req("ROC-SESSION-014")
def test_metadata_survives_the_resume_that_continues_the_snapshot() -> None:
    doc = with_metadata(paused())
    agent = Agent.from_snapshot(copy.deepcopy(doc), model=ScriptedModel([]), tools=tools())
    agent([{"interruptResponse": {"interruptId": agent.interrupts[0].id, "response": "y"}}])
    history = agent.take_snapshot()["agent"]["messages"]
    before = doc["agent"]["messages"]
    assert history[: len(before)] == before
    assert history[len(before)]["metadata"] == {"pending": {"n": 2.0}}  # the pending message, now recorded


@pytest.mark.req("ROC-SNAP-009")
@pytest.mark.parametrize("metadata", [None, [], "x", 1])
def test_metadata_that_is_not_an_object_is_invalid(metadata: Any) -> None:
    doc = paused()
    doc["agent"]["messages"][0]["metadata"] = metadata
    original = copy.deepcopy(doc)
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(doc, model=ScriptedModel([]), tools=tools())
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    assert doc == original


@pytest.mark.req("ROC-SNAP-009")
def test_other_objects_stay_closed() -> None:
    doc = paused()
    doc["agent"]["messages"][0]["meta"] = {}  # a typo is an error, not a second extension point
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(doc, model=ScriptedModel([]), tools=tools())
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID


def test_the_model_types_keep_metadata_private_and_inputs_json() -> None:
    source = {"k": [1]}
    message = Message(role="user", content=[], metadata=source)
    source["k"].append(2)
    assert message.to_json() == {"role": "user", "content": [], "metadata": {"k": [1]}}
    assert Message(role="user", content=[]).to_json() == {"role": "user", "content": []}
    assert ToolUse(tool_use_id="t", name="n", input={"k": [1, "a"]}).to_json()["input"] == {"k": [1, "a"]}
    with pytest.raises(ValueError):  # noqa: PT011 - pydantic's ValidationError is a ValueError
        ToolUse(tool_use_id="t", name="n", input={1, 2})
