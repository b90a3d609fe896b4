"""Property tests: generated schema-valid documents round-trip through proto without loss.

Each generated document is first checked against spec/schema/v1 (so the strategies cannot drift
from the schema unnoticed), then converted JSON -> proto -> JSON and compared under the
documented number rule (JSON numbers compare as numbers; proto/README.md rule 5).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proto_strategies import (
    abandon_inputs,
    agent_results,
    canonical,
    content_blocks,
    errors,
    has_float,
    interrupt_response_blocks,
    interrupts,
    json_values,
    messages,
    pending_interrupts,
    resume_inputs,
    schema_errors,
    snapshots,
    tool_results,
)
from roc_conformance.pb import jsonmap

PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

# (JSON type name for jsonmap, schema file, strategy)
CASES: list[tuple[str, str, st.SearchStrategy[Any]]] = [
    ("Interrupt", "interrupt.schema.json", interrupts()),
    ("ContentBlock", "content-block.schema.json", content_blocks),
    ("ToolResult", "tool-result.schema.json", tool_results),
    ("Message", "message.schema.json", messages()),
    ("InterruptResponseContent", "interrupt-response.schema.json", interrupt_response_blocks),
    ("ResumeInput", "resume-input.schema.json", resume_inputs),
    ("AgentResult", "agent-result.schema.json", agent_results()),
    ("Error", "error.schema.json", errors()),
    ("Snapshot", "snapshot.schema.json", snapshots()),
    ("PendingInterrupt", "pending-interrupt.schema.json", pending_interrupts()),
    ("AbandonInput", "abandon-input.schema.json", abandon_inputs()),
]


def _check_round_trip(type_name: str, schema_file: str, doc: Any) -> None:
    assert schema_errors(schema_file, doc) == [], "strategy produced a schema-invalid document"
    message = jsonmap.to_proto(type_name, doc)
    back = jsonmap.from_proto(message)
    assert jsonmap.json_equal(doc, back), f"lost in proto:\n{doc!r}\n{back!r}"
    assert schema_errors(schema_file, back) == []
    # proto -> JSON -> proto is the identity on messages
    assert jsonmap.to_proto(type_name, back) == message
    if not has_float(doc):
        # Without fractional numbers the canonical JSON (integrity tags, input digests) is unchanged.
        assert canonical(back) == canonical(doc)


@pytest.mark.parametrize(("type_name", "schema_file", "strategy"), CASES, ids=[c[0] for c in CASES])
def test_generated_documents_round_trip(type_name: str, schema_file: str, strategy: st.SearchStrategy[Any]):
    @PROPERTY_SETTINGS
    @given(strategy)
    def run(doc: Any) -> None:
        _check_round_trip(type_name, schema_file, doc)

    run()


@PROPERTY_SETTINGS
@given(json_values)
def test_arbitrary_json_in_value_survives_as_numbers_compare(value: Any):
    """Rule 5: any JSON value within the safe integer range survives a Value field.

    A tool result's json item carries any JSON value, null included (an answer's response never is null).
    """
    doc = {"toolUseId": "t1", "status": "success", "content": [{"json": value}]}
    back = jsonmap.from_proto(jsonmap.to_proto("ToolResult", doc))
    assert jsonmap.json_equal(back, doc)
    # integral doubles come back as integers, so their canonical JSON has no fraction
    response = back["content"][0]["json"]
    if isinstance(response, float):
        assert not response.is_integer() or abs(response) > jsonmap.MAX_SAFE_INTEGER


@PROPERTY_SETTINGS
@given(st.integers(min_value=2**53) | st.integers(max_value=-(2**53)))
def test_integers_beyond_two_to_the_53_are_refused_not_rounded(number: int):
    doc = {"toolUse": {"toolUseId": "t1", "name": "x", "input": {"n": number}}}
    with pytest.raises(jsonmap.JsonMappingError, match="2\\*\\*53"):
        jsonmap.to_proto("ContentBlock", doc)
