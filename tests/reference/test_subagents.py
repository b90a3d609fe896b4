"""Sub-agents used as tools (spec chapter 12): surfacing, routing, resume not re-prompt, nested sessions."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from roc_reference import Agent, ErrorCode, RocError, ScriptedModel, Tool, ToolContext, tool
from roc_reference.executors import ConcurrentExecutor, SequentialExecutor


class Cleaner:
    """A sub-agent definition whose tool asks before it deletes; counts what really ran."""

    def __init__(self, agent_id: str = "cleaner", paths: tuple[str, ...] = ("/tmp/a",)) -> None:
        self.deleted: list[str] = []
        uses = [
            {"toolUse": {"toolUseId": f"c{n}", "name": "delete", "input": {"path": p}}}
            for n, p in enumerate(paths)
        ]
        self.model = ScriptedModel([uses, [{"text": "cleaned"}]])

        @tool
        def delete(path: str, tool_context: ToolContext) -> str:
            answer = tool_context.interrupt("approve", reason={"path": path}, metadata={"ui": "confirm"})
            if answer != "y":
                return "kept " + path
            self.deleted.append(path)
            return "deleted " + path

        self.agent = Agent(self.model, tools=[delete], agent_id=agent_id, executor=ConcurrentExecutor())


def delegating(agent_id: str, tool_name: str, sub: Agent, uses: int = 1, executor: Any = None) -> Agent:
    """An agent whose model calls ``tool_name`` ``uses`` times in one batch, then ends."""
    batch = [
        {"toolUse": {"toolUseId": f"{agent_id}-t{n}", "name": tool_name, "input": {"prompt": "go"}}}
        for n in range(uses)
    ]
    model = ScriptedModel([batch, [{"text": f"{agent_id} done"}]])
    return Agent(model, tools=[sub.as_tool(tool_name)], agent_id=agent_id, executor=executor)


def answers(result: Any, value: Any = "y") -> list[dict[str, Any]]:
    return [{"interruptResponse": {"interruptId": i.id, "response": value}} for i in result.interrupts]


def restored(agent: Agent) -> Agent:
    """The agent continued from its snapshot, as JSON text, in a fresh agent (another process)."""
    doc = json.loads(json.dumps(agent.take_snapshot()))
    return Agent.from_snapshot(
        doc, model=agent.model, tools=agent.tool_registry.values(), executor=agent.executor
    )


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-003", "ROC-AGENT-005")
def test_a_sub_agents_interrupts_surface_and_its_answers_resume_it_at_depth_1() -> None:
    cleaner = Cleaner(paths=("/tmp/a", "/tmp/b"))
    outer = delegating("chat", "clean", cleaner.agent)
    first = outer("tidy up")
    assert first.stop_reason == "interrupt"
    assert [i.name for i in first.interrupts] == ["approve", "approve"]
    assert [i.reason for i in first.interrupts] == [{"path": "/tmp/a"}, {"path": "/tmp/b"}]
    source = first.interrupts[0].source.to_json()
    assert source["kind"] == "agent_as_tool"
    assert source["toolUseId"] == "chat-t0"
    assert source["toolName"] == "clean"
    assert source["inner"]["agentId"] == "cleaner"
    assert source["inner"]["source"] == {"kind": "tool", "toolUseId": "c0", "toolName": "delete"}
    assert first.interrupts[0].metadata == {"ui": "confirm"}
    assert cleaner.model.calls == 1
    done = outer(answers(first))
    assert done.stop_reason == "end_turn"
    assert cleaner.deleted == ["/tmp/a", "/tmp/b"]
    # ROC-AGENT-005: one more model call (the turn after its batch), never the prompt again
    assert cleaner.model.turn_indexes == [0, 1]
    assert outer.messages[-2].to_json()["content"][0]["toolResult"]["content"] == [{"text": "cleaned"}]
    assert cleaner.agent.messages == []  # the definition never changes (ROC-AGENT-010)


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-002", "ROC-AGENT-008")
@pytest.mark.parametrize("across_snapshot", [False, True])
def test_depth_3_in_one_process_and_across_a_snapshot(across_snapshot: bool) -> None:
    cleaner = Cleaner()
    middle = delegating("planner", "cleaner", cleaner.agent)
    outer = delegating("chat", "plan", middle)
    first = outer("go")
    (interrupt,) = first.interrupts
    chain = interrupt.source.to_json()
    assert [chain["inner"]["agentId"], chain["inner"]["source"]["inner"]["agentId"]] == ["planner", "cleaner"]
    if across_snapshot:
        snapshot = outer.take_snapshot()
        assert set(snapshot["interruptState"]["children"]) == {"chat-t0"}
        kept = snapshot["interruptState"]["children"]["chat-t0"]
        assert set(kept["interruptState"]["children"]) == {"planner-t0"}
        outer = restored(outer)
        assert [i.id for i in outer.interrupts] == [interrupt.id]  # ROC-AGENT-002: stable across restore
    done = outer(answers(first))
    assert done.stop_reason == "end_turn"
    assert done.message.to_json()["content"] == [{"text": "chat done"}]
    assert cleaner.deleted == ["/tmp/a"]
    assert cleaner.model.turn_indexes == [0, 1]  # resumed, never re-prompted, at the third level too


@pytest.mark.req("ROC-AGENT-002", "ROC-AGENT-010")
def test_two_tool_uses_running_one_definition_concurrently_each_keep_their_own() -> None:
    cleaner = Cleaner()
    outer = delegating("chat", "clean", cleaner.agent, uses=2, executor=ConcurrentExecutor())
    first = outer("go")
    ids = [i.id for i in first.interrupts]
    assert len(ids) == 2
    assert len(set(ids)) == 2
    assert {i.source.inner.interrupt_id for i in first.interrupts if i.source.inner} == {
        "roc1:tool:1:c0:body:approve"
    }
    # answer only the second tool use's sub-agent: only it runs its approved tool
    second = outer([{"interruptResponse": {"interruptId": ids[1], "response": "y"}}])
    assert second.stop_reason == "interrupt"
    assert [i.id for i in second.interrupts] == [ids[0]]
    assert cleaner.deleted == ["/tmp/a"]
    done = outer([{"interruptResponse": {"interruptId": ids[0], "response": "n"}}])
    assert done.stop_reason == "end_turn"
    assert cleaner.deleted == ["/tmp/a"]  # the "n" reached its own sub-agent only (ROC-AGENT-004)


@pytest.mark.req("ROC-AGENT-004", "ROC-AGENT-006")
def test_partial_answers_and_a_decline_reach_only_the_inner_interrupt_they_stand_for() -> None:
    cleaner = Cleaner(paths=("/tmp/a", "/tmp/b"))
    outer = delegating("chat", "clean", cleaner.agent)
    first = outer("go")
    a, b = first.interrupts
    partial = outer([{"interruptResponse": {"interruptId": b.id, "decision": "decline", "message": "not b"}}])
    assert partial.stop_reason == "interrupt"
    assert [i.id for i in partial.interrupts] == [a.id]
    assert cleaner.deleted == []
    pending = outer.pending_interrupts()
    assert [(p["id"], p.get("answer")) for p in pending] == [
        (a.id, None),
        (b.id, {"decision": "decline", "message": "not b"}),
    ]
    done = outer([{"interruptResponse": {"interruptId": a.id, "response": "y"}}])
    assert done.stop_reason == "end_turn"
    assert cleaner.deleted == ["/tmp/a"]


@pytest.mark.req("ROC-AGENT-012")
def test_a_rejected_resume_changes_no_level() -> None:
    cleaner = Cleaner()
    outer = delegating("chat", "clean", cleaner.agent)
    first = outer("go")
    before = outer.take_snapshot()
    (interrupt,) = first.interrupts
    inner_id = interrupt.source.inner.interrupt_id if interrupt.source.inner else ""
    bad_inputs = [
        ([{"interruptResponse": {"interruptId": inner_id, "response": "y"}}], ErrorCode.UNKNOWN_INTERRUPT),
        (answers(first) * 2, ErrorCode.DUPLICATE_RESPONSE),
        (
            [{"interruptResponse": {"interruptId": interrupt.id, "response": None}}],
            ErrorCode.INVALID_RESPONSE,
        ),
        ("a new prompt", ErrorCode.INTERRUPT_PENDING),
    ]
    for bad, code in bad_inputs:
        with pytest.raises(RocError) as info:
            outer(bad)  # type: ignore[arg-type]
        assert info.value.code == code
        after = outer.take_snapshot()
        assert {**after, "createdAt": None} == {**before, "createdAt": None}
    assert cleaner.model.calls == 1
    assert cleaner.deleted == []


@pytest.mark.req("ROC-AGENT-007")
def test_a_completed_sub_agent_is_not_run_again_when_its_body_replays() -> None:
    cleaner = Cleaner()
    ran_after: list[str] = []

    @tool
    def clean_then_confirm(prompt: str, tool_context: ToolContext) -> str:
        summary = tool_context.run_agent(cleaner.agent, prompt)
        if tool_context.interrupt("confirm", reason="send the summary?") != "y":
            return "not sent"
        ran_after.append("sent")
        return "sent: " + summary.message.to_json()["content"][0]["text"]

    model = ScriptedModel(
        [
            [{"toolUse": {"toolUseId": "t1", "name": "clean_then_confirm", "input": {"prompt": "go"}}}],
            [{"text": "done"}],
        ]
    )
    outer = Agent(model, tools=[clean_then_confirm], agent_id="chat")
    first = outer("go")
    assert [i.source.kind for i in first.interrupts] == ["agent_as_tool"]
    middle = restored(outer)
    second = middle(answers(first))  # the sub-agent completes; the body then asks its own question
    assert [i.name for i in second.interrupts] == ["confirm"]
    assert cleaner.deleted == ["/tmp/a"]
    snapshot = middle.take_snapshot()
    assert snapshot["interruptState"]["children"]["t1"]["result"]["stopReason"] == "end_turn"
    done = restored(middle)(answers(second))
    assert done.stop_reason == "end_turn"
    assert ran_after == ["sent"]
    assert cleaner.deleted == ["/tmp/a"]
    assert cleaner.model.turn_indexes == [0, 1]


@pytest.mark.req("ROC-AGENT-011")
def test_a_second_sub_agent_call_in_one_body_run_fails_the_body() -> None:
    cleaner = Cleaner()

    @tool
    def twice(prompt: str, tool_context: ToolContext) -> str:
        tool_context.run_agent(cleaner.agent, prompt)
        tool_context.run_agent(cleaner.agent, prompt)
        return "unreachable"

    model = ScriptedModel(
        [[{"toolUse": {"toolUseId": "t1", "name": "twice", "input": {"prompt": "go"}}}], [{"text": "done"}]]
    )
    outer = Agent(model, tools=[twice], agent_id="chat")
    first = outer("go")
    done = outer(answers(first))
    assert done.stop_reason == "end_turn"
    result = outer.messages[-2].to_json()["content"][0]["toolResult"]
    assert result["status"] == "error"
    assert "at most one sub-agent" in result["content"][0]["text"]


@pytest.mark.req("ROC-AGENT-009")
def test_the_loader_refuses_inconsistent_kept_sub_agents() -> None:
    cleaner = Cleaner()
    outer = delegating("chat", "clean", cleaner.agent)
    outer("go")
    good = outer.take_snapshot()

    def refused(doc: dict[str, Any]) -> None:
        with pytest.raises(RocError) as info:
            Agent.from_snapshot(doc, model=outer.model, tools=outer.tool_registry.values())
        assert info.value.code == ErrorCode.SNAPSHOT_INVALID

    stray = copy.deepcopy(good)
    stray["interruptState"]["children"]["nobody"] = stray["interruptState"]["children"].pop("chat-t0")
    refused(stray)  # a kept sub-agent of no tool use, and a propagated interrupt without its sub-agent
    forgotten = copy.deepcopy(good)
    del forgotten["interruptState"]["children"]
    refused(forgotten)
    not_waiting = copy.deepcopy(good)
    kept = not_waiting["interruptState"]["children"]["chat-t0"]["interruptState"]["interrupts"][0]
    kept["response"] = "y"
    refused(not_waiting)  # the kept sub-agent no longer waits on the inner interrupt
    older = copy.deepcopy(good)
    older["schemaVersion"] = "2.1"
    refused(older)  # ROC-VER-008: a 2.1 document cannot carry children
    # a restore whose tool runs another sub-agent than the kept one
    impostor = Cleaner(agent_id="impostor")
    other = Agent.from_snapshot(good, model=outer.model, tools=[impostor.agent.as_tool("clean")])
    with pytest.raises(RocError) as info:
        other(answers(outer))
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    assert other.is_interrupted
    assert impostor.model.calls == 0
    assert cleaner.deleted == []


@pytest.mark.req("ROC-AGENT-001")
def test_sibling_results_are_preserved_and_after_tools_sees_the_interrupted_cycle() -> None:
    cleaner = Cleaner()
    plain_runs: list[str] = []

    @tool
    def plain() -> str:
        plain_runs.append("ran")
        return "plain"

    model = ScriptedModel(
        [
            [
                {"toolUse": {"toolUseId": "t1", "name": "clean", "input": {"prompt": "go"}}},
                {"toolUse": {"toolUseId": "t2", "name": "plain", "input": {}}},
            ],
            [{"text": "done"}],
        ]
    )
    outer = Agent(
        model, tools=[cleaner.agent.as_tool("clean"), plain], agent_id="chat", executor=SequentialExecutor()
    )
    first = outer("go")
    assert first.stop_reason == "interrupt"
    assert plain_runs == []
    done = outer(answers(first))
    assert done.stop_reason == "end_turn"
    assert plain_runs == ["ran"]
    results = outer.messages[-2].to_json()["content"]
    assert [r["toolResult"]["toolUseId"] for r in results] == ["t1", "t2"]


@pytest.mark.req("ROC-AGENT-008", "ROC-AGENT-009")
def test_an_answered_propagated_interrupt_of_a_completed_tool_use_restores_without_its_sub_agent() -> None:
    cleaner = Cleaner()

    @tool
    def ask(tool_context: ToolContext) -> str:
        return str(tool_context.interrupt("other", reason="a sibling question"))

    model = ScriptedModel(
        [
            [
                {"toolUse": {"toolUseId": "t1", "name": "clean", "input": {"prompt": "go"}}},
                {"toolUse": {"toolUseId": "t2", "name": "ask", "input": {}}},
            ],
            [{"text": "done"}],
        ]
    )
    outer = Agent(
        model, tools=[cleaner.agent.as_tool("clean"), ask], agent_id="chat", executor=ConcurrentExecutor()
    )
    first = outer("go")
    propagated = next(i for i in first.interrupts if i.source.kind == "agent_as_tool")
    sibling = next(i for i in first.interrupts if i.source.kind == "tool")
    outer([{"interruptResponse": {"interruptId": propagated.id, "response": "y"}}])
    snapshot = outer.take_snapshot()
    assert "children" not in snapshot["interruptState"]  # t1 has its result; its sub-agent is not kept
    assert propagated.id in {i["id"] for i in snapshot["interruptState"]["interrupts"]}  # answered, kept
    done = restored(outer)([{"interruptResponse": {"interruptId": sibling.id, "response": "fine"}}])
    assert done.stop_reason == "end_turn"
    assert cleaner.deleted == ["/tmp/a"]


@pytest.mark.req("ROC-AGENT-009")
def test_a_completed_kept_sub_agent_of_another_id_is_refused_too() -> None:
    cleaner = Cleaner()

    def body_with(definition: Agent) -> Tool:
        @tool(name="clean_then_confirm")
        def run(prompt: str, tool_context: ToolContext) -> str:
            tool_context.run_agent(definition, prompt)
            return str(tool_context.interrupt("confirm"))

        return run

    model = ScriptedModel(
        [
            [{"toolUse": {"toolUseId": "t1", "name": "clean_then_confirm", "input": {"prompt": "go"}}}],
            [{"text": "done"}],
        ]
    )
    outer = Agent(model, tools=[body_with(cleaner.agent)], agent_id="chat")
    second = outer(answers(outer("go")))
    assert [i.name for i in second.interrupts] == ["confirm"]
    impostor = Cleaner(agent_id="impostor")
    other = Agent.from_snapshot(outer.take_snapshot(), model=model, tools=[body_with(impostor.agent)])
    with pytest.raises(RocError) as info:
        other(answers(second))
    assert info.value.code == ErrorCode.SNAPSHOT_INVALID
    assert other.is_interrupted
