"""The spec 1.1 examples say what the reference runtime does with them.

test_examples.py judges every example against its schema and manifest; here the new shapes meet the
runtime: the format 2.1 fixtures restore and go on as their README says, their consumed record marks a
re-sent answer, the pending list of a fixture is what the PendingInterrupt examples describe, and the
abandon inputs are accepted or refused with the manifest's code.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    HookRegistry,
    RocError,
    ScriptedModel,
    Tool,
    ToolContext,
    pending_interrupts_of,
    tool,
)
from schemakit import EXAMPLES_DIR, load_json, manifest, validator
from structural_rules import canonical_json

SNAPSHOTS = EXAMPLES_DIR / "Snapshot" / "valid"
ABANDON = EXAMPLES_DIR / "AbandonInput"
D1 = "hook:beforeToolCall:D1:approve-delete"
A1 = "tool:A1:ask-destination"


def _fixture(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = load_json(SNAPSHOTS / f"{name}.json")
    return doc


def _answer_digest(normalized: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(normalized)).hexdigest()


def _block(interrupt_id: str, **body: Any) -> dict[str, Any]:
    return {"interruptResponse": {"interruptId": interrupt_id, **body}}


# The tools and hook of the fixtures' agent ("ops"): a delete approved by a BeforeToolCall hook and an
# archive whose body asks where to.
ran: list[str] = []


@tool
def delete_file(path: str) -> bool:
    ran.append(f"delete {path}")
    return True


@tool(context=True)
def archive_logs(since: str, tool_context: ToolContext) -> str:
    destination = str(tool_context.interrupt("ask-destination", reason={"choices": ["s3", "local"]}))
    ran.append(f"archive {since} to {destination}")
    return destination


class ApproveDelete:
    def register_hooks(self, registry: HookRegistry) -> None:
        registry.add_callback(BeforeToolCallEvent, self.approve)

    def approve(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use.name != "delete_file":
            return
        if event.interrupt("approve-delete", reason=f"Delete {event.tool_use.input['path']}?") != "y":
            event.cancel_tool = "not approved"


TOOLS: list[Tool] = [delete_file, archive_logs]


def _restore(name: str, *turns: list[dict[str, Any]], now: datetime | None = None) -> Agent:
    ran.clear()
    return Agent.from_snapshot(
        _fixture(name),
        model=ScriptedModel(list(turns)),
        tools=TOOLS,
        hooks=[ApproveDelete()],
        clock=(lambda: now) if now is not None else None,
    )


# --- the format 2.1 fixtures ------------------------------------------------------------------------


@pytest.mark.req("ROC-DECIDE-005", "ROC-DECIDE-008")
def test_stored_decline_replaces_the_response_and_keeps_the_cancelled_result() -> None:
    state = _fixture("stored-decline-2-1")["interruptState"]
    declined, unanswered = state["interrupts"]
    assert declined["decision"] == "decline"
    assert "response" not in declined
    assert not {"response", "decision", "message"} & set(unanswered)
    # The hook did not handle the decline: its tool use holds the cancel's error result, the decline's text.
    [result] = state["pendingToolExecution"]["completedToolResults"]
    assert result["toolUseId"] == declined["source"]["toolUseId"]
    assert (result["status"], result["content"]) == ("error", [{"text": declined["message"]}])


@pytest.mark.req("ROC-PENDING-004", "ROC-PENDING-002")
def test_pending_list_of_the_stored_decline_fixture() -> None:
    pending = pending_interrupts_of(_fixture("stored-decline-2-1"))
    assert [(p["id"], p.get("answer")) for p in pending] == [
        (D1, {"decision": "decline", "message": "Keep the report."}),
        (A1, None),
    ]
    for entry in pending:
        assert validator("pending-interrupt.schema.json").is_valid(entry)


@pytest.mark.req("ROC-DECIDE-008", "ROC-SNAP-006")
def test_stored_decline_fixture_restores_and_completes_without_running_the_declined_tool() -> None:
    agent = _restore("stored-decline-2-1", [{"text": "Archived; the report stays."}])
    # A decided interrupt is no longer unanswered: a second word on it is refused.
    with pytest.raises(RocError) as caught:
        agent([_block(D1, response="y")])
    assert caught.value.code.value == "UNKNOWN_INTERRUPT"
    result = agent([_block(A1, response="s3")])
    assert result.stop_reason == "end_turn"
    assert ran == ["archive 2026-11-01 to s3"]
    [results] = [m for m in agent.messages_json() if m["role"] == "user" and "toolResult" in m["content"][0]]
    assert [(b["toolResult"]["toolUseId"], b["toolResult"]["status"]) for b in results["content"]] == [
        ("D1", "error"),
        ("A1", "success"),
    ]
    assert results["content"][0]["toolResult"]["content"] == [{"text": "Keep the report."}]


@pytest.mark.req("ROC-RESEND-003")
def test_consumed_record_holds_digests_of_the_normalized_decisions() -> None:
    snapshot = _fixture("consumed-record-2-1")
    assert snapshot["interruptState"]["activated"] is False
    consumed = {c["interruptId"]: c["answerDigest"] for c in snapshot["interruptState"]["consumed"]}
    # The batch that completed last: the delete approved with "y", the archive question cancelled.
    assert consumed == {
        D1: _answer_digest({"decision": "answer", "response": "y"}),
        A1: _answer_digest({"decision": "cancel"}),
    }
    # Pinned bytes of the canonical form, so the digest input cannot drift with the helper.
    assert canonical_json({"response": "y", "decision": "answer"}) == b'{"decision":"answer","response":"y"}'
    # The cancelled question's tool use got the cancel text (ROC-DECIDE-004, ROC-DECIDE-007).
    results = snapshot["agent"]["messages"][-2]["content"]
    assert results[1]["toolResult"]["content"] == [{"text": "The request was cancelled without a decision."}]


@pytest.mark.req("ROC-RESEND-001", "ROC-RESEND-002", "ROC-RESEND-003")
@pytest.mark.parametrize(
    ("blocks", "marked"),
    [
        ([_block(D1, response="y")], [D1]),
        ([_block(D1, response="y", metadata={"x-acme-retry": 1})], [D1]),  # metadata is not compared
        ([_block(A1, decision="cancel"), _block(D1, response="y")], [A1, D1]),
        ([_block(D1, response="n")], None),  # another response
        ([_block(A1, decision="cancel", message="")], None),  # a message where none was given
        ([_block(A1, decision="decline")], None),  # another decision
    ],
)
def test_consumed_record_fixture_marks_exactly_the_identical_re_sends(
    blocks: list[dict[str, Any]], marked: list[str] | None
) -> None:
    agent = _restore("consumed-record-2-1")
    with pytest.raises(RocError) as caught:
        agent(blocks)
    assert caught.value.code.value == "NOT_INTERRUPTED"
    assert (caught.value.details or {}).get("alreadyAnswered") == marked
    assert ran == []


@pytest.mark.req("ROC-PENDING-001", "ROC-EXPIRY-001", "ROC-EXPIRY-002", "ROC-EXPIRY-004")
def test_expiring_fixture_reports_its_deadline_unchanged_and_refuses_a_late_answer() -> None:
    doc = _fixture("expiring-interrupt-2-1")
    [stored] = doc["interruptState"]["interrupts"]
    [entry] = pending_interrupts_of(doc)
    assert (entry["expiresAt"], entry["onExpiry"]) == (stored["expiresAt"], stored["onExpiry"])
    assert "answer" not in entry
    # 2999-01-01T09:00:00+01:00 is 08:00 UTC; a day later the answer comes too late. (A deadline far in the
    # future keeps the fixture resumable for suites that answer it against the real clock.)
    agent = _restore("expiring-interrupt-2-1", now=datetime(2999, 1, 2, 8, 0, tzinfo=UTC))
    with pytest.raises(RocError) as caught:
        agent([_block(stored["id"], response="s3")])
    assert (caught.value.code.value, caught.value.details) == ("EXPIRED", {"interruptId": stored["id"]})


# --- abandon inputs ---------------------------------------------------------------------------------


def _interrupted() -> Agent:
    ran.clear()
    turn = [{"toolUse": {"toolUseId": "D1", "name": "delete_file", "input": {"path": "/srv/report.csv"}}}]
    agent = Agent(ScriptedModel([turn, [{"text": "Understood."}]]), tools=TOOLS, hooks=[ApproveDelete()])
    assert agent("Delete the report.").stop_reason == "interrupt"
    return agent


@pytest.mark.req("ROC-ABANDON-003", "ROC-ABANDON-005")
@pytest.mark.parametrize("path", sorted((ABANDON / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_valid_abandon_input_ends_the_batch(path: Any) -> None:
    body = load_json(path)["abandon"]
    agent = _interrupted()
    result = agent.abandon(body.get("message"), then=body.get("then", "end"))
    assert result.stop_reason == ("end_turn" if body.get("then") == "continue" else "abandoned")
    assert ran == []
    assert not agent.is_interrupted


@pytest.mark.req("ROC-ABANDON-002")
@pytest.mark.parametrize(
    "name",
    # The invalid inputs the Python API can express (its None means "no message", so null-message.json is
    # a JSON binding's to refuse, like the shapes that are not a body of message and then).
    ["message-not-string.json", "unknown-then.json"],
)
def test_invalid_abandon_input_is_refused_with_the_manifest_code(name: str) -> None:
    body = load_json(ABANDON / "invalid" / name)["abandon"]
    agent = _interrupted()
    before = agent.take_snapshot()
    with pytest.raises(RocError) as caught:
        agent.abandon(body.get("message"), then=body.get("then", "end"))
    assert caught.value.code.value == manifest("AbandonInput")[name].code
    assert {**agent.take_snapshot(), "createdAt": None} == {**before, "createdAt": None}
