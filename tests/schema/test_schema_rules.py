"""Rules the schemas encode, checked beyond the fixed examples: presence-not-truthiness of answers, the
interrupts/stopReason coupling, closed sets, and the resume input's shape."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schemakit import EXAMPLES_DIR, load_json, registry, schemas, validator

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
non_null = json_values.filter(lambda value: value is not None)

INTERRUPT = {
    "id": "tool:t1:ask",
    "name": "ask",
    "source": {"kind": "tool", "toolUseId": "t1", "toolName": "x"},
}
MESSAGE = {"role": "assistant", "content": [{"text": "ok"}]}
STOP_REASONS: list[str] = schemas()["stop-reason.schema.json"]["enum"]


def _answer(response: Any) -> dict[str, Any]:
    return {"interruptResponse": {"interruptId": "tool:t1:ask", "response": response}}


@pytest.mark.req("ROC-RESUME-009")
@pytest.mark.parametrize("response", [False, 0, 0.0, "", {}, [], [None], {"approved": False}])
def test_falsy_answers_are_answers(response: Any) -> None:
    assert validator("interrupt-response.schema.json").is_valid(_answer(response))


@pytest.mark.req("ROC-RESUME-009")
@settings(max_examples=60, deadline=None)
@given(non_null)
def test_any_non_null_json_is_an_acceptable_response(response: Any) -> None:
    assert validator("interrupt-response.schema.json").is_valid(_answer(response))
    assert validator("resume-input.schema.json").is_valid([_answer(response)])


@pytest.mark.req("ROC-RESUME-006", "ROC-SNAP-004")
def test_null_response_is_rejected_everywhere_an_answer_appears() -> None:
    assert not validator("interrupt-response.schema.json").is_valid(_answer(None))
    assert not validator("resume-input.schema.json").is_valid([_answer(True), _answer(None)])
    stored_base = {**INTERRUPT, "inputDigest": "sha256:" + "0" * 64}
    stored = {**stored_base, "response": None}
    snapshot_interrupt = {
        "$ref": "https://roc-protocol.org/schema/v1/snapshot.schema.json#/$defs/storedInterrupt"
    }
    check = Draft202012Validator(snapshot_interrupt, registry=registry())
    assert not check.is_valid(stored)
    assert check.is_valid({**stored_base, "response": False})
    assert check.is_valid(stored_base)  # unanswered: no response member at all
    assert not check.is_valid(INTERRUPT)  # a tool-bound stored interrupt carries inputDigest


@pytest.mark.req("ROC-MODEL-010")
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STOP_REASONS), st.integers(min_value=0, max_value=3))
def test_interrupts_non_empty_iff_stop_reason_is_interrupt(stop_reason: str, count: int) -> None:
    interrupts = [
        {
            **INTERRUPT,
            "id": f"tool:t{i}:ask",
            "source": {"kind": "tool", "toolUseId": f"t{i}", "toolName": "x"},
        }
        for i in range(count)
    ]
    result = {"stopReason": stop_reason, "message": MESSAGE, "interrupts": interrupts}
    expected = (count > 0) == (stop_reason == "interrupt")
    assert validator("agent-result.schema.json").is_valid(result) is expected


@pytest.mark.req("ROC-MODEL-011")
def test_stop_reasons_are_the_closed_lowercase_set() -> None:
    assert STOP_REASONS == [
        "end_turn",
        "tool_use",
        "max_tokens",
        "stop_sequence",
        "content_filtered",
        "guardrail_intervened",
        "interrupt",
        "cancelled",
        "abandoned",  # spec 1.1 (ROC-ABANDON-005)
    ]
    check = validator("stop-reason.schema.json")
    for other in ["endTurn", "INTERRUPT", "checkpoint", "limit_turns", "pause_turn", ""]:
        assert not check.is_valid(other), other


@settings(max_examples=40, deadline=None)
@given(st.lists(non_null, min_size=1, max_size=4))
def test_resume_input_accepts_only_response_blocks(responses: list[Any]) -> None:
    blocks = [{"interruptResponse": {"interruptId": f"i{n}", "response": r}} for n, r in enumerate(responses)]
    check = validator("resume-input.schema.json")
    assert check.is_valid(blocks)
    assert not check.is_valid([*blocks, {"text": "and also"}])
    assert not check.is_valid([])


@pytest.mark.req("ROC-RESUME-008")
def test_resume_input_leaves_duplicate_ids_to_the_runtime() -> None:
    # The documented decision: uniqueness of interruptId across items is not expressible, so the schema
    # accepts the shape and the runtime answers DUPLICATE_RESPONSE.
    assert validator("resume-input.schema.json").is_valid([_answer(1), _answer(2)])
    assert "DUPLICATE_RESPONSE" in schemas()["resume-input.schema.json"]["description"]


def test_prompt_input_is_a_string_or_blocks() -> None:
    check = validator("prompt-input.schema.json")
    assert check.is_valid("hello")
    assert check.is_valid([{"text": "hello"}])
    assert check.is_valid([{"toolResult": {"toolUseId": "t1", "status": "success", "content": []}}])
    assert not check.is_valid([_answer("y")])  # interruptResponse blocks make a resume input, not a prompt
    assert not check.is_valid([{"text": "hello"}, _answer("y")])
    assert not check.is_valid([])
    assert not check.is_valid(None)
    assert not check.is_valid([{"image": {}}])
    # ROC-HOOK-004 appends the prompt as a user message, and a user message holds no toolUse.
    assert not check.is_valid([{"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}}])


_PROMPT_BLOCKS: list[Any] = [
    {"text": ""},
    {"text": "hello"},
    {"toolResult": {"toolUseId": "t1", "status": "success", "content": []}},
    {"toolResult": {"toolUseId": "t1", "status": "error", "content": [{"text": "x"}, {"json": None}]}},
    {"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}},
    _answer("y"),
    {"text": "a", "toolUse": {"toolUseId": "t1", "name": "x", "input": {}}},
    {"image": {}},
    {},
]


@pytest.mark.parametrize("block", _PROMPT_BLOCKS, ids=lambda b: "+".join(b) or "empty")
def test_prompt_blocks_are_exactly_the_user_message_blocks(block: dict[str, Any]) -> None:
    # An accepted prompt becomes one user message (ROC-HOOK-004): a block array is a valid prompt exactly when
    # it is valid as the content of a user message, so the two schemas cannot drift apart.
    as_prompt = validator("prompt-input.schema.json").is_valid([block])
    as_message = validator("message.schema.json").is_valid({"role": "user", "content": [block]})
    assert as_prompt == as_message


def test_content_block_holds_exactly_one_kind() -> None:
    check = validator("content-block.schema.json")
    assert check.is_valid({"text": ""})
    assert check.is_valid({"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}})
    assert check.is_valid(
        {"toolResult": {"toolUseId": "t1", "status": "error", "content": [{"text": "cancelled"}]}}
    )
    assert check.is_valid(_answer("y"))
    assert not check.is_valid({})
    assert not check.is_valid({"text": "a", "json": 1})
    # spec 2.3: a tool's input is a JSON object of named arguments, in the schema as in the proto (Struct).
    for not_an_object in (["any", "JSON"], "hello", 1, None, True):
        assert not check.is_valid({"toolUse": {"toolUseId": "t1", "name": "x", "input": not_an_object}})
    assert not check.is_valid({"toolUse": {"toolUseId": "t1", "name": "x"}})


def test_tool_result_items_are_text_or_json() -> None:
    check = validator("tool-result.schema.json")
    base = {"toolUseId": "t1", "status": "success"}
    assert check.is_valid({**base, "content": [{"text": "a"}, {"json": None}, {"json": {"answers": []}}]})
    assert not check.is_valid({**base, "content": [{"text": "a", "json": 1}]})
    assert not check.is_valid({**base, "content": [{"image": {}}]})


INNER = {
    "agentId": "sub",
    "interruptId": "i1",
    "source": {"kind": "tool", "toolUseId": "u1", "toolName": "y"},
}


@pytest.mark.parametrize(
    "source",
    [
        {"kind": "agent_as_tool", "toolUseId": "t1", "toolName": "sub"},  # inner missing
        {"kind": "agent_as_tool", "toolUseId": "t1", "inner": INNER},  # toolName missing
        {"kind": "agent_as_tool", "toolUseId": "t1", "toolName": "sub", "nodeId": "n1", "inner": INNER},
        {"kind": "node", "inner": INNER},  # nodeId missing
        {"kind": "node", "nodeId": "n1"},  # inner missing
        {"kind": "before_node_call", "nodeId": "n1", "inner": INNER},
        {"kind": "before_node_call", "nodeId": "n1", "toolUseId": "t1"},
        {"kind": "tool", "toolUseId": "t1", "toolName": "x", "inner": INNER},
        {"kind": "agent_as_tool", "toolUseId": "t1", "toolName": "sub", "inner": {**INNER, "agentId": ""}},
    ],
)
def test_spec_1_2_source_kinds_refuse_the_members_of_other_kinds(source: dict[str, Any]) -> None:
    assert not validator("interrupt.schema.json").is_valid({**INTERRUPT, "source": source})


@pytest.mark.parametrize(
    "source",
    [
        {"kind": "tool", "toolUseId": "t1", "toolName": "x"},
        {"kind": "before_tool_call", "toolUseId": "t1", "toolName": "x"},
        {"kind": "before_tools"},
        {"kind": "before_node_call", "nodeId": "n1"},
        {"kind": "agent_as_tool", "toolUseId": "t1", "toolName": "sub", "inner": INNER},
        {"kind": "node", "nodeId": "n1", "inner": INNER},
    ],
)
def test_each_source_kind_with_its_required_members(source: dict[str, Any]) -> None:
    assert validator("interrupt.schema.json").is_valid({**INTERRUPT, "source": source})


def test_message_metadata_is_the_only_extension_point() -> None:
    check = validator("message.schema.json")
    assert check.is_valid({**MESSAGE, "metadata": {"anything": [1, {"x": None}]}})
    assert not check.is_valid({**MESSAGE, "metadata": "note"})
    assert not check.is_valid({**MESSAGE, "trackingId": "t"})


@pytest.mark.req("ROC-MODEL-007")
def test_reason_is_absent_rather_than_null() -> None:
    check = validator("interrupt.schema.json")
    assert check.is_valid(INTERRUPT)
    for reason in [False, 0, "", {}, [], "why"]:
        assert check.is_valid({**INTERRUPT, "reason": reason}), reason
    assert not check.is_valid({**INTERRUPT, "reason": None})


@pytest.mark.req("ROC-MODEL-004")
@pytest.mark.parametrize("kind", ["tool", "before_tool_call"])
def test_tool_bound_sources_name_the_tool_use_and_tool(kind: str) -> None:
    check = validator("interrupt.schema.json")
    assert check.is_valid({**INTERRUPT, "source": {"kind": kind, "toolUseId": "t1", "toolName": "x"}})
    assert not check.is_valid({**INTERRUPT, "source": {"kind": kind, "toolUseId": "t1"}})
    assert not check.is_valid({**INTERRUPT, "source": {"kind": kind, "toolName": "x"}})


@pytest.mark.req("ROC-VER-004", "ROC-VER-005", "ROC-VER-006")
def test_snapshot_reads_format_major_two_and_spec_major_one_only() -> None:
    # The format and the spec are versioned apart (spec 9): RoC 1.0 writes format 2.0.
    check = validator("snapshot.schema.json")
    base = load_json(EXAMPLES_DIR / "Snapshot" / "valid" / "completed-not-activated.json")
    for version in ["2.0", "2.1", "2.12"]:
        assert check.is_valid({**base, "schemaVersion": version}), version
    for version in ["1.0", "1.1", "1.12"]:
        assert check.is_valid({**base, "specVersion": version}), version
    for version in ["1.0", "3.0", "0.9", "2", "2.01", "02.0", "2.0.0", ""]:
        assert not check.is_valid({**base, "schemaVersion": version}), version
    for version in ["2.0", "0.9", "1", "1.01"]:
        assert not check.is_valid({**base, "specVersion": version}), version
        assert not check.is_valid({**base, "specVersion": version}), version


@pytest.mark.req("ROC-MODEL-005")
def test_before_tools_interrupt_names_no_tool() -> None:
    check = validator("interrupt.schema.json")
    assert check.is_valid({**INTERRUPT, "source": {"kind": "before_tools"}})
    assert not check.is_valid({**INTERRUPT, "source": {"kind": "before_tools", "toolUseId": "t1"}})
    assert not check.is_valid({**INTERRUPT, "source": {"kind": "before_tools", "toolName": "x"}})


@pytest.mark.req("ROC-MODEL-006")
def test_returned_interrupts_carry_no_response_or_digest() -> None:
    check = validator("interrupt.schema.json")
    assert not check.is_valid({**INTERRUPT, "response": "yes"})
    assert not check.is_valid({**INTERRUPT, "inputDigest": "sha256:" + "0" * 64})
