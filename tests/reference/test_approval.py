"""Profile approval (spec chapter 16) in the reference runtime: the ready hook, the approval interrupt, the
answer's rules, approve / edit / reject, and the effective input across replay and snapshots."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from refsupport import Callbacks, frozen, use
from roc_reference import Agent, BeforeToolCallEvent, ConcurrentExecutor, ScriptedModel, ToolContext, tool
from roc_reference.approval import ApprovalHook, Policy, approval_schema
from roc_reference.approval_data import EDIT_PREFIX, REJECT_TEXT
from roc_reference.decisions import DECLINE_TEXT
from roc_reference.errors import ErrorCode, RocError
from roc_reference.executors import Executor
from roc_reference.integrity import canonical_value, input_digest

PATH_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}},
    "required": ["path"],
    "additionalProperties": False,
}


class World:
    """One agent whose model proposes ``delete(path="/tmp/x")`` and ``echo(text="hi")``; records what ran."""

    def __init__(
        self, policies: dict[str, Policy], *, ask_in_body: bool = False, late_callback: bool = False
    ):
        self.ran: list[tuple[str, dict[str, Any]]] = []
        self.seen_by_callbacks: list[tuple[str, dict[str, Any]]] = []
        self.policies = policies
        self.ask_in_body = ask_in_body
        self.late_callback = late_callback
        world = self

        @tool(input_schema=PATH_SCHEMA)
        def delete(path: str, tool_context: ToolContext) -> str:
            world.ran.append(("delete", {"path": path}))
            if world.ask_in_body:
                tool_context.interrupt("sure", {"path": path})
            return f"deleted {path}"

        @tool
        def echo(text: str) -> str:
            world.ran.append(("echo", {"text": text}))
            return text

        self.tools = [delete, echo]

    def model(self) -> ScriptedModel:
        return ScriptedModel(
            [[use("t1", "delete", path="/tmp/x"), use("t2", "echo", text="hi")], [{"text": "done"}]]
        )

    def hooks(self) -> list[Any]:
        def early(event: BeforeToolCallEvent) -> None:
            self.seen_by_callbacks.append(("early", dict(event.tool_use.input)))

        def late(event: BeforeToolCallEvent) -> None:
            self.seen_by_callbacks.append(("late", dict(event.tool_use.input)))

        hooks: list[Any] = [ApprovalHook(self.policies)]
        if self.late_callback:
            hooks = [Callbacks((BeforeToolCallEvent, early)), *hooks, Callbacks((BeforeToolCallEvent, late))]
        return hooks

    def agent(self, executor: Executor | None = None) -> Agent:
        return Agent(self.model(), tools=self.tools, hooks=self.hooks(), executor=executor)

    def restored(self, doc: dict[str, Any], *, with_hook: bool = True) -> Agent:
        return Agent.from_snapshot(
            doc, model=self.model(), tools=self.tools, hooks=self.hooks() if with_hook else []
        )


def respond(interrupt_id: str, response: Any) -> list[dict[str, Any]]:
    return [{"interruptResponse": {"interruptId": interrupt_id, "response": response}}]


def decide(interrupt_id: str, decision: str) -> list[dict[str, Any]]:
    return [{"interruptResponse": {"interruptId": interrupt_id, "decision": decision}}]


def results(agent: Agent) -> dict[str, dict[str, Any]]:
    """toolUseId -> the toolResult JSON of the last tool-result message of the history."""
    messages = [m.to_json() for m in agent.messages]
    last = [m for m in messages if any("toolResult" in b for b in m["content"])][-1]
    return {b["toolResult"]["toolUseId"]: b["toolResult"] for b in last["content"]}


def texts(result: dict[str, Any]) -> list[str]:
    return [b["text"] for b in result["content"] if "text" in b]


def paused(world: World) -> tuple[Agent, str]:
    agent = world.agent()
    first = agent("go")
    assert first.stop_reason == "interrupt"
    assert len(first.interrupts) == 1
    return agent, first.interrupts[0].id


@pytest.mark.req("ROC-APPROVE-001", "ROC-APPROVE-002", "ROC-APPROVE-003")
def test_only_opted_in_tools_raise_one_approval_of_the_stated_shape() -> None:
    world = World({"delete": True})
    agent = world.agent()
    first = agent("go")
    assert first.stop_reason == "interrupt"
    (approval,) = first.interrupts
    doc = approval.to_json()
    assert doc["name"] == "approval"
    assert doc["source"] == {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "delete"}
    assert doc["metadata"] == {"kind": "approval"}
    assert doc["reason"] == {
        "toolName": "delete",
        "input": {"path": "/tmp/x"},
        "decisions": ["approve", "edit", "reject"],
    }
    assert doc["responseSchema"] == {
        "type": "object",
        "properties": {
            "decision": {"enum": ["approve", "edit", "reject"]},
            "input": PATH_SCHEMA,
            "message": {"type": "string"},
        },
        "required": ["decision"],
        "additionalProperties": False,
    }
    out = agent(respond(approval.id, {"decision": "approve"}))
    # one approval per tool use: answered, it is not raised again; the tool not opted in runs unasked
    assert out.stop_reason == "end_turn"
    assert world.ran == [("delete", {"path": "/tmp/x"}), ("echo", {"text": "hi"})]


@pytest.mark.req("ROC-APPROVE-002", "ROC-APPROVE-003")
def test_allowed_decisions_limit_the_enum_and_the_input_member() -> None:
    world = World({"delete": ["reject", "approve"], "echo": ["edit"]})
    agent = world.agent(ConcurrentExecutor())  # both tool uses ask at once
    first = agent("go")
    by_tool = {i.source.tool_name: i.to_json() for i in first.interrupts}
    assert by_tool["delete"]["reason"]["decisions"] == ["approve", "reject"]
    assert by_tool["delete"]["responseSchema"] == approval_schema(["approve", "reject"], PATH_SCHEMA)
    assert "input" not in by_tool["delete"]["responseSchema"]["properties"]
    echo_schema = by_tool["echo"]["responseSchema"]
    assert echo_schema["properties"]["decision"] == {"enum": ["edit"]}
    assert echo_schema["properties"]["input"] == {"type": "object"}  # a tool without an input schema


@pytest.mark.req("ROC-APPROVE-006")
def test_approve_runs_the_proposed_input() -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    out = agent(respond(approval, {"decision": "approve"}))
    assert out.stop_reason == "end_turn"
    assert ("delete", {"path": "/tmp/x"}) in world.ran
    assert texts(results(agent)["t1"]) == ["deleted /tmp/x"]


@pytest.mark.req("ROC-APPROVE-007")
@pytest.mark.parametrize("message", [None, "not that one", ""])
def test_reject_cancels_with_the_message_or_the_fixed_text(message: str | None) -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    answer: dict[str, Any] = {"decision": "reject"}
    if message is not None:
        answer["message"] = message
    out = agent(respond(approval, answer))
    assert out.stop_reason == "end_turn"
    assert all(name != "delete" for name, _ in world.ran)  # the body never ran
    result = results(agent)["t1"]
    assert result["status"] == "error"
    assert texts(result) == [REJECT_TEXT if message is None else message]


@pytest.mark.req("ROC-APPROVE-008", "ROC-APPROVE-009", "ROC-APPROVE-010")
def test_edit_runs_later_callbacks_and_the_body_with_the_edited_input() -> None:
    world = World({"delete": True}, late_callback=True)
    agent, approval = paused(world)
    world.seen_by_callbacks.clear()
    out = agent(respond(approval, {"decision": "edit", "input": {"path": "/tmp/y"}}))
    assert out.stop_reason == "end_turn"
    assert ("delete", {"path": "/tmp/y"}) in world.ran
    assert ("delete", {"path": "/tmp/x"}) not in world.ran
    seen = [s for s in world.seen_by_callbacks if s[1].get("path")]
    assert seen == [("early", {"path": "/tmp/x"}), ("late", {"path": "/tmp/y"})]
    result = results(agent)["t1"]
    assert result["status"] == "success"
    prefix = EDIT_PREFIX + canonical_value({"path": "/tmp/y"}).decode()
    assert (
        prefix
        == 'The person edited the input of this tool call before it ran; it ran with: {"path":"/tmp/y"}'
    )
    assert texts(result) == [prefix, "deleted /tmp/y"]
    # ROC-APPROVE-010: the history keeps the toolUse the model proposed
    proposed = [b["toolUse"] for m in agent.messages for b in m.to_json()["content"] if "toolUse" in b]
    assert proposed[0]["input"] == {"path": "/tmp/x"}


@pytest.mark.req("ROC-APPROVE-004")
@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        ({"decision": "edit"}, [{"path": "/input", "keyword": "required"}]),
        (
            {"decision": "approve", "input": {"path": "/a"}},
            [{"path": "/input", "keyword": "additionalProperties"}],
        ),
        (
            {"decision": "edit", "input": {"path": "/a"}, "message": "m"},
            [{"path": "/message", "keyword": "additionalProperties"}],
        ),
        (
            {"decision": "approve", "input": {"path": "/a"}, "message": "m"},
            [
                {"path": "/input", "keyword": "additionalProperties"},
                {"path": "/message", "keyword": "additionalProperties"},
            ],
        ),
    ],
)
def test_rules_beyond_the_schema_reject_the_input(
    answer: dict[str, Any], errors: list[dict[str, str]]
) -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    before = frozen(agent)
    with pytest.raises(RocError) as caught:
        agent(respond(approval, answer))
    assert caught.value.code == ErrorCode.INVALID_RESPONSE
    assert caught.value.details["interruptId"] == approval
    assert caught.value.details["path"] == errors[0]["path"]
    assert caught.value.details["errors"] == errors
    assert frozen(agent) == before
    assert all(name != "delete" for name, _ in world.ran)


@pytest.mark.req("ROC-APPROVE-005")
@pytest.mark.parametrize(
    ("edited", "path"),
    [({"path": ""}, "/input/path"), ({}, "/input/path"), ({"path": "/a", "force": True}, "/input/force")],
)
def test_an_edit_outside_the_input_schema_is_refused_before_storing(
    edited: dict[str, Any], path: str
) -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    before = frozen(agent)
    with pytest.raises(RocError) as caught:
        agent(respond(approval, {"decision": "edit", "input": edited}))
    assert caught.value.code == ErrorCode.INVALID_RESPONSE
    assert caught.value.details["path"] == path
    assert frozen(agent) == before
    assert [p["id"] for p in agent.pending_interrupts() if "answer" not in p] == [approval]


@pytest.mark.req("ROC-APPROVE-011")
@pytest.mark.parametrize("decision", ["decline", "cancel"])
def test_decline_or_cancel_gives_the_before_tool_call_default_outcome(decision: str) -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    out = agent(decide(approval, decision))
    assert out.stop_reason == "end_turn"
    assert all(name != "delete" for name, _ in world.ran)
    result = results(agent)["t1"]
    assert result["status"] == "error"
    assert texts(result) == [
        DECLINE_TEXT if decision == "decline" else "The request was cancelled without a decision."
    ]


def _edited_then_asked(world: World) -> tuple[Agent, str, str]:
    agent, approval = paused(world)
    second = agent(respond(approval, {"decision": "edit", "input": {"path": "/tmp/y"}}))
    assert second.stop_reason == "interrupt"
    (sure,) = second.interrupts
    assert sure.name == "sure"
    assert sure.reason == {"path": "/tmp/y"}
    return agent, approval, sure.id


def _stored(doc: dict[str, Any], interrupt_id: str) -> dict[str, Any]:
    return next(i for i in doc["interruptState"]["interrupts"] if i["id"] == interrupt_id)


@pytest.mark.req("ROC-APPROVE-013")
def test_body_interrupts_after_an_edit_bind_the_effective_input_and_replay_gets_it() -> None:
    world = World({"delete": True}, ask_in_body=True)
    agent, approval, sure = _edited_then_asked(world)
    doc = agent.take_snapshot()
    assert _stored(doc, approval)["inputDigest"] == input_digest({"path": "/tmp/x"})  # proposed
    assert _stored(doc, sure)["inputDigest"] == input_digest({"path": "/tmp/y"})  # effective
    world.ran.clear()
    out = agent(respond(sure, True))
    assert out.stop_reason == "end_turn"
    assert world.ran[0] == ("delete", {"path": "/tmp/y"})  # the replayed body: the same effective input
    assert texts(results(agent)["t1"])[1] == "deleted /tmp/y"


@pytest.mark.req("ROC-APPROVE-012", "ROC-APPROVE-013")
@pytest.mark.parametrize("with_hook", [True, False])
def test_a_restored_agent_continues_the_edit_from_the_data(with_hook: bool) -> None:
    world = World({"delete": True}, ask_in_body=True)
    agent, _approval, sure = _edited_then_asked(world)
    restored = world.restored(agent.take_snapshot(), with_hook=with_hook)
    world.ran.clear()
    out = restored(respond(sure, True))
    assert out.stop_reason == "end_turn"
    assert world.ran[0] == ("delete", {"path": "/tmp/y"})
    assert texts(results(restored)["t1"])[0].startswith(EDIT_PREFIX)


@pytest.mark.req("ROC-APPROVE-012", "ROC-APPROVE-004")
def test_the_rules_hold_for_an_approval_restored_without_the_hook() -> None:
    world = World({"delete": True})
    agent, approval = paused(world)
    restored = world.restored(agent.take_snapshot(), with_hook=False)
    with pytest.raises(RocError) as caught:
        restored(respond(approval, {"decision": "approve", "message": "fine"}))
    assert caught.value.code == ErrorCode.INVALID_RESPONSE
    assert caught.value.details["path"] == "/message"


@pytest.mark.req("ROC-APPROVE-014")
def test_the_loader_refuses_a_body_digest_of_another_input() -> None:
    world = World({"delete": True}, ask_in_body=True)
    agent, approval, sure = _edited_then_asked(world)
    doc = agent.take_snapshot()
    world.restored(copy.deepcopy(doc))  # the writer's snapshot loads

    proposed = copy.deepcopy(doc)  # the body's interrupt bound to the proposed input instead
    _stored(proposed, sure)["inputDigest"] = input_digest({"path": "/tmp/x"})
    tampered = copy.deepcopy(doc)  # the edit changed after the body asked about it
    _stored(tampered, approval)["response"]["input"] = {"path": "/etc"}
    for bad in (proposed, tampered):
        with pytest.raises(RocError) as caught:
            world.restored(bad)
        assert caught.value.code == ErrorCode.SNAPSHOT_INVALID


@pytest.mark.req("ROC-APPROVE-004", "ROC-APPROVE-012")
def test_the_rules_need_no_schema() -> None:
    world = World({"delete": True})
    agent, _ = paused(world)
    doc = agent.take_snapshot()
    (stored,) = doc["interruptState"]["interrupts"]
    del stored["responseSchema"]  # as another implementation might store it: the rules come from the data
    restored = world.restored(doc)
    for response, path, keyword in (
        ({"decision": "edit", "input": "/tmp/y"}, "/input", "type"),
        ({"decision": "edit"}, "/input", "required"),
        ({"decision": "reject", "input": {}}, "/input", "additionalProperties"),
    ):
        with pytest.raises(RocError) as caught:
            restored(respond(stored["id"], response))
        assert caught.value.code == ErrorCode.INVALID_RESPONSE
        assert caught.value.details["errors"] == [{"path": path, "keyword": keyword}]
