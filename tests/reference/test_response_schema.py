"""The reference runtime's response schemas (spec chapter 14, profile response-schema): the shared vectors,
the raise APIs' ``response_schema`` keyword, validation of answers at resume and the renderable subset."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    ToolContext,
    tool,
)
from roc_reference.errors import (
    ExpiredError,
    InvalidReasonError,
    InvalidResponseError,
    RocError,
    UnknownInterruptError,
)
from roc_reference.interrupts import (
    AnswerBook,
    InterruptRaised,
    InterruptState,
    RaisePoint,
    StoredInterrupt,
    UnitRun,
)
from roc_reference.schemas import ASSERTIONS, KEYWORDS, answer_errors, is_renderable, subset_problem

VECTORS_FILE = Path(__file__).resolve().parents[2] / "spec" / "examples" / "response-schema" / "vectors.json"
VECTORS: list[dict[str, Any]] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))["vectors"]
ACCEPTED = [v for v in VECTORS if not v.get("refused")]
REFUSED = [v for v in VECTORS if v.get("refused")]

FORM = {
    "type": "object",
    "properties": {"env": {"enum": ["staging", "prod"]}, "replicas": {"type": "integer"}},
    "required": ["env", "replicas"],
    "additionalProperties": False,
}
"""The example of spec 14.4."""


def test_the_vectors_cover_every_keyword_of_the_subset() -> None:
    seen: set[str] = set()

    def walk(schema: Any) -> None:
        if isinstance(schema, dict):
            seen.update(schema)
            for key in ("items", "additionalProperties"):
                walk(schema.get(key))
            for sub in (schema.get("properties") or {}).values():
                walk(sub)

    for vector in ACCEPTED:
        walk(vector["schema"])
    assert seen >= KEYWORDS
    failing = {e["keyword"] for v in ACCEPTED for case in v["invalid"] for e in case["errors"]}
    assert failing == ASSERTIONS
    assert len(REFUSED) >= 10


@pytest.mark.req("ROC-SCHEMA-005")
@pytest.mark.parametrize("vector", ACCEPTED, ids=[v["description"] for v in ACCEPTED])
def test_the_vectors_verdicts_and_errors(vector: dict[str, Any]) -> None:
    assert subset_problem(vector["schema"]) is None
    for answer in vector["valid"]:
        assert answer_errors(vector["schema"], answer) == [], answer
    for case in vector["invalid"]:
        assert answer_errors(vector["schema"], case["answer"]) == case["errors"], case["answer"]


@pytest.mark.req("ROC-SCHEMA-002")
@pytest.mark.parametrize("vector", REFUSED, ids=[v["description"] for v in REFUSED])
def test_a_raise_with_a_schema_outside_the_subset_is_invalid_reason(vector: dict[str, Any]) -> None:
    assert subset_problem(vector["schema"]) is not None
    with pytest.raises(InvalidReasonError, match="responseSchema"):
        _unit().interrupt("q", response_schema=vector["schema"])


@pytest.mark.req("ROC-SCHEMA-002")
def test_a_schema_beyond_the_value_limits_is_invalid_reason() -> None:
    huge = {"type": "string", "enum": ["x" * 1000] * 2000}
    with pytest.raises(InvalidReasonError, match="responseSchema"):
        _unit().interrupt("q", response_schema=huge)


# --- the raise ---------------------------------------------------------------------------------------


def _unit() -> UnitRun:
    point = RaisePoint(kind="tool", batch_ordinal=1, tool_use_id="t1", tool_name="ask")
    return UnitRun(point, AnswerBook({}))


@pytest.mark.req("ROC-SCHEMA-001")
def test_a_raise_reports_the_schema_as_given_and_keeps_a_private_copy() -> None:
    given = copy.deepcopy(FORM)
    with pytest.raises(InterruptRaised) as caught:
        _unit().interrupt("q", response_schema=given)
    given["required"].append("changed after the raise")
    assert caught.value.interrupt.to_json()["responseSchema"] == FORM
    with pytest.raises(InterruptRaised) as plain:
        _unit().interrupt("q")
    assert "responseSchema" not in plain.value.interrupt.to_json()


@tool
def deploy(tool_context: ToolContext) -> Any:
    return {"answer": tool_context.interrupt("deploy", {"q": "where?"}, response_schema=FORM)}


def _agent() -> Agent:
    turns = [[{"toolUse": {"toolUseId": "t1", "name": "deploy", "input": {}}}], [{"text": "done"}]]
    return Agent(ScriptedModel(turns), tools=[deploy])


def _state(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without its write time: what a rejected input must leave unchanged."""
    return {key: value for key, value in snapshot.items() if key != "createdAt"}


def _resume(interrupt_id: str, response: Any) -> list[dict[str, Any]]:
    return [{"interruptResponse": {"interruptId": interrupt_id, "response": response}}]


@pytest.mark.req("ROC-SCHEMA-001")
def test_the_schema_is_in_every_result_and_snapshot_of_the_batch() -> None:
    agent = _agent()
    first = agent("go")
    assert first.interrupts[0].to_json()["responseSchema"] == FORM
    doc = agent.take_snapshot()
    assert doc["interruptState"]["interrupts"][0]["responseSchema"] == FORM
    restored = Agent.from_snapshot(doc, model=ScriptedModel([[{"text": "done"}]]), tools=[deploy])
    assert restored.interrupts[0].to_json()["responseSchema"] == FORM


@pytest.mark.req("ROC-SCHEMA-003")
def test_a_valid_answer_reaches_the_unit_unchanged() -> None:
    agent = _agent()
    first = agent("go")
    answer = {"env": "prod", "replicas": 3}
    done = agent(_resume(first.interrupts[0].id, answer))
    assert done.stop_reason == "end_turn"
    (result,) = agent.messages[-2].tool_results()
    assert [c.to_json() for c in result.content] == [{"json": {"answer": answer}}]


@pytest.mark.req("ROC-SCHEMA-004", "ROC-SCHEMA-005")
def test_an_answer_that_fails_is_invalid_response_with_the_normalized_errors_and_nothing_is_stored() -> None:
    agent = _agent()
    first = agent("go")
    iid = first.interrupts[0].id
    before = agent.take_snapshot()
    with pytest.raises(InvalidResponseError) as caught:
        agent(_resume(iid, {"env": "dev", "note": "x"}))
    assert caught.value.details == {
        "interruptId": iid,
        "path": "/env",
        "errors": [
            {"path": "/env", "keyword": "enum"},
            {"path": "/note", "keyword": "additionalProperties"},
            {"path": "/replicas", "keyword": "required"},
        ],
    }
    assert _state(agent.take_snapshot()) == _state(before)
    assert agent.pending_interrupts()[0].get("answer") is None
    done = agent(_resume(iid, {"env": "staging", "replicas": 1}))  # still waiting: a right answer goes in
    assert done.stop_reason == "end_turn"


def _two_asks() -> Agent:
    @tool
    def a(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("a", response_schema={"type": "integer"})

    @tool
    def b(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("b")

    uses = [{"toolUse": {"toolUseId": f"t{n}", "name": name, "input": {}}} for n, name in enumerate("ab")]
    return Agent(ScriptedModel([uses, [{"text": "done"}]]), tools=[a, b], executor=ConcurrentExecutor())


@pytest.mark.req("ROC-SCHEMA-004")
def test_the_whole_input_is_rejected_when_one_answer_fails() -> None:
    agent = _two_asks()
    first = agent("go")
    ids = {i.name: i.id for i in first.interrupts}
    with pytest.raises(InvalidResponseError) as caught:
        agent([*_resume(ids["b"], "fine"), *_resume(ids["a"], "not a number")])
    assert caught.value.details["interruptId"] == ids["a"]
    assert all("answer" not in entry for entry in agent.pending_interrupts())


@pytest.mark.req("ROC-SCHEMA-006")
@pytest.mark.parametrize("decision", ["decline", "cancel"])
def test_a_decline_or_cancel_is_not_validated(decision: str) -> None:
    agent = _agent()
    first = agent("go")
    block = {"interruptResponse": {"interruptId": first.interrupts[0].id, "decision": decision}}
    done = agent([block])
    assert done.stop_reason == "end_turn"


@pytest.mark.req("ROC-SCHEMA-009")
def test_schema_faults_rank_after_unknown_interrupt_and_before_expired() -> None:
    schema_point = RaisePoint(kind="tool", batch_ordinal=1, tool_use_id="t1", tool_name="ask")
    with pytest.raises(InterruptRaised) as caught:
        UnitRun(schema_point, AnswerBook({})).interrupt(
            "q", response_schema={"type": "integer"}, expires_at="2000-01-01T00:00:00Z"
        )
    interrupt = caught.value.interrupt
    state = InterruptState(activated=True, interrupts={interrupt.id: StoredInterrupt(interrupt)})
    with pytest.raises(UnknownInterruptError):
        state.parse_resume([*_resume(interrupt.id, "x"), *_resume("nope", 1)])
    with pytest.raises(InvalidResponseError):
        state.parse_resume(_resume(interrupt.id, "x"))  # expired too, but the schema fault ranks first
    accepted = state.parse_resume(_resume(interrupt.id, 1))
    with pytest.raises(ExpiredError):
        state.check_expiry(accepted, datetime.now(UTC))


@pytest.mark.req("ROC-SCHEMA-007")
def test_a_restored_interrupt_validates_against_its_schema() -> None:
    agent = _agent()
    first = agent("go")
    iid = first.interrupts[0].id
    doc = agent.take_snapshot()
    restored = Agent.from_snapshot(doc, model=ScriptedModel([[{"text": "done"}]]), tools=[deploy])
    with pytest.raises(InvalidResponseError) as caught:
        restored(_resume(iid, {"env": "prod"}))
    assert caught.value.details["errors"] == [{"path": "/replicas", "keyword": "required"}]
    assert _state(restored.take_snapshot()) == _state(doc)
    assert restored(_resume(iid, {"env": "prod", "replicas": 2})).stop_reason == "end_turn"


@pytest.mark.req("ROC-SCHEMA-001", "ROC-SCHEMA-004")
def test_a_hook_callback_raises_with_a_schema_and_its_answers_are_validated() -> None:
    class Gate:
        def register_hooks(self, registry: HookRegistry, **_: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, self.check)

        def check(self, event: BeforeToolCallEvent) -> None:
            if event.interrupt("ok", response_schema={"type": "boolean"}) is not True:
                event.cancel_tool = "no"

    @tool
    def act() -> str:
        return "acted"

    turns = [[{"toolUse": {"toolUseId": "t1", "name": "act", "input": {}}}], [{"text": "done"}]]
    agent = Agent(ScriptedModel(turns), tools=[act], hooks=[Gate()])
    first = agent("go")
    assert first.interrupts[0].to_json()["responseSchema"] == {"type": "boolean"}
    with pytest.raises(InvalidResponseError) as caught:
        agent(_resume(first.interrupts[0].id, "yes"))
    assert caught.value.details["errors"] == [{"path": "", "keyword": "type"}]
    assert agent(_resume(first.interrupts[0].id, True)).stop_reason == "end_turn"


@pytest.mark.req("ROC-SCHEMA-002")
def test_a_tool_raising_a_schema_outside_the_subset_fails_the_invocation() -> None:
    @tool
    def bad(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("q", response_schema={"type": "string", "pattern": "^a"})

    turns = [[{"toolUse": {"toolUseId": "t1", "name": "bad", "input": {}}}], [{"text": "done"}]]
    agent = Agent(ScriptedModel(turns), tools=[bad])
    with pytest.raises(RocError) as caught:
        agent("go")
    assert caught.value.code == "INVALID_REASON"
    assert not agent.interrupts


# --- the renderable subset -------------------------------------------------------------------------


@pytest.mark.req("ROC-SCHEMA-008")
def test_renderable_forms() -> None:
    form = next(v["schema"] for v in ACCEPTED if v["description"].startswith("a form of primitives"))
    assert is_renderable(form)
    assert is_renderable({"type": "object", "properties": {}})
    assert is_renderable({"type": "object", "properties": {"b": {"type": "boolean", "title": "Sure?"}}})
    question = next(v["schema"] for v in ACCEPTED if v["description"] == "a question's answer schema")
    assert not is_renderable(question)  # items without a type, minProperties: drawn by metadata.kind
    for schema in [
        {"type": "string"},
        {"type": "object", "properties": {"o": {"type": "object"}}},
        {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}}}},
        {
            "type": "object",
            "properties": {"l": {"type": "array", "items": {"type": "string", "enum": ["a"]}}},
        },
        {"type": "object", "properties": {"s": {"type": "string"}}, "additionalProperties": True},
        {"type": "object", "properties": {"s": {"type": ["string", "null"]}}},
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "x"}}},
    ]:
        assert not is_renderable(schema), schema


@pytest.mark.req("ROC-SCHEMA-010")
def test_a_restored_schema_outside_the_subset_only_informs() -> None:
    foreign = {"type": "object", "properties": {"env": {"type": "string", "pattern": "^p"}}, "$ref": "#/x"}
    agent = _agent()
    first = agent("go")
    doc = agent.take_snapshot()
    doc["interruptState"]["interrupts"][0]["responseSchema"] = foreign
    restored = Agent.from_snapshot(doc, model=ScriptedModel([[{"text": "done"}]]), tools=[deploy])
    assert restored.interrupts[0].to_json()["responseSchema"] == foreign
    done = restored(_resume(first.interrupts[0].id, {"env": "staging", "anything": ["else"]}))
    assert done.stop_reason == "end_turn"
