"""The reference adapter over real gRPC on localhost: every RPC, traces, error mapping, isolation, faults."""

from __future__ import annotations

import copy

import pytest
from roc_conformance.client import HARNESS_PROTOCOL_VERSION, Timeouts
from roc_conformance.errors import AdapterError, HarnessTimeout, HarnessUnavailable
from roc_harness_support import BrokenAdapterServicer, HangingServicer, client_for, serving, tool_spec


def tool_results(out):
    return [b["toolResult"] for m in out["messages"] for b in m["content"] if "toolResult" in b]


def kinds(out):
    return [e["kind"] for e in out["trace"]]


def test_describe_handshake(client):
    desc = client.describe()
    assert desc.harness_protocol_version == HARNESS_PROTOCOL_VERSION
    assert desc.implementation["name"] == "roc-reference"
    assert "1.0" in desc.spec_versions
    assert {"core", "hooks", "sessions"} <= desc.profiles


def test_tool_interrupt_then_resume(client):
    agent = client.create_agent(tool_spec())
    first = client.invoke(agent, {"prompt": "go"})
    result = first["result"]
    assert result["stopReason"] == "interrupt"
    (interrupt,) = result["interrupts"]
    assert interrupt["name"] == "approve"
    assert interrupt["reason"] == {"why": "x"}
    assert interrupt["source"] == {"kind": "tool", "toolUseId": "t1", "toolName": "ask"}
    assert kinds(first)[0] == "invocation_start"
    assert kinds(first)[-1] == "invocation_end"
    assert {"kind": "model_call", "turn": 0} in first["trace"]
    assert {"kind": "tool_end", "toolUseId": "t1", "outcome": "interrupted"} in first["trace"]
    assert first["messages"] == [{"role": "user", "content": [{"text": "go"}]}]

    second = client.invoke(agent, {"interruptResponses": [{"interruptId": interrupt["id"], "response": 0}]})
    assert second["result"]["stopReason"] == "end_turn"
    assert {"kind": "model_call", "turn": 1} in second["trace"]
    assert not any(e["kind"] == "model_call" and e["turn"] == 0 for e in second["trace"])
    (tool_result,) = tool_results(second)
    assert tool_result["content"] == [{"json": {"answers": [0], "value": "v"}}]
    client.dispose_agent(agent)


def test_hook_callbacks_cancel_and_after_events_are_traced(client):
    spec = tool_spec()
    spec["tools"].append({"name": "plain", "steps": []})
    spec["model"]["turns"][0]["content"] = [{"toolUse": {"toolUseId": "t1", "name": "plain", "input": {}}}]
    spec["hooks"] = [
        {"event": "BeforeToolCall", "toolName": "other", "steps": [{"cancel": {"message": "never"}}]},
        {"event": "BeforeToolCall", "toolName": "plain", "steps": [{"cancel": {"message": "denied"}}]},
        {"event": "AfterToolCall", "steps": [{"setState": {"key": "seen", "value": True}}]},
    ]
    agent = client.create_agent(spec)
    out = client.invoke(agent, {"prompt": "go"})
    assert out["result"]["stopReason"] == "end_turn"
    trace = out["trace"]
    callbacks = [e for e in trace if e["kind"] == "hook_callback"]
    assert callbacks == [
        {"kind": "hook_callback", "event": "BeforeToolCall", "hookIndex": 1, "toolUseId": "t1"},
        {"kind": "hook_callback", "event": "AfterToolCall", "hookIndex": 2, "toolUseId": "t1"},
    ]
    assert {"kind": "after_tool_call", "toolUseId": "t1", "status": "error"} in trace
    assert not any(e["kind"] == "tool_start" for e in trace)
    assert trace.index({"kind": "before_tool_call", "toolUseId": "t1"}) < trace.index(callbacks[0])
    assert out["state"] == {"seen": True}
    (result_block,) = tool_results(out)
    assert result_block == {"toolUseId": "t1", "status": "error", "content": [{"text": "denied"}]}


def test_rejected_input_is_an_error_value_with_a_bare_trace(client):
    agent = client.create_agent(tool_spec())
    client.invoke(agent, {"prompt": "go"})
    out = client.invoke(agent, {"prompt": "again"})
    assert out["error"]["code"] == "INTERRUPT_PENDING"
    assert "result" not in out
    assert out["trace"] == [{"kind": "invocation_start"}]


def test_direct_tool_call_returns_a_tool_result(client):
    spec = tool_spec()
    spec["tools"].append({"name": "plain", "steps": [{"return": {"value": 3}}]})
    agent = client.create_agent(spec)
    out = client.invoke(agent, {"directToolCall": {"name": "plain", "input": {}}})
    assert out["toolResult"]["status"] == "success"
    assert out["toolResult"]["content"] == [{"json": {"answers": [], "value": 3}}]
    assert [e["kind"] for e in out["trace"]] == ["invocation_start", "tool_start", "tool_end"]
    refused = client.invoke(agent, {"directToolCall": {"name": "ask", "input": {}}})
    assert refused["error"]["code"] == "DIRECT_CALL_INTERRUPT"


def test_snapshot_restore_continues_the_script_at_the_offset(client):
    spec = tool_spec()
    agent = client.create_agent(spec)
    first = client.invoke(agent, {"prompt": "go"})
    snap = client.take_snapshot(agent)
    assert snap["snapshot"]["interruptState"]["activated"] is True
    client.dispose_agent(agent)
    restored = client.restore_agent(snap["snapshot"], spec, model_turn_offset=1)
    iid = first["result"]["interrupts"][0]["id"]
    out = client.invoke(restored["agent"], {"interruptResponses": [{"interruptId": iid, "response": "yes"}]})
    assert out["result"]["message"] == {"role": "assistant", "content": [{"text": "done"}]}
    assert [e["turn"] for e in out["trace"] if e["kind"] == "model_call"] == [1]


def test_a_refused_snapshot_is_the_implementations_error(client):
    out = client.restore_agent("not json at all", tool_spec())
    assert out == {"error": out["error"]}
    assert out["error"]["code"] == "SNAPSHOT_INVALID"


def test_agents_are_isolated_even_with_the_same_agent_id(client):
    a = client.create_agent(tool_spec("same"))
    b = client.create_agent(tool_spec("same"))
    assert a != b
    client.invoke(a, {"prompt": "go"})
    out = client.invoke(b, {"directToolCall": {"name": "ask", "input": {}}})
    assert out["error"]["code"] == "DIRECT_CALL_INTERRUPT"  # b is not interrupted: not INTERRUPT_PENDING
    assert client.take_snapshot(b)["snapshot"]["interruptState"]["activated"] is False


def test_script_exhaustion_is_visible(client):
    spec = tool_spec()
    spec["model"]["turns"] = []
    agent = client.create_agent(spec)
    out = client.invoke(agent, {"prompt": "go"})
    assert out["result"]["message"]["content"] == [{"text": "script exhausted"}]
    assert {"kind": "model_call", "turn": 0} in out["trace"]


def test_an_exception_outside_the_error_set_is_a_crash_not_a_fault(client, adapter):
    _, servicer = adapter
    agent = client.create_agent(tool_spec())

    def boom(prompt):
        raise RuntimeError("kaput")

    servicer._agents[agent].agent.agent.invoke = boom  # the handle's Built, its runtime Agent
    out = client.invoke(agent, {"prompt": "go"})
    assert out["crash"]["type"] == "RuntimeError"
    assert "kaput" in out["crash"]["message"]
    assert "result" not in out
    assert "error" not in out


def test_unknown_handle_is_a_harness_fault(client):
    with pytest.raises(AdapterError, match="unknown agent handle"):
        client.invoke("no-such-agent", {"prompt": "go"})


def test_an_unbuildable_scenario_is_a_harness_fault(client):
    spec = tool_spec()
    spec["hooks"] = [{"event": "AfterTools", "steps": [{"interrupt": {"name": "late"}}]}]
    with pytest.raises(AdapterError, match="cannot build scenario"):
        client.create_agent(spec)


def test_the_client_latches_after_a_fault(client):
    spec = copy.deepcopy(tool_spec())
    spec["executor"] = "sequential"
    with pytest.raises(AdapterError):
        client.invoke("gone", {"prompt": "go"})
    before = client.rpc_count
    with pytest.raises(AdapterError):
        client.create_agent(spec)  # answered from the latch, no RPC sent
    assert client.rpc_count == before
    client.reset_latch()
    assert client.create_agent(spec)


def test_harness_error_reply_is_a_fault():
    with serving(BrokenAdapterServicer()) as (address, _), client_for(address) as c:
        agent = c.create_agent(tool_spec())
        with pytest.raises(AdapterError, match="adapter bug"):
            c.invoke(agent, {"prompt": "go"})


def test_a_hung_rpc_times_out():
    # The servicer holds the Invoke until the client gives up (or for 600 s, a safety net): a reply can only
    # be the client's own timeout, so HarnessTimeout proves the deadline works without timing anything.
    with serving(HangingServicer(delay=600)) as (address, _), client_for(address, Timeouts(invoke=0.5)) as c:
        agent = c.create_agent(tool_spec())
        with pytest.raises(HarnessTimeout, match=r"no answer within 0\.5s"):
            c.invoke(agent, {"prompt": "go"})


def test_nothing_listening_is_unavailable():
    with client_for("127.0.0.1:1", Timeouts(describe=2)) as c, pytest.raises(HarnessUnavailable):
        c.describe()


def test_session_binding_stores_and_detects_a_stale_agent(client):
    spec = {**tool_spec("s"), "session": {"store": "test-store", "sessionId": "one"}}
    a = client.create_agent(spec)
    b = client.create_agent(spec)
    assert client.take_snapshot(a, stored=True)["snapshot"] is None
    client.invoke(a, {"prompt": "go"})
    stored = client.take_snapshot(a, stored=True)["snapshot"]
    assert stored["interruptState"]["activated"] is True
    out = client.invoke(b, {"prompt": "go"})
    assert out["error"]["code"] == "SESSION_CONFLICT"
    assert client.take_snapshot(a, stored=True)["snapshot"] == stored


def test_the_runtime_refusing_to_build_is_an_error_value(client):
    out = client.try_create_agent({**tool_spec(), "session": {"store": "x", "sessionId": "../up"}})
    assert out["error"]["code"] == "SNAPSHOT_INVALID"
    assert "agent" not in out


def test_integrity_key_signs_and_verifies(client):
    key = {"keyId": "k1", "secret": "s3cret"}
    spec = {**tool_spec(), "integrity": key}
    agent = client.create_agent(spec)
    client.invoke(agent, {"prompt": "go"})
    doc = client.take_snapshot(agent)["snapshot"]
    assert doc["integrity"]["keyId"] == "k1"
    assert doc["integrity"]["alg"] == "HMAC-SHA256"
    restored = client.restore_agent(doc, spec, model_turn_offset=1)
    assert "agent" in restored
    assert restored["trace"] == []
    doc["agent"]["state"] = {"tampered": True}
    assert client.restore_agent(doc, spec, model_turn_offset=1)["error"]["code"] == "SNAPSHOT_INTEGRITY"


def test_cancel_without_a_message_cancels_with_true(client):
    spec = tool_spec()
    spec["model"]["turns"][0]["content"] = [{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}]
    spec["hooks"] = [{"event": "BeforeToolCall", "steps": [{"cancel": {}}]}]
    out = client.invoke(client.create_agent(spec), {"prompt": "go"})
    (result,) = tool_results(out)
    assert result["status"] == "error"
    assert len(result["content"]) == 1
    assert result["content"][0]["text"]  # the runtime's default text, not an empty message


def test_invocation_and_model_events_are_traced(client):
    out = client.invoke(client.create_agent(tool_spec()), {"prompt": "go"})
    kinds = [e["kind"] for e in out["trace"]]
    assert kinds[:2] == ["invocation_start", "before_invocation"]
    assert kinds[-2:] == ["after_invocation", "invocation_end"]
    i = kinds.index("model_call")
    assert kinds[i - 1] == "before_model_call"
    assert kinds[i + 1] == "after_model_call"


def test_observers_see_restore_replies_too(client):
    """The schema observer checks the trace events of restores, so RestoreAgent replies reach it."""
    seen: list[tuple[str, dict]] = []
    client.observers.append(lambda rpc, reply: seen.append((rpc, reply)))
    agent = client.create_agent(tool_spec())
    client.invoke(agent, {"prompt": "go"})
    snap = client.take_snapshot(agent)
    restored = client.restore_agent(snap["snapshot"], tool_spec(), model_turn_offset=1)
    refused = client.restore_agent("not json at all", tool_spec())
    restores = [reply for rpc, reply in seen if rpc == "RestoreAgent"]
    assert [r.get("agent") for r in restores] == [restored["agent"], None]
    assert restores[1]["error"] == refused["error"]
