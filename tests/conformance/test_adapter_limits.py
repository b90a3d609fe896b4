"""The reference adapter's own contract (issue 9, item 7): one reply carries one invocation's trace, bad
requests and bad scenarios are harness errors (never the runtime's crash or a silently accepted key), and
the number of live agents is capped (conformance/README.md, "Isolation, concurrency and deadlines").

The servicer is called in process (its methods do not use the gRPC context), so these tests see exactly
what the adapter answers, without a network in between.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from roc_conformance import wire
from roc_conformance.pb import jsonmap
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_harness_support import tool_spec
from roc_reference.harness import build as build_module
from roc_reference.harness.server import MAX_LIVE_AGENTS, HarnessServicer

# Safety net only: how long a thread may wait for another to reach a point. Never a measure of speed.
SAFETY_SECONDS = 60.0


def create(servicer: HarnessServicer, spec: dict[str, Any]) -> dict[str, Any]:
    reply = servicer.CreateAgent(hpb.CreateAgentRequest(spec=wire.agent_spec_to_proto(spec)), None)
    return dict(jsonmap.from_proto(reply))


def invoke(servicer: HarnessServicer, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
    return dict(jsonmap.from_proto(servicer.Invoke(wire.invoke_request(agent, inp), None)))


def kinds(reply: dict[str, Any]) -> list[str]:
    return [next(iter(e)) if "kind" not in e else e["kind"] for e in reply["trace"]]


# -- concurrent Invokes on one handle ------------------------------------------------------------------


def test_concurrent_invokes_on_one_handle_each_get_only_their_own_trace(monkeypatch):
    """A runs into its model call and holds there until B has entered Invoke (and a moment longer, so that
    B gets as far as the adapter lets it). Before the fix B emptied the shared trace and recorded its own
    start while A ran, so A's reply lost its ``invocation_start`` to B's. Now B waits for A."""
    servicer = HarnessServicer()
    agent = create(servicer, tool_spec())["agent"]
    b_entered = threading.Event()
    a_in_model = threading.Event()
    original_input = wire.invoke_input
    original_call = build_module.CountingModel.call

    def marking_input(request: hpb.InvokeRequest) -> dict[str, Any]:
        if threading.current_thread().name == "B":
            b_entered.set()
        return original_input(request)

    def held_call(self: Any, messages: Any) -> Any:
        if threading.current_thread().name == "A":
            a_in_model.set()
            assert b_entered.wait(SAFETY_SECONDS)
            # Let B run as far as it can: before the fix, into the trace; after it, to the agent's lock.
            # Only gives the old bug room to show; nothing is asserted about time.
            threading.Event().wait(0.3)
        return original_call(self, messages)

    monkeypatch.setattr(wire, "invoke_input", marking_input)
    monkeypatch.setattr(build_module.CountingModel, "call", held_call)
    replies: dict[str, dict[str, Any]] = {}

    def run(name: str, inp: dict[str, Any]) -> None:
        replies[name] = invoke(servicer, agent, inp)

    a = threading.Thread(target=run, args=("A", {"prompt": "go"}), name="A")
    a.start()
    assert a_in_model.wait(SAFETY_SECONDS)
    b = threading.Thread(target=run, args=("B", {"prompt": "again"}), name="B")
    b.start()
    a.join(SAFETY_SECONDS)
    b.join(SAFETY_SECONDS)
    assert not a.is_alive()
    assert not b.is_alive()

    first, second = replies["A"], replies["B"]
    assert first["result"]["stopReason"] == "interrupt"
    assert second["error"]["code"] == "INTERRUPT_PENDING"  # B ran after A: the agent was interrupted
    for reply in (first, second):
        events = kinds(reply)
        assert events.count("invocation_start") == 1, events
        assert events[0] == "invocation_start", events
    assert kinds(first)[-1] == "invocation_end"
    assert "model_call" not in kinds(second)  # a refused resume calls no model; A's call is A's


def test_many_concurrent_invokes_never_share_events():
    """The same property without any hook into the adapter: threads race Invokes on one handle."""
    servicer = HarnessServicer()
    agent = create(servicer, tool_spec())["agent"]
    replies: list[dict[str, Any]] = []
    lock = threading.Lock()

    def run() -> None:
        for _ in range(25):
            reply = invoke(servicer, agent, {"prompt": "go"})
            with lock:
                replies.append(reply)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(SAFETY_SECONDS)
    assert len(replies) == 100
    for reply in replies:
        assert kinds(reply).count("invocation_start") == 1, kinds(reply)
    # Exactly one invocation ran the model (the first); every later prompt met the pending interrupt.
    assert sum("model_call" in kinds(r) for r in replies) == 1


# -- requests and scenarios the adapter must refuse ---------------------------------------------------


@pytest.mark.parametrize(
    "integrity",
    [{"keyId": "k1", "secret": ""}, {"keyId": "", "secret": "s3cret"}],
    ids=["empty secret", "empty key id"],
)
def test_an_empty_integrity_key_is_refused_at_create_and_restore(integrity):
    servicer = HarnessServicer()
    spec = {**tool_spec(), "integrity": integrity}
    created = create(servicer, spec)
    assert set(created) == {"harnessError"}, created
    assert "must not be empty" in created["harnessError"]["message"]
    good = create(servicer, tool_spec())["agent"]
    snapshot_json = servicer.TakeSnapshot(hpb.TakeSnapshotRequest(agent=good), None).snapshot_json
    restored = servicer.RestoreAgent(
        hpb.RestoreAgentRequest(snapshot_json=snapshot_json, spec=wire.agent_spec_to_proto(spec)), None
    )
    assert restored.HasField("harness_error"), restored
    assert "must not be empty" in restored.harness_error.message


@pytest.mark.parametrize("bad_input", [[1, 2], "text", 7, None])
def test_a_non_object_direct_call_input_is_a_harness_error_not_a_crash(monkeypatch, bad_input):
    """gRPC carries the input as a Struct, so only a decoder that lets something else through (a newer
    protocol, a hand-built request) can deliver one; the adapter must call that its own problem."""
    servicer = HarnessServicer()
    agent = create(servicer, tool_spec())["agent"]

    def decoded(request: hpb.InvokeRequest) -> dict[str, Any]:
        return {"directToolCall": {"name": "ask", "input": bad_input}}

    monkeypatch.setattr(wire, "invoke_input", decoded)
    reply = invoke(servicer, agent, {"directToolCall": {"name": "ask", "input": {}}})
    assert "harnessError" in reply, reply
    assert not {"crash", "error", "result", "toolResult"} & set(reply), reply
    assert "JSON object" in reply["harnessError"]["message"]


# -- the cap on live agents ----------------------------------------------------------------------------


def test_live_agents_are_capped_and_a_disposed_one_frees_its_place():
    servicer = HarnessServicer()
    handles = [create(servicer, tool_spec())["agent"] for _ in range(MAX_LIVE_AGENTS)]
    assert len(set(handles)) == MAX_LIVE_AGENTS
    over = create(servicer, tool_spec())
    assert set(over) == {"harnessError"}, over
    assert f"cap of {MAX_LIVE_AGENTS}" in over["harnessError"]["message"]
    snapshot_json = servicer.TakeSnapshot(hpb.TakeSnapshotRequest(agent=handles[0]), None).snapshot_json
    restored = servicer.RestoreAgent(
        hpb.RestoreAgentRequest(snapshot_json=snapshot_json, spec=wire.agent_spec_to_proto(tool_spec())), None
    )
    assert restored.HasField("harness_error")
    assert f"cap of {MAX_LIVE_AGENTS}" in restored.harness_error.message
    servicer.DisposeAgent(hpb.DisposeAgentRequest(agent=handles[0]), None)
    assert "agent" in create(servicer, tool_spec())
