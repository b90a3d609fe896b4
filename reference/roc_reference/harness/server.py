"""The gRPC servicer: ``roc.conformance.v1.HarnessService`` over the reference runtime.

Error mapping: a ``RocError`` raised by the runtime is the implementation's answer (``error``); any other
exception escaping the runtime during an Invoke is an implementation crash (``crash``); a problem of the
adapter itself (unknown handle, unbuildable scenario, a bug here) is ``harness_error``.

Harness protocol 3: ``content`` and ``interruptResponses`` arrive as raw JSON and go to the runtime as they
are (response bodies wrapped as ``{"interruptResponse": body}``), so the runtime's own validation is what
the suite judges; ``InspectAgent`` reads the agent's interrupt state without running anything. Direct tool
calls, session stores and snapshot integrity are declared as profiles; the one capability is ``inspect``.
"""

from __future__ import annotations

import json
import platform
import threading
import traceback
import uuid
from concurrent import futures
from typing import Any, cast

import grpc
from roc_conformance import wire
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc

from roc_reference import SPEC_VERSION
from roc_reference.agent import Agent
from roc_reference.errors import RocError
from roc_reference.types import AgentResult, ToolResult

from . import ADAPTER_NAME, PROFILES
from .build import Built, Stores, build_agent, restore_agent
from .programs import ScenarioError

HARNESS_PROTOCOL_VERSION = 3
# The most agents one adapter process holds at once (conformance/README.md, "Isolation, concurrency and
# deadlines"). Each live agent keeps its scenario, trace and session files until DisposeAgent; without a
# cap a client that never disposes grows the process without bound. The runner disposes what each check
# leaves behind, so a suite run holds a handful; a CreateAgent/RestoreAgent past the cap is a harness_error.
MAX_LIVE_AGENTS = 256
CAPABILITIES = ("inspect",)
# Since harness protocol 3 these are profiles, not capabilities: the runtime offers a direct-call API, a
# session store and snapshot integrity, so the adapter claims them next to the runtime's own profiles.
DRIVEN_PROFILES = ("direct-tool-call", "session-store", "snapshot-integrity")
IMPLEMENTATION_VERSION = "0.1.0"


_SPEC_TEXTS: dict[bytes, str] = {}
_MAX_SPEC_TEXTS = 4096
_SPEC_LOCK = threading.Lock()


def _spec_json(spec: hpb.AgentSpec) -> dict[str, Any]:
    """The JSON of a request's AgentSpec, a fresh document each call.

    The suite sends one scenario's spec again with every RestoreAgent, and mapping it back from proto
    (pure-Python ProtoJSON) was the larger part of a restore. The mapping is a function of the message, so
    it is done once per distinct serialized spec and kept as JSON text; ``json.loads`` then gives each
    caller its own copy (ints, floats, -0.0 and member order survive the round trip). A spec that cannot
    be mapped is never remembered and raises every time.
    """
    key = spec.SerializeToString()
    with _SPEC_LOCK:
        text = _SPEC_TEXTS.get(key)
    if text is None:
        doc = wire.agent_spec_from_proto(spec)
        text = json.dumps(doc, ensure_ascii=False)
        with _SPEC_LOCK:
            if len(_SPEC_TEXTS) >= _MAX_SPEC_TEXTS:
                _SPEC_TEXTS.clear()
            _SPEC_TEXTS[key] = text
        return doc
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _harness_error(message: str, details: str = "") -> hpb.HarnessError:
    return hpb.HarnessError(message=message, details=details)


def _roc_error(exc: RocError) -> Any:
    return jsonmap.to_proto("Error", exc.to_json())


class HarnessServicer(hgrpc.HarnessServiceServicer):
    """Holds the live agents of this process, each isolated from the others."""

    def __init__(self, profiles: tuple[str, ...] | None = None) -> None:
        # Default: the runtime's profiles plus the ones this adapter drives (each listed once).
        self.profiles = (
            profiles if profiles is not None else tuple(dict.fromkeys((*PROFILES, *DRIVEN_PROFILES)))
        )
        self._agents: dict[str, Built] = {}
        self._lock = threading.Lock()
        self.stores = Stores()

    # -- handles ----------------------------------------------------------------------------

    def _add(self, built: Built) -> str | None:
        """A new handle for ``built``; ``None`` when the adapter already holds ``MAX_LIVE_AGENTS``."""
        handle = f"agent-{uuid.uuid4().hex[:12]}"
        with self._lock:
            if len(self._agents) >= MAX_LIVE_AGENTS:
                return None
            self._agents[handle] = built
        return handle

    def _full(self) -> hpb.HarnessError | None:
        """The harness error for a new agent past the cap, or ``None`` while there is room."""
        with self._lock:
            live = len(self._agents)
        if live < MAX_LIVE_AGENTS:
            return None
        return _harness_error(
            f"this adapter holds {live} live agents, its cap of {MAX_LIVE_AGENTS}: dispose agents first"
        )

    def _get(self, handle: str) -> Built | None:
        with self._lock:
            return self._agents.get(handle)

    # -- RPCs -------------------------------------------------------------------------------

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        return hpb.DescribeResponse(
            harness_protocol_version=HARNESS_PROTOCOL_VERSION,
            implementation=hpb.Implementation(
                name="roc-reference",
                version=IMPLEMENTATION_VERSION,
                language="python",
                language_version=platform.python_version(),
                homepage="https://roc-protocol.org",
                adapter=f"{ADAPTER_NAME} {IMPLEMENTATION_VERSION}",
            ),
            spec_versions=[SPEC_VERSION],
            profiles=list(self.profiles),
            capabilities=list(CAPABILITIES),
        )

    def CreateAgent(
        self, request: hpb.CreateAgentRequest, context: grpc.ServicerContext
    ) -> hpb.CreateAgentResponse:
        if (full := self._full()) is not None:  # checked before building: nothing is created past the cap
            return hpb.CreateAgentResponse(harness_error=full)
        try:
            spec = _spec_json(request.spec)
            built = build_agent(spec, self.stores)
        except RocError as exc:  # the runtime refused (a bad session id, an unloadable stored snapshot)
            return hpb.CreateAgentResponse(error=_roc_error(exc))
        except (ScenarioError, JsonMappingError) as exc:
            return hpb.CreateAgentResponse(harness_error=_harness_error(f"cannot build scenario: {exc}"))
        except Exception as exc:
            return hpb.CreateAgentResponse(harness_error=_harness_error(repr(exc), traceback.format_exc()))
        handle = self._add(built)
        if handle is None:  # another thread filled the last place meanwhile
            return hpb.CreateAgentResponse(harness_error=self._full() or _harness_error("agent cap reached"))
        return hpb.CreateAgentResponse(agent=handle)

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        built = self._get(request.agent)
        if built is None:
            return hpb.InvokeResponse(harness_error=_harness_error(f"unknown agent handle {request.agent!r}"))
        try:
            inp = wire.invoke_input(request)
        except JsonMappingError as exc:
            return hpb.InvokeResponse(harness_error=_harness_error(f"bad input: {exc}"))
        call = inp.get("directToolCall")
        if call is not None and not (
            isinstance(call, dict)
            and isinstance(call.get("name", ""), str)
            and isinstance(call.get("input", {}), dict)
        ):
            # A direct call's input is a JSON object by the harness contract (the client refuses to send
            # anything else); one that is not is a broken request, the adapter's problem, not a crash of the
            # runtime, which never saw it.
            return hpb.InvokeResponse(
                harness_error=_harness_error("bad input: directToolCall input must be a JSON object")
            )
        # The agent's lock (reentrant; the runtime takes it for every invocation) is held from the first
        # trace event to the reply, so concurrent Invokes on one handle run one after the other and each
        # reply carries exactly its own invocation's events, messages and state.
        with built.agent._lock:
            return self._invoke_locked(built, inp)

    def _invoke_locked(self, built: Built, inp: dict[str, Any]) -> hpb.InvokeResponse:
        built.trace.take()
        built.trace.emit("invocation_start")
        doc: dict[str, Any] = {}
        try:
            outcome = self._run(built, inp)
        except RocError as exc:
            doc["error"] = exc.to_json()
        except Exception as exc:  # outside the closed error set: the implementation crashed
            doc["crash"] = {
                "type": type(exc).__name__,
                "message": str(exc),
                "details": traceback.format_exc(),
            }
        else:
            if isinstance(outcome, AgentResult):
                doc["result"] = outcome.to_json()
                built.trace.emit("invocation_end", stopReason=outcome.stop_reason)
            else:
                doc["toolResult"] = outcome.to_json()
        try:
            doc["trace"] = built.trace.take()
            doc["messages"] = [m.to_json() for m in built.agent.messages]
            doc["state"] = built.agent.state.to_dict()
            return cast(hpb.InvokeResponse, jsonmap.to_proto("roc.conformance.v1.InvokeResponse", doc))
        except Exception as exc:
            return hpb.InvokeResponse(
                harness_error=_harness_error(f"cannot encode reply: {exc!r}", traceback.format_exc())
            )

    @staticmethod
    def _run(built: Built, inp: dict[str, Any]) -> AgentResult | ToolResult:
        agent = built.agent
        if "prompt" in inp:
            return agent.invoke(inp["prompt"])
        if "content" in inp:
            return agent.invoke(list(inp["content"]))
        if "interruptResponses" in inp:
            # Wrapped, never checked: a body without a response or with a numeric id must reach the
            # runtime, whose rejection (ROC-RESUME-004/005) is what the suite judges.
            return agent.invoke(wire.resume_blocks(list(inp["interruptResponses"])))
        call = inp["directToolCall"]  # an object with an object input: checked by Invoke
        return agent.call_tool_directly(call.get("name", ""), dict(call.get("input", {})))

    def TakeSnapshot(
        self, request: hpb.TakeSnapshotRequest, context: grpc.ServicerContext
    ) -> hpb.TakeSnapshotResponse:
        built = self._get(request.agent)
        if built is None:
            return hpb.TakeSnapshotResponse(
                harness_error=_harness_error(f"unknown agent handle {request.agent!r}")
            )
        try:
            if request.stored:
                if built.session is None:
                    return hpb.TakeSnapshotResponse(harness_error=_harness_error("the agent has no session"))
                stored = built.session.load()
                return hpb.TakeSnapshotResponse(snapshot_json=json.dumps(stored, ensure_ascii=False))
            doc = built.agent.take_snapshot()
        except RocError as exc:
            return hpb.TakeSnapshotResponse(error=_roc_error(exc))
        except Exception as exc:
            return hpb.TakeSnapshotResponse(harness_error=_harness_error(repr(exc), traceback.format_exc()))
        return hpb.TakeSnapshotResponse(snapshot_json=json.dumps(doc, ensure_ascii=False))

    def RestoreAgent(
        self, request: hpb.RestoreAgentRequest, context: grpc.ServicerContext
    ) -> hpb.RestoreAgentResponse:
        if (full := self._full()) is not None:
            return hpb.RestoreAgentResponse(harness_error=full)
        try:
            spec = _spec_json(request.spec)
        except JsonMappingError as exc:
            return hpb.RestoreAgentResponse(harness_error=_harness_error(f"bad scenario: {exc}"))
        try:
            # The text as sent: the runtime parses it with its own limits (ROC-SEC-014), so a hostile
            # document is its SNAPSHOT_INVALID, never the adapter's crash.
            built = restore_agent(request.snapshot_json, spec, request.model_turn_offset)
        except RocError as exc:
            return hpb.RestoreAgentResponse(error=_roc_error(exc))
        except ScenarioError as exc:
            return hpb.RestoreAgentResponse(harness_error=_harness_error(f"cannot build scenario: {exc}"))
        except Exception as exc:
            return hpb.RestoreAgentResponse(harness_error=_harness_error(repr(exc), traceback.format_exc()))
        handle = self._add(built)
        if handle is None:
            return hpb.RestoreAgentResponse(harness_error=self._full() or _harness_error("agent cap reached"))
        doc = {"agent": handle, "trace": built.trace.take()}
        reply = jsonmap.to_proto("roc.conformance.v1.RestoreAgentResponse", doc)
        return cast(hpb.RestoreAgentResponse, reply)

    def DisposeAgent(
        self, request: hpb.DisposeAgentRequest, context: grpc.ServicerContext
    ) -> hpb.DisposeAgentResponse:
        with self._lock:
            self._agents.pop(request.agent, None)
        return hpb.DisposeAgentResponse()

    def InspectAgent(
        self, request: hpb.InspectAgentRequest, context: grpc.ServicerContext
    ) -> hpb.InspectAgentResponse:
        built = self._get(request.agent)
        if built is None:
            return hpb.InspectAgentResponse(
                harness_error=_harness_error(f"unknown agent handle {request.agent!r}")
            )
        try:
            doc = {"inspection": inspect_agent(built.agent)}
            reply = jsonmap.to_proto("roc.conformance.v1.InspectAgentResponse", doc)
            return cast(hpb.InspectAgentResponse, reply)
        except Exception as exc:
            return hpb.InspectAgentResponse(harness_error=_harness_error(repr(exc), traceback.format_exc()))


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
            if stored.answered:
                inspected["response"] = stored.response
            interrupts.append(inspected)
        doc: dict[str, Any] = {
            "activated": state.activated,
            "interrupts": interrupts,
            "preservedToolUseIds": [
                r.tool_use_id for r in (pending.completed_tool_results if pending is not None else [])
            ],
            "messages": [m.to_json() for m in agent.messages],
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
    """A started-ready (not yet started) gRPC server and the port it bound."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="roc-harness"))
    hgrpc.add_HarnessServiceServicer_to_server(servicer or HarnessServicer(), server)  # type: ignore[no-untyped-call]
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    return server, bound
