"""Structured questions (profile questions, spec chapter 15): the question, its answer schema, ``ask`` and
the built-in ``ask_user`` tool.

A question is a JSON object (``spec/schema/v1/question.schema.json``)::

    {"question": "Which files?", "header"?: "Files", "options": [{"label": "a.txt", "description"?: ...}],
     "multiSelect"?: false, "allowOther"?: false}

``ask`` raises it as an ordinary interrupt whose ``reason`` is the question, whose ``metadata`` says
``{"kind": "question"}`` and whose ``responseSchema`` is ``answer_schema(question)`` (ROC-ASK-003), so the
answer is validated at resume like any answer to an interrupt with a response schema (chapter 14), and a
UI that knows only chapter 14 can still draw a form. The answer is ``{"selected": [labels], "other"?: text}``.

``ask_user`` is the model's way to ask: a tool the application opts into (``Agent(tools=[ask_user])``). It
raises one question interrupt per question, ``q1``.. ``q4``, all in one pause (ROC-ASK-006).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .decisions import InterruptDeclined
from .errors import InvalidReasonError
from .interrupts import InterruptRaised, UnitRun
from .tools import Tool
from .types import MAX_VALUE_BYTES, Interrupt, json_copy, json_value_problem

if TYPE_CHECKING:
    from .tools import ToolContext

QUESTION_KIND = "question"
"""The value of the registered metadata key ``kind`` on a question interrupt (B.8)."""

ASK_USER = "ask_user"
"""The built-in clarification tool's name (spec 15.4)."""

MAX_OPTIONS = 8
MAX_HEADER_CHARS = 32
MAX_QUESTIONS = 4

_QUESTION_MEMBERS = frozenset({"question", "header", "options", "multiSelect", "allowOther"})
_OPTION_MEMBERS = frozenset({"label", "description"})


def question_problem(question: Any) -> str | None:
    """Why ``question`` is not a question of spec 15.1, or ``None`` when it is one (ROC-ASK-002)."""
    if not isinstance(question, dict):
        return "a question must be a JSON object"
    extra = sorted(set(question) - _QUESTION_MEMBERS, key=str)
    if extra:
        return f"unknown question member {extra[0]!r}"
    text = question.get("question")
    if not isinstance(text, str) or not text:
        return "question must be a non-empty string"
    if "header" in question:
        header = question["header"]
        # Characters as JSON Schema's minLength/maxLength count them: code points.
        if not isinstance(header, str) or not 1 <= len(header) <= MAX_HEADER_CHARS:
            return f"header must be a string of 1 to {MAX_HEADER_CHARS} characters"
    for flag in ("multiSelect", "allowOther"):
        if flag in question and not isinstance(question[flag], bool):
            return f"{flag} must be a boolean"
    options = question.get("options")
    if not isinstance(options, list) or not 1 <= len(options) <= MAX_OPTIONS:
        return f"options must be a list of 1 to {MAX_OPTIONS} options"
    labels: set[str] = set()
    for i, option in enumerate(options):
        if not isinstance(option, dict):
            return f"options[{i}] must be a JSON object"
        extra = sorted(set(option) - _OPTION_MEMBERS, key=str)
        if extra:
            return f"unknown member {extra[0]!r} in options[{i}]"
        label = option.get("label")
        if not isinstance(label, str) or not label:
            return f"options[{i}].label must be a non-empty string"
        if label in labels:
            return f"options[{i}].label {label!r} is used twice"
        labels.add(label)
        if "description" in option and not isinstance(option["description"], str):
            return f"options[{i}].description must be a string"
    return None


def answer_schema(question: Mapping[str, Any]) -> dict[str, Any]:
    """The answer schema derived from a valid question (spec 15.2, ROC-ASK-003); the same JSON everywhere."""
    labels = [option["label"] for option in question["options"]]
    selected: dict[str, Any] = {
        "type": "array",
        "items": {"enum": labels},
        "uniqueItems": True,
        "minItems": 1,
    }
    if not question.get("multiSelect", False):
        selected["maxItems"] = 1  # a single choice: exactly one label
    properties: dict[str, Any] = {"selected": selected}
    allow_other = question.get("allowOther", False)
    if allow_other:
        properties["other"] = {"type": "string", "minLength": 1}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if not allow_other:
        schema["required"] = ["selected"]
    schema["minProperties"] = 1  # with allowOther the person may give only "other", never nothing
    schema["additionalProperties"] = False
    return schema


def ask(
    unit: UnitRun,
    name: str,
    question: Any,
    *,
    owner: int | None = None,
    metadata: dict[str, Any] | None = None,
    expires_at: str | None = None,
    on_expiry: Mapping[str, Any] | None = None,
) -> Any:
    """Raise ``question`` as a question interrupt named ``name`` in ``unit``, or return its stored answer.

    ROC-ASK-001: reason = the question unchanged, ``metadata`` = the raiser's with ``kind`` = ``question``,
    ``responseSchema`` = the derived schema. ROC-ASK-002: a malformed question, or raiser metadata whose
    ``kind`` says something else, fails the raise with INVALID_REASON, like a malformed reason.
    """
    problem = question_problem(question)
    if problem is not None:
        raise unit._fail(InvalidReasonError(f"question {name!r} is not a question: {problem}"))
    merged: Any = {"kind": QUESTION_KIND}
    if isinstance(metadata, dict):
        if metadata.get("kind", QUESTION_KIND) != QUESTION_KIND:
            raise unit._fail(
                InvalidReasonError(f"question {name!r}: metadata kind must be {QUESTION_KIND!r}")
            )
        merged = {**metadata, "kind": QUESTION_KIND}
    elif metadata is not None:
        merged = metadata  # not an object: the raise refuses it as it refuses any such metadata
    extra: dict[str, Any] = {}
    if expires_at is not None:
        extra["expires_at"] = expires_at
    if on_expiry is not None:
        extra["on_expiry"] = on_expiry
    schema = answer_schema(question)
    return unit.interrupt(
        name, json_copy(question), owner=owner, metadata=merged, response_schema=schema, **extra
    )


def ask_user_input_problem(tool_input: Mapping[str, Any]) -> str | None:
    """Why an ``ask_user`` input is not ``{"questions": [question, ...]}`` (1..4), or ``None`` (ROC-ASK-008).

    Also refuses a question the raise would refuse for its size (ROC-SEC-012): the model's input must never
    fail the invocation, only the tool use."""
    extra = sorted(set(tool_input) - {"questions"}, key=str)
    if extra:
        return f"unknown input member {extra[0]!r}"
    questions = tool_input.get("questions")
    if not isinstance(questions, list) or not 1 <= len(questions) <= MAX_QUESTIONS:
        return f"questions must be a list of 1 to {MAX_QUESTIONS} questions"
    for i, question in enumerate(questions):
        problem = question_problem(question)
        if problem is None:
            too_big = json_value_problem(question, max_bytes=MAX_VALUE_BYTES) or json_value_problem(
                answer_schema(question), max_bytes=MAX_VALUE_BYTES
            )
            problem = None if too_big is None else f"too large: {too_big}"
        if problem is not None:
            return f"questions[{i}]: {problem}"
    return None


def _ask_user(tool_context: ToolContext, **tool_input: Any) -> dict[str, Any]:
    """Ask the person the model's questions; the answers, in question order (spec 15.4)."""
    problem = ask_user_input_problem(tool_input)
    if problem is not None:  # ROC-ASK-008: an error result that names the problem, nothing raised
        raise ValueError(f"invalid {ASK_USER} input: {problem}")
    unit = tool_context._unit
    answers: list[Any] = []
    waiting: list[Interrupt] = []
    for number, question in enumerate(tool_input["questions"], start=1):
        try:
            answers.append(tool_context.ask(f"q{number}", question))
        except InterruptRaised as signal:  # ROC-ASK-006: go on, so every unanswered question is asked now
            waiting.append(signal.interrupt)
        except InterruptDeclined:
            # ROC-ASK-009: the first decided question (in order) decides the call: the body's default
            # outcome, the decision text as its error result; the questions still unanswered are withdrawn.
            unit.raised, unit.raised_with = None, ()
            raise
    if waiting:
        raise unit.pause_with(waiting)
    return {"answers": answers}  # ROC-ASK-007: success [{"json": {"answers": [...]}}]


ask_user = Tool(
    name=ASK_USER,
    fn=_ask_user,
    context=True,
    description=(
        "Ask the user one to four multiple-choice questions and wait for the answers. Input: "
        '{"questions": [{"question", "header"?, "options": [{"label", "description"?}], "multiSelect"?, '
        '"allowOther"?}]}. Result: {"answers": [{"selected": [labels], "other"?: text}, ...]}.'
    ),
)
"""The built-in clarification tool (spec 15.4); the application opts in with ``Agent(tools=[ask_user])``."""

__all__ = [
    "ASK_USER",
    "QUESTION_KIND",
    "answer_schema",
    "ask",
    "ask_user",
    "ask_user_input_problem",
    "question_problem",
]
