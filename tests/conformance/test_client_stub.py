"""A ``HarnessClient`` over another stub than gRPC's: the same client, the same answers, no transport."""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.client import HarnessClient
from roc_reference.harness.server import HarnessServicer


class CallServicer:
    """The harness service's methods, called on a servicer of this process with the request itself."""

    def __init__(self, servicer: Any) -> None:
        self.servicer = servicer
        self.calls: list[str] = []

    def __getattr__(self, rpc: str) -> Any:
        def call(request: Any, timeout: float | None = None) -> Any:
            self.calls.append(rpc)
            return getattr(self.servicer, rpc)(request, None)

        return call


SPEC = {"agentId": "a1", "executor": "sequential", "model": {"turns": [{"content": [{"text": "hi"}]}]}}


def test_a_client_over_a_stub_speaks_to_the_servicer_directly() -> None:
    servicer = HarnessServicer()
    stub = CallServicer(servicer)
    client = HarnessClient(None, stub=stub)
    try:
        assert "core" in client.describe().profiles
        agent = client.create_agent(SPEC)
        out = client.invoke(agent, {"prompt": "go"})
        assert out["result"]["stopReason"] == "end_turn"
        client.dispose_agent(agent)
        assert stub.calls == ["Describe", "CreateAgent", "Invoke", "DisposeAgent"]
        assert client.rpc_count == 4
    finally:
        client.close()  # no channel: nothing to close
        servicer.close()


def test_a_client_needs_a_channel_or_a_stub() -> None:
    with pytest.raises(ValueError, match="channel or a stub"):
        HarnessClient(None)
