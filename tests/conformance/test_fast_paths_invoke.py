"""The Invoke reply's shortcut (trace and history mapped item by item, each distinct item once) gives exactly
the reply, the JSON and the faults of the whole-document mapping it spares. Nothing here measures time."""

from __future__ import annotations

import json
from typing import Any

import pytest
from roc_conformance import wire
from roc_conformance.adapter import service
from roc_conformance.client import HarnessClient
from roc_conformance.errors import AdapterError
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_reference.harness.server import HarnessServicer

INVOKE_REPLY = "roc.conformance.v1.InvokeResponse"

SPEC: dict[str, Any] = {
    "agentId": "a1",
    "executor": "sequential",
    "model": {
        "turns": [
            {"content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {"n": 1, "f": -0.0}}}]},
            {"content": [{"text": "done"}]},
        ]
    },
    "tools": [{"name": "x", "steps": [{"interrupt": {"name": "q", "reason": {"a": [1, 2.5, None]}}}]}],
    "hooks": [
        {"event": "BeforeToolCall", "toolName": "x", "steps": []},
        {"event": "AfterToolCall", "steps": []},
    ],
    "state": {"k": -0.0, "n": 3, "z": {"b": 1, "a": 2}},
}


class _Direct:
    def __init__(self, servicer: Any) -> None:
        self.servicer = servicer

    def __getattr__(self, rpc: str) -> Any:
        return lambda request, timeout=None: getattr(self.servicer, rpc)(request, None)


@pytest.fixture
def replies() -> list[hpb.InvokeResponse]:
    """The Invoke replies of a scenario that interrupts, is refused, answered and prompted again."""
    servicer = HarnessServicer()
    seen: list[hpb.InvokeResponse] = []

    class Recording(_Direct):
        def __getattr__(self, rpc: str) -> Any:
            def call(request: Any, timeout: float | None = None) -> Any:
                reply = getattr(self.servicer, rpc)(request, None)
                if rpc == "Invoke":
                    seen.append(reply)
                return reply

            return call

    client = HarnessClient(None, stub=Recording(servicer))
    try:
        agent = client.create_agent(SPEC)
        first = client.invoke(agent, {"prompt": "go"})
        client.invoke(agent, {"prompt": "again"})  # refused: interrupted
        (interrupt,) = first["result"]["interrupts"]
        client.invoke(agent, {"interruptResponses": [{"interruptId": interrupt["id"], "response": "yes"}]})
        client.invoke(agent, {"prompt": "once more"})
    finally:
        servicer.close()
    return seen


def test_the_client_reads_every_reply_as_the_whole_mapping_does(replies: list[hpb.InvokeResponse]) -> None:
    client = HarnessClient(None, stub=object())
    assert any(r.trace for r in replies)
    assert any(r.messages for r in replies)
    assert any(r.HasField("error") for r in replies)
    for reply in replies * 2:  # the second time from what was remembered
        fast, whole = client._decode_invoke(reply), client._decode("Invoke", reply)
        assert fast == whole
        assert json.dumps(fast) == json.dumps(whole)  # member order, 1 vs 1.0, -0.0 included


def test_the_json_read_is_the_callers_own(replies: list[hpb.InvokeResponse]) -> None:
    client = HarnessClient(None, stub=object())
    reply = next(r for r in replies if r.messages)
    first = client._decode_invoke(reply)
    first["messages"][0]["content"].clear()
    first["trace"].clear()
    assert client._decode_invoke(reply) == client._decode("Invoke", reply)


def test_the_adapter_builds_the_reply_the_whole_mapping_builds(replies: list[hpb.InvokeResponse]) -> None:
    for reply in replies * 2:
        doc = jsonmap.from_proto(reply)
        fast = service._invoke_reply(doc)
        assert fast == jsonmap.to_proto(INVOKE_REPLY, doc)
        assert jsonmap.from_proto(fast) == doc
    remembered = wire.many_to_proto("TraceEvent", [{"kind": "model_call", "turn": 0}])[0]
    built = service._invoke_reply({"result": {"stopReason": "end_turn", "interrupts": [], "message": {
        "role": "assistant", "content": []}}, "trace": [{"kind": "model_call", "turn": 0}], "messages": [],
        "state": {}})  # fmt: skip
    built.trace[0].model_call.turn = 7
    assert remembered.model_call.turn == 0  # the reply holds copies


def test_an_unmappable_reply_fails_as_the_whole_mapping_fails() -> None:
    message = {"role": "assistant", "content": []}
    doc = {
        "result": {"stopReason": "end_turn", "interrupts": [], "message": message},
        "trace": [{"kind": "model_call", "turn": 0}],
        "messages": [{"role": "assistant", "content": [{"text": "ok"}]}, {"role": "nobody", "content": []}],
        "state": {},
    }
    with pytest.raises(JsonMappingError) as whole:
        jsonmap.to_proto(INVOKE_REPLY, doc)
    with pytest.raises(JsonMappingError) as fast:
        service._invoke_reply(doc)
    assert str(fast.value) == str(whole.value)
    with pytest.raises(JsonMappingError):
        wire.many_to_proto("Message", doc["messages"])  # refused every time, never remembered
    with pytest.raises(JsonMappingError):
        wire.many_to_proto("Message", doc["messages"])


def test_a_reply_without_json_form_is_the_same_fault() -> None:
    reply = hpb.InvokeResponse()
    reply.result.stop_reason = 1
    reply.messages.add().role = 0  # ROLE_UNSPECIFIED has no JSON form
    with pytest.raises(AdapterError) as fast:
        HarnessClient(None, stub=object())._decode_invoke(reply)
    with pytest.raises(AdapterError) as whole:
        HarnessClient(None, stub=object())._decode("Invoke", reply)
    assert str(fast.value) == str(whole.value)
