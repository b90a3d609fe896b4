"""The frozen snapshot fixtures of spec/examples/Snapshot: valid ones continue, invalid ones are refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from refsupport import answer, frozen
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    Tool,
    ToolContext,
)
from roc_reference.errors import ErrorCode, RocError

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples" / "Snapshot"
EXAMPLE_KEYS = {"roc-examples-2026": b"roc-example-key-not-secret"}


def _expected_codes() -> dict[str, str]:
    """The *Code* column of the fixture table in spec/examples/Snapshot/README.md."""
    codes = {}
    for line in (EXAMPLES / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`") and cells[0].endswith(".json`"):
            codes[cells[0].strip("`")] = cells[-1].strip("`")
    return codes


INVALID = sorted((EXAMPLES / "invalid").glob("*.json"))
VALID = sorted((EXAMPLES / "valid").glob("*.json"))


@pytest.mark.req("ROC-VER-010", "ROC-SNAP-009", "ROC-VER-009")
@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_fixture_is_refused_with_its_code(path: Path) -> None:
    code = _expected_codes()[path.name]
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    keys = EXAMPLE_KEYS if "integrity" in doc else None  # as the fixture table prescribes
    # As text, the way the suite hands fixtures over: a repeated member name exists only in the text.
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(text, model=ScriptedModel([]), integrity_keys=keys)
    assert info.value.code == ErrorCode(code)


@pytest.mark.req("ROC-SNAP-015")
def test_a_repeated_member_name_is_refused_even_when_either_value_is_valid() -> None:
    text = (EXAMPLES / "invalid" / "duplicate-member-names.json").read_text(encoding="utf-8")
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(text, model=ScriptedModel([]))
    assert info.value.code is ErrorCode.SNAPSHOT_INVALID
    assert "duplicate member name 'response'" in info.value.message
    # Either value alone makes a valid snapshot: only the repetition is wrong.
    for kept in ('"response": "n",\n', '"response": "y",\n'):
        assert text.count(kept) == 1
        Agent.from_snapshot(text.replace(kept, "", 1), model=ScriptedModel([]))


BEFORE_ANY_EXPIRY = datetime(2000, 1, 1, tzinfo=UTC)


class FixtureUnits:
    """Tools and hooks that raise exactly the stored interrupts of a fixture, in their stored order."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.stored = doc["interruptState"]["interrupts"]
        self.received: dict[str, Any] = {}
        # Format 2.2: a tool use that keeps a sub-agent runs one built the same way from the kept part.
        self.kept = {
            tool_use_id: FixtureUnits(child)
            for tool_use_id, child in doc["interruptState"].get("children", {}).items()
        }
        self.sub_agents = {
            tool_use_id: Agent(
                ScriptedModel([[{"text": "x"}]] * 50),
                tools=units.tools(child),
                hooks=[units],
                executor=ConcurrentExecutor(),
                agent_id=child["agent"]["agentId"],
                clock=lambda: BEFORE_ANY_EXPIRY,
            )
            for (tool_use_id, units), child in zip(
                self.kept.items(), doc["interruptState"].get("children", {}).values(), strict=True
            )
        }

    def names(self, kind: str, tool_use_id: str | None) -> list[str]:
        return [
            i["name"]
            for i in self.stored
            if i["source"]["kind"] == kind and i["source"].get("toolUseId") == tool_use_id
        ]

    def body(self, tool_context: ToolContext, **_: Any) -> Any:
        sub_agent = self.sub_agents.get(tool_context.tool_use.tool_use_id)
        if sub_agent is not None:
            self.received[f"sub:{tool_context.tool_use.tool_use_id}"] = tool_context.run_agent(
                sub_agent, "again"
            )
        got = [tool_context.interrupt(n) for n in self.names("tool", tool_context.tool_use.tool_use_id)]
        self.received[f"tool:{tool_context.tool_use.tool_use_id}"] = got
        return got

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolsEvent, self.batch)
        registry.add_callback(BeforeToolCallEvent, self.call)

    def batch(self, e: BeforeToolsEvent) -> None:
        self.received["batch"] = [e.interrupt(n) for n in self.names("before_tools", None)]

    def call(self, e: BeforeToolCallEvent) -> None:
        got = [e.interrupt(n) for n in self.names("before_tool_call", e.tool_use.tool_use_id)]
        self.received[f"hook:{e.tool_use.tool_use_id}"] = got

    def tools(self, doc: dict[str, Any]) -> list[Tool]:
        pending = doc["interruptState"]["pendingToolExecution"]
        names = (
            {b["toolUse"]["name"] for b in pending["assistantMessage"]["content"] if "toolUse" in b}
            if pending
            else set()
        )
        return [Tool(n, self.body, context=True) for n in sorted(names)]


@pytest.mark.req(
    "ROC-SESSION-014", "ROC-SESSION-015", "ROC-SESSION-002", "ROC-SESSION-004", "ROC-SESSION-005"
)
@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_fixture_restores_and_continues(path: Path) -> None:
    doc = json.loads(path.read_text())
    units = FixtureUnits(doc)
    keys = EXAMPLE_KEYS if "integrity" in doc else None
    model = ScriptedModel([[{"text": "x"}]] * 50)
    agent = Agent.from_snapshot(
        doc,
        model=model,
        tools=units.tools(doc),
        hooks=[units],
        executor=ConcurrentExecutor(),
        integrity_keys=keys,
        clock=lambda: BEFORE_ANY_EXPIRY,  # a fixture's expiresAt must not age into EXPIRED
    )
    again = agent.take_snapshot()
    # ROC-VER-003: the writer writes its own format (2.1, spec 1.1) whatever it read; the content is the same.
    assert (again["schemaVersion"], again["specVersion"]) == ("2.3", "1.3")
    for member in ("createdAt", "revision", "integrity", "schemaVersion", "specVersion"):
        again.pop(member, None)
        doc.pop(member, None)
    assert again == doc  # ROC-SESSION-007
    if not agent.is_interrupted:
        return
    stored = {i["id"]: i for i in doc["interruptState"]["interrupts"]}
    # format 2.1: a stored decision answers its interrupt as a response does (ROC-DECIDE-008)
    unanswered = [i for i in stored.values() if "response" not in i and "decision" not in i]
    completed = {
        r["toolUseId"] for r in doc["interruptState"]["pendingToolExecution"]["completedToolResults"]
    }
    before = frozen(agent)
    with pytest.raises(RocError):
        agent(
            [answer(next(i for i in stored if stored[i] not in unanswered), "again")]
            if len(unanswered) < len(stored)
            else [answer("not-an-id", 1)]
        )
    assert frozen(agent) == before
    result = agent([answer(i["id"], f"answer-{i['name']}") for i in unanswered])  # foreign ids are accepted
    assert result.stop_reason == "end_turn", result.to_json()
    # stored answers reached their units without being sent again, new ones too; completed tools did not run
    _check_kept_sub_agents(units, doc)
    for key, got in units.received.items():
        kind, _, tool_use_id = key.partition(":")
        source_kind = {"tool": "tool", "hook": "before_tool_call", "batch": "before_tools"}[kind]
        expected = [
            i.get("response", f"answer-{i['name']}")
            for i in stored.values()
            if i["source"]["kind"] == source_kind and i["source"].get("toolUseId") == (tool_use_id or None)
        ]
        assert got == expected, key
        assert tool_use_id not in completed
    results = agent.messages[-2].tool_results()
    assert {r.tool_use_id for r in results} >= completed


@pytest.mark.req("ROC-SESSION-015", "ROC-SESSION-003", "ROC-SESSION-016")
def test_reraised_foreign_interrupt_keeps_its_foreign_id() -> None:
    def ask(tool_context: ToolContext, q: str) -> Any:
        return tool_context.interrupt(q)

    turns = [
        [{"toolUse": {"toolUseId": t, "name": "ask", "input": {"q": t}}} for t in ("A", "B")],
        [{"text": "x"}],
    ]

    def build(doc: dict[str, Any] | None = None) -> Agent:
        tools = [Tool("ask", ask, context=True)]
        if doc is None:
            return Agent(ScriptedModel(turns), tools=tools, executor=ConcurrentExecutor())
        return Agent.from_snapshot(
            doc, model=ScriptedModel(turns), tools=tools, executor=ConcurrentExecutor()
        )

    original = build()
    original("go")
    doc = original.take_snapshot()
    for i, foreign in zip(doc["interruptState"]["interrupts"], ("urn:other:1", "urn:other:2"), strict=True):
        i["id"] = foreign  # as another implementation would have minted them
    restored = build(doc)
    result = restored([answer("urn:other:1", "a")])
    assert [i.id for i in result.interrupts] == ["urn:other:2"]
    assert restored([answer("urn:other:2", "b")]).stop_reason == "end_turn"


@pytest.mark.req("ROC-SNAP-009", "ROC-VER-009")
@pytest.mark.parametrize("tool_use_id", ["L1", "P1"])
def test_a_tool_use_without_input_is_refused(tool_use_id: str) -> None:
    # The schema requires toolUse.input; a default filled in while loading would accept a damaged snapshot.
    doc = json.loads((EXAMPLES / "valid" / "paused-tool-interrupt-preserved-result.json").read_text())
    Agent.from_snapshot(json.loads(json.dumps(doc)), model=ScriptedModel([]))  # valid as frozen
    blocks = doc["interruptState"]["pendingToolExecution"]["assistantMessage"]["content"]
    use = next(b["toolUse"] for b in blocks if b.get("toolUse", {}).get("toolUseId") == tool_use_id)
    del use["input"]
    with pytest.raises(RocError) as info:
        Agent.from_snapshot(doc, model=ScriptedModel([]))
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID


def test_tool_use_of_fills_in_the_input_for_code() -> None:
    from roc_reference.types import ToolUse

    assert ToolUse.of("t1", "x").to_json() == {"toolUseId": "t1", "name": "x", "input": {}}
    assert ToolUse.of("t1", "x", name="n").to_json()["input"] == {"name": "n"}


def _check_kept_sub_agents(units: FixtureUnits, doc: dict[str, Any]) -> None:
    """Format 2.2: a paused kept sub-agent was resumed with its stored answers and the ones routed to it now
    (ROC-AGENT-004, ROC-AGENT-005); a completed one did not run again (ROC-AGENT-007)."""
    for tool_use_id, kept_units in units.kept.items():
        result = units.received.pop(f"sub:{tool_use_id}")
        assert result.stop_reason == "end_turn"
        kept = doc["interruptState"]["children"][tool_use_id]
        if "result" in kept:
            assert kept_units.received == {}
            assert result.to_json() == kept["result"]
            continue
        assert kept_units.received
        for key, got in kept_units.received.items():
            kind, _, inner_use = key.partition(":")
            source_kind = {"tool": "tool", "hook": "before_tool_call", "batch": "before_tools"}[kind]
            expected = [
                i.get("response", f"answer-{i['name']}")
                for i in kept["interruptState"]["interrupts"]
                if i["source"]["kind"] == source_kind and i["source"].get("toolUseId") == (inner_use or None)
            ]
            assert got == expected, key
