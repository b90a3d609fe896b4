"""The reference runtime's metadata extension points and null reasons (spec 2.1, 2.2).

``Interrupt.metadata`` is set by the raiser, reported unchanged and kept in snapshots (ROC-MODEL-014).
``InterruptResponse.metadata`` is accepted when it is a JSON object, refused with INVALID_RESPONSE otherwise,
and never reaches the unit, which gets the response alone (ROC-RESUME-015). A ``None`` reason
is no reason (ROC-MODEL-007).
"""

from __future__ import annotations

import copy
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from roc_reference import Agent, ScriptedModel, ToolContext, tool
from roc_reference.errors import (
    InvalidReasonError,
    InvalidResponseError,
    InvalidResumeError,
    SnapshotInvalidError,
)
from roc_reference.interrupts import (
    AnswerBook,
    InterruptRaised,
    InterruptState,
    RaisePoint,
    StoredInterrupt,
    UnitRun,
)
from roc_reference.snapshot import parse_snapshot

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
META = {"x-acme-ui": {"style": "danger"}, "x-acme-team": "finance", "n": [1, None]}


def _unit() -> UnitRun:
    point = RaisePoint(kind="tool", batch_ordinal=1, tool_use_id="t1", tool_name="ask")
    return UnitRun(point, AnswerBook({}))


def _raise(**kwargs: Any) -> dict[str, Any]:
    with pytest.raises(InterruptRaised) as caught:
        _unit().interrupt("approve", **kwargs)
    return caught.value.interrupt.to_json()


@pytest.mark.req("ROC-MODEL-007")
def test_a_none_reason_is_no_reason() -> None:
    assert "reason" not in _raise()
    assert "reason" not in _raise(reason=None)
    assert _raise(reason=False)["reason"] is False  # presence, not truthiness


@pytest.mark.req("ROC-MODEL-014")
def test_a_raise_with_metadata_reports_it_as_given_and_keeps_a_private_copy() -> None:
    given = copy.deepcopy(META)
    with pytest.raises(InterruptRaised) as caught:
        _unit().interrupt("approve", metadata=given)
    given["x-acme-team"] = "changed after the raise"
    assert caught.value.interrupt.to_json()["metadata"] == META
    assert "metadata" not in _raise()  # none given: no member


@pytest.mark.parametrize("metadata", ["danger", [1], 0, {"bad": {1, 2}}])
def test_interrupt_metadata_must_be_a_json_object(metadata: Any) -> None:
    with pytest.raises(InvalidReasonError, match="metadata"):
        _unit().interrupt("approve", metadata=metadata)


# --- answers --------------------------------------------------------------------------------------


def _pending() -> tuple[InterruptState, str]:
    with pytest.raises(InterruptRaised) as caught:
        _unit().interrupt("approve")
    interrupt = caught.value.interrupt
    return InterruptState(activated=True, interrupts={interrupt.id: StoredInterrupt(interrupt)}), interrupt.id


def _block(interrupt_id: str, **body: Any) -> dict[str, Any]:
    return {"interruptResponse": {"interruptId": interrupt_id, "response": "y", **body}}


@pytest.mark.req("ROC-RESUME-015")
def test_answer_metadata_that_is_an_object_is_accepted_and_left_out_of_the_answer() -> None:
    state, iid = _pending()
    assert state.parse_resume([_block(iid, metadata=META)]) == [(iid, "y")]
    assert state.parse_resume([_block(iid, metadata={})]) == [(iid, "y")]


@pytest.mark.req("ROC-RESUME-015")
@pytest.mark.parametrize("metadata", ["ada", None, [1], 0, False])
def test_answer_metadata_that_is_not_an_object_is_invalid_response(metadata: Any) -> None:
    state, iid = _pending()
    with pytest.raises(InvalidResponseError) as caught:
        state.parse_resume([_block(iid, metadata=metadata)])
    assert caught.value.details == {"interruptId": iid}


def test_a_member_other_than_metadata_still_makes_the_block_malformed() -> None:
    # ROC-RESUME-004: metadata is the one open member; a typo stays an error.
    state, iid = _pending()
    with pytest.raises(InvalidResumeError):
        state.parse_resume([_block(iid, metdata={})])


@tool
def ask(tool_context: ToolContext) -> Any:
    return {"answer": tool_context.interrupt("approve", {"q": "ok?"})}


def _agent() -> Agent:
    turns = [[{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}], [{"text": "done"}]]
    return Agent(ScriptedModel(turns), tools=[ask])


@pytest.mark.req("ROC-RESUME-015")
def test_the_unit_receives_the_response_alone() -> None:
    agent = _agent()
    first = agent("go")
    body = {"interruptId": first.interrupts[0].id, "response": "y", "metadata": {"x-acme-approver": "ada"}}
    done = agent([{"interruptResponse": body}])
    assert done.stop_reason == "end_turn"
    (result,) = agent.messages[-2].tool_results()
    assert [c.to_json() for c in result.content] == [{"json": {"answer": "y"}}]


# --- snapshots ------------------------------------------------------------------------------------


def _paused_snapshot() -> dict[str, Any]:
    doc = json.loads(
        (EXAMPLES / "Snapshot" / "valid" / "paused-before-tools.json").read_text(encoding="utf-8")
    )
    assert doc["interruptState"]["interrupts"]
    return dict(doc)


@pytest.mark.req("ROC-MODEL-014")
def test_a_snapshot_keeps_interrupt_metadata_through_a_restore() -> None:
    doc = _paused_snapshot()
    doc["interruptState"]["interrupts"][0]["metadata"] = META
    parsed = parse_snapshot(doc)
    assert parsed.interrupt_state.interrupts[0].metadata == META
    restored = Agent.from_snapshot(doc, model=ScriptedModel([]))
    again = restored.take_snapshot()
    assert again["interruptState"]["interrupts"][0]["metadata"] == META
    assert restored.interrupts[0].to_json()["metadata"] == META


@pytest.mark.parametrize("metadata", [None, "danger", [1]])
def test_a_snapshot_whose_interrupt_metadata_is_not_an_object_is_invalid(metadata: Any) -> None:
    doc = _paused_snapshot()
    doc["interruptState"]["interrupts"][0]["metadata"] = metadata
    with pytest.raises(SnapshotInvalidError):
        parse_snapshot(doc)


@pytest.mark.parametrize("tool_input", ["hello", [1], 7, None, True])
def test_a_snapshot_whose_tool_input_is_not_an_object_is_invalid(tool_input: Any) -> None:
    # spec 2.3: a tool's input is a JSON object in every form of the data, the snapshot included.
    doc = _paused_snapshot()
    for block in doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"]:
        if "toolUse" in block:
            block["toolUse"]["input"] = tool_input
            break
    with pytest.raises(SnapshotInvalidError):
        parse_snapshot(doc)


_RAISE_API_HAS_METADATA = "metadata" in inspect.signature(ToolContext.interrupt).parameters


@pytest.mark.req("ROC-MODEL-014")
@pytest.mark.skipif(not _RAISE_API_HAS_METADATA, reason="ToolContext.interrupt takes no metadata keyword yet")
def test_metadata_raised_by_a_tool_is_reported_and_kept_across_replay_and_restore() -> None:
    @tool
    def hinted(tool_context: ToolContext) -> Any:
        raise_api: Any = tool_context.interrupt
        return {"answer": raise_api("approve", metadata=META)}

    turns = [[{"toolUse": {"toolUseId": "t1", "name": "hinted", "input": {}}}], [{"text": "done"}]]
    agent = Agent(ScriptedModel(turns), tools=[hinted])
    first = agent("go")
    assert first.interrupts[0].to_json()["metadata"] == META
    doc = agent.take_snapshot()
    assert doc["interruptState"]["interrupts"][0]["metadata"] == META
