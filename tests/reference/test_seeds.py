"""Every example of the seed document (Strands interrupts docs) reproduced with the scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from refsupport import MemorySession, Tracer, answers, text, use
from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookRegistry,
    ScriptedModel,
    ToolContext,
    tool,
)

DELETED: list[list[str]] = []
INSPECTED: list[list[str]] = []


@tool
def delete_files(paths: list[str]) -> bool:
    DELETED.append(paths)
    return True


@tool
def inspect_files(paths: list[str]) -> dict[str, Any]:
    INSPECTED.append(paths)
    return {"count": len(paths)}


@pytest.fixture(autouse=True)
def _reset() -> None:
    DELETED.clear()
    INSPECTED.clear()


PATHS = ["a/b/c.txt", "d/e/f.txt"]


def two_tool_turns() -> ScriptedModel:
    return ScriptedModel(
        [
            [
                text("deleting"),
                use("t1", "delete_files", paths=PATHS),
                use("t2", "inspect_files", paths=PATHS),
            ],
            [text("done")],
        ]
    )


class ApprovalHook:
    """The seed's BeforeToolCallEvent approval hook."""

    def __init__(self, app_name: str) -> None:
        self.app_name = app_name

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.approve)

    def approve(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use.name != "delete_files":
            return
        approval = event.interrupt(
            f"{self.app_name}-approval", reason={"paths": event.tool_use.input["paths"]}
        )
        if approval.lower() != "y":
            event.cancel_tool = "User denied permission to delete files"


def test_approval_hook_approved() -> None:
    tracer = Tracer()
    agent = Agent(
        two_tool_turns(), tools=[delete_files, inspect_files], hooks=[tracer, ApprovalHook("myapp")]
    )
    result = agent(f"paths=<{PATHS}>")
    assert result.stop_reason == "interrupt"
    [interrupt] = result.interrupts
    assert interrupt.name == "myapp-approval"
    assert interrupt.reason == {"paths": PATHS}
    assert interrupt.source.kind == "before_tool_call"
    assert interrupt.source.tool_use_id == "t1"
    assert DELETED == []  # the gated tool did not run
    assert tracer.kinds("after_tool_call") == []  # no AfterToolCall for the interrupted tool, t2 not started

    result = agent(answers(result, "y"))
    assert result.stop_reason == "end_turn"
    assert result.message.to_json() == {"role": "assistant", "content": [{"text": "done"}]}
    assert DELETED == [PATHS]
    assert INSPECTED == [PATHS]
    results = agent.messages[2].tool_results()
    assert [(r.tool_use_id, r.status) for r in results] == [("t1", "success"), ("t2", "success")]


def test_approval_hook_denied_cancels_the_tool() -> None:
    tracer = Tracer()
    agent = Agent(
        two_tool_turns(), tools=[delete_files, inspect_files], hooks=[tracer, ApprovalHook("myapp")]
    )
    result = agent(f"paths=<{PATHS}>")
    result = agent(answers(result, "N"))
    assert result.stop_reason == "end_turn"
    assert DELETED == []
    assert INSPECTED == [PATHS]
    t1 = agent.messages[2].tool_results()[0]
    assert t1.to_json() == {
        "toolUseId": "t1",
        "status": "error",
        "content": [{"text": "User denied permission to delete files"}],
    }
    assert ("after_tool_call", "t1", "error") in tracer.events  # AfterToolCall fires for a cancelled tool


class BatchApprovalHook:
    """The seed's BeforeToolsEvent batch approval hook."""

    def __init__(self, app_name: str) -> None:
        self.app_name = app_name

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolsEvent, self.approve)

    def approve(self, event: BeforeToolsEvent) -> None:
        dangerous = [u.name for u in event.message.tool_uses() if u.name == "delete_files"]
        if not dangerous:
            return
        approval = event.interrupt(f"{self.app_name}-batch-approval", reason={"tools": dangerous})
        if approval.lower() != "y":
            event.cancel = "Batch cancelled by user"


def batch_model() -> ScriptedModel:
    return ScriptedModel(
        [
            [use("t1", "delete_files", paths=["a/b/c.txt"]), use("t2", "delete_files", paths=["d/e/f.txt"])],
            [text("ok")],
        ]
    )


def test_batch_approval_approved() -> None:
    tracer = Tracer()
    agent = Agent(batch_model(), tools=[delete_files], hooks=[tracer, BatchApprovalHook("myapp")])
    result = agent("Delete a/b/c.txt and d/e/f.txt")
    assert result.stop_reason == "interrupt"
    [interrupt] = result.interrupts
    assert interrupt.reason == {"tools": ["delete_files", "delete_files"]}
    assert interrupt.source.kind == "before_tools"
    assert tracer.count("before_tool_call") == 0
    assert tracer.count("after_tools") == 0  # BeforeTools interrupted: no AfterTools for that cycle
    assert DELETED == []

    result = agent(answers(result, "y"))
    assert result.stop_reason == "end_turn"
    assert DELETED == [["a/b/c.txt"], ["d/e/f.txt"]]
    assert tracer.count("before_tools") == 2  # the batch hook ran again on resume


def test_batch_approval_denied_cancels_every_tool() -> None:
    tracer = Tracer()
    agent = Agent(batch_model(), tools=[delete_files], hooks=[tracer, BatchApprovalHook("myapp")])
    result = agent("Delete a/b/c.txt and d/e/f.txt")
    result = agent(answers(result, "n"))
    assert result.stop_reason == "end_turn"
    assert DELETED == []
    assert tracer.count("before_tool_call") == 0  # cancel skips every per-tool event
    for r in agent.messages[2].tool_results():
        assert r.status == "error"
        assert [c.to_json() for c in r.content] == [{"text": "Batch cancelled by user"}]
    assert tracer.kinds("after_tools") == [("after_tools", ("t1", "t2"))]


class DeleteTool:
    """The seed's tool that asks for approval itself through its ToolContext."""

    def __init__(self, app_name: str) -> None:
        self.app_name = app_name
        self.runs = 0

    @tool(context=True)
    def delete_files(self, tool_context: ToolContext, paths: list[str]) -> bool:
        self.runs += 1
        approval = tool_context.interrupt(f"{self.app_name}-approval", reason={"paths": paths})
        if approval.lower() != "y":
            return False
        DELETED.append(paths)
        return True


@pytest.mark.parametrize(("reply", "deleted"), [("y", True), ("n", False)])
def test_tool_interrupt_with_tool_context(reply: str, deleted: bool) -> None:
    deleter = DeleteTool("myapp")
    agent = Agent(two_tool_turns(), tools=[deleter.delete_files, inspect_files])
    result = agent(f"paths=<{PATHS}>")
    assert result.stop_reason == "interrupt"
    [interrupt] = result.interrupts
    assert interrupt.source.kind == "tool"
    assert interrupt.source.tool_name == "delete_files"
    assert INSPECTED == []  # sequential executor: t2 did not start after t1 interrupted

    result = agent(answers(result, reply))
    assert result.stop_reason == "end_turn"
    assert deleter.runs == 2  # replay: the body ran again from its start
    t1, t2 = agent.messages[2].tool_results()
    assert t1.to_json()["content"] == [{"json": deleted}]
    assert t2.status == "success"


class TrustingApprovalHook:
    """The seed's session example: a 't' (trust) answer is remembered in agent.state."""

    def __init__(self, app_name: str) -> None:
        self.app_name = app_name
        self.asked = 0

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.approve)

    def approve(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use.name != "delete_files":
            return
        if event.agent.state.get(f"{self.app_name}-approval") == "t":
            return
        self.asked += 1
        approval = event.interrupt(
            f"{self.app_name}-approval", reason={"paths": event.tool_use.input["paths"]}
        )
        if approval.lower() not in ["y", "t"]:
            event.cancel_tool = "User denied permission to delete files"
        event.agent.state.set(f"{self.app_name}-approval", approval.lower())


def test_session_trust_is_remembered_across_fresh_agents() -> None:
    session = MemorySession()
    turns = [
        [use("t1", "delete_files", paths=["a"])],
        [text("deleted a")],
        [use("t2", "delete_files", paths=["b"])],
        [text("deleted b")],
    ]
    hook = TrustingApprovalHook("myapp")

    def server(prompt: Any) -> Any:
        # a fresh agent per request, as a stateless server builds it
        agent = Agent(
            ScriptedModel(turns), hooks=[hook], session=session, tools=[delete_files, inspect_files]
        )
        return agent(prompt)

    result = server("paths=<['a']>")
    assert result.stop_reason == "interrupt"
    result = server(answers(result, "t"))
    assert result.stop_reason == "end_turn"
    assert DELETED == [["a"]]
    assert session.doc is not None
    assert session.doc["agent"]["state"] == {"myapp-approval": "t"}

    result = server("paths=<['b']>")  # trusted: no second interrupt
    assert result.stop_reason == "end_turn"
    assert result.message.to_json()["content"] == [{"text": "deleted b"}]
    assert DELETED == [["a"], ["b"]]
    assert hook.asked == 2  # the first raise and its replay; nothing for the trusted call


def test_session_example_with_the_file_store(tmp_path: Any) -> None:
    from roc_reference.errors import ErrorCode, RocError
    from roc_reference.sessions.store import FileSessionStore

    store = FileSessionStore(tmp_path)
    turns = [[use("t1", "delete_files", paths=["a"])], [text("deleted a")]]
    hook = TrustingApprovalHook("myapp")

    def server(prompt: Any) -> Any:
        agent = Agent(
            ScriptedModel(turns), hooks=[hook], session=store.manager("myapp"), tools=[delete_files]
        )
        return agent(prompt)

    first = server("paths=<['a']>")
    assert first.stop_reason == "interrupt"
    # two processes load the paused session; the first to resume wins, the other runs nothing
    slow = Agent(ScriptedModel(turns), hooks=[hook], session=store.manager("myapp"), tools=[delete_files])
    assert server(answers(first, "t")).stop_reason == "end_turn"
    with pytest.raises(RocError) as info:
        slow(answers(first, "t"))
    assert info.value.code == ErrorCode.SESSION_CONFLICT
    assert DELETED == [["a"]]
    fresh = Agent(ScriptedModel(turns), hooks=[hook], session=store.manager("myapp"), tools=[delete_files])
    assert fresh.state.get("myapp-approval") == "t"
    assert [m.role for m in fresh.messages] == ["user", "assistant", "user", "assistant"]
