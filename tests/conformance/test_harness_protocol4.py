"""Harness protocol 4 over real gRPC against the reference adapter: the handshake (a protocol 3 adapter is
accepted only while it claims no RoC 1.1 profile), decisions through handleDecision steps and default
outcomes, abandon inputs, ListPending of an agent and of a snapshot document, and the kit's defaults for an
adapter that implements neither."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from roc_conformance.adapter import RuntimeAdapter, ScenarioError, StateView
from roc_conformance.adapter.programs import TOOL_OPS, parse_steps, run_program
from roc_conformance.client import HARNESS_PROTOCOL_VERSION, PROTOCOL_CHANGES, SPEC_1_1_PROFILES
from roc_conformance.errors import ProtocolMismatch
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.scenarios import (
    abandon,
    agent_spec,
    answer,
    cancel_interrupt,
    decline,
    interrupt,
    resume,
    returns,
    text,
    tool,
    tool_use,
    turn,
)
from roc_harness_support import client_for, serving
from roc_reference import DECLINE_TEXT
from roc_reference.harness.server import HarnessServicer, ReferenceAdapter

FUTURE = "2999-01-01T00:00:00Z"


class Protocol3Servicer(HarnessServicer):
    """The reference adapter answering the handshake as a protocol 3 adapter claiming ``profiles``."""

    def __init__(self, profiles: tuple[str, ...]) -> None:
        super().__init__(profiles)

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        reply = super().Describe(request, context)
        reply.harness_protocol_version = 3
        return reply


def test_the_reference_claims_the_spec_1_1_profiles(client):
    # The protocol the suite and the reference speak now is test_harness_protocol5's business.
    desc = client.describe()
    assert desc.harness_protocol_version == HARNESS_PROTOCOL_VERSION >= 4
    assert {"1.0", "1.1"} <= set(desc.spec_versions)
    assert desc.profiles >= SPEC_1_1_PROFILES


def test_a_protocol_3_adapter_that_claims_no_spec_1_1_profile_is_accepted():
    with serving(Protocol3Servicer(("core", "hooks"))) as (address, _), client_for(address) as c:
        desc = c.describe()
        assert desc.harness_protocol_version == 3
        agent = c.create_agent(_asking("p3"))
        assert c.invoke(agent, {"prompt": "go"})["result"]["stopReason"] == "interrupt"


def test_a_protocol_3_adapter_that_claims_a_spec_1_1_profile_is_refused_with_what_changed():
    with serving(Protocol3Servicer(("core", "abandon"))) as (address, _), client_for(address) as c:
        with pytest.raises(ProtocolMismatch) as caught:
            c.describe()
        message = str(caught.value)
        assert "protocol 3 cannot drive the profiles it claims (abandon)" in message
        assert all(change in message for change in PROTOCOL_CHANGES[4])
        assert not any(change in message for change in PROTOCOL_CHANGES[3])


def _asking(agent_id: str, **step: Any) -> dict[str, Any]:
    return agent_spec(
        agent_id,
        turns=[turn(text("checking"), tool_use("t1", "ask", {"path": "a"})), turn(text("done"))],
        tools=[tool("ask", interrupt("approve", {"why": "test"}, **step), returns("v"))],
    )


def _paused(client, spec: dict[str, Any]) -> tuple[str, str]:
    agent = client.create_agent(spec)
    first = client.invoke(agent, {"prompt": "go"})
    return agent, first["result"]["interrupts"][0]["id"]


def _result_of(out: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
    (found,) = [
        block["toolResult"]
        for message in out["messages"]
        for block in message["content"]
        if "toolResult" in block and block["toolResult"]["toolUseId"] == tool_use_id
    ]
    return found


@pytest.mark.req("ROC-DECIDE-003")
def test_a_handled_decline_is_the_last_answer_the_program_received(client):
    agent, iid = _paused(client, _asking("handled", handle_decision=True))
    out = client.invoke(agent, resume(decline(iid, "not now")))
    assert out["result"]["stopReason"] == "end_turn", out
    expected = [{"json": {"answers": [{"decision": "decline", "message": "not now"}], "value": "v"}}]
    assert _result_of(out, "t1") == {"toolUseId": "t1", "status": "success", "content": expected}


@pytest.mark.req("ROC-DECIDE-004", "ROC-DECIDE-007")
def test_an_unhandled_decline_is_an_error_result_with_the_decision_text_and_a_failed_body(client):
    agent, iid = _paused(client, _asking("unhandled"))
    out = client.invoke(agent, resume(decline(iid)))
    assert out["result"]["stopReason"] == "end_turn", out
    result = _result_of(out, "t1")
    assert (result["status"], result["content"]) == ("error", [{"text": DECLINE_TEXT}])
    ends = [e for e in out["trace"] if e["kind"] == "tool_end"]
    assert ends == [{"kind": "tool_end", "toolUseId": "t1", "outcome": "failed"}]


@pytest.mark.req("ROC-EXPIRY-001", "ROC-EXPIRY-002")
def test_expires_at_and_on_expiry_reach_the_raise_and_the_reported_interrupt(client):
    on_expiry = {"decision": "cancel", "message": "too late"}
    agent = client.create_agent(_asking("expiring", expires_at=FUTURE, on_expiry=on_expiry))
    (pending,) = client.invoke(agent, {"prompt": "go"})["result"]["interrupts"]
    assert (pending["expiresAt"], pending["onExpiry"]) == (FUTURE, on_expiry)
    bad = client.create_agent(_asking("bad-expiry", expires_at="tomorrow"))
    assert client.invoke(bad, {"prompt": "go"})["error"]["code"] == "INVALID_REASON"


@pytest.mark.req("ROC-ABANDON-003", "ROC-ABANDON-005", "ROC-ABANDON-002")
def test_abandon_ends_the_batch_with_the_message_and_leaves_the_agent_idle(client):
    agent, _ = _paused(client, _asking("abandoned"))
    out = client.invoke(agent, abandon("stop here"))
    assert out["result"]["stopReason"] == "abandoned", out
    assert out["result"]["interrupts"] == []
    assert _result_of(out, "t1")["content"] == [{"text": "stop here"}]
    assert not any(e["kind"] in ("tool_start", "model_call") for e in out["trace"])
    assert client.invoke(agent, abandon())["error"]["code"] == "NOT_INTERRUPTED"
    assert client.list_pending(agent) == {"pending": []}


@pytest.mark.req("ROC-ABANDON-005")
def test_abandon_with_continue_model_calls_the_model_next(client):
    agent, _ = _paused(client, _asking("continued"))
    out = client.invoke(agent, abandon(continue_model=True))
    assert out["result"]["stopReason"] == "end_turn", out
    assert [e["turn"] for e in out["trace"] if e["kind"] == "model_call"] == [1]


@pytest.mark.req("ROC-PENDING-001", "ROC-PENDING-002", "ROC-PENDING-004")
def test_list_pending_of_the_agent_and_of_its_snapshot_agree_and_carry_what_is_stored(client):
    spec = agent_spec(
        "two",
        executor="concurrent",
        turns=[turn(tool_use("t1", "ask"), tool_use("t2", "ask")), turn(text("done"))],
        tools=[tool("ask", interrupt("approve"), returns())],
    )
    agent = client.create_agent(spec)
    first, second = client.invoke(agent, {"prompt": "go"})["result"]["interrupts"]
    partial = client.invoke(agent, resume(cancel_interrupt(first["id"], "skip")))
    assert partial["result"]["stopReason"] == "interrupt", partial
    listed = client.list_pending(agent)["pending"]
    assert {p["id"]: p.get("answer") for p in listed} == {
        first["id"]: {"decision": "cancel", "message": "skip"},
        second["id"]: None,
    }
    snapshot = client.take_snapshot(agent)["snapshotJson"]
    assert client.list_pending_snapshot(snapshot, spec) == {"pending": listed}
    done = client.invoke(agent, resume(answer(second["id"], "y")))
    assert done["result"]["stopReason"] == "end_turn", done


@pytest.mark.req("ROC-PENDING-004")
def test_list_pending_of_a_broken_document_is_the_loaders_error_value(client):
    out = client.list_pending_snapshot('{"schemaVersion": "2.1"', _asking("broken"))
    assert out["error"]["code"] == "SNAPSHOT_INVALID", out


def test_an_unknown_handle_in_list_pending_is_a_harness_error_value(client):
    out = client.list_pending("agent-nope")
    assert set(out) == {"harness_error"}
    assert "unknown agent handle" in out["harness_error"]


class BareAdapter(ReferenceAdapter):
    """The reference adapter with the kit's defaults for the RoC 1.1 parts."""

    abandon = RuntimeAdapter.abandon  # type: ignore[assignment]
    pending = RuntimeAdapter.pending  # type: ignore[assignment]
    pending_of_snapshot = RuntimeAdapter.pending_of_snapshot  # type: ignore[assignment]


class BareServicer(HarnessServicer):
    def __init__(self) -> None:
        super().__init__()
        self.adapter = self.reference = BareAdapter()


def test_the_kit_answers_harness_errors_for_abandon_and_listing_an_adapter_does_not_implement():
    with serving(BareServicer()) as (address, _), client_for(address) as c:
        agent, _ = _paused(c, _asking("bare"))
        assert "profile pending-list" in c.list_pending(agent)["harness_error"]
        assert "profile pending-list" in c.list_pending_snapshot("{}", _asking("bare"))["harness_error"]
        with pytest.raises(Exception, match="profile abandon"):
            c.invoke(agent, abandon())


def _state() -> StateView:
    return StateView(get=lambda key: None, has=lambda key: False, put=lambda key, value: None)


def test_interrupt_steps_pass_expiry_only_when_they_have_it_and_need_a_recogniser_to_handle_decisions():
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def raise_api(*args: Any, **kwargs: Any) -> str:
        calls.append((args, kwargs))
        return "y"

    steps = parse_steps(
        [
            {"interrupt": {"name": "a", "expiresAt": FUTURE, "onExpiry": {"decision": "decline"}}},
            {"interrupt": {"name": "b"}},
        ],
        TOOL_OPS,
        "tool",
    )
    run_program(steps, interrupt=raise_api, state=_state())
    assert calls == [
        (("a", None), {"expires_at": FUTURE, "on_expiry": {"decision": "decline"}}),
        (("b", None), {}),
    ]
    handled = parse_steps([{"interrupt": {"name": "a", "handleDecision": True}}], TOOL_OPS, "tool")
    with pytest.raises(ScenarioError, match="handleDecision"):
        run_program(handled, interrupt=raise_api, state=_state())


def test_a_recognised_decision_is_handled_only_by_a_step_that_asks_for_it():
    class Declined(Exception):
        pass

    def raise_api(*args: Any, **kwargs: Any) -> str:
        raise Declined

    def decision_of(exc: BaseException) -> dict[str, Any] | None:
        return {"decision": "cancel"} if isinstance(exc, Declined) else None

    handled = parse_steps([{"interrupt": {"name": "a", "handleDecision": True}}], TOOL_OPS, "tool")
    run = run_program(handled, interrupt=raise_api, state=_state(), decision_of=decision_of)
    assert run.answers == [{"decision": "cancel"}]
    plain = parse_steps([{"interrupt": {"name": "a"}}], TOOL_OPS, "tool")
    with pytest.raises(Declined):
        run_program(plain, interrupt=raise_api, state=_state(), decision_of=decision_of)


@pytest.mark.parametrize(
    "step",
    [{"expiresAt": 1}, {"onExpiry": "decline"}, {"onExpiry": {"message": "x"}}, {"handleDecision": "yes"}],
)
def test_malformed_protocol_4_step_members_are_scenario_errors(step: dict[str, Any]):
    with pytest.raises(ScenarioError):
        parse_steps([{"interrupt": {"name": "a", **step}}], TOOL_OPS, "tool")
