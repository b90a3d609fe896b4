"""Harness protocol 3 over real gRPC: direct tool calls, session stores and snapshot integrity are profiles
(the one capability left is ``inspect``), a protocol 2 adapter is refused with what changed, and the data
model changes of spec 2.7 cross the wire (answer metadata accepted or refused with its RoC code)."""

from __future__ import annotations

import pytest
from roc_conformance.client import (
    CAPABILITIES,
    FORMER_CAPABILITIES,
    HARNESS_PROTOCOL_VERSION,
    PROTOCOL_CHANGES,
)
from roc_conformance.errors import ProtocolMismatch
from roc_harness_support import VersionedServicer, client_for, serving, tool_spec


def test_the_reference_keeps_protocol_3s_capabilities_and_profiles(client):
    # Protocol 4 (test_harness_protocol4.py) changed neither the capabilities nor the former ones.
    desc = client.describe()
    assert desc.harness_protocol_version == HARNESS_PROTOCOL_VERSION
    assert desc.capabilities == CAPABILITIES == frozenset({"inspect"})
    # The three former capabilities are claimed as profiles, each once.
    assert desc.profiles >= FORMER_CAPABILITIES
    assert not FORMER_CAPABILITIES & desc.capabilities


def test_a_protocol_2_adapter_is_refused_with_what_changed():
    with serving(VersionedServicer(2)) as (address, _), client_for(address) as c:
        with pytest.raises(ProtocolMismatch) as caught:
            c.describe()
        message = str(caught.value)
        assert f"adapter speaks harness protocol 2, suite speaks {HARNESS_PROTOCOL_VERSION}" in message
        for version in range(3, HARNESS_PROTOCOL_VERSION + 1):
            for change in PROTOCOL_CHANGES[version]:
                assert change in message
        assert not any(change in message for change in PROTOCOL_CHANGES[2])  # only what changed since 2
        with pytest.raises(ProtocolMismatch):  # latched: nothing more reaches a protocol 2 adapter
            c.create_agent(tool_spec())


def test_the_protocol_3_changelog_names_the_profiles_and_the_data_model_changes():
    changes = " ".join(PROTOCOL_CHANGES[3])
    for word in ("direct-tool-call", "session-store", "snapshot-integrity", "metadata", "uint32"):
        assert word in changes
    assert "INVALID_INPUT" in changes
    assert "INTERNAL" in changes


def _paused(client):
    agent = client.create_agent(tool_spec())
    first = client.invoke(agent, {"prompt": "go"})
    return agent, first["result"]["interrupts"][0]["id"], first["messages"]


@pytest.mark.req("ROC-RESUME-015")
def test_an_answer_with_metadata_is_accepted_and_the_unit_gets_the_response_alone(client):
    # spec 2.2: InterruptResponse.metadata is accepted and never delivered as part of the answer.
    agent, iid, _ = _paused(client)
    body = {"interruptId": iid, "response": "y", "metadata": {"approver": "ada", "at": 1}}
    out = client.invoke(agent, {"interruptResponses": [body]})
    assert out["result"]["stopReason"] == "end_turn", out
    results = [
        block["toolResult"]
        for message in out["messages"]
        for block in message["content"]
        if "toolResult" in block
    ]
    # The scenario tool returns the answers it received: exactly the response, no metadata beside it.
    assert results[-1]["content"] == [{"json": {"answers": ["y"], "value": "v"}}]


@pytest.mark.req("ROC-RESUME-015")
@pytest.mark.parametrize("metadata", ["ada", None, [1], 0, True])
def test_answer_metadata_that_is_not_an_object_is_invalid_response(client, metadata):
    agent, iid, messages = _paused(client)
    body = {"interruptId": iid, "response": "y", "metadata": metadata}
    out = client.invoke(agent, {"interruptResponses": [body]})
    assert out["error"]["code"] == "INVALID_RESPONSE", out
    assert out["messages"] == messages  # rejected input leaves the agent as it was
    assert [i["id"] for i in client.inspect(agent)["interrupts"]] == [iid]


def test_an_interrupt_step_passes_metadata_only_when_it_has_some():
    # Harness protocol 3: InterruptStep.metadata reaches the raise API's metadata keyword as it is; a step
    # without it calls the raise API with (name, reason) alone, as protocol 2 adapters did.
    from roc_conformance.adapter.programs import TOOL_OPS, StateView, parse_steps, run_program

    calls: list[tuple[tuple[object, ...], dict[str, object]]] = []

    def raise_api(*args: object, **kwargs: object) -> str:
        calls.append((args, kwargs))
        return "y"

    steps = parse_steps(
        [{"interrupt": {"name": "a", "metadata": {"x-acme-ui": "red"}}}, {"interrupt": {"name": "b"}}],
        TOOL_OPS,
        "tool",
    )
    state = StateView(get=lambda key: None, has=lambda key: False, put=lambda key, value: None)
    run_program(steps, interrupt=raise_api, state=state)
    assert calls == [(("a", None), {"metadata": {"x-acme-ui": "red"}}), (("b", None), {})]


def test_interrupt_step_metadata_must_be_an_object():
    from roc_conformance.adapter.programs import TOOL_OPS, ScenarioError, parse_steps

    with pytest.raises(ScenarioError, match="metadata"):
        parse_steps([{"interrupt": {"name": "a", "metadata": "red"}}], TOOL_OPS, "tool")


def _raise_api_takes_metadata() -> bool:
    import inspect

    from roc_reference import ToolContext

    return "metadata" in inspect.signature(ToolContext.interrupt).parameters


@pytest.mark.req("ROC-MODEL-014")
@pytest.mark.skipif(
    not _raise_api_takes_metadata(), reason="ToolContext.interrupt takes no metadata keyword yet"
)
def test_interrupt_metadata_crosses_the_harness_into_results_inspection_and_snapshots(client):
    from roc_conformance.scenarios import agent_spec, returns, text, tool, tool_use, turn

    meta = {"x-acme-ui": {"style": "danger"}, "n": 1}
    spec = agent_spec(
        "hinted",
        turns=[turn(tool_use("t1", "ask", {})), turn(text("done"))],
        tools=[tool("ask", {"interrupt": {"name": "approve", "metadata": meta}}, returns())],
    )
    agent = client.create_agent(spec)
    first = client.invoke(agent, {"prompt": "go"})
    (pending,) = first["result"]["interrupts"]
    assert pending["metadata"] == meta
    assert client.inspect(agent)["interrupts"][0]["metadata"] == meta
    snapshot = client.take_snapshot(agent)["snapshot"]
    assert snapshot["interruptState"]["interrupts"][0]["metadata"] == meta
