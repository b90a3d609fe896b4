"""Structured questions in the reference runtime (profile questions, spec chapter 15): the question API of
tool bodies and hook callbacks, the derived answer schema, answer validation, and the built-in ``ask_user``
tool."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from refsupport import Callbacks, answer, assert_schema_valid, frozen, text, use
from roc_reference import (
    DECLINE_TEXT,
    Agent,
    AgentResult,
    BeforeToolCallEvent,
    ConcurrentExecutor,
    ScriptedModel,
    ToolContext,
    answer_schema,
    ask_user,
    tool,
)
from roc_reference.errors import ErrorCode, RocError
from roc_reference.questions import ask_user_input_problem, question_problem
from roc_reference.schemas import subset_problem

ENV = {
    "question": "Which environment should I deploy to?",
    "header": "Environment",
    "options": [{"label": "staging", "description": "the test cluster"}, {"label": "production"}],
}
# spec 15.2's example, written out by hand: the derivation must give exactly this.
ENV_SCHEMA = {
    "type": "object",
    "properties": {
        "selected": {
            "type": "array",
            "items": {"enum": ["staging", "production"]},
            "uniqueItems": True,
            "minItems": 1,
            "maxItems": 1,
        }
    },
    "required": ["selected"],
    "minProperties": 1,
    "additionalProperties": False,
}
FILES = {
    "question": "Which files?",
    "options": [{"label": "a.txt"}, {"label": "b.txt"}, {"label": "c.txt"}],
    "multiSelect": True,
    "allowOther": True,
}


def _asking_agent(question: Any, **ask_kwargs: Any) -> Agent:
    @tool
    def deploy(tool_context: ToolContext) -> Any:
        return tool_context.ask("env", question, **ask_kwargs)

    model = ScriptedModel([[text("deploying"), use("t1", "deploy")], [text("done")]])
    return Agent(model, tools=[deploy])


def _result_json(agent: Agent, tool_use_id: str = "t1") -> Any:
    for message in agent.messages:
        for block in message.to_json()["content"]:
            result = block.get("toolResult")
            if result is not None and result["toolUseId"] == tool_use_id:
                return result
    raise AssertionError(f"no result for {tool_use_id}")


# --- 15.2: the question interrupt --------------------------------------------------------------------------


@pytest.mark.req("ROC-ASK-001", "ROC-ASK-003")
def test_a_question_is_reported_with_the_question_its_kind_and_its_derived_schema() -> None:
    agent = _asking_agent(ENV, metadata={"x-app": {"urgent": True}})
    first = agent("go")
    (raised,) = first.interrupts
    doc = raised.to_json()
    assert doc["name"] == "env"
    assert doc["reason"] == ENV  # unchanged: no defaults filled in
    assert doc["metadata"] == {"x-app": {"urgent": True}, "kind": "question"}
    assert doc["responseSchema"] == ENV_SCHEMA
    assert_schema_valid("interrupt", doc)
    # the same in the pending list and the snapshot (ROC-ASK-001: every report of it)
    (pending,) = agent.pending_interrupts()
    assert pending == doc
    (stored,) = agent.take_snapshot()["interruptState"]["interrupts"]
    assert {k: stored[k] for k in ("reason", "metadata", "responseSchema")} == {
        "reason": ENV,
        "metadata": doc["metadata"],
        "responseSchema": ENV_SCHEMA,
    }


@pytest.mark.req("ROC-ASK-001")
def test_a_question_without_raiser_metadata_has_only_its_kind() -> None:
    (raised,) = _asking_agent(ENV)("go").interrupts
    assert raised.to_json()["metadata"] == {"kind": "question"}


@pytest.mark.req("ROC-ASK-003")
@pytest.mark.parametrize(
    ("flags", "selected_extra", "other", "required"),
    [
        ({}, {"maxItems": 1}, False, True),
        ({"multiSelect": False, "allowOther": False}, {"maxItems": 1}, False, True),
        ({"multiSelect": True}, {}, False, True),
        ({"allowOther": True}, {"maxItems": 1}, True, False),
        ({"multiSelect": True, "allowOther": True}, {}, True, False),
    ],
)
def test_the_answer_schema_is_the_chapters_function(
    flags: dict[str, bool], selected_extra: dict[str, Any], other: bool, required: bool
) -> None:
    question = {"question": "q?", "options": [{"label": "x"}, {"label": "y", "description": "why"}], **flags}
    properties: dict[str, Any] = {
        "selected": {
            "type": "array",
            "items": {"enum": ["x", "y"]},
            "uniqueItems": True,
            "minItems": 1,
            **selected_extra,
        }
    }
    if other:
        properties["other"] = {"type": "string", "minLength": 1}
    want: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "minProperties": 1,
        "additionalProperties": False,
    }
    if required:
        want["required"] = ["selected"]
    assert answer_schema(question) == want
    assert subset_problem(want) is None  # the derived schema is in the portable subset (spec 15.2)


@pytest.mark.req("ROC-ASK-001", "ROC-ASK-003")
def test_a_hook_callback_asks_the_same_way() -> None:
    def gate(event: BeforeToolCallEvent) -> None:
        got = event.ask("confirm", ENV)
        if got != {"selected": ["staging"]}:
            event.cancel_tool = "not staging"

    @tool
    def deploy() -> str:
        return "deployed"

    model = ScriptedModel([[use("t1", "deploy")], [text("done")]])
    agent = Agent(model, tools=[deploy], hooks=[Callbacks((BeforeToolCallEvent, gate))])
    (raised,) = agent("go").interrupts
    assert raised.source.kind == "before_tool_call"
    assert raised.to_json()["metadata"] == {"kind": "question"}
    assert raised.to_json()["responseSchema"] == ENV_SCHEMA
    out = agent([answer(raised.id, {"selected": ["staging"]})])
    assert out.stop_reason == "end_turn"
    assert _result_json(agent)["content"] == [{"text": "deployed"}]


# --- ROC-ASK-002: a malformed question ----------------------------------------------------------------------

BAD_QUESTIONS: list[tuple[str, Any]] = [
    ("not an object", "Which?"),
    ("no question", {"options": [{"label": "x"}]}),
    ("empty question", {"question": "", "options": [{"label": "x"}]}),
    ("no options", {"question": "q?", "options": []}),
    ("nine options", {"question": "q?", "options": [{"label": str(n)} for n in range(9)]}),
    ("duplicate label", {"question": "q?", "options": [{"label": "x"}, {"label": "x"}]}),
    ("empty label", {"question": "q?", "options": [{"label": ""}]}),
    ("option not an object", {"question": "q?", "options": ["x"]}),
    ("unknown option member", {"question": "q?", "options": [{"label": "x", "value": 1}]}),
    ("description not a string", {"question": "q?", "options": [{"label": "x", "description": 3}]}),
    ("empty header", {"question": "q?", "header": "", "options": [{"label": "x"}]}),
    ("long header", {"question": "q?", "header": "h" * 33, "options": [{"label": "x"}]}),
    ("multiSelect not a boolean", {"question": "q?", "options": [{"label": "x"}], "multiSelect": "yes"}),
    ("allowOther not a boolean", {"question": "q?", "options": [{"label": "x"}], "allowOther": 1}),
    ("unknown member", {"question": "q?", "options": [{"label": "x"}], "default": "x"}),
]


@pytest.mark.req("ROC-ASK-002")
@pytest.mark.parametrize(("label", "question"), BAD_QUESTIONS, ids=[label for label, _ in BAD_QUESTIONS])
def test_a_malformed_question_fails_the_raise_with_invalid_reason(label: str, question: Any) -> None:
    agent = _asking_agent(question)
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON, label
    assert not agent.is_interrupted
    assert agent.pending_interrupts() == []
    assert frozen(agent)["interruptState"] == before["interruptState"]


@pytest.mark.req("ROC-ASK-002")
def test_a_header_of_32_characters_is_a_header() -> None:
    assert question_problem({"question": "q?", "header": "h" * 32, "options": [{"label": "x"}]}) is None


@pytest.mark.req("ROC-ASK-002")
def test_raiser_metadata_with_another_kind_is_invalid_reason() -> None:
    agent = _asking_agent(ENV, metadata={"kind": "approval"})
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON
    assert not agent.is_interrupted


@pytest.mark.req("ROC-ASK-002")
def test_a_body_that_swallows_the_refusal_still_fails() -> None:
    @tool
    def sneaky(tool_context: ToolContext) -> str:
        with contextlib.suppress(RocError):
            tool_context.ask("q", {"question": "q?", "options": []})
        return "went on"

    agent = Agent(ScriptedModel([[use("t1", "sneaky")], [text("done")]]), tools=[sneaky])
    with pytest.raises(RocError) as info:
        agent("go")
    assert info.value.code == ErrorCode.INVALID_REASON


# --- 15.3: the answer ------------------------------------------------------------------------------------


BAD_ANSWERS: list[tuple[str, Any, str]] = [
    ("a label that is not an option", {"selected": ["qa"]}, "/selected/0"),
    ("two labels for a single choice", {"selected": ["staging", "production"]}, "/selected"),
    ("an empty selection", {"selected": []}, "/selected"),
    ("other without allowOther", {"selected": ["staging"], "other": "x"}, "/other"),
    ("no selection", {}, ""),
    ("a bare label", "staging", ""),
]


@pytest.mark.req("ROC-ASK-004")
@pytest.mark.parametrize(
    ("label", "response", "path"), BAD_ANSWERS, ids=[label for label, _, _ in BAD_ANSWERS]
)
def test_an_answer_outside_the_question_is_invalid_response(label: str, response: Any, path: str) -> None:
    agent = _asking_agent(ENV)
    (raised,) = agent("go").interrupts
    before = frozen(agent)
    with pytest.raises(RocError) as info:
        agent([answer(raised.id, response)])
    assert info.value.code == ErrorCode.INVALID_RESPONSE, label
    assert info.value.details["interruptId"] == raised.id
    assert info.value.details["path"] == path
    assert frozen(agent) == before


@pytest.mark.req("ROC-ASK-004", "ROC-ASK-005")
@pytest.mark.parametrize(
    "response",
    [
        {"selected": ["c.txt", "a.txt"]},
        {"selected": ["b.txt"], "other": "and the logs"},
        {"other": "neither: wait until Monday"},
    ],
)
def test_an_answer_the_schema_accepts_reaches_the_raiser_unchanged(response: Any) -> None:
    agent = _asking_agent(FILES)
    (raised,) = agent("go").interrupts
    out = agent([answer(raised.id, copy.deepcopy(response))])
    assert out.stop_reason == "end_turn"
    assert _result_json(agent)["content"] == [{"json": response}]


@pytest.mark.req("ROC-ASK-004")
def test_other_alone_is_refused_without_allow_other_and_an_unknown_member_always() -> None:
    agent = _asking_agent(FILES)
    (raised,) = agent("go").interrupts
    with pytest.raises(RocError) as info:
        agent([answer(raised.id, {"selected": ["a.txt"], "why": "x"})])
    assert info.value.code == ErrorCode.INVALID_RESPONSE
    assert info.value.details["path"] == "/why"
    with pytest.raises(RocError) as info:
        agent([answer(raised.id, {"other": ""})])
    assert info.value.details["path"] == "/other"


@pytest.mark.req("ROC-ASK-005")
def test_the_answer_survives_a_restore() -> None:
    agent = _asking_agent(ENV)
    (raised,) = agent("go").interrupts
    doc = agent.take_snapshot()

    @tool
    def deploy(tool_context: ToolContext) -> Any:
        return tool_context.ask("env", ENV)

    restored = Agent.from_snapshot(
        doc, model=ScriptedModel([[use("t1", "deploy")], [text("done")]]), tools=[deploy]
    )
    assert restored.pending_interrupts()[0]["responseSchema"] == ENV_SCHEMA
    out = restored([answer(raised.id, {"selected": ["production"]})])
    assert out.stop_reason == "end_turn"
    assert _result_json(restored)["content"] == [{"json": {"selected": ["production"]}}]


# --- 15.4: ask_user -----------------------------------------------------------------------------------------

KEEP = {"question": "Keep backups?", "options": [{"label": "yes"}, {"label": "no"}]}


def _model_asks(tool_input: Any, *, executor: str = "sequential") -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel([[text("let me ask"), use("t1", "ask_user", **tool_input)], [text("thanks")]])
    extra: dict[str, Any] = {"executor": ConcurrentExecutor()} if executor == "concurrent" else {}
    return Agent(model, tools=[ask_user], **extra), model


def _by_name(result: AgentResult) -> dict[str, Any]:
    return {i.name: i for i in result.interrupts}


@pytest.mark.req("ROC-ASK-006")
@pytest.mark.parametrize("executor", ["sequential", "concurrent"])
def test_ask_user_raises_every_question_in_one_stop(executor: str) -> None:
    agent, _ = _model_asks({"questions": [FILES, KEEP, ENV]}, executor=executor)
    first = agent("go")
    assert first.stop_reason == "interrupt"
    assert [i.name for i in first.interrupts] == ["q1", "q2", "q3"]
    for raised, question in zip(first.interrupts, (FILES, KEEP, ENV), strict=True):
        doc = raised.to_json()
        assert doc["reason"] == question
        assert doc["metadata"] == {"kind": "question"}
        assert doc["responseSchema"] == answer_schema(question)
        assert doc["source"] == {"kind": "tool", "toolUseId": "t1", "toolName": "ask_user"}
    assert len({i.id for i in first.interrupts}) == 3


@pytest.mark.req("ROC-ASK-006", "ROC-ASK-007")
def test_a_partial_answer_asks_the_rest_again_with_the_same_ids() -> None:
    agent, model = _model_asks({"questions": [FILES, KEEP, ENV]})
    first = _by_name(agent("go"))
    second = agent([answer(first["q2"].id, {"selected": ["no"]})])
    assert second.stop_reason == "interrupt"
    assert [(i.name, i.id) for i in second.interrupts] == [("q1", first["q1"].id), ("q3", first["q3"].id)]
    assert model.calls == 1  # the batch is not complete: the model is not called
    done = agent(
        [answer(first["q3"].id, {"selected": ["staging"]}), answer(first["q1"].id, {"other": "all logs"})]
    )
    assert done.stop_reason == "end_turn"
    result = _result_json(agent)
    assert result["status"] == "success"
    assert result["content"] == [
        {"json": {"answers": [{"other": "all logs"}, {"selected": ["no"]}, {"selected": ["staging"]}]}}
    ]


@pytest.mark.req("ROC-ASK-007")
def test_the_model_reads_the_answers_in_its_next_call() -> None:
    agent, model = _model_asks({"questions": [KEEP]})
    (raised,) = agent("go").interrupts
    agent([answer(raised.id, {"selected": ["yes"]})])
    assert model.calls == 2
    user = agent.messages[-2].to_json()
    assert user["role"] == "user"
    assert user["content"] == [
        {
            "toolResult": {
                "toolUseId": "t1",
                "status": "success",
                "content": [{"json": {"answers": [{"selected": ["yes"]}]}}],
            }
        }
    ]


BAD_INPUTS: list[tuple[str, Any, str]] = [
    ("no questions member", {}, "questions"),
    ("an unknown member", {"questions": [KEEP], "why": "x"}, "why"),
    ("an empty list", {"questions": []}, "questions"),
    ("five questions", {"questions": [KEEP] * 5}, "questions"),
    ("a question that is a string", {"questions": ["Keep backups?"]}, "questions[0]"),
    (
        "a duplicate label",
        {"questions": [KEEP, {"question": "q", "options": [{"label": "a"}] * 2}]},
        "questions[1]",
    ),
    (
        "a huge question",
        {"questions": [{"question": "x" * 300_000, "options": [{"label": "a"}]}]},
        "too large",
    ),
]


@pytest.mark.req("ROC-ASK-008")
@pytest.mark.parametrize(
    ("label", "tool_input", "named"), BAD_INPUTS, ids=[label for label, _, _ in BAD_INPUTS]
)
def test_an_invalid_ask_user_input_gives_an_error_result_and_raises_nothing(
    label: str, tool_input: Any, named: str
) -> None:
    agent, model = _model_asks(tool_input)
    out = agent("go")
    assert out.stop_reason == "end_turn", label
    result = _result_json(agent)
    assert result["status"] == "error"
    ((only,),) = [result["content"]]
    assert named in only["text"]
    assert "ask_user" in only["text"]
    assert model.calls == 2  # the batch went on as after a tool failure


@pytest.mark.req("ROC-ASK-009")
@pytest.mark.parametrize("decided", ["q1", "q2"])
def test_a_declined_question_gives_the_decision_text_and_withdraws_the_rest(decided: str) -> None:
    agent, _ = _model_asks({"questions": [FILES, KEEP, ENV]})
    first = _by_name(agent("go"))
    body = {"interruptId": first[decided].id, "decision": "decline"}
    out = agent([{"interruptResponse": body}])
    assert out.stop_reason == "end_turn"
    assert agent.pending_interrupts() == []
    assert _result_json(agent)["content"] == [{"text": DECLINE_TEXT}]
    assert _result_json(agent)["status"] == "error"


@pytest.mark.req("ROC-ASK-009")
def test_the_first_decided_question_in_order_gives_the_text() -> None:
    agent, _ = _model_asks({"questions": [FILES, KEEP]})
    first = _by_name(agent("go"))
    out = agent(
        [
            {"interruptResponse": {"interruptId": first["q2"].id, "decision": "cancel", "message": "later"}},
            {"interruptResponse": {"interruptId": first["q1"].id, "decision": "decline", "message": "no"}},
        ]
    )
    assert out.stop_reason == "end_turn"
    assert _result_json(agent)["content"] == [{"text": "no"}]


@pytest.mark.req("ROC-ASK-006")
def test_ask_user_is_a_tool_the_application_opts_into() -> None:
    model = ScriptedModel([[use("t1", "ask_user", questions=[KEEP])], [text("ok")]])
    agent = Agent(model, tools=[])
    out = agent("go")
    assert out.stop_reason == "end_turn"
    assert _result_json(agent)["status"] == "error"  # an unknown tool (ROC-TOOL-009): nothing asked


# --- the schema corpus and the reference agree ----------------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"


@pytest.mark.req("ROC-ASK-002", "ROC-ASK-008")
@pytest.mark.parametrize(
    "path",
    sorted((EXAMPLES / "Question").glob("*/*.json")) + sorted((EXAMPLES / "AskUserInput").glob("*/*.json")),
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}",
)
def test_the_reference_reads_the_examples_as_the_schemas_and_rules_do(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    problem = question_problem(doc) if path.parent.parent.name == "Question" else ask_user_input_problem(doc)
    assert (problem is None) == (path.parent.name == "valid"), problem


@pytest.mark.req("ROC-ASK-006", "ROC-ASK-007")
def test_ask_user_resumes_after_a_restore() -> None:
    agent, _ = _model_asks({"questions": [FILES, KEEP]})
    first = _by_name(agent("go"))
    doc = agent.take_snapshot()
    model = ScriptedModel(
        [[text("let me ask"), use("t1", "ask_user", questions=[FILES, KEEP])], [text("thanks")]]
    )
    restored = Agent.from_snapshot(doc, model=model, tools=[ask_user])
    partial = restored([answer(first["q1"].id, {"selected": ["a.txt"]})])
    assert [(i.name, i.id) for i in partial.interrupts] == [("q2", first["q2"].id)]
    done = restored([answer(first["q2"].id, {"selected": ["no"]})])
    assert done.stop_reason == "end_turn"
    assert _result_json(restored)["content"] == [
        {"json": {"answers": [{"selected": ["a.txt"]}, {"selected": ["no"]}]}}
    ]
