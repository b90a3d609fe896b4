"""The harness side of profile audit (protocol 6): ``AgentSpec.recordResumeGuard`` in the kit's scenario and
its proto form, the ``resume_guard`` trace event (kit helper, proto form), the reference adapter's recording
guard, and InspectAgent's ``responseMetadata`` (spec 10.7)."""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance import scenarios as sc
from roc_conformance import wire
from roc_conformance.adapter import ScenarioError, Trace, parse_scenario
from roc_conformance.checks.audit import WHO, audit_spec
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_reference.harness.build import build_agent, restore_agent
from roc_reference.harness.server import inspect_agent


class _Ctx:
    profiles = frozenset({"core", "sequential-executor", "audit", "sessions"})


def _spec(record: Any = True) -> dict[str, Any]:
    spec = audit_spec(_Ctx(), "audit-harness")  # type: ignore[arg-type]
    if record is not None:
        spec["recordResumeGuard"] = record
    return spec


def _guard_events(trace: Trace) -> list[dict[str, Any]]:
    return [e for e in trace.take() if e["kind"] == "resume_guard"]


def test_the_kit_reads_record_resume_guard() -> None:
    assert parse_scenario(_spec(True)).record_resume_guard is True
    assert parse_scenario(_spec(None)).record_resume_guard is False


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_the_kit_refuses_a_flag_that_is_not_a_boolean(value: Any) -> None:
    spec = _spec(None)
    spec["recordResumeGuard"] = value
    with pytest.raises(ScenarioError):
        parse_scenario(spec)


def test_record_resume_guard_survives_the_proto_form() -> None:
    back = wire.agent_spec_from_proto(wire.agent_spec_to_proto(_spec(True)))
    assert back["recordResumeGuard"] is True


def test_the_resume_guard_event_survives_the_proto_form() -> None:
    trace = Trace()
    responses = [{"interruptId": "i2", "decision": "decline", "message": "no", "metadata": WHO}]
    trace.resume_guard(responses, [{"interruptId": "i1", "metadata": WHO}])
    events = trace.take()
    assert events == [
        {"kind": "resume_guard", "responses": responses, "kept": [{"interruptId": "i1", "metadata": WHO}]}
    ]
    proto = wire.many_to_proto("TraceEvent", events)
    assert isinstance(proto[0], hpb.TraceEvent)
    assert proto[0].WhichOneof("event") == "resume_guard"


@pytest.mark.req("ROC-AUDIT-003", "ROC-AUDIT-005")
def test_the_reference_adapter_records_the_guard_and_inspects_kept_metadata() -> None:
    built = build_agent(_spec(True))
    first = built.agent("go")
    qa = first.interrupts[0].id
    assert _guard_events(built.trace) == []
    block = sc.answer(qa, "A", metadata=WHO)
    second = built.agent([{"interruptResponse": block}])
    assert _guard_events(built.trace) == [{"kind": "resume_guard", "responses": [block], "kept": []}]
    inspected = {i["id"]: i for i in inspect_agent(built.agent)["interrupts"]}
    assert inspected[qa]["responseMetadata"] == WHO
    assert "responseMetadata" not in inspected[second.interrupts[0].id]

    # Restored from its snapshot, the agent keeps the metadata, and its guard is shown it as kept.
    restored = restore_agent(built.agent.take_snapshot(), _spec(True), model_turn_offset=1)
    qb = second.interrupts[0].id
    restored.agent([{"interruptResponse": sc.answer(qb, "B")}])
    [event] = _guard_events(restored.trace)
    assert event["kept"] == [{"interruptId": qa, "metadata": WHO}]


def test_without_the_flag_no_guard_is_recorded() -> None:
    built = build_agent(_spec(None))
    first = built.agent("go")
    built.agent([{"interruptResponse": sc.answer(first.interrupts[0].id, "A", metadata=WHO)}])
    assert _guard_events(built.trace) == []
