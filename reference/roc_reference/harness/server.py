"""The reference runtime's adapter: ``ReferenceAdapter`` (the kit's ``RuntimeAdapter``) and its servicer.

The adapter kit (``roc_conformance.adapter``) does the gRPC side, handles, locks and error mapping; this
module says how the reference runtime does each step. A ``RocError`` raised by the runtime is its answer
(``error``); any other exception escaping the runtime during an Invoke is an implementation crash
(``crash``); a problem of the adapter itself is ``harness_error``.

Harness protocol 4: ``content`` and ``interruptResponses`` go to the runtime as they arrive (response bodies
wrapped as ``{"interruptResponse": body}``, decisions included), so the runtime's own validation is what the
suite judges; ``InspectAgent`` reads the agent's interrupt state without running anything. Direct tool
calls, session stores and snapshot integrity are declared as profiles; the one capability is ``inspect``.
The RoC 1.1 profiles are driven through the runtime's API: ``abandon`` is ``Agent.abandon``, ``ListPending``
is ``Agent.pending_interrupts`` and ``roc_reference.pending_interrupts_of``. Harness protocol 5 adds the RoC
1.2 profile ``agent-as-tool``: a ``runAgent`` step runs its nested scenario through
``tool_context.run_agent`` (``build.sub_agent``), and the sub-agent's events carry their ``agentPath``; and
the profile ``multi-agent``: an OrchestratorSpec becomes the runtime's ``Graph`` or ``Swarm``
(``orchestrate.build_orchestrator``), whose node agents' events carry ``agentPath`` ``["node:<id>"]``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from roc_conformance.adapter import (
    MAX_LIVE_AGENTS,
    AdapterError,
    AdapterInfo,
    DirectToolCall,
    HarnessService,
    InvokeInput,
    OrchestratorScenario,
    RuntimeAdapter,
    Scenario,
    Trace,
)
from roc_conformance.adapter import make_server as kit_make_server
from roc_conformance.adapter.service import _spec_json
from roc_conformance.client import HARNESS_PROTOCOL_VERSION
from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc

from roc_reference import SPEC_VERSIONS, pending_interrupts_of
from roc_reference.agent import Agent
from roc_reference.errors import RocError

from . import ADAPTER_NAME, PROFILES
from .build import Built, Stores, build, restore
from .orchestrate import BuiltOrchestrator, build_orchestrator

__all__ = [
    "CAPABILITIES",
    "DRIVEN_PROFILES",
    "HARNESS_PROTOCOL_VERSION",
    "IMPLEMENTATION_VERSION",
    "MAX_LIVE_AGENTS",
    "SPEC_1_1_PROFILES",
    "SPEC_1_2_PROFILES",
    "HarnessServicer",
    "ReferenceAdapter",
    "_spec_json",
    "inspect_agent",
    "make_server",
]

CAPABILITIES = ("inspect",)
# Since harness protocol 3 these are profiles, not capabilities: the runtime offers a direct-call API, a
# session store and snapshot integrity, so the adapter claims them next to the runtime's own profiles.
DRIVEN_PROFILES = ("direct-tool-call", "session-store", "snapshot-integrity")
# The profiles of RoC 1.1, driven through Invoke (decisions, abandon, expiry) and ListPending (harness
# protocol 4).
SPEC_1_1_PROFILES = ("decisions", "abandon", "expiry", "pending-list", "idempotent-resume")
# The profile of RoC 1.2 this adapter drives (harness protocol 5): runAgent steps become the runtime's
# sub-agent call (``tool_context.run_agent``), and sub-agent events carry their agentPath in the trace;
# OrchestratorSpecs become the runtime's Graph and Swarm (profile multi-agent).
SPEC_1_2_PROFILES = ("agent-as-tool", "multi-agent")
IMPLEMENTATION_VERSION = "0.1.0"


class ReferenceAdapter(RuntimeAdapter[Built]):
    """The reference runtime behind the kit."""

    def __init__(self, profiles: tuple[str, ...] | None = None) -> None:
        # Default: the runtime's profiles plus the ones this adapter drives (each listed once).
        self.profiles = (
            profiles
            if profiles is not None
            else tuple(dict.fromkeys((*PROFILES, *DRIVEN_PROFILES, *SPEC_1_1_PROFILES, *SPEC_1_2_PROFILES)))
        )
        self.stores = Stores()

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            name="roc-reference",
            version=IMPLEMENTATION_VERSION,
            adapter=f"{ADAPTER_NAME} {IMPLEMENTATION_VERSION}",
            profiles=self.profiles,
            spec_versions=SPEC_VERSIONS,
            homepage="https://roc-protocol.org",
            capabilities=CAPABILITIES,
        )

    def create(self, scenario: Scenario, trace: Trace) -> Built:
        return build(scenario, trace, self.stores)

    def invoke(self, agent: Built, inp: InvokeInput) -> dict[str, Any]:
        return agent.agent.invoke(inp.value).to_json()

    async def stream(self, agent: Built, inp: InvokeInput) -> AsyncIterator[dict[str, Any]]:
        # Profile streaming: the runtime's stream, event by event as JSON; the kit records and judges it.
        async for event in agent.agent.stream(inp.value):
            yield event.to_json()

    def create_orchestrator(self, scenario: OrchestratorScenario, trace: Trace) -> BuiltOrchestrator:
        try:
            return build_orchestrator(scenario, trace)
        except ValueError as exc:  # the runtime refuses the shape (a cycle, an edge to an unknown node)
            raise AdapterError(f"the runtime refuses the orchestrator: {exc}") from exc

    def invoke_orchestrator(self, orchestrator: Any, inp: InvokeInput) -> dict[str, Any]:
        built: BuiltOrchestrator = orchestrator
        return built.invoke(inp.value)

    def orchestrator_state(self, orchestrator: Any) -> dict[str, Any]:
        built: BuiltOrchestrator = orchestrator
        return dict(built.state)

    def abandon(self, agent: Built, inp: InvokeInput) -> dict[str, Any]:
        args = inp.value
        return agent.agent.abandon(args.get("message"), then=args["then"]).to_json()

    def pending(self, agent: Built) -> list[Any]:
        return agent.agent.pending_interrupts()

    def pending_of_snapshot(self, snapshot_json: str, scenario: Scenario) -> list[Any]:
        # The text as sent, read with the keys a restore of this scenario would verify with.
        key = scenario.integrity
        keys = None if key is None else {key.key_id: key.secret}
        return pending_interrupts_of(snapshot_json, integrity_keys=keys)

    def call_tool(self, agent: Built, call: DirectToolCall) -> dict[str, Any]:
        return agent.agent.call_tool_directly(call.name, call.input).to_json()

    def messages(self, agent: Built) -> list[Any]:
        return agent.agent.messages_json()

    def state(self, agent: Built) -> dict[str, Any]:
        return agent.agent.state.to_dict()

    def snapshot(self, agent: Built, *, stored: bool) -> Any:
        if not stored:
            return agent.agent.take_snapshot()
        if agent.session is None:
            raise AdapterError("the agent has no session")
        return agent.session.load()

    def restore(self, snapshot_json: str, scenario: Scenario, trace: Trace, model_turn_offset: int) -> Built:
        # The text as sent: the runtime parses it with its own limits (ROC-SEC-014).
        return restore(snapshot_json, scenario, trace, model_turn_offset)

    def inspect(self, agent: Built) -> dict[str, Any]:
        return inspect_agent(agent.agent)

    def error_json(self, exc: Exception) -> dict[str, Any] | None:
        return exc.to_json() if isinstance(exc, RocError) else None

    def close(self) -> None:
        self.stores.close()


class HarnessServicer(HarnessService):
    """The kit's service around ``ReferenceAdapter``; ``profiles`` overrides what it claims."""

    def __init__(self, profiles: tuple[str, ...] | None = None) -> None:
        self.reference = ReferenceAdapter(profiles)
        super().__init__(self.reference)

    @property
    def profiles(self) -> tuple[str, ...]:
        return self.reference.profiles

    @property
    def stores(self) -> Stores:
        return self.reference.stores


def inspect_agent(agent: Agent) -> dict[str, Any]:
    """The ``AgentInspection`` JSON of an agent, read from its interrupt state without changing it.

    It reads the runtime's private ``_interrupts`` the way an SDK adapter reads its SDK's internal state
    (strands-agents keeps it in ``agent._interrupt_state``): the runtime's public API exposes only the
    unanswered interrupts, and the suite needs the answered ones and the preserved results too
    (ROC-RESUME-010). The agent's lock keeps a concurrent invocation from being seen half-way.
    """
    with agent._lock:
        # Reported as held, not filtered by ``activated``: an interrupt a runtime keeps after its batch
        # completed is exactly what the suite wants to see.
        state = agent._interrupts
        pending = state.pending
        interrupts = []
        for stored in state.interrupts.values():
            entry = stored.interrupt.to_json()
            inspected: dict[str, Any] = {
                "id": entry["id"],
                "name": entry["name"],
                "source": entry["source"],
                "answered": stored.answered,
            }
            if "reason" in entry:
                inspected["reason"] = entry["reason"]
            if "metadata" in entry:
                inspected["metadata"] = entry["metadata"]
            if stored.response is not None:  # a decided interrupt is answered and holds no response
                inspected["response"] = stored.response
            if stored.response_metadata is not None:  # ROC-AUDIT-003: kept with the answer or decision
                inspected["responseMetadata"] = stored.response_metadata
            interrupts.append(inspected)
        doc: dict[str, Any] = {
            "activated": state.activated,
            "interrupts": interrupts,
            "preservedToolUseIds": [
                r.tool_use_id for r in (pending.completed_tool_results if pending is not None else [])
            ],
            "messages": agent.messages_json(),
            "state": agent.state.to_dict(),
        }
        if pending is not None:
            doc["pendingAssistantMessage"] = pending.assistant_message.to_json()
        return doc


def make_server(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    workers: int = 8,
    servicer: hgrpc.HarnessServiceServicer | None = None,
) -> tuple[grpc.Server, int]:
    """A bound, not yet started gRPC server (the reference adapter unless ``servicer``) and its port."""
    return kit_make_server(servicer or HarnessServicer(), host, port, workers=workers)
