"""Helpers for the harness tests: in-process reference adapters and adapters that misbehave on purpose."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from roc_conformance.client import HarnessClient, Timeouts
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.scenarios import one_question
from roc_reference.harness.server import HarnessServicer, make_server


def tool_spec(agent_id: str = "a1", executor: str = "sequential") -> dict[str, Any]:
    """One tool (t1) that asks 'approve', then a closing text turn."""
    return one_question(
        agent_id, executor=executor, lead="on it", tool_input={"k": 1}, reason={"why": "x"}, value="v"
    )


class VersionedServicer(HarnessServicer):
    """The reference adapter answering the handshake with another harness protocol version."""

    def __init__(self, version: int) -> None:
        super().__init__()
        self.version = version

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        reply = super().Describe(request, context)
        reply.harness_protocol_version = self.version
        return reply


def load_broken(name: str) -> Any:
    """A broken fixture of conformance/fixtures/broken by name (its ``patch()``, ``BREAKS``, ``CHECKS``)."""
    support_path = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "broken" / "_support.py"
    spec = importlib.util.spec_from_file_location("roc_broken_support", support_path)
    assert spec is not None
    assert spec.loader is not None
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    return support.load(name)


class HangingServicer(HarnessServicer):
    """Answers everything but Invoke, which never returns in time."""

    def __init__(self, delay: float = 30.0) -> None:
        super().__init__()
        self.delay = delay

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        deadline = time.monotonic() + self.delay
        while time.monotonic() < deadline and context.is_active():
            time.sleep(0.05)
        return hpb.InvokeResponse()


class BrokenAdapterServicer(HarnessServicer):
    """Every Invoke is an adapter fault (harness_error)."""

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        return hpb.InvokeResponse(harness_error=hpb.HarnessError(message="adapter bug", details="trace"))


@contextmanager
def serving(servicer: HarnessServicer | None = None) -> Iterator[tuple[str, HarnessServicer]]:
    """An in-process adapter on a free localhost port."""
    servicer = servicer or HarnessServicer()
    server, port = make_server("127.0.0.1", 0, servicer=servicer)
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(grace=None)


@contextmanager
def client_for(address: str, timeouts: Timeouts | None = None) -> Iterator[HarnessClient]:
    client = HarnessClient.connect(address, timeouts=timeouts)
    try:
        yield client
    finally:
        client.close()
