"""Structured question checks (profile questions, spec chapter 15): the question interrupt, its derived answer
schema, answer validation, and the built-in ``ask_user`` tool. One check per requirement.

Every expectation is computed here from the scenario and the chapter's text (``derived_schema`` is the
chapter's function, written out again), never from the implementation's own output. Scenarios use the
``ask`` step (harness protocol 6) and ``AgentSpec.builtinTools: ["ask_user"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_text
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    DECLINE_TEXT,
    answer,
    decide,
    error_result,
    followed,
    ids_by_name,
    interrupts,
    one_tool,
    pause,
    resume,
    returned,
    shown,
    stop_reason,
    tool_results,
)
from roc_conformance.checks.snapshot_support import error_code, fail_if

# Requirement IDs (spec/15-questions.md); one place for renumbering.
ASK_REPORTED = "ROC-ASK-001"
ASK_REFUSED = "ROC-ASK-002"
ASK_SCHEMA = "ROC-ASK-003"
ASK_VALIDATED = "ROC-ASK-004"
ASK_DELIVERED = "ROC-ASK-005"
ASK_USER_STOP = "ROC-ASK-006"
ASK_USER_RESULT = "ROC-ASK-007"
ASK_USER_INPUT = "ROC-ASK-008"
ASK_USER_DECIDED = "ROC-ASK-009"

ASK_USER = "ask_user"
PROFILES = ("core", "questions")

ENV: dict[str, Any] = {
    "question": "Which environment should I deploy to?",
    "header": "Environment",
    "options": [{"label": "staging", "description": "the test cluster"}, {"label": "production"}],
}
FILES: dict[str, Any] = {
    "question": "Which files?",
    "options": [{"label": "a.txt"}, {"label": "b.txt"}, {"label": "c.txt"}],
    "multiSelect": True,
}
NOTE: dict[str, Any] = {
    "question": "Anything else?",
    "options": [{"label": "no"}],
    "allowOther": True,
}
BOTH: dict[str, Any] = {**FILES, "question": "Which logs?", "allowOther": True, "multiSelect": True}


def derived_schema(question: Mapping[str, Any]) -> dict[str, Any]:
    """``answerSchema(Q)`` of spec 15.2, as the chapter states it."""
    selected: dict[str, Any] = {
        "type": "array",
        "items": {"enum": [o["label"] for o in question["options"]]},
        "uniqueItems": True,
        "minItems": 1,
    }
    if not question.get("multiSelect", False):
        selected["maxItems"] = 1
    properties: dict[str, Any] = {"selected": selected}
    if question.get("allowOther", False):
        properties["other"] = {"type": "string", "minLength": 1}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "minProperties": 1,
        "additionalProperties": False,
    }
    if not question.get("allowOther", False):
        schema["required"] = ["selected"]
    return schema


def same(a: Any, b: Any) -> bool:
    """JSON equality (``true`` is not ``1``)."""
    return canonical_text(a) == canonical_text(b)


def ask_step(name: str, question: Any) -> dict[str, Any]:
    """An ``ask`` step (harness protocol 6): the runtime's question API raises ``question`` as ``name``."""
    return {"ask": {"name": name, "question": question}}


def asking(agent_id: str, ctx: CheckContext, question: Any) -> dict[str, Any]:
    """Tool ``ask`` (tool use ``t1``) asks ``question`` as ``env``, then returns ``"ran"``."""
    return one_tool(agent_id, ctx, ask_step("env", question), sc.returns("ran"))


def model_asks(agent_id: str, ctx: CheckContext, tool_input: Any) -> dict[str, Any]:
    """The model calls the built-in ``ask_user`` (tool use ``t1``) with ``tool_input``, then says ``done``."""
    spec = sc.agent_spec(
        agent_id,
        executor=sc.executor_for(ctx.profiles),
        turns=[
            sc.turn(sc.text("let me ask"), sc.tool_use("t1", ASK_USER, tool_input)),
            sc.turn(sc.text("done")),
        ],
    )
    spec["builtinTools"] = [ASK_USER]
    return spec


def _only(out: dict[str, Any]) -> dict[str, Any]:
    return interrupts(out)[0]


# --- 15.2 ------------------------------------------------------------------------------------------------


def check_reported(ctx: CheckContext) -> None:
    """A question is reported with its name, the question unchanged as its reason, metadata kind question."""
    wrong: list[str] = []
    for question in (ENV, FILES, NOTE):
        _, out = pause(ctx, asking("ask-reported", ctx, question))
        (raised,) = interrupts(out)
        if raised.get("name") != "env":
            wrong.append(f"the question was reported with name {raised.get('name')!r}, expected 'env'")
        if not same(raised.get("reason"), question):
            wrong.append(
                f"the reason is {raised.get('reason')!r}, expected the question as given {question!r}"
            )
        if not same(raised.get("metadata"), {"kind": "question"}):
            wrong.append(f'the metadata is {raised.get("metadata")!r}, expected {{"kind": "question"}}')
    fail_if({ASK_REPORTED: wrong})


# Malformed questions (ROC-ASK-002), each with what makes it one (the harness carries a question as a
# Struct, so every one is an object).
_BAD_QUESTIONS: tuple[tuple[str, Any], ...] = (
    ("no options", {"question": "q?", "options": []}),
    ("nine options", {"question": "q?", "options": [{"label": str(n)} for n in range(9)]}),
    ("two options with one label", {"question": "q?", "options": [{"label": "x"}, {"label": "x"}]}),
    ("an empty label", {"question": "q?", "options": [{"label": ""}]}),
    ("an empty question", {"question": "", "options": [{"label": "x"}]}),
    ("a header of 33 characters", {"question": "q?", "header": "h" * 33, "options": [{"label": "x"}]}),
    ("a string multiSelect", {"question": "q?", "options": [{"label": "x"}], "multiSelect": "yes"}),
    ("an unknown member", {"question": "q?", "options": [{"label": "x"}], "default": "x"}),
)


def check_refused(ctx: CheckContext) -> None:
    """A malformed question fails the invocation with INVALID_REASON and nothing is pending."""
    wrong: list[str] = []
    for label, question in _BAD_QUESTIONS:
        agent = ctx.client.create_agent(asking("ask-refused", ctx, question))
        out = ctx.client.invoke(agent, {"prompt": "go"})
        if error_code(out) != "INVALID_REASON":
            wrong.append(f"a question with {label} gave {shown(out)}, not INVALID_REASON")
    fail_if({ASK_REFUSED: wrong})


def check_schema(ctx: CheckContext) -> None:
    """The responseSchema is the chapter's answerSchema(Q), for each combination of the two flags."""
    wrong: list[str] = []
    for question in (ENV, FILES, NOTE, BOTH):
        _, out = pause(ctx, asking("ask-schema", ctx, question))
        got = _only(out).get("responseSchema")
        want = derived_schema(question)
        if not same(got, want):
            wrong.append(f"for {question['question']!r} the responseSchema is {got!r}, expected {want!r}")
    fail_if({ASK_SCHEMA: wrong})


# --- 15.3 ------------------------------------------------------------------------------------------------

# Answers to ENV that its schema refuses, with the path of the error (spec 14's normalized errors).
_BAD_ANSWERS: tuple[tuple[str, Any, str], ...] = (
    ("a label that is not an option", {"selected": ["qa"]}, "/selected/0"),
    ("two labels for a single choice", {"selected": ["staging", "production"]}, "/selected"),
    ("an empty selection", {"selected": []}, "/selected"),
    ("other for a question without allowOther", {"selected": ["staging"], "other": "x"}, "/other"),
    ("a bare label", "staging", ""),
)


def check_validated(ctx: CheckContext) -> None:
    """Answers outside the question are INVALID_RESPONSE with the path; an answer inside is accepted."""
    agent, out = pause(ctx, asking("ask-validated", ctx, ENV))
    iid = str(_only(out).get("id"))
    wrong: list[str] = []
    for label, response, path in _BAD_ANSWERS:
        got = ctx.client.invoke(agent, resume(answer(iid, response)))
        err = got.get("error")
        details = err.get("details") if isinstance(err, dict) else None
        where = details.get("path") if isinstance(details, dict) else None
        if error_code(got) != "INVALID_RESPONSE":
            wrong.append(f"{label} gave {shown(got)}, not INVALID_RESPONSE")
            if "result" in got:  # the agent moved on: later probes would meet another state
                break
        elif where != path:
            wrong.append(f"{label}: details.path is {where!r}, expected {path!r}")
    else:
        ok = ctx.client.invoke(agent, resume(answer(iid, {"selected": ["production"]})))
        if "result" not in ok:
            wrong.append(f'the answer {{"selected": ["production"]}} was refused: {shown(ok)}')
    agent, out = pause(ctx, asking("ask-validated-other", ctx, NOTE))
    ok = ctx.client.invoke(agent, resume(answer(str(_only(out).get("id")), {"other": "later"})))
    if "result" not in ok:
        wrong.append(f'with allowOther, the answer {{"other": "later"}} was refused: {shown(ok)}')
    fail_if({ASK_VALIDATED: wrong})


def check_delivered(ctx: CheckContext) -> None:
    """The question API returns the answer as the caller gave it (labels in the caller's order)."""
    wrong: list[str] = []
    for question, response in (
        (FILES, {"selected": ["c.txt", "a.txt"]}),
        (BOTH, {"selected": ["b.txt"], "other": "and the logs"}),
        (NOTE, {"other": "wait until Monday"}),
    ):
        agent, out = pause(ctx, asking("ask-delivered", ctx, question))
        done = ctx.client.invoke(agent, resume(answer(str(_only(out).get("id")), response)))
        want = returned("t1", [response], "ran")
        if "result" not in done:
            wrong.append(f"the answer {response!r} was refused: {shown(done)}")
        elif not same(tool_results(done).get("t1"), want):
            wrong.append(
                f"after the answer {response!r}, t1 has {tool_results(done).get('t1')}, expected {want}"
            )
    fail_if({ASK_DELIVERED: wrong})


# --- 15.4 ------------------------------------------------------------------------------------------------

THREE = {"questions": [FILES, ENV, NOTE]}


def check_ask_user_stop(ctx: CheckContext) -> None:
    """ask_user raises q1..qn in one stop, each with its question and derived schema; after a partial answer
    it stops with the rest, same ids."""
    agent, out = pause(ctx, model_asks("ask-user-stop", ctx, THREE))
    found = interrupts(out)
    wrong: list[str] = []
    names = [i.get("name") for i in found]
    if names != ["q1", "q2", "q3"]:
        wrong.append(f"the stop holds interrupts {names}, expected ['q1', 'q2', 'q3'] in one stop")
    for raised, question in zip(found, THREE["questions"], strict=False):
        source = raised.get("source") or {}
        if source.get("toolUseId") != "t1" or source.get("kind") != "tool":
            wrong.append(f"{raised.get('name')} has source {source}, expected the body of tool use t1")
        if not same(raised.get("reason"), question):
            wrong.append(f"{raised.get('name')} has reason {raised.get('reason')!r}, expected {question!r}")
        if not same(raised.get("responseSchema"), derived_schema(question)):
            wrong.append(f"{raised.get('name')} has responseSchema {raised.get('responseSchema')!r}")
        if not same(raised.get("metadata"), {"kind": "question"}):
            wrong.append(f"{raised.get('name')} has metadata {raised.get('metadata')!r}")
    ids = ids_by_name(out)
    if not wrong:
        partial = ctx.client.invoke(agent, resume(answer(ids["q2"], {"selected": ["staging"]})))
        again = ids_by_name(partial)
        if again != {"q1": ids["q1"], "q3": ids["q3"]}:
            wrong.append(
                f"after answering q2 alone the stop holds {again or shown(partial)}, expected q1 and q3 "
                "with their ids"
            )
    fail_if({ASK_USER_STOP: wrong})


def check_ask_user_result(ctx: CheckContext) -> None:
    """With every question answered, t1's result is success [{"json": {"answers": [...]}}] in question
    order, and the model is called with it."""
    agent, done = pause(ctx, model_asks("ask-user-result", ctx, THREE))
    given = {
        "q1": {"selected": ["b.txt", "a.txt"]},
        "q2": {"selected": ["production"]},
        "q3": {"other": "no"},
    }
    wrong: list[str] = []
    # Answer whatever is pending, in reverse order, until the tool use ends: judged on its own evidence even
    # when the questions come one stop at a time (that is ROC-ASK-006's finding).
    for _ in range(len(given) + 1):
        pending = interrupts(done)
        if not pending or any(i.get("name") not in given for i in pending):
            break
        done = ctx.client.invoke(
            agent, resume(*(answer(str(i.get("id")), given[str(i.get("name"))]) for i in reversed(pending)))
        )
    if interrupts(done):
        followed(
            ctx, ASK_USER_RESULT, f"the questions pending were {sorted(ids_by_name(done))}", ASK_USER_STOP
        )
    else:
        want = {
            "toolUseId": "t1",
            "status": "success",
            "content": [{"json": {"answers": list(given.values())}}],
        }
        if stop_reason(done) != "end_turn":
            wrong.append(f"answering every question gave {shown(done)}, expected the model's end_turn")
        elif not same(tool_results(done).get("t1"), want):
            wrong.append(f"t1 has {tool_results(done).get('t1')}, expected {want}")
    fail_if({ASK_USER_RESULT: wrong})


_BAD_INPUTS: tuple[tuple[str, Any], ...] = (
    ("no questions member", {}),
    ("an empty question list", {"questions": []}),
    ("five questions", {"questions": [ENV] * 5}),
    ("a question that is a string", {"questions": ["Which one?"]}),
    (
        "a question with a repeated label",
        {"questions": [{"question": "q?", "options": [{"label": "a"}] * 2}]},
    ),
    ("an unknown member", {"questions": [ENV], "why": "x"}),
)


def check_ask_user_input(ctx: CheckContext) -> None:
    """An invalid ask_user input gives t1 an error result of one text block, raises nothing, and the batch
    goes on (the model is called)."""
    wrong: list[str] = []
    for label, tool_input in _BAD_INPUTS:
        agent = ctx.client.create_agent(model_asks("ask-user-input", ctx, tool_input))
        out = ctx.client.invoke(agent, {"prompt": "go"})
        got = tool_results(out).get("t1") or {}
        content = got.get("content")
        if stop_reason(out) != "end_turn":
            wrong.append(f"an input with {label} gave {shown(out)}, expected an error result and end_turn")
        elif got.get("status") != "error" or not (
            isinstance(content, list) and len(content) == 1 and isinstance(content[0].get("text"), str)
        ):
            wrong.append(f"an input with {label}: t1 has {got}, expected an error result with one text block")
    fail_if({ASK_USER_INPUT: wrong})


def check_ask_user_decided(ctx: CheckContext) -> None:
    """A declined question gives t1 the decision text as its error result; nothing stays pending."""
    wrong: list[str] = []
    for decided in ("q1", "q3"):
        agent, out = pause(ctx, model_asks("ask-user-decided", ctx, THREE))
        ids = ids_by_name(out)
        if decided not in ids:
            followed(ctx, ASK_USER_DECIDED, f"{decided} was not pending: {sorted(ids)}", ASK_USER_STOP)
            continue
        done = ctx.client.invoke(agent, resume(decide(ids[decided], "decline")))
        want = error_result("t1", DECLINE_TEXT)
        if stop_reason(done) != "end_turn":
            wrong.append(f"declining {decided} gave {shown(done)}, expected the tool use to end and end_turn")
        elif not same(tool_results(done).get("t1"), want):
            wrong.append(f"declining {decided}: t1 has {tool_results(done).get('t1')}, expected {want}")
    fail_if({ASK_USER_DECIDED: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-ASK-001",
        (ASK_REPORTED,),
        check_reported,
        PROFILES,
        "a question is reported with its name, the question as its reason and metadata kind question",
    ),
    (
        "explicit:ROC-ASK-002",
        (ASK_REFUSED,),
        check_refused,
        PROFILES,
        "a malformed question is INVALID_REASON",
    ),
    (
        "explicit:ROC-ASK-003",
        (ASK_SCHEMA,),
        check_schema,
        PROFILES,
        "the responseSchema of a question is the chapter's derived answer schema",
    ),
    (
        "explicit:ROC-ASK-004",
        (ASK_VALIDATED,),
        check_validated,
        PROFILES,
        "an answer outside the question is INVALID_RESPONSE with its path; one inside is accepted",
    ),
    (
        "explicit:ROC-ASK-005",
        (ASK_DELIVERED,),
        check_delivered,
        PROFILES,
        "the answer reaches the raiser unchanged",
    ),
    (
        "explicit:ROC-ASK-006",
        (ASK_USER_STOP,),
        check_ask_user_stop,
        PROFILES,
        "ask_user raises q1..qn in one stop, and the rest again after a partial answer",
    ),
    (
        "explicit:ROC-ASK-007",
        (ASK_USER_RESULT,),
        check_ask_user_result,
        PROFILES,
        "ask_user's result is success with the answers in question order",
    ),
    (
        "explicit:ROC-ASK-008",
        (ASK_USER_INPUT,),
        check_ask_user_input,
        PROFILES,
        "an invalid ask_user input gives an error result and raises nothing",
    ),
    (
        "explicit:ROC-ASK-009",
        (ASK_USER_DECIDED,),
        check_ask_user_decided,
        ("core", "questions", "decisions"),
        "a declined ask_user question gives the decision text as the tool's error result",
    ),
)


def question_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
