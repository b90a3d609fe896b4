"""The public API: types as spec JSON, the tool decorator, state, the scripted model, async invoke."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from refsupport import answers, assert_schema_valid, text, use
from roc_reference import (
    SPEC_VERSION,
    Agent,
    AgentResult,
    AgentState,
    Interrupt,
    InterruptSource,
    Message,
    ScriptedModel,
    Tool,
    ToolContext,
    ToolResult,
    interrupt_id,
    tool,
)


def test_spec_version() -> None:
    assert SPEC_VERSION == "1.3"


def test_message_json_round_trips_every_block_kind() -> None:
    doc = {
        "role": "user",
        "content": [
            {"text": "hi"},
            {"toolUse": {"toolUseId": "t1", "name": "x", "input": {"a": None, "b": [1.5]}}},
            {
                "toolResult": {
                    "toolUseId": "t1",
                    "status": "error",
                    "content": [{"text": "e"}, {"json": None}],
                }
            },
            {"interruptResponse": {"interruptId": "i", "response": False}},
        ],
    }
    assert Message.model_validate(doc).to_json() == doc
    with pytest.raises(ValidationError):
        Message.model_validate({"role": "user", "content": [{"text": "a", "json": 1}]})
    with pytest.raises(ValidationError):
        Message.model_validate({"role": "system", "content": []})


def test_interrupt_json_omits_absent_members_and_validates() -> None:
    i = Interrupt(id="x", name="n", source=InterruptSource(kind="before_tools"))
    assert i.to_json() == {"id": "x", "name": "n", "source": {"kind": "before_tools"}}
    assert_schema_valid("interrupt", i.to_json())
    with pytest.raises(ValidationError):
        Interrupt(id="", name="n", source=InterruptSource(kind="tool"))


def test_agent_result_requires_interrupts_iff_interrupt() -> None:
    msg = Message(role="assistant", content=[])
    with pytest.raises(ValidationError):
        AgentResult(stop_reason="interrupt", message=msg)
    with pytest.raises(ValidationError):
        AgentResult(
            stop_reason="end_turn",
            message=msg,
            interrupts=[Interrupt(id="x", name="n", source=InterruptSource(kind="before_tools"))],
        )
    assert AgentResult(stop_reason="end_turn", message=msg).to_json()["interrupts"] == []


def test_interrupt_ids_are_unambiguous() -> None:
    assert interrupt_id("tool", 1, ["a:b"], "body", "c") != interrupt_id("tool", 1, ["a"], "body", "b:c")
    assert interrupt_id("before_tools", 3, ["t1", "t2"], "0", "n") != interrupt_id(
        "before_tools", 3, ["t1,t2"], "0", "n"
    )
    assert interrupt_id("tool", 1, ["t"], "body", "n") == interrupt_id("tool", 1, ["t"], "body", "n")


def test_tool_decorator_forms() -> None:
    @tool
    def plain(a: int) -> int:
        """Adds one."""
        return a + 1

    @tool(name="renamed", description="d")
    def other(tool_context: ToolContext) -> str:
        return "x"

    assert isinstance(plain, Tool)
    assert plain.name == "plain"
    assert not plain.context
    assert plain.description == "Adds one."
    assert plain(a=1) == 2
    assert other.name == "renamed"
    assert other.context
    assert other.description == "d"

    class Holder:
        def __init__(self) -> None:
            self.k = 5

        @tool
        def method(self, x: int) -> int:
            return self.k + x

    bound = Holder().method
    assert isinstance(bound, Tool)
    assert bound(x=1) == 6


def test_returned_tool_result_is_taken_with_the_right_id() -> None:
    @tool
    def custom() -> ToolResult:
        return ToolResult(tool_use_id="whatever", status="error", content=[])

    agent = Agent(ScriptedModel([[use("t1", "custom")], [text("x")]]), tools=[custom])
    agent("go")
    assert agent.messages[2].tool_results()[0].to_json() == {
        "toolUseId": "t1",
        "status": "error",
        "content": [],
    }


def test_duplicate_tool_names_are_refused() -> None:
    @tool
    def a() -> str:
        return "a"

    with pytest.raises(ValueError):  # noqa: PT011
        Agent(ScriptedModel([]), tools=[a, a])


@pytest.mark.req("ROC-MODEL-012")
def test_agent_state_is_a_json_store_with_copies() -> None:
    state = AgentState({"a": [1]})
    got = state.get("a")
    got.append(2)
    assert state.get("a") == [1]
    state.set("b", {"x": None})
    assert "b" in state
    assert state.to_dict() == {"a": [1], "b": {"x": None}}
    state.delete("b")
    state.delete("missing")
    assert state.get("b", "dflt") == "dflt"
    for bad in (object(), float("nan"), {1: 2}):
        with pytest.raises(TypeError):
            state.set("k", bad)
    with pytest.raises(TypeError):
        state.set(1, "v")  # type: ignore[arg-type]

    @tool
    def counts(tool_context: ToolContext) -> int:
        n = tool_context.agent.state.get("n", 0) + 1
        tool_context.agent.state.set("n", n)
        return n

    model = ScriptedModel([[use("t1", "counts")], [text("a")], [use("t2", "counts")], [text("b")]])
    agent = Agent(model, tools=[counts])
    agent("one")
    agent("two")
    assert agent.state.get("n") == 2


@pytest.mark.req("ROC-MODEL-013")
def test_scripted_model_indexes_by_history_and_reports_exhaustion() -> None:
    model = ScriptedModel([[text("only")]])
    agent = Agent(model)
    assert agent("a").message.to_json()["content"] == [{"text": "only"}]
    assert agent("b").message.to_json()["content"] == [{"text": "script exhausted"}]
    assert agent.messages[-1].to_json()["content"] == [{"text": "script exhausted"}]
    assert model.calls == 2
    assert model.turn_indexes == [0, 1]


def test_invoke_async_and_call_are_the_same_operation() -> None:
    @tool
    def ask(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("q")

    agent = Agent(ScriptedModel([[use("t1", "ask")], [text("done")]]), tools=[ask])

    async def run() -> str:
        first = await agent.invoke_async("go")
        second = await agent.invoke_async(answers(first, "y"))
        return second.stop_reason

    assert asyncio.run(run()) == "end_turn"
    assert agent.invoke("again").stop_reason == "end_turn"


@pytest.mark.req(
    "ROC-CONF-001", "ROC-CONF-002", "ROC-CONF-003", "ROC-CONF-004", "ROC-CONF-005", "ROC-CONF-006",
    "ROC-VER-001",
)
def test_declared_claim() -> None:
    from roc_reference import IMPLEMENTATION_NAME, PROFILES

    registry = json.loads((Path(__file__).resolve().parents[2] / "spec" / "requirements.json").read_text())
    defined = {r["profile"] for r in registry["requirements"]}  # the profiles the spec gives requirements
    assert IMPLEMENTATION_NAME
    assert "core" in PROFILES
    assert {"sequential-executor", "concurrent-executor"} & set(PROFILES)
    assert set(PROFILES) <= defined
    assert "portable-snapshot" not in PROFILES or "sessions" in PROFILES
    assert not {"session-store", "snapshot-integrity"} & set(PROFILES) or "sessions" in PROFILES
    assert SPEC_VERSION == "1.3"


@pytest.mark.req(
    "ROC-MODEL-002", "ROC-MODEL-003", "ROC-MODEL-004", "ROC-MODEL-005", "ROC-MODEL-007", "ROC-MODEL-010"
)
def test_interrupt_sources_and_absent_reason() -> None:
    from roc_reference import BeforeToolCallEvent, BeforeToolsEvent, ConcurrentExecutor, HookRegistry

    class Hooks:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolsEvent, lambda e: e.interrupt("batch"))
            registry.add_callback(
                BeforeToolCallEvent, lambda e: e.interrupt("call") if e.tool_use.tool_use_id == "t1" else None
            )

    @tool
    def body(tool_context: ToolContext) -> Any:
        return tool_context.interrupt("body", reason={"why": 1})

    model = ScriptedModel([[use("t1", "body"), use("t2", "body")], [text("x")]])
    agent = Agent(model, tools=[body], hooks=[Hooks()], executor=ConcurrentExecutor())
    first = agent("go")
    [batch] = first.interrupts
    assert batch.to_json() == {"id": batch.id, "name": "batch", "source": {"kind": "before_tools"}}
    second = agent(answers(first, "ok"))
    by_kind = {(i.source.kind, i.source.tool_use_id): i for i in second.interrupts}
    assert set(by_kind) == {("before_tool_call", "t1"), ("tool", "t2")}
    assert by_kind[("before_tool_call", "t1")].source.tool_name == "body"
    assert "reason" not in by_kind[("before_tool_call", "t1")].to_json()
    assert by_kind[("tool", "t2")].to_json()["source"] == {
        "kind": "tool",
        "toolUseId": "t2",
        "toolName": "body",
    }
    pending_ids = [i.id for i in agent.interrupts]
    assert len(set(pending_ids)) == len(pending_ids) == 2
    third = agent(answers(second, "ok"))
    assert third.interrupts[0].to_json()["reason"] == {"why": 1}
    final = agent(answers(third, "ok"))
    assert final.stop_reason == "end_turn"
    assert final.interrupts == []


@pytest.mark.req("ROC-MODEL-011")
def test_only_defined_stop_reasons_are_emitted() -> None:
    with pytest.raises(ValidationError):
        AgentResult.model_validate({"stopReason": "paused", "message": {"role": "assistant", "content": []}})


@pytest.mark.req("ROC-MODEL-009")
def test_reserved_interrupt_members_pass_through_unchanged() -> None:
    i = Interrupt(
        id="x",
        name="n",
        source=InterruptSource(kind="tool", tool_use_id="t", tool_name="x"),
        response_schema={"type": "string"},
        expires_at="2030-01-01T00:00:00Z",
    )
    assert_schema_valid("interrupt", i.to_json())
    assert i.to_json()["responseSchema"] == {"type": "string"}


@pytest.mark.req("ROC-DIRECT-002")
def test_direct_calls_fire_no_hook_events() -> None:
    from refsupport import Tracer

    tracer = Tracer()

    @tool
    def plain() -> str:
        return "p"

    agent = Agent(ScriptedModel([]), tools=[plain], hooks=[tracer])
    assert agent.tool.plain().status == "success"
    assert tracer.events == []  # so no BeforeToolCall callback can interrupt a direct call
