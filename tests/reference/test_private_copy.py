"""The cheap copies of the interrupt round trip: what is handed out shares nothing mutable (ROC-SEC-016),
frozen parts are shared, and a rollback copy of the interrupt state stays as it was."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from refsupport import answers, use
from roc_reference import Agent, ScriptedModel, SequentialExecutor, ToolContext, tool
from roc_reference.interrupts import AnswerBook, InterruptState, RaisePoint, StoredInterrupt, _percent_encoded
from roc_reference.types import (
    Interrupt,
    InterruptSource,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUse,
    ToolUseBlock,
    json_copy,
    private_copy,
)

MESSAGE = {
    "role": "assistant",
    "content": [
        {"text": "two calls"},
        {"toolUse": {"toolUseId": "t1", "name": "pay", "input": {"amount": 5, "to": ["a", {"iban": "X"}]}}},
        {"toolResult": {"toolUseId": "t0", "status": "success", "content": [{"json": {"ok": [1]}}]}},
        {"interruptResponse": {"interruptId": "i1", "response": {"yes": [True]}, "metadata": {"who": "x"}}},
    ],
    "metadata": {"trace": ["a"]},
}


def vandalize(doc: Any) -> None:
    """Change every list and dict inside ``doc`` (a value the caller holds)."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            item["vandal"] = 1
        elif isinstance(item, list):
            stack.extend(item)
            item.append("vandal")


def containers_of(message: Message) -> list[Any]:
    """Every list and dict the copy holds, reached through the models."""
    uses = message.tool_uses()
    (result,) = message.tool_results()
    response = next(
        b for b in message.content if not isinstance(b, TextBlock | ToolUseBlock | ToolResultBlock)
    )
    body = response.interrupt_response  # type: ignore[union-attr]
    assert isinstance(result.content[0].value, dict)  # type: ignore[union-attr]
    return [
        message.content,
        message.metadata,
        uses[0].input,
        result.content,
        result.content[0].value,  # type: ignore[union-attr]
        body.response,
        body.metadata,
    ]


@pytest.mark.req("ROC-SEC-016")
def test_a_private_copy_equals_the_original_and_shares_no_list_or_dict() -> None:
    original = Message.model_validate(MESSAGE)
    copied = private_copy(original)
    assert copied == original
    assert copied.to_json() == original.to_json()
    for container in containers_of(copied):
        vandalize(container)
    assert original.to_json() == Message.model_validate(MESSAGE).to_json()


def test_a_private_copy_shares_the_frozen_models_that_hold_no_list_or_dict() -> None:
    original = Message.model_validate(MESSAGE)
    copied = private_copy(original)
    assert copied.content[0] is original.content[0]  # a text block: nothing in it can change
    interrupt = Interrupt(
        id="i", name="n", reason={"r": 1}, source=InterruptSource(kind="tool", tool_use_id="t", tool_name="x")
    )
    copied_interrupt = private_copy(interrupt)
    assert copied_interrupt.source is interrupt.source
    assert copied_interrupt.reason == interrupt.reason
    assert copied_interrupt.reason is not interrupt.reason
    plain = ToolUse.of("t", "x")
    assert private_copy(plain).input is not plain.input  # an empty dict can still be filled


def test_a_rollback_copy_keeps_its_answers_when_the_state_stores_new_ones() -> None:
    source = InterruptSource(kind="tool", tool_use_id="t1", tool_name="ask")
    interrupt = Interrupt(id="i1", name="approve", source=source)
    state = InterruptState(activated=True, interrupts={"i1": StoredInterrupt(interrupt)})
    saved = state.copy()
    state.apply_answers([("i1", {"ok": True})])
    point = RaisePoint("tool", 0, "t1", "ask")
    assert state.book().find(point, "approve").response == {"ok": True}  # type: ignore[union-attr]
    assert saved.book().find(point, "approve").response is None  # type: ignore[union-attr]
    with pytest.raises(AttributeError):
        saved.interrupts["i1"].response = "edited"  # type: ignore[misc]


def test_the_book_finds_the_first_stored_interrupt_of_a_unit_and_name() -> None:
    source = InterruptSource(kind="before_tools")
    first = StoredInterrupt(Interrupt(id="a", name="n", source=source))
    second = StoredInterrupt(Interrupt(id="b", name="n", source=source))
    book = AnswerBook({"a": first, "b": second})
    assert book.find(RaisePoint("before_tools", 0, batch=("t1",)), "n") is first
    assert book.find(RaisePoint("before_tool_call", 0, "t1", "x"), "n") is None


@pytest.mark.req("ROC-SEC-016", "ROC-EXEC-002")
def test_a_sequential_batch_hands_out_an_independent_message_at_every_stop() -> None:
    ran: list[int] = []

    @tool(context=True)
    def ask(index: int, tool_context: ToolContext) -> str:
        ran.append(index)
        return str(tool_context.interrupt("approve", reason={"index": index}))

    script = [[use(f"t{i}", "ask", index=i) for i in range(3)], [{"text": "done"}]]
    agent = Agent(ScriptedModel(script), tools=[ask], executor=SequentialExecutor())
    result = agent("go")
    held = []
    while result.stop_reason == "interrupt":
        held.append(result.message)
        result.message.content[0].tool_use.input["index"] = 99  # type: ignore[union-attr]
        result.message.content.clear()
        result = agent(answers(result, "ok"))
    assert len(held) == 3
    assert len({id(m) for m in held}) == 3
    assert result.stop_reason == "end_turn"
    assert ran == [0, 0, 1, 1, 2, 2]  # every tool ran with its own input, first to its pause, then replayed
    pending = agent.messages[-3].to_json()["content"]
    assert [b["toolUse"]["input"] for b in pending] == [{"index": i} for i in range(3)]


@given(st.text())
def test_ids_percent_encode_as_quote_does(text: str) -> None:
    # The unreserved-characters shortcut of interrupt ids writes what urllib's quote writes.
    try:
        expected = quote(text, safe="")
    except UnicodeEncodeError:  # a lone surrogate: quote refuses it, and so must the id
        with pytest.raises(UnicodeEncodeError):
            _percent_encoded(text)
        return
    assert _percent_encoded(text) == expected


def test_json_copy_copies_every_container_once_per_place_and_leaves_the_original() -> None:
    shared = [1, {"deep": ["x"]}]
    original = {"a": shared, "b": shared, "c": [[shared]], "s": "text"}
    copied = json_copy(original)
    assert copied == original
    vandalize(copied)
    assert original == {"a": shared, "b": shared, "c": [[shared]], "s": "text"}
    assert shared == [1, {"deep": ["x"]}]
    assert copied["a"] is not copied["b"]  # an aliased member becomes two independent copies
    assert type(json_copy(UserList())) is list


class UserList(list[Any]):
    """A list subclass: its copy is a plain list."""
