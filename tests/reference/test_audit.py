"""Audit (profile audit, spec 10.7): who answered and when, checked, kept, shown to the guard."""

from __future__ import annotations

from typing import Any

import pytest
from refsupport import assert_schema_valid, frozen, text, use
from roc_reference import Agent, ConcurrentExecutor, Graph, ScriptedModel, ToolContext, tool
from roc_reference.errors import ErrorCode, RocError
from roc_reference.snapshot import parse_snapshot

RUNS: list[Any] = []
BOB = {"answeredBy": "bob"}
WHO = {"answeredBy": "alice@example.com", "answeredAt": "2026-12-06T06:30:00+01:00", "x-acme-channel": "web"}


@tool
def ask(tool_context: ToolContext, q: str) -> Any:
    got = tool_context.interrupt(q)
    RUNS.append(got)
    return got


def block(interrupt_id: str, response: Any = "yes", metadata: Any = None, **rest: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"interruptId": interrupt_id, **rest}
    if "decision" not in rest:
        body["response"] = response
    if metadata is not None:
        body["metadata"] = metadata
    return {"interruptResponse": body}


def two_questions(**agent_options: Any) -> tuple[Agent, list[str]]:
    """An agent paused at q0 and q1 (one batch, run concurrently: both bodies ask)."""
    RUNS.clear()
    model = ScriptedModel([[use("t0", "ask", q="q0"), use("t1", "ask", q="q1")], [text("done")]] * 2)
    agent = Agent(model, tools=[ask], executor=ConcurrentExecutor(), **agent_options)
    result = agent("go")
    return agent, [i.id for i in result.interrupts]


def stored(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in doc["interruptState"]["interrupts"]}


def refused(agent: Agent, prompt: Any) -> RocError:
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent(prompt)
    assert frozen(agent) == before
    assert_schema_valid("error", info.value.to_json())
    return info.value


# --- ROC-AUDIT-001/002: the registered keys are checked -----------------------------------------


@pytest.mark.req("ROC-AUDIT-001")
@pytest.mark.parametrize("who", ["", 7, None, True, ["alice"], {"name": "alice"}, "a" * 257])
def test_malformed_answered_by_is_invalid_response(who: Any) -> None:
    agent, ids = two_questions()
    error = refused(agent, [block(ids[0], metadata={"answeredBy": who})])
    assert error.code == ErrorCode.INVALID_RESPONSE
    assert error.details == {"interruptId": ids[0], "path": "/metadata/answeredBy"}
    assert RUNS == []  # no body got an answer


@pytest.mark.req("ROC-AUDIT-001")
@pytest.mark.parametrize("who", ["a", "a" * 256, "é" * 256, "\U0001f600" * 256])
def test_answered_by_up_to_256_characters_is_accepted(who: str) -> None:
    agent, ids = two_questions()
    result = agent([block(ids[0], metadata={"answeredBy": who})])
    assert result.stop_reason == "interrupt"
    assert stored(agent.take_snapshot())[ids[0]]["responseMetadata"] == {"answeredBy": who}


@pytest.mark.req("ROC-AUDIT-002")
@pytest.mark.parametrize(
    "when",
    [
        "2026-12-06T06:30:00",  # no zone
        "2026-12-06",
        "2026-13-06T06:30:00Z",  # month 13
        "2026-12-06T25:00:00Z",
        "2026-12-06T06:30:00+25:00",
        "yesterday",
        "",
        1765000000,
        None,
    ],
)
def test_malformed_answered_at_is_invalid_response(when: Any) -> None:
    agent, ids = two_questions()
    error = refused(agent, [block(ids[1], metadata={"answeredBy": "bob", "answeredAt": when})])
    assert error.code == ErrorCode.INVALID_RESPONSE
    assert error.details == {"interruptId": ids[1], "path": "/metadata/answeredAt"}


@pytest.mark.req("ROC-AUDIT-002")
@pytest.mark.parametrize(
    "when", ["2026-12-06T06:30:00Z", "2026-12-06t06:30:00.123456-05:30", "2016-12-31T23:59:60Z"]
)
def test_rfc3339_answered_at_is_accepted(when: str) -> None:
    agent, ids = two_questions()
    assert agent([block(ids[0], metadata={"answeredAt": when})]).stop_reason == "interrupt"


@pytest.mark.req("ROC-AUDIT-001", "ROC-AUDIT-002")
def test_decisions_are_checked_too_and_the_rank_is_invalid_response() -> None:
    agent, ids = two_questions()
    decline = block(ids[0], decision="decline", metadata={"answeredBy": ""})
    # INVALID_RESPONSE ranks before DUPLICATE_RESPONSE and UNKNOWN_INTERRUPT (ROC-RESUME-014) ...
    for extra in ([block(ids[1]), block(ids[1])], [block("roc1:nope")]):
        assert refused(agent, [decline, *extra]).code == ErrorCode.INVALID_RESPONSE
    # ... and after INVALID_RESUME (a malformed block).
    malformed = {"interruptResponse": {"interruptId": ids[1], "response": 1, "bogus": 2}}
    assert refused(agent, [decline, malformed]).code == ErrorCode.INVALID_RESUME


# --- ROC-AUDIT-003/004: kept with the answer, in snapshots, never given to the unit --------------


@pytest.mark.req("ROC-AUDIT-003", "ROC-RESUME-015")
def test_metadata_is_kept_with_the_answer_and_survives_restore() -> None:
    agent, ids = two_questions()
    agent([block(ids[0], "A", WHO)])
    assert RUNS == ["A"]  # the unit got the response alone
    doc = agent.take_snapshot()
    assert doc["schemaVersion"] == "2.3"
    assert_schema_valid("snapshot", doc)
    assert stored(doc)[ids[0]]["responseMetadata"] == WHO
    assert "responseMetadata" not in stored(doc)[ids[1]]
    # The pending list keeps the form of ROC-PENDING-002 (decision recorded in spec 10.7).
    assert all("responseMetadata" not in e for e in agent.pending_interrupts())
    RUNS.clear()
    model = ScriptedModel([[text("done")]])
    restored = Agent.from_snapshot(doc, model=model, tools=[ask], executor=ConcurrentExecutor())
    again = restored.take_snapshot()
    assert stored(again) == stored(doc)  # JSON-equal after restore
    assert restored([block(ids[1], "B")]).stop_reason == "end_turn"
    assert RUNS == ["B"]  # t0 completed at the first resume; its result is kept


@pytest.mark.req("ROC-AUDIT-003")
def test_metadata_of_a_decision_is_kept() -> None:
    agent, ids = two_questions()
    agent([block(ids[0], decision="cancel", message="no", metadata=WHO)])
    entry = stored(agent.take_snapshot())[ids[0]]
    assert entry["decision"] == "cancel"
    assert entry["responseMetadata"] == WHO


@pytest.mark.req("ROC-AUDIT-003", "ROC-SEC-016")
def test_kept_metadata_is_a_private_copy() -> None:
    agent, ids = two_questions()
    mine = {"answeredBy": "carol", "x-acme-tags": ["a"]}
    agent([block(ids[0], metadata=mine)])
    mine["answeredBy"] = "mallory"
    mine["x-acme-tags"].append("b")
    doc = agent.take_snapshot()
    stored(doc)[ids[0]]["responseMetadata"]["answeredBy"] = "eve"
    kept = stored(agent.take_snapshot())[ids[0]]["responseMetadata"]
    assert kept == {"answeredBy": "carol", "x-acme-tags": ["a"]}


@pytest.mark.req("ROC-AUDIT-004")
def test_kept_metadata_is_consumed_with_the_batch() -> None:
    seen: list[Any] = []

    def guard(interrupts: list[Any], responses: list[Any], kept: list[Any]) -> None:
        seen.append([r.interrupt_id for r in kept])

    agent, ids = two_questions(resume_guard=guard)
    agent([block(ids[0], metadata=WHO)])
    agent([block(ids[1], metadata=WHO)])
    doc = agent.take_snapshot()
    assert doc["interruptState"]["interrupts"] == []
    assert "responseMetadata" not in str(doc)
    second = agent("again")  # a new batch: nothing of the old answers' metadata is kept
    agent([block(i.id) for i in second.interrupts])
    assert seen == [[], [ids[0]], []]


# --- ROC-AUDIT-005/006: the guard sees it; the runtime never decides on it ----------------------


@pytest.mark.req("ROC-AUDIT-005", "ROC-SEC-001")
def test_guard_sees_blocks_with_metadata_and_decision_and_the_kept_answers() -> None:
    calls: list[Any] = []

    def guard(interrupts: list[Any], responses: list[Any], kept: list[Any]) -> None:
        calls.append(
            (
                [i.id for i in interrupts],
                [r.to_json() for r in responses],
                [r.to_json() for r in kept],
            )
        )

    agent, ids = two_questions(resume_guard=guard)
    agent([block(ids[0], "A", WHO)])
    agent([block(ids[1], decision="decline", message="later", metadata=BOB)])
    first, second = calls
    assert first == ([ids[0]], [{"interruptId": ids[0], "response": "A", "metadata": WHO}], [])
    assert second == (
        [ids[1]],
        [{"interruptId": ids[1], "decision": "decline", "message": "later", "metadata": BOB}],
        [{"interruptId": ids[0], "response": "A", "metadata": WHO}],
    )


@pytest.mark.req("ROC-AUDIT-005", "ROC-SEC-001")
def test_a_two_parameter_guard_keeps_working_and_sees_metadata() -> None:
    seen: list[Any] = []

    def guard(interrupts: list[Any], responses: list[Any]) -> None:
        seen.extend(r.metadata for r in responses)

    agent, ids = two_questions(resume_guard=guard)
    agent([block(ids[0], metadata=WHO), block(ids[1])])
    assert seen == [WHO, None]


@pytest.mark.req("ROC-AUDIT-006", "ROC-SEC-001")
def test_metadata_alone_grants_and_refuses_nothing_the_guard_decides() -> None:
    def outcome(metadata: Any, guard: Any = None) -> Any:
        agent, ids = two_questions(**({} if guard is None else {"resume_guard": guard}))
        try:
            result = agent([block(i, "ok", metadata) for i in ids])
        except RocError as error:
            return error.code
        except PermissionError:
            return "refused by the guard"
        return result.stop_reason, list(RUNS)

    # Without a guard, who claims to have answered changes nothing: not an "admin", not an unknown name.
    plain = outcome(None)
    assert plain == ("end_turn", ["ok", "ok"])
    for metadata in ({"answeredBy": "admin"}, {"answeredBy": "nobody"}, {"x-role": "root"}):
        assert outcome(metadata) == plain

    # The application's guard, which authenticated the caller by its own means, decides.
    def only_alice(interrupts: list[Any], responses: list[Any]) -> None:
        if any((r.metadata or {}).get("answeredBy") != "alice" for r in responses):
            raise PermissionError("only alice approves")

    assert outcome({"answeredBy": "alice"}, only_alice) == plain
    assert outcome({"answeredBy": "bob"}, only_alice) == "refused by the guard"


# --- format 2.3 in the loader ---------------------------------------------------------------------


def _answered_doc() -> dict[str, Any]:
    agent, ids = two_questions()
    agent([block(ids[0], metadata=WHO)])
    return agent.take_snapshot()


@pytest.mark.req("ROC-AUDIT-003", "ROC-VER-008")
def test_loader_refuses_response_metadata_in_documents_before_2_3() -> None:
    doc = _answered_doc()
    for version in ("2.0", "2.1", "2.2"):
        old = {**doc, "schemaVersion": version}
        if version == "2.0":  # keep only what 2.0 has, so responseMetadata is the one later member
            old = {**old, "interruptState": {**doc["interruptState"]}}
            old["interruptState"].pop("consumed", None)
        with pytest.raises(RocError) as info:
            parse_snapshot(old)
        assert info.value.code == ErrorCode.SNAPSHOT_INVALID
        assert "responseMetadata" in str(info.value.details)


@pytest.mark.req("ROC-AUDIT-003")
@pytest.mark.parametrize("bad", ["unanswered", "null", "not-an-object"])
def test_loader_refuses_malformed_response_metadata(bad: str) -> None:
    doc = _answered_doc()
    entries = doc["interruptState"]["interrupts"]
    answered = next(e for e in entries if "response" in e)
    waiting = next(e for e in entries if "response" not in e)
    if bad == "unanswered":
        waiting["responseMetadata"] = {"answeredBy": "x"}
    else:
        answered["responseMetadata"] = None if bad == "null" else ["x"]
    with pytest.raises(RocError) as info:
        parse_snapshot(doc)
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID


def test_a_later_minor_keeps_reading_2_3_members() -> None:
    doc = {**_answered_doc(), "schemaVersion": "2.9"}
    assert parse_snapshot(doc).interrupt_state.interrupts[0].response_metadata == WHO


# --- one level down: sub-agents and node agents get the metadata with their answers -----------------


def _guarded_asker(agent_id: str, seen: list[Any]) -> Agent:
    def guard(interrupts: list[Any], responses: list[Any]) -> None:
        seen.extend(r.metadata for r in responses)

    model = ScriptedModel([[use("i1", "ask", q="inner")], [text("inner done")]])
    return Agent(model, tools=[ask], agent_id=agent_id, resume_guard=guard)


@pytest.mark.req("ROC-AUDIT-003", "ROC-AUDIT-005")
def test_a_sub_agent_gets_the_metadata_with_its_routed_answer() -> None:
    seen: list[Any] = []
    helper = _guarded_asker("helper", seen)
    outer = Agent(
        ScriptedModel([[use("t1", "helper", prompt="help")], [text("done")]]), tools=[helper.as_tool()]
    )
    [wrapped] = outer("go").interrupts
    assert outer([block(wrapped.id, "yes", WHO)]).stop_reason == "end_turn"
    assert seen == [WHO]


@pytest.mark.req("ROC-AUDIT-003", "ROC-AUDIT-005")
def test_a_node_agent_gets_the_metadata_with_its_routed_answer() -> None:
    seen: list[Any] = []
    graph = Graph({"b": _guarded_asker("agent-b", seen)}, [])
    [wrapped] = graph.invoke("task").interrupts
    assert graph.invoke([block(wrapped.id, "yes", WHO)]).stop_reason == "completed"
    assert seen == [WHO]
