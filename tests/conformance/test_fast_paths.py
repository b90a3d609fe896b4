"""The suite's shortcuts (issue 11, "Speed") give exactly the answers of the slow paths they spare.

Each shortcut remembers or skips work whose result is a function of its input alone: the schema verdict of
a value seen before, the proto of a spec sent before (both ends of the wire), and the canonical comparison
of two values that are plainly the same JSON. These tests pin that the answers, and the failures, are the
ones the plain computation gives. (Nothing here measures time: that is benchmarks/' business.)
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from roc_conformance import wire
from roc_conformance.canonical import NotCanonicalJson
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.oracle.scenario import canonical, same_canonical
from roc_reference.harness import server

SPEC: dict[str, Any] = {
    "agentId": "a1",
    "executor": "sequential",
    "model": {"turns": [{"content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {"n": 1}}}]}]},
    "tools": [{"name": "x", "steps": [{"interrupt": {"name": "q", "reason": {"a": [1, 2.5, None]}}}]}],
    "state": {"k": -0.0, "n": 3},
}


def _verdict(a: Any, b: Any) -> bool | str:
    try:
        return same_canonical(a, b)
    except NotCanonicalJson:
        return "refused"


def _canonical_verdict(a: Any, b: Any) -> bool | str:
    try:
        return canonical(a) == canonical(b)
    except NotCanonicalJson:
        return "refused"


_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, 2**53, 2**53 + 1, float(2**53), "\ud800"])
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, _JSON)
def test_same_canonical_is_the_canonical_comparison(a: Any, b: Any) -> None:
    assert _verdict(a, b) == _canonical_verdict(a, b)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_same_canonical_on_equal_copies(a: Any) -> None:
    b = copy.deepcopy(a)
    assert _verdict(a, b) == _canonical_verdict(a, b)


def test_same_canonical_edge_cases() -> None:
    assert same_canonical(1, 1.0)
    assert same_canonical(0.0, -0.0)
    assert not same_canonical(True, 1)
    assert not same_canonical(False, 0)
    assert same_canonical(2**53 + 1, 2**53)  # both stand for the same double (spec 8.2)
    assert same_canonical({"a": 1, "b": [2]}, {"b": [2], "a": 1})
    for refused in ("\ud800", {"\ud800": 1}, float("nan"), 10**400):
        assert _verdict(refused, refused) == "refused"


def test_spec_proto_is_a_fresh_message_each_time() -> None:
    first = wire.agent_spec_to_proto(SPEC)
    first.agent_id = "changed"
    second = wire.agent_spec_to_proto(SPEC)
    assert second.agent_id == "a1"
    assert wire.agent_spec_from_proto(second) == SPEC
    # Another member order or number type is another document: never served the first one's message.
    reordered = dict(reversed(list(SPEC.items())))
    assert wire.agent_spec_from_proto(wire.agent_spec_to_proto(reordered)) == reordered


def test_adapter_spec_json_is_fresh_and_exact() -> None:
    proto = wire.agent_spec_to_proto(SPEC)
    first = server._spec_json(proto)
    second = server._spec_json(proto)
    assert first == second == wire.agent_spec_from_proto(proto)
    assert first is not second
    second["state"]["k"] = "changed"
    assert server._spec_json(proto)["state"]["k"] == 0.0
    assert str(server._spec_json(proto)["state"]["k"]) == "-0.0"  # -0.0 survives the remembered text


def test_schema_verdicts_repeat_for_a_value_seen_before() -> None:
    observer = SchemaObserver()
    bad = {"kind": "model_call"}  # no turn
    good = {"kind": "model_call", "turn": 0}
    for _ in range(2):
        observer("Invoke", {"trace": [good, bad], "result": {"stopReason": "end_turn", "interrupts": []}})
    assert len(observer.trace_problems) == 2
    assert observer.trace_problems[0] == observer.trace_problems[1]
    assert "trace[1]" in observer.trace_problems[0]
    # 1 and 1.0 are different JSON texts, so each gets its own verdict (and here the same one).
    observer("Invoke", {"trace": [{"kind": "model_call", "turn": 1.0}]})
    assert len(observer.trace_problems) in (2, 3)
    fresh = SchemaObserver()
    fresh("Invoke", {"trace": [{"kind": "model_call", "turn": 1.0}]})
    assert len(observer.trace_problems) - 2 == len(fresh.trace_problems)
    assert observer.observed == 2 * 3 + 1  # every value counts, remembered or not (2 events + result, twice)


# ---- oracle.copying.deep_copy: the copy.deepcopy of the oracle's data -----------------------------------

# JSON values as the spec has them: finite numbers, integers within the exact (I-JSON) range.
SAFE = 2**53 - 1
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in _containers(v))]
    return []


@given(json_values)
@settings(max_examples=60, deadline=None)
def test_deep_copy_of_json_is_equal_and_shares_no_container(value: Any) -> None:
    from roc_conformance.oracle.copying import deep_copy

    clone = deep_copy(value)
    assert canonical(clone) == canonical(value)
    assert clone == copy.deepcopy(value)
    assert not set(_containers(clone)) & set(_containers(value))


def test_oracle_copy_equals_deepcopy_and_is_independent() -> None:
    from roc_conformance.oracle.engine import OracleAgent, Prompt
    from roc_conformance.oracle.scenario import parse_spec

    agent = OracleAgent(parse_spec(SPEC))
    agent.invoke(Prompt([{"text": "go"}]))  # interrupted: messages, a pending batch, a registered interrupt
    assert agent.activated
    assert agent.interrupts
    clone = agent.copy()
    plain = copy.deepcopy({k: v for k, v in agent.__dict__.items() if k != "spec"})
    assert {k: v for k, v in clone.__dict__.items() if k != "spec"} == plain
    assert clone.spec is agent.spec
    before = copy.deepcopy(plain)
    clone.messages[0]["content"].append({"text": "changed"})
    clone.state["k"] = "changed"
    next(iter(clone.interrupts.values())).answered = True
    clone.owners.clear()
    assert {k: v for k, v in agent.__dict__.items() if k != "spec"} == before
