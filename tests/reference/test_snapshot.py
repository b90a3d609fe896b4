"""Snapshots: the spec format, restore into a fresh agent, validation, integrity; sessions with CAS."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from refsupport import MemorySession, answer, answers, assert_schema_valid, frozen, text, use
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    ToolContext,
    input_digest,
    sign_snapshot,
    tool,
)
from roc_reference.errors import ErrorCode, RocError

RUNS: list[str] = []


@tool
def ok(n: int = 0) -> str:
    RUNS.append(f"ok{n}")
    return f"ok{n}"


@tool
def ask(tool_context: ToolContext, q: str) -> Any:
    RUNS.append(f"ask:{q}")
    return {"q": q, "a": tool_context.interrupt(q, reason={"q": q})}


class Gate:
    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.cb)

    def cb(self, e: BeforeToolCallEvent) -> None:
        if e.tool_use.name == "ok" and e.tool_use.input.get("n") == 9:
            e.agent.state.set("gated", e.interrupt("gate", reason=e.tool_use.input))


TURNS = [
    [text("t"), use("t1", "ok", n=1), use("t2", "ask", q="a"), use("t3", "ok", n=9), use("t4", "ask", q="b")],
    [text("done")],
]


def build(**kw: Any) -> Agent:
    return Agent(ScriptedModel(TURNS), tools=[ok, ask], hooks=[Gate()], executor=ConcurrentExecutor(), **kw)


@pytest.fixture(autouse=True)
def _reset() -> None:
    RUNS.clear()


def restore(doc: dict[str, Any], **kw: Any) -> Agent:
    return Agent.from_snapshot(
        doc, model=ScriptedModel(TURNS), tools=[ok, ask], hooks=[Gate()], executor=ConcurrentExecutor(), **kw
    )


@pytest.mark.req(
    "ROC-MODEL-001", "ROC-MODEL-006", "ROC-SNAP-001", "ROC-SNAP-004", "ROC-SNAP-005", "ROC-SNAP-006"
)
def test_results_and_snapshots_validate_against_the_schemas() -> None:
    agent = build(state={"user": "u1"})
    assert_schema_valid("snapshot", agent.take_snapshot())
    first = agent("go")
    assert_schema_valid("agent-result", first.to_json())
    for i in first.interrupts:
        assert_schema_valid("interrupt", i.to_json())
    snap = agent.take_snapshot()
    assert_schema_valid("snapshot", snap)
    digests = {i["source"]["toolUseId"]: i["inputDigest"] for i in snap["interruptState"]["interrupts"]}
    assert digests["t2"] == input_digest({"q": "a"})
    second = agent([answer(first.interrupts[0].id, "A")])
    snap = agent.take_snapshot()
    assert_schema_valid("snapshot", snap)
    assert [i.get("response") for i in snap["interruptState"]["interrupts"]][:1] == ["A"]
    final = agent(answers(second, "Z"))
    assert_schema_valid("agent-result", final.to_json())
    for m in agent.messages:
        assert_schema_valid("message", m.to_json())
    assert_schema_valid("snapshot", agent.take_snapshot())


@pytest.mark.req(
    "ROC-SESSION-001", "ROC-SESSION-002", "ROC-SESSION-003", "ROC-SESSION-004", "ROC-SESSION-005"
)
@pytest.mark.parametrize("stage", [1, 2])
def test_restored_agent_accepts_the_same_answers_and_reaches_the_same_outcome(stage: int) -> None:
    def run(restore_at: int | None) -> tuple[list[Any], list[str], Any]:
        RUNS.clear()
        agent = build()
        result = agent("go")
        rounds = 0
        while result.stop_reason == "interrupt":
            rounds += 1
            if rounds == restore_at:
                agent = restore(agent.take_snapshot())
            result = agent(answers(result, f"r{rounds}"))
        return [m.to_json() for m in agent.messages], list(RUNS), agent.state.to_dict()

    original = run(None)
    assert run(stage)[0] == original[0]
    assert run(stage)[2] == original[2]


@pytest.mark.req("ROC-SESSION-007", "ROC-SNAP-002", "ROC-SNAP-003", "ROC-VER-002")
def test_snapshot_round_trip_is_exact() -> None:
    agent = build(state={"k": [1, {"a": None}]})
    agent("go")
    doc = agent.take_snapshot()
    again = restore(copy.deepcopy(doc)).take_snapshot()
    doc.pop("createdAt"), again.pop("createdAt")
    assert again == doc


def _mutations() -> list[tuple[str, Any, ErrorCode]]:
    def set_path(path: str, value: Any) -> Any:
        def mutate(doc: dict[str, Any]) -> None:
            *parents, last = path.split("/")
            node: Any = doc
            for p in parents:
                node = node[int(p)] if isinstance(node, list) else node[p]
            if isinstance(node, list):
                node[int(last)] = value
            else:
                node[last] = value

        return mutate

    def delete(path: str) -> Any:
        def mutate(doc: dict[str, Any]) -> None:
            *parents, last = path.split("/")
            node: Any = doc
            for p in parents:
                node = node[int(p)] if isinstance(node, list) else node[p]
            del node[last]

        return mutate

    def dangling(doc: dict[str, Any]) -> None:
        doc["agent"]["messages"].append(doc["interruptState"]["pendingToolExecution"]["assistantMessage"])

    def tamper_input(doc: dict[str, Any]) -> None:
        msg = doc["interruptState"]["pendingToolExecution"]["assistantMessage"]
        msg["content"][2]["toolUse"]["input"] = {"q": "something else"}

    def unanswered_on_completed(doc: dict[str, Any]) -> None:
        interrupt = doc["interruptState"]["interrupts"][0]
        interrupt["source"]["toolUseId"] = "t1"
        interrupt["source"]["toolName"] = "ok"
        interrupt["inputDigest"] = input_digest({"n": 1})

    def duplicate_ids(doc: dict[str, Any]) -> None:
        ints = doc["interruptState"]["interrupts"]
        ints[1]["id"] = ints[0]["id"]

    def result_for_unknown_use(doc: dict[str, Any]) -> None:
        doc["interruptState"]["pendingToolExecution"]["completedToolResults"][0]["toolUseId"] = "zz"

    return [
        ("major 1", set_path("schemaVersion", "1.0"), ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED),
        ("major 3", set_path("schemaVersion", "3.0"), ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED),
        ("major 0", set_path("schemaVersion", "0.9"), ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED),
        ("bad version", set_path("schemaVersion", "one"), ErrorCode.SNAPSHOT_INVALID),
        ("no version", delete("schemaVersion"), ErrorCode.SNAPSHOT_INVALID),
        ("unknown member", set_path("extra", 1), ErrorCode.SNAPSHOT_INVALID),
        ("unknown nested member", set_path("agent/extra", 1), ErrorCode.SNAPSHOT_INVALID),
        ("negative revision", set_path("revision", -1), ErrorCode.SNAPSHOT_INVALID),
        ("revision as string", set_path("revision", "3"), ErrorCode.SNAPSHOT_INVALID),
        ("activated as string", set_path("interruptState/activated", "true"), ErrorCode.SNAPSHOT_INVALID),
        ("bad createdAt", set_path("createdAt", "yesterday"), ErrorCode.SNAPSHOT_INVALID),
        ("state not object", set_path("agent/state", []), ErrorCode.SNAPSHOT_INVALID),
        ("dangling toolUse", dangling, ErrorCode.SNAPSHOT_INVALID),
        ("inputDigest mismatch", tamper_input, ErrorCode.SNAPSHOT_INVALID),
        ("no inputDigest", delete("interruptState/interrupts/0/inputDigest"), ErrorCode.SNAPSHOT_INVALID),
        ("null response", set_path("interruptState/interrupts/0/response", None), ErrorCode.SNAPSHOT_INVALID),
        ("not activated", set_path("interruptState/activated", False), ErrorCode.SNAPSHOT_INVALID),
        ("no pending", set_path("interruptState/pendingToolExecution", None), ErrorCode.SNAPSHOT_INVALID),
        ("unanswered on completed", unanswered_on_completed, ErrorCode.SNAPSHOT_INVALID),
        ("duplicate ids", duplicate_ids, ErrorCode.SNAPSHOT_INVALID),
        ("result for unknown use", result_for_unknown_use, ErrorCode.SNAPSHOT_INVALID),
        (
            "unknown kind",
            set_path("interruptState/interrupts/0/source/kind", "before_node_call"),
            ErrorCode.SNAPSHOT_INVALID,
        ),
    ]


@pytest.mark.req(
    "ROC-SNAP-009",
    "ROC-SNAP-010",
    "ROC-SNAP-011",
    "ROC-SNAP-012",
    "ROC-SNAP-013",
    "ROC-SNAP-014",
    "ROC-VER-004",
    "ROC-VER-005",
    "ROC-VER-009",
)
@pytest.mark.parametrize(("label", "mutate", "code"), _mutations(), ids=[m[0] for m in _mutations()])
def test_bad_snapshots_are_rejected_with_the_right_code(label: str, mutate: Any, code: ErrorCode) -> None:
    agent = build()
    agent("go")
    doc = agent.take_snapshot()
    mutate(doc)
    with pytest.raises(RocError) as info:
        restore(doc)
    assert info.value.code == code, label


def test_non_object_and_non_json_snapshots_are_invalid() -> None:
    for doc in ([], "x", {"schemaVersion": "2.0", "bad": {1, 2}}):
        with pytest.raises(RocError) as info:
            restore(doc)  # type: ignore[arg-type]
        assert info.value.code == ErrorCode.SNAPSHOT_INVALID


def test_integrity_tag_verifies_and_detects_tampering() -> None:
    agent = build()
    agent("go")
    keys = {"k1": b"secret"}
    signed = sign_snapshot(agent.take_snapshot(), "k1", keys["k1"])
    assert_schema_valid("snapshot", signed)
    restore(signed, integrity_keys=keys)
    tampered = copy.deepcopy(signed)
    tampered["agent"]["state"] = {"admin": True}
    for doc, key_set in ((tampered, keys), (signed, {"other": b"x"}), (agent.take_snapshot(), keys)):
        with pytest.raises(RocError) as info:
            restore(doc, integrity_keys=key_set)
        assert info.value.code == ErrorCode.SNAPSHOT_INTEGRITY


# --- sessions -----------------------------------------------------------------------------------------------


@pytest.mark.req("ROC-SESSION-009", "ROC-SESSION-011", "ROC-SESSION-013")
def test_session_saves_at_claim_and_at_the_end_of_each_invocation() -> None:
    session = MemorySession()
    agent = build(session=session)
    assert session.doc is None
    first = agent("go")
    assert [s["revision"] for s in session.saves] == [0, 1]
    assert session.saves[0]["interruptState"]["activated"] is False  # the claim holds the pre-run state
    assert session.saves[1]["interruptState"]["activated"] is True
    assert agent.revision == 1
    assert agent.take_snapshot()["revision"] == 1
    fresh = build(session=session)
    assert fresh.is_interrupted
    assert [i.id for i in fresh.interrupts] == [i.id for i in first.interrupts]
    for doc in session.saves:
        assert_schema_valid("snapshot", doc)


@pytest.mark.req("ROC-SESSION-010", "ROC-SESSION-012")
def test_concurrent_resumers_one_wins_the_other_gets_session_conflict_before_running() -> None:
    session = MemorySession()
    first = build(session=session)("go")
    a, b = build(session=session), build(session=session)
    RUNS.clear()
    a([answer(first.interrupts[0].id, "A")])
    runs_after_a = list(RUNS)
    before = frozen(b)
    with pytest.raises(RocError) as info:
        b([answer(first.interrupts[0].id, "B")])
    assert info.value.code == ErrorCode.SESSION_CONFLICT
    assert runs_after_a == RUNS  # the loser ran nothing
    assert frozen(b) == before


def test_failure_after_the_claim_rolls_back_to_the_claimed_state() -> None:
    session = MemorySession()

    @tool
    def bad(tool_context: ToolContext) -> str:
        tool_context.agent.state.set("half", True)
        tool_context.interrupt("")
        return "x"

    agent = Agent(ScriptedModel([[use("t1", "bad")]]), tools=[bad], session=session)
    with pytest.raises(RocError):
        agent("go")
    assert agent.messages == []
    assert agent.state.to_dict() == {}
    assert agent.revision == 0 == session.doc["revision"]  # type: ignore[index]
    assert len(session.saves) == 1  # only the claim was stored


@pytest.mark.req("ROC-SESSION-008")
def test_agent_id_mismatch_is_invalid() -> None:
    session = MemorySession()
    agent = build(session=session, agent_id="a1")
    agent("go")
    with pytest.raises(RocError) as info:
        build(session=session, agent_id="other")
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    with pytest.raises(RocError) as info:
        restore(agent.take_snapshot(), agent_id="other")
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    assert restore(agent.take_snapshot(), agent_id="a1").agent_id == "a1"


@pytest.mark.req("ROC-VER-007", "ROC-VER-008", "ROC-VER-003")
def test_later_minor_members_are_ignored_known_minor_members_are_not() -> None:
    agent = build()
    agent("go")
    doc = agent.take_snapshot()
    doc["futureTopLevel"] = {"x": 1}
    doc["interruptState"]["interrupts"][0]["futureMember"] = True
    doc["agent"]["messages"][0]["futureMessageMember"] = 1
    with pytest.raises(RocError) as info:
        restore(copy.deepcopy(doc))
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    doc["schemaVersion"] = "2.7"
    restored = restore(doc)
    assert restored.is_interrupted
    assert restored.take_snapshot()["schemaVersion"] == "2.3"  # ROC-VER-003


@pytest.mark.req("ROC-VER-006")
def test_unknown_spec_major_is_unsupported() -> None:
    doc = build().take_snapshot()
    doc["specVersion"] = "2.0"
    with pytest.raises(RocError) as info:
        restore(doc)
    assert info.value.code == ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED


@pytest.mark.req("ROC-SNAP-008")
def test_canonical_digest_ignores_the_float_int_difference() -> None:
    assert input_digest({"b": 1.0, "a": [-0.0, 2.5, "é\n"]}) == input_digest({"a": [0, 2.5, "é\n"], "b": 1})


@pytest.mark.req("ROC-SNAP-007", "ROC-SESSION-006")
def test_snapshot_and_restore_have_no_side_effects() -> None:
    agent = build()
    agent("go")
    runs, calls = list(RUNS), agent.model.calls  # type: ignore[attr-defined]
    a = frozen(agent)
    agent.take_snapshot()
    assert frozen(agent) == a
    restored = restore(agent.take_snapshot())
    assert runs == RUNS
    assert restored.model.calls == 0
    assert agent.model.calls == calls


@pytest.mark.req("ROC-SEC-002", "ROC-SEC-003", "ROC-SEC-004")
def test_signing_writer_and_verifying_session_reader() -> None:
    keys = {"k1": b"0123456789abcdef0123456789abcdef"}
    session = MemorySession()
    agent = build(session=session, integrity_keys=keys, signing_key_id="k1")
    first = agent("go")
    stored = session.doc
    assert stored is not None
    assert stored["integrity"]["keyId"] == "k1"
    assert_schema_valid("snapshot", stored)
    assert agent.take_snapshot()["integrity"]["alg"] == "HMAC-SHA256"
    # a verifying reader refuses a tampered store before using anything in it
    session.doc = copy.deepcopy(stored)
    session.doc["interruptState"]["interrupts"][0]["response"] = "forged"
    session.doc["bogus"] = 1  # also malformed: integrity is checked first
    with pytest.raises(RocError) as info:
        build(session=session, integrity_keys=keys)
    assert info.value.code == ErrorCode.SNAPSHOT_INTEGRITY
    session.doc = stored
    resumed = build(session=session, integrity_keys=keys, signing_key_id="k1")
    assert resumed(answers(first, "ok")).stop_reason == "end_turn"
    with pytest.raises(ValueError):  # noqa: PT011
        build(integrity_keys=keys, signing_key_id="missing")


@pytest.mark.req("ROC-SEC-010")
def test_snapshot_size_bound() -> None:
    agent = build()
    agent("go")
    doc = agent.take_snapshot()
    with pytest.raises(RocError) as info:
        restore(doc, max_snapshot_bytes=100)
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    assert restore(doc, max_snapshot_bytes=1_000_000).is_interrupted
