"""Snapshot format 2.1: what the writer stores for decisions and consumed answers, and how the loader (and the
schema, which must agree with it) reads 2.0, 2.1 and later minors (ROC-VER-007, ROC-VER-008)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from decisionkit import World, decide
from refsupport import answer, validator
from roc_reference import Agent, ScriptedModel, parse_snapshot, pending_interrupts_of
from roc_reference.errors import ErrorCode, RocError


def _paused_with_decision() -> tuple[World, Agent, dict[str, Any]]:
    """A BeforeToolCall world (concurrent): t1's interrupt declined with a message, t2's unanswered."""
    world = World("before_tool_call", "concurrent")
    agent = world.agent()
    first = agent("go")
    agent([decide(first.interrupts[0].id, "decline", "no")])
    return world, agent, agent.take_snapshot()


def _completed_with_consumed() -> dict[str, Any]:
    world = World("tool", "concurrent")
    agent = world.agent()
    first = agent("go")
    agent([answer(first.interrupts[0].id, {"ok": True}), decide(first.interrupts[1].id, "cancel")])
    doc = agent.take_snapshot()
    assert [c["interruptId"] for c in doc["interruptState"]["consumed"]] == [i.id for i in first.interrupts]
    return doc


def _loader_code(doc: Any) -> str | None:
    try:
        parse_snapshot(copy.deepcopy(doc))
    except RocError as exc:
        return exc.code.value
    return None


def _both_judge(doc: dict[str, Any], code: ErrorCode | None) -> None:
    """The loader gives ``code`` and the schema agrees on valid / invalid."""
    assert _loader_code(doc) == (None if code is None else code.value)
    assert validator("snapshot").is_valid(doc) == (code is None)


def _stored(doc: dict[str, Any], index: int = 0) -> dict[str, Any]:
    item: dict[str, Any] = doc["interruptState"]["interrupts"][index]
    return item


Edit = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[last] = value

    return edit


def _drop(path: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return edit


def test_the_writer_stores_a_decision_instead_of_a_response() -> None:
    _, agent, doc = _paused_with_decision()
    assert (doc["schemaVersion"], doc["specVersion"]) == ("2.3", "1.3")
    stored = _stored(doc)
    assert (stored["decision"], stored["message"]) == ("decline", "no")
    assert "response" not in stored
    _both_judge(doc, None)
    assert pending_interrupts_of(doc) == agent.pending_interrupts()


def test_the_consumed_record_holds_digests_of_normalized_decisions() -> None:
    doc = _completed_with_consumed()
    digests = {c["answerDigest"] for c in doc["interruptState"]["consumed"]}
    assert len(digests) == 2
    assert all(d.startswith("sha256:") and len(d) == 71 for d in digests)
    _both_judge(doc, None)
    # the same answer sent again is recognised after restore, one with other content is not (ROC-RESEND-*)
    restored = Agent.from_snapshot(doc, model=ScriptedModel([]))
    with pytest.raises(RocError) as info:
        restored([answer(_first_id(doc), {"ok": True}), answer(_first_id(doc), {"ok": False})])
    assert info.value.code == ErrorCode.NOT_INTERRUPTED
    assert info.value.details == {"alreadyAnswered": [_first_id(doc)]}


def _first_id(doc: dict[str, Any]) -> str:
    first: str = doc["interruptState"]["consumed"][0]["interruptId"]
    return first


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_set("interruptState/interrupts/0/response", "y"), "a response and a decision"),
        (_drop("interruptState/interrupts/0/decision"), "a message without its decision"),
        (_set("interruptState/interrupts/0/decision", "answer"), "an answer is stored as a response"),
        (_set("interruptState/interrupts/0/message", None), "a null message"),
        (_set("interruptState/interrupts/0/message", 7), "a message that is not a string"),
        (_set("interruptState/interrupts/0/onExpiry", {"decision": "later"}), "a bad onExpiry"),
    ],
)
def test_malformed_stored_decisions_are_refused(edit: Edit, why: str) -> None:
    _, _, doc = _paused_with_decision()
    edit(doc)
    _both_judge(doc, ErrorCode.SNAPSHOT_INVALID)


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_set("interruptState/consumed/0/answerDigest", "sha256:abc"), "a short digest"),
        (_set("interruptState/consumed/0/answerDigest", "md5:" + "0" * 64), "another algorithm"),
        (_drop("interruptState/consumed/0/interruptId"), "no id"),
        (_set("interruptState/consumed/0/extra", 1), "an unknown member"),
        (_set("interruptState/consumed", None), "null"),
    ],
)
def test_malformed_consumed_records_are_refused(edit: Edit, why: str) -> None:
    doc = _completed_with_consumed()
    edit(doc)
    _both_judge(doc, ErrorCode.SNAPSHOT_INVALID)


def test_distinct_consumed_ids_are_a_loader_rule() -> None:
    doc = _completed_with_consumed()
    consumed = doc["interruptState"]["consumed"]
    consumed[1]["interruptId"] = consumed[0]["interruptId"]
    assert _loader_code(doc) == ErrorCode.SNAPSHOT_INVALID.value  # the schema cannot compare items


@pytest.mark.parametrize("member", ["decision", "consumed", "onExpiry"])
def test_a_2_0_document_with_a_2_1_member_is_invalid(member: str) -> None:
    # ROC-VER-008: the member did not exist in 2.0, so a 2.0 writer cannot have written it
    if member == "consumed":
        doc = _completed_with_consumed()
    elif member == "decision":
        _, _, doc = _paused_with_decision()
    else:
        agent = World("tool", "concurrent").agent()
        agent("go")
        doc = agent.take_snapshot()
        _stored(doc, 1)["onExpiry"] = {"decision": "cancel"}
        _both_judge(doc, None)  # valid as 2.1
    doc["schemaVersion"], doc["specVersion"] = "2.0", "1.0"
    _both_judge(doc, ErrorCode.SNAPSHOT_INVALID)


def test_a_2_0_document_without_them_is_read() -> None:
    world = World("tool", "concurrent")
    agent = world.agent()
    agent("go")
    doc = agent.take_snapshot()
    doc["schemaVersion"], doc["specVersion"] = "2.0", "1.0"
    _both_judge(doc, None)
    assert world.restore(doc).pending_interrupts() == agent.pending_interrupts()


def test_a_later_minor_drops_what_2_1_does_not_define() -> None:
    # ROC-VER-007: members a later minor adds are ignored, also inside the 2.1 members
    _, agent, doc = _paused_with_decision()
    doc["schemaVersion"] = "2.4"
    _stored(doc)["decisionNote"] = "later"
    doc["interruptState"]["consumedBy"] = "later"
    assert _loader_code(doc) is None
    assert pending_interrupts_of(doc) == agent.pending_interrupts()
    completed = _completed_with_consumed()
    completed["schemaVersion"] = "2.4"
    completed["interruptState"]["consumed"][0]["when"] = "later"
    assert _loader_code(completed) is None
    for later in (doc, completed):  # the same members are unknown (invalid) in a 2.1 document
        later["schemaVersion"] = "2.1"
        assert _loader_code(later) == ErrorCode.SNAPSHOT_INVALID.value


def test_listing_a_stored_document_reports_the_loader_error() -> None:
    # ROC-PENDING-004: a document the loader refuses is refused with the same code
    _, _, doc = _paused_with_decision()
    doc["schemaVersion"] = "3.0"
    with pytest.raises(RocError) as info:
        pending_interrupts_of(doc)
    assert info.value.code == ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED
    with pytest.raises(RocError) as info:
        pending_interrupts_of("{not json")
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID


def test_listing_changes_nothing() -> None:
    # ROC-PENDING-003: no hook, no model, no tool, no revision
    world, agent, _ = _paused_with_decision()
    before = agent.take_snapshot()
    events = len(world.tracer.events)
    for _ in range(3):
        agent.pending_interrupts()
    after = agent.take_snapshot()
    before.pop("createdAt")
    after.pop("createdAt")
    assert after == before
    assert len(world.tracer.events) == events
    assert agent.revision == 0
