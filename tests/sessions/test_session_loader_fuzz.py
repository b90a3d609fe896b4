"""Loader fuzz: mutated snapshots never crash ``Agent.from_snapshot`` (or a session load) with anything but
the spec's errors, and whatever loads can be snapshotted and loaded again."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from roc_reference import Agent, ScriptedModel, Tool
from roc_reference.errors import RocError, SnapshotIntegrityError
from roc_reference.sessions import FileSessionManager, FileSessionStore, verify_snapshot

VALID = Path(__file__).resolve().parents[2] / "spec" / "examples" / "Snapshot" / "valid"
EXAMPLE_TEXTS = {p.name: p.read_text("utf-8") for p in sorted(VALID.glob("*.json"))}
EXAMPLES = {name: json.loads(text) for name, text in EXAMPLE_TEXTS.items()}
EXAMPLE_KEYS = {"roc-examples-2026": b"roc-example-key-not-secret"}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=6,
)
# Values that sit close to what the loader expects, so mutations get past the first checks more often.
near_values = st.sampled_from(
    [
        "",
        "1.0",
        "2.0",
        "0.9",
        "1.1",
        "user",
        "assistant",
        "tool",
        "before_tools",
        "success",
        "error",
        "x",
        -1,
        0,
        1,
        # integrity.mac look-alikes: right length but not base64url, wrong length, non-ASCII text
        "A" * 43,
        "A" * 42,
        "A" * 43 + "=",
        "\u00a1" * 43,
        "\u0663" * 43,
    ]
) | st.sampled_from([True, False, None, [], {}, {"text": "t"}, [{"text": "t"}]])


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += paths(value, (*prefix, index))
    return found


def get(doc: Any, path: tuple) -> Any:
    for part in path:
        doc = doc[part]
    return doc


MEMBERS = ["extra", "response", "inputDigest", "integrity", "toolName"]
OPS = ["delete", "replace", "near", "duplicate", "add-member"]
# A mutation plan is drawn with a fixed shape, independent of the document, then applied by plain code: the
# choice sequence never depends on the document's structure (drawing from a list of the document's paths
# made Hypothesis report flaky generation).
plans = st.lists(
    st.tuples(
        st.integers(0, 2**16), st.sampled_from(OPS), json_values, near_values, st.sampled_from(MEMBERS)
    ),
    min_size=1,
    max_size=3,
)


def apply_plan(name: str, plan: list[tuple]) -> Any:
    doc = json.loads(EXAMPLE_TEXTS[name])  # a fresh document every time
    for index, op, value, near, member in plan:
        targets = [p for p in paths(doc) if p]
        if not targets:
            break
        path = targets[index % len(targets)]
        parent, last = get(doc, path[:-1]), path[-1]
        if op == "delete":
            del parent[last]
        elif op == "replace":
            parent[last] = copy.deepcopy(value)
        elif op == "near":
            parent[last] = copy.deepcopy(near)  # sampled objects are shared: never alias them
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif op == "add-member" and isinstance(parent, dict):
            parent[member] = copy.deepcopy(near)
    return doc


def mutated() -> st.SearchStrategy[tuple[str, Any]]:
    return st.tuples(st.sampled_from(sorted(EXAMPLE_TEXTS)), plans).map(lambda c: (c[0], apply_plan(*c)))


def tools_for(doc: Any) -> list[Tool]:
    """A tool for every name the document mentions, so resumes reach tool bodies."""
    names = {
        v
        for p in paths(doc)
        if p and p[-1] == "name" and isinstance(v := get(doc, p), str) and v.isidentifier()
    }
    return [Tool(name=n, fn=lambda **_: "ok") for n in sorted(names)]


def load(doc: Any, keys: dict[str, bytes] | None) -> Agent | None:
    try:
        return Agent.from_snapshot(doc, model=ScriptedModel([]), tools=tools_for(doc), integrity_keys=keys)
    except RocError:
        return None


@pytest.mark.req("ROC-SESSION-014")
def test_every_valid_example_loads():
    assert EXAMPLES, "spec/examples/Snapshot/valid is empty"
    for name, doc in EXAMPLES.items():
        assert load(copy.deepcopy(doc), EXAMPLE_KEYS if "integrity" in doc else None) is not None, name


@pytest.mark.req("ROC-ERR-001", "ROC-VER-009")
@settings(max_examples=100, deadline=None)
@given(case=mutated(), verify=st.booleans())
def test_mutated_snapshots_load_or_fail_with_a_roc_error(case, verify):
    _, doc = case
    original = copy.deepcopy(doc)
    agent = load(doc, EXAMPLE_KEYS if verify else None)
    assert doc == original  # the loader never edits its input
    if agent is None:
        return
    # Whatever loads, re-snapshots into something that loads again (nothing half-understood).
    again = json.loads(json.dumps(agent.take_snapshot()))
    assert load(again, None) is not None
    if agent.is_interrupted:
        responses = [{"interruptResponse": {"interruptId": i.id, "response": "y"}} for i in agent.interrupts]
        with contextlib.suppress(RocError):
            agent(responses)


@pytest.mark.req("ROC-ERR-001")
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=mutated())
def test_mutated_snapshots_in_a_session_store_fail_only_with_roc_errors(tmp_path_factory, case):
    _, doc = case
    store = FileSessionStore(tmp_path_factory.mktemp("fuzz"))
    try:
        FileSessionManager("s", store).save(doc, expected_revision=None)
    except RocError:
        return  # the store refuses what it cannot split (no revision, no message array, not JSON)
    try:
        agent = Agent(ScriptedModel([]), tools=tools_for(doc), session=FileSessionManager("s", store))
    except RocError:
        return
    assert agent.revision == doc["revision"]


SIGNED = "paused-second-question-signed.json"


@pytest.mark.req("ROC-SEC-003")
@pytest.mark.parametrize(
    "mac",
    [
        "\u00a1" * 43,  # non-ASCII text once made hmac.compare_digest raise TypeError
        "\u0663" * 43,  # digits of another script
        "A" * 42,
        "A" * 44,
        "A" * 42 + "=",
        "",
    ],
)
def test_a_mac_that_is_not_43_base64url_characters_is_rejected_as_tampering(mac):
    doc = copy.deepcopy(EXAMPLES[SIGNED])
    doc["integrity"]["mac"] = mac
    with pytest.raises(SnapshotIntegrityError):
        Agent.from_snapshot(doc, model=ScriptedModel([]), tools=tools_for(doc), integrity_keys=EXAMPLE_KEYS)
    with pytest.raises(SnapshotIntegrityError):
        verify_snapshot(doc, EXAMPLE_KEYS)  # the store's reader


@pytest.mark.req("ROC-SEC-003")
@settings(max_examples=60, deadline=None)
@given(mac=st.text(max_size=50) | st.text(alphabet="ABCxyz019-_", min_size=43, max_size=43))
def test_any_text_as_mac_fails_only_with_snapshot_integrity(mac):
    doc = copy.deepcopy(EXAMPLES[SIGNED])
    assume(mac != doc["integrity"]["mac"])
    doc["integrity"]["mac"] = mac
    with pytest.raises(SnapshotIntegrityError):
        Agent.from_snapshot(doc, model=ScriptedModel([]), tools=tools_for(doc), integrity_keys=EXAMPLE_KEYS)
