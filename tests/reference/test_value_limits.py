"""An accepted answer can always be saved (spec 10.6): limits are checked before anything is stored or run.

Each refused value was accepted before: the tool ran, then the save failed, and a retry ran the tool again.
Now the resume input is refused with the stated code, the agent and its session are left exactly as they
were, and the same agent then accepts an answer at the limit and saves it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from refsupport import MemorySession, answers, frozen, use
from roc_reference import Agent, ConcurrentExecutor, ScriptedModel, ToolContext, tool
from roc_reference.errors import ErrorCode, RocError
from roc_reference.integrity import canonical_value
from roc_reference.types import json_value_size

# The limits of spec 10.6, written out: the test checks the spec's numbers, not whatever the runtime says.
MAX_VALUE_DEPTH = 64
MAX_SAFE_INTEGER = 2**53 - 1
MAX_VALUE_BYTES = 256 * 1024
MAX_RESUME_BYTES = 1024 * 1024

RAN: list[Any] = []


@tool
def ask(tool_context: ToolContext, q: str = "q") -> str:
    tool_context.interrupt(q)
    RAN.append(q)
    return "ok"


def nested(depth: int) -> Any:
    """A value of exactly ``depth`` (a scalar is 0, ``[0]`` is 1)."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def paused(n_tools: int = 1) -> tuple[Agent, MemorySession, Any]:
    """An agent whose ``n_tools`` tools all interrupt (concurrent executor), bound to a session."""
    session = MemorySession()
    turn = [use(f"t{i}", "ask", q=f"q{i}") for i in range(n_tools)]
    model = ScriptedModel([turn, [{"text": "done"}]])
    agent = Agent(model, tools=[ask], session=session, executor=ConcurrentExecutor())
    result = agent("go")
    RAN.clear()
    return agent, session, result


TOO_MUCH = {
    "nested 65 deep": nested(MAX_VALUE_DEPTH + 1),
    "nested 450 deep": nested(450),
    "integer 2**53": MAX_SAFE_INTEGER + 1,
    "negative integer -(2**53)": -MAX_SAFE_INTEGER - 1,
    "integer of 5,000 digits": 10**4999,
    "lone surrogate": "\ud800",
    "lone surrogate in a key": {"\udfff": 1},
    "larger than 256 KiB": "x" * MAX_VALUE_BYTES,
    "a cycle": (lambda x: (x.append(x), x)[1])([]),
    "NaN": float("nan"),
}


@pytest.mark.req("ROC-SEC-011", "ROC-RESUME-010")
@pytest.mark.parametrize("response", TOO_MUCH.values(), ids=TOO_MUCH.keys())
def test_an_answer_beyond_the_limits_is_refused_and_changes_nothing(response: Any) -> None:
    agent, session, result = paused()
    before, saves = frozen(agent), len(session.saves)
    with pytest.raises(RocError) as raised:
        agent(answers(result, response))
    assert raised.value.code is ErrorCode.INVALID_RESPONSE
    assert frozen(agent) == before
    assert len(session.saves) == saves
    assert RAN == []
    # The refusal left the agent answerable: an answer at the limits is accepted, runs once and is saved.
    done = agent(answers(result, nested(MAX_VALUE_DEPTH)))
    assert done.stop_reason == "end_turn"
    assert RAN == ["q0"]


AT_THE_LIMIT = {
    "nested 64 deep": nested(MAX_VALUE_DEPTH),
    "largest integer": MAX_SAFE_INTEGER,
    "smallest integer": -MAX_SAFE_INTEGER,
    "big double": 1e300,
    "astral text": "\U0001f600 é",
    "256 KiB": "x" * (MAX_VALUE_BYTES - 2),  # two quotes
}


@pytest.mark.req("ROC-SEC-011", "ROC-SESSION-013")
@pytest.mark.parametrize("response", AT_THE_LIMIT.values(), ids=AT_THE_LIMIT.keys())
def test_an_answer_at_the_limits_is_accepted_and_saved_with_a_partial_answer(response: Any) -> None:
    """Two interrupts, one answered: the stored answer must be in the saved snapshot at the boundary."""
    agent, session, result = paused(n_tools=2)
    first = result.interrupts[0]
    again = agent([{"interruptResponse": {"interruptId": first.id, "response": response}}])
    assert again.stop_reason == "interrupt"
    assert session.doc is not None
    stored = {i["id"]: i.get("response") for i in session.doc["interruptState"]["interrupts"]}
    assert stored[first.id] == response


@pytest.mark.req("ROC-SEC-013", "ROC-RESUME-014")
def test_a_resume_input_over_one_mebibyte_is_refused_as_invalid_resume() -> None:
    agent, _session, result = paused(n_tools=5)
    assert len(result.interrupts) == 5
    before = frozen(agent)
    each = "x" * (MAX_RESUME_BYTES // 5)  # each answer is within its own limit, together they are not
    with pytest.raises(RocError) as raised:
        agent(answers(result, each))
    assert raised.value.code is ErrorCode.INVALID_RESUME
    assert frozen(agent) == before
    assert RAN == []


@pytest.mark.req("ROC-SEC-012")
@pytest.mark.parametrize("reason", TOO_MUCH.values(), ids=TOO_MUCH.keys())
def test_a_reason_beyond_the_limits_fails_the_raise_with_invalid_reason(reason: Any) -> None:
    @tool
    def raiser(tool_context: ToolContext) -> str:
        tool_context.interrupt("q", reason=reason)
        return "unreachable"

    agent = Agent(ScriptedModel([[use("t1", "raiser")]]), tools=[raiser])
    with pytest.raises(RocError) as raised:
        agent("go")
    assert raised.value.code is ErrorCode.INVALID_REASON
    assert agent.messages == []
    assert not agent.is_interrupted


@pytest.mark.req("ROC-SEC-014")
@pytest.mark.parametrize("value", TOO_MUCH.values(), ids=TOO_MUCH.keys())
def test_state_beyond_the_limits_is_refused_where_it_is_set(value: Any) -> None:
    if isinstance(value, str) and len(value) >= MAX_VALUE_BYTES:
        pytest.skip("state values have no size limit of their own (only the snapshot bound, ROC-SEC-010)")
    agent = Agent(ScriptedModel([]))
    with pytest.raises((TypeError, ValueError)):
        agent.state.set("k", value)
    assert "k" not in agent.state


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53 - 1), 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON)
def test_the_measured_size_is_the_length_of_the_canonical_form(value: Any) -> None:
    # The limits of 10.6 are on canonical bytes (RFC 8785): 1e-05 counts as "0.00001", -0.0 as "0".
    problem, size = json_value_size(value)
    assert problem is None
    assert size == len(canonical_value(value))
