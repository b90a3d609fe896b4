"""Only RoC errors, never a crash or a hang, on any input (spec 10.6, ROC-SEC-014, ROC-SEC-015, ROC-ERR-*).

The entry points a caller reaches are ``Agent.invoke`` (prompt or resume input) and ``Agent.from_snapshot``
(a document or its JSON text). Each named case once crashed (RecursionError, ValueError) or loaded fine and
made every later resume crash; the Hypothesis test feeds hostile values at every entry point and accepts
only a result or a RocError.
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refsupport import answers, json_paths, use
from roc_reference import Agent, ScriptedModel, ToolContext, tool
from roc_reference.errors import ErrorCode, RocError

DEEP = 100_000


@tool
def ask(tool_context: ToolContext, q: str = "q") -> str:
    tool_context.interrupt(q, reason={"q": q})
    return "ok"


def model() -> ScriptedModel:
    return ScriptedModel([[use("t1", "ask", q="q")], [{"text": "done"}]])


def paused() -> tuple[Agent, Any]:
    agent = Agent(model(), tools=[ask])
    return agent, agent("go")


def snapshot() -> dict[str, Any]:
    agent, _ = paused()
    return agent.take_snapshot()


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def restore(doc: Any) -> Agent:
    return Agent.from_snapshot(doc, model=model(), tools=[ask])


def code_of(doc: Any) -> ErrorCode:
    with pytest.raises(RocError) as raised:
        restore(doc)
    return raised.value.code


def with_(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = snapshot()
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


STORED = ("interruptState", "interrupts", 0)
PLACES = {
    "state": ("agent", "state", "k"),
    "reason": (*STORED, "reason"),
    "metadata": ("agent", "messages", "metadata"),
    "tool input": (
        "interruptState",
        "pendingToolExecution",
        "assistantMessage",
        "content",
        0,
        "toolUse",
        "input",
    ),
}


@pytest.mark.req("ROC-SEC-014", "ROC-SNAP-009")
@pytest.mark.parametrize("depth", [65, 480, 5_000])
@pytest.mark.parametrize("place", PLACES.keys())
def test_deep_values_in_a_snapshot_are_snapshot_invalid(place: str, depth: int) -> None:
    if place == "metadata":
        doc = snapshot()
        doc["agent"]["messages"] = [
            {"role": "user", "content": [{"text": "hi"}], "metadata": {"m": nested(depth)}}
        ]
    elif place == "tool input":
        doc = snapshot()  # the digest is not the problem here: the loader must refuse the depth first
        doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"][0]["toolUse"][
            "input"
        ] = {"q": nested(depth)}
    else:
        doc = with_(PLACES[place], nested(depth))
    assert code_of(doc) is ErrorCode.SNAPSHOT_INVALID


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize(
    "text",
    [
        "[" * DEEP + "]" * DEEP,
        '{"a":' * DEEP + "1" + "}" * DEEP,
        "1" * 5_000,
        '{"schemaVersion": "2.0", "n": ' + "9" * 5_000 + "}",
        "{",
        "",
        "NaN",
        b"\xff\xfe",
        '{"s": "\\ud800"}',
    ],
    ids=[
        "100k arrays",
        "100k objects",
        "5000-digit number",
        "5000-digit member",
        "cut",
        "empty",
        "NaN",
        "not UTF-8",
        "escaped lone surrogate",
    ],
)
def test_hostile_json_text_is_snapshot_invalid(text: str | bytes) -> None:
    assert code_of(text) is ErrorCode.SNAPSHOT_INVALID


@pytest.mark.req("ROC-SEC-014", "ROC-SESSION-007")
def test_a_snapshot_given_as_text_restores_like_the_document() -> None:
    agent, result = paused()
    doc = agent.take_snapshot()
    restored = restore(json.dumps(doc))
    done = restored(answers(result, True))
    assert done.stop_reason == "end_turn"


@pytest.mark.req("ROC-SEC-015")
@pytest.mark.parametrize(
    "expires_at",
    [
        "garbage",
        "2026-01-01T00:00:00",
        "2026-13-01T00:00:00Z",
        "2026-01-01T00:00:00+25:00",
        "2026-01-01",
        "",
        "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z",
    ],
)
def test_a_malformed_expires_at_is_refused_at_load(expires_at: str) -> None:
    assert code_of(with_((*STORED, "expiresAt"), expires_at)) is ErrorCode.SNAPSHOT_INVALID


@pytest.mark.req("ROC-SEC-015")
def test_a_well_formed_expires_at_loads_and_is_enforced() -> None:
    _, result = paused()
    future = restore(with_((*STORED, "expiresAt"), "2999-01-01t00:00:00.5+05:30"))
    assert future(answers(result, True)).stop_reason == "end_turn"
    past = restore(with_((*STORED, "expiresAt"), "2000-01-01T00:00:60Z"))  # a leap second is RFC 3339
    with pytest.raises(RocError) as raised:
        past(answers(result, True))
    assert raised.value.code is ErrorCode.EXPIRED


@pytest.mark.req("ROC-SEC-015")
def test_a_created_at_out_of_range_is_refused() -> None:
    assert code_of(with_(("createdAt",), "2026-13-40T00:00:00Z")) is ErrorCode.SNAPSHOT_INVALID


@pytest.mark.req("ROC-VER-005", "ROC-VER-007", "ROC-SEC-014")
def test_version_numbers_of_any_length_never_crash() -> None:
    later_minor = with_(("schemaVersion",), "2." + "7" * 5_000)
    assert restore(later_minor).is_interrupted  # a later minor of major 1 is readable (ROC-VER-007)
    assert code_of(with_(("schemaVersion",), "9" * 5_000 + ".0")) is ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED
    assert restore(with_(("specVersion",), "1." + "7" * 5_000)).is_interrupted
    assert code_of(with_(("specVersion",), "7" * 5_000 + ".1")) is ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED


@pytest.mark.req("ROC-SEC-011", "ROC-SEC-013")
@pytest.mark.parametrize("depth", [450, 5_000, DEEP])
def test_deep_answers_are_invalid_response(depth: int) -> None:
    agent, result = paused()
    with pytest.raises(RocError) as raised:
        agent(answers(result, nested(depth)))
    assert raised.value.code is ErrorCode.INVALID_RESPONSE


# --- Hypothesis: hostile values at every entry point ------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.just(4400).map(lambda digits: 10**digits),  # built lazily: its repr fails (over 4,300 digits)
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "\udfff x", "2026-13-01T00:00:00Z", "garbage", "1." + "9" * 5000]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
_hostile = st.one_of(
    _values,
    st.integers(60, 700).map(nested),
    st.builds(lambda v: {"__not_json__": v}, st.just(object())),
    st.just(b"bytes"),
    st.just({1: "int key"}),
)


_BASE = snapshot()
_PATHS = json_paths(_BASE)


def _only_roc_errors(call: Any) -> None:
    # Any other exception (RecursionError, ValueError, TypeError, ...) fails the test.
    with contextlib.suppress(RocError):
        call()


@pytest.mark.req("ROC-SEC-014", "ROC-SEC-011", "ROC-SNAP-009")
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(_PATHS), value=_hostile, delete=st.booleans())
def test_from_snapshot_sees_only_roc_errors(path: tuple[Any, ...], value: Any, delete: bool) -> None:
    doc = copy.deepcopy(_BASE)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = value
    _only_roc_errors(lambda: restore(doc))
    try:
        text = json.dumps(doc)
    except (TypeError, ValueError, RecursionError):
        return  # not expressible as JSON text; the document form was checked above
    _only_roc_errors(lambda: restore(text))


@pytest.mark.req("ROC-SEC-011", "ROC-SEC-013", "ROC-RESUME-010")
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    response=_hostile,
    shape=st.sampled_from(["answer", "id", "block", "list", "prompt"]),
)
def test_invoke_sees_only_roc_errors(response: Any, shape: str) -> None:
    agent, result = paused()
    interrupt_id = result.interrupts[0].id
    if shape == "answer":
        prompt: Any = [{"interruptResponse": {"interruptId": interrupt_id, "response": response}}]
    elif shape == "id":
        prompt = [{"interruptResponse": {"interruptId": response, "response": True}}]
    elif shape == "block":
        prompt = [{"interruptResponse": response}]
    elif shape == "list":
        prompt = [response]
    else:
        prompt = response
    before = agent.take_snapshot()
    try:
        agent(prompt)
    except RocError:
        after = agent.take_snapshot()
        del before["createdAt"], after["createdAt"]
        assert after == before  # a refused input leaves the agent as it was
