"""The gRPC side of an adapter: ``HarnessService`` serves ``roc.conformance.v1.HarnessService`` around a
``RuntimeAdapter``, the one class an SDK author writes.

The service does everything the harness contract (conformance/README.md) asks of every adapter alike:

* handles, the cap on live agents, isolation between them, and a lock per handle, held from an Invoke's
  first trace event to its reply, so that concurrent Invokes on one handle run one after the other and
  each reply carries exactly its own invocation's events, messages and state;
* ``Describe`` from ``RuntimeAdapter.info()``;
* JSON <-> proto for every request and reply (``roc_conformance.wire`` and ``roc_conformance.pb.jsonmap``);
* ``invocation_start`` before each Invoke input reaches the runtime and ``invocation_end`` after an
  ``AgentResult``;
* the error mapping: a runtime's refusal (``Refused``, or what ``RuntimeAdapter.error_json`` recognises)
  is ``error``; any other exception while the runtime runs an Invoke is ``crash``; a problem of the adapter
  (``ScenarioError``, ``AdapterError``, an unknown handle, a request or reply that cannot be encoded) is
  ``harness_error``;
* a clear harness_error for an optional RPC the adapter does not implement (``Unsupported``).
"""

from __future__ import annotations

import asyncio
import json
import platform
import queue
import threading
import traceback
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, cast

import grpc

from roc_conformance import wire
from roc_conformance.adapter.orchestration import OrchestratorScenario, parse_orchestrator
from roc_conformance.adapter.programs import ScenarioError
from roc_conformance.adapter.scenario import Scenario, parse_scenario
from roc_conformance.adapter.trace import Trace
from roc_conformance.client import HARNESS_PROTOCOL_VERSION
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc

MAX_LIVE_AGENTS = 256
"""The default cap on the agents one adapter process holds (README, "Isolation, concurrency and deadlines").

Each live agent keeps its scenario and trace (and whatever its runtime keeps) until DisposeAgent; without
a cap a client that never disposes grows the process without bound. The suite disposes what each check
leaves behind, so a run holds a handful; a CreateAgent or RestoreAgent past the cap is a harness_error."""

AgentT = TypeVar("AgentT")
ReplyT = TypeVar("ReplyT")


class Refused(Exception):
    """The runtime refused (an error of RoC's closed set): the reply is ``error`` with this Error JSON."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(str(error.get("message", error.get("code", "refused"))))
        self.error = dict(error)


class AdapterError(Exception):
    """A fault of the adapter itself, reported as ``harness_error`` with this message."""


class Unsupported(AdapterError):
    """The adapter does not implement an optional part of the harness (an RPC or an input kind)."""


@dataclass(frozen=True)
class AdapterInfo:
    """What ``Describe`` answers: the implementation under test, the adapter, and what they claim."""

    name: str  # the implementation, e.g. "strands-agents"
    version: str  # its version
    adapter: str  # the adapter's own name and version, e.g. "roc-strands-harness 0.1.0"
    profiles: tuple[str, ...]  # RoC profiles claimed, e.g. ("core", "hooks", "sequential-executor")
    spec_versions: tuple[str, ...] = ("1.0",)
    language: str = "python"
    language_version: str = field(default_factory=platform.python_version)
    homepage: str = ""
    not_applicable: Mapping[str, str] = field(default_factory=dict)  # profile -> why it cannot apply
    capabilities: tuple[str, ...] = ()  # adapter features; protocols 3 and 4 know "inspect"


InputKind = Literal["prompt", "content", "interruptResponses", "abandon"]


@dataclass(frozen=True)
class InvokeInput:
    """An Invoke input for the runtime's invoke call, exactly as the suite sent it (never validated here).

    ``value`` is what to hand the runtime: the prompt text for ``prompt``, the list of content blocks
    for ``content``, and for ``interruptResponses`` the list of response blocks, each body wrapped as
    ``{"interruptResponse": body}`` (README, "Invoke input JSON"). A malformed block or body must reach
    the runtime, whose own validation is what the suite judges. For ``abandon`` (profile abandon, harness
    protocol 4) it is the abandon operation's arguments, ``{"message"?: str, "then": "end" | "continue"}``,
    and the service calls ``RuntimeAdapter.abandon`` instead of ``invoke``.
    """

    kind: InputKind
    value: Any


@dataclass(frozen=True)
class DirectToolCall:
    """An Invoke input of kind ``directToolCall`` (profile ``direct-tool-call``)."""

    name: str
    input: dict[str, Any]


class RuntimeAdapter(ABC, Generic[AgentT]):
    """The SDK side of an adapter. ``AgentT`` is whatever the adapter keeps per agent.

    Required: ``info``, ``create``, ``invoke``, ``messages``, ``state``. Optional (each answers a clear
    harness_error by default): ``call_tool``, ``snapshot``, ``restore``, ``inspect``, ``abandon``,
    ``pending``, ``pending_of_snapshot``. Raise ``Refused``
    for a refusal of the runtime, or override ``error_json`` to recognise the runtime's own error type.
    Every method is called with the agent's lock held, never for two requests on one agent at once.
    """

    @abstractmethod
    def info(self) -> AdapterInfo:
        """What ``Describe`` answers."""

    @abstractmethod
    def create(self, scenario: Scenario, trace: Trace) -> AgentT:
        """A new agent for the scenario, recording into ``trace`` (CreateAgent).

        With a session binding, the agent loads what its session holds. Whatever is recorded while
        creating is dropped: each Invoke's trace starts at its own ``invocation_start``.
        """

    @abstractmethod
    def invoke(self, agent: AgentT, inp: InvokeInput) -> dict[str, Any]:
        """Run the agent on ``inp``; the ``AgentResult`` JSON (``stopReason``, ``message``, ...)."""

    @abstractmethod
    def messages(self, agent: AgentT) -> list[Any]:
        """The agent's history as Message JSON, read after every Invoke, whatever its outcome."""

    @abstractmethod
    def state(self, agent: AgentT) -> dict[str, Any]:
        """The agent state as a JSON object, read after every Invoke."""

    def create_orchestrator(self, scenario: OrchestratorScenario, trace: Trace) -> Any:
        """A new graph or swarm for the scenario, recording into ``trace`` (CreateAgent with an
        OrchestratorSpec; profile multi-agent, harness protocol 5). Each node agent records into
        ``trace.node(node_id)``; the orchestrator's node events and node callbacks into ``trace`` itself.
        Whatever it returns is handed back to ``invoke_orchestrator``, ``orchestrator_state`` and
        ``dispose``."""
        raise Unsupported("this adapter does not build orchestrators (profile multi-agent)")

    def invoke_orchestrator(self, orchestrator: Any, inp: InvokeInput) -> dict[str, Any]:
        """Run an orchestrator on ``inp`` (kind ``prompt``: the task; ``interruptResponses``: a resume); the
        ``OrchestratorResult`` JSON (``stopReason``, ``interrupts``, ``results``, ``cancelled``)."""
        raise Unsupported("this adapter does not build orchestrators (profile multi-agent)")

    def orchestrator_state(self, orchestrator: Any) -> dict[str, Any]:
        """The state the orchestrator's node callbacks share (the reply's ``state``); default: empty."""
        return {}

    def call_tool(self, agent: AgentT, call: DirectToolCall) -> dict[str, Any]:
        """Call a tool directly (profile ``direct-tool-call``); the ``ToolResult`` JSON."""
        raise Unsupported("this adapter does not implement direct tool calls (profile direct-tool-call)")

    def snapshot(self, agent: AgentT, *, stored: bool) -> Any:
        """TakeSnapshot: the agent's snapshot JSON; with ``stored``, the one its session store holds."""
        raise Unsupported("this adapter does not implement TakeSnapshot (profile sessions)")

    def restore(self, snapshot_json: str, scenario: Scenario, trace: Trace, model_turn_offset: int) -> AgentT:
        """RestoreAgent: a new agent for ``scenario`` continuing from the snapshot text as sent.

        The scripted model starts at ``model_turn_offset``. Events recorded while restoring are reported
        in the reply.
        """
        raise Unsupported("this adapter does not implement RestoreAgent (profile sessions)")

    def inspect(self, agent: AgentT) -> dict[str, Any]:
        """InspectAgent: the ``AgentInspection`` JSON (capability ``inspect``), changing nothing."""
        raise Unsupported("this adapter does not implement InspectAgent (capability inspect)")

    def stream(self, agent: AgentT, inp: InvokeInput) -> Iterable[Any] | AsyncIterable[Any]:
        """Run the agent on ``inp`` through the runtime's streaming API (profile streaming, spec chapter 17;
        an Invoke with ``stream``): the stream's events as JSON, in the order the runtime gives them.

        Each event is ``{"interrupt": Interrupt}``, ``{"result": AgentResult}`` or ``{"error": Error}``.
        Return the runtime's stream as it is, mapped event by event (a generator or an async generator);
        the kit consumes it: it records each interrupt event as ``streamed_interrupt`` the moment it receives
        it (which wakes ``awaitStreamed`` steps), takes the final event as the Invoke's outcome, and reports
        a stream with no final event, or with events after it, as a crash. An exception while iterating is
        mapped as ``invoke``'s would be. ``inp.kind`` is ``prompt``, ``content`` or ``interruptResponses``.
        A runtime whose streaming API takes a callback instead: return ``callback_stream(run)``.
        """
        raise Unsupported("this adapter does not implement streaming (profile streaming)")

    def abandon(self, agent: AgentT, inp: InvokeInput) -> dict[str, Any]:
        """Abandon the pending batch (profile abandon): ``inp.value`` is ``{"message"?, "then"}``; the
        ``AgentResult`` JSON."""
        raise Unsupported("this adapter does not implement abandon (profile abandon)")

    def pending(self, agent: AgentT) -> list[Any]:
        """ListPending for an agent (profile pending-list): the runtime's list of PendingInterrupt JSON, as
        it returned it, changing nothing."""
        raise Unsupported("this adapter does not implement ListPending (profile pending-list)")

    def pending_of_snapshot(self, snapshot_json: str, scenario: Scenario) -> list[Any]:
        """ListPending for a snapshot document (the text as sent), read without restoring it; ``scenario``
        gives the configuration (integrity keys) a restore would use."""
        raise Unsupported("this adapter does not implement ListPending (profile pending-list)")

    def error_json(self, exc: Exception) -> dict[str, Any] | None:
        """The RoC Error JSON when ``exc`` is the runtime's refusal, else ``None`` (default: none is)."""
        return None

    def dispose(self, agent: AgentT) -> None:
        """Release what the agent holds (DisposeAgent). The service has already forgotten its handle.

        Called without the agent's lock: an Invoke the client abandoned at its deadline may still run.
        """

    def close(self) -> None:
        """Release what the adapter holds (session stores, ...) when the server stops."""


@dataclass
class LiveAgent(Generic[AgentT]):
    """One handle's agent, its trace and the lock that serializes the requests on it."""

    agent: AgentT
    trace: Trace
    scenario: Scenario | OrchestratorScenario
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def orchestrator(self) -> bool:
        """The handle names a graph or swarm (harness protocol 5), not an agent."""
        return isinstance(self.scenario, OrchestratorScenario)


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


def harness_error(message: str, details: str = "") -> hpb.HarnessError:
    """A ``HarnessError`` message (the adapter's fault)."""
    return hpb.HarnessError(message=message, details=details)


def _unexpected(exc: Exception) -> hpb.HarnessError:
    return harness_error(repr(exc), traceback.format_exc())


class HarnessService(hgrpc.HarnessServiceServicer):
    """``roc.conformance.v1.HarnessService`` around one ``RuntimeAdapter``; one instance per process."""

    def __init__(self, adapter: RuntimeAdapter[Any], *, max_live_agents: int = MAX_LIVE_AGENTS) -> None:
        self.adapter = adapter
        self.max_live_agents = max_live_agents
        self._agents: dict[str, LiveAgent[Any]] = {}
        self._lock = threading.Lock()

    # -- handles ----------------------------------------------------------------------------------------

    def _add(self, live: LiveAgent[Any]) -> str | None:
        """A new handle for ``live``; ``None`` when the cap is reached."""
        handle = f"agent-{uuid.uuid4().hex[:12]}"
        with self._lock:
            if len(self._agents) >= self.max_live_agents:
                return None
            self._agents[handle] = live
        return handle

    def _full(self) -> hpb.HarnessError | None:
        """The harness error for a new agent past the cap, or ``None`` while there is room."""
        with self._lock:
            live = len(self._agents)
        if live < self.max_live_agents:
            return None
        return harness_error(
            f"this adapter holds {live} live agents, its cap of {self.max_live_agents}: dispose agents first"
        )

    def _get(self, handle: str) -> LiveAgent[Any] | None:
        with self._lock:
            return self._agents.get(handle)

    def live_agents(self) -> int:
        """How many agents the service holds now."""
        with self._lock:
            return len(self._agents)

    def _refusal(self, exc: Exception) -> dict[str, Any] | None:
        if isinstance(exc, Refused):
            return exc.error
        return self.adapter.error_json(exc)

    @staticmethod
    def _refused(reply: Callable[..., ReplyT], error: Mapping[str, Any]) -> ReplyT:
        """A reply carrying the runtime's Error; one that does not map to an Error is the adapter's fault."""
        try:
            return reply(error=jsonmap.to_proto("Error", dict(error)))
        except JsonMappingError as exc:
            return reply(
                harness_error=harness_error(f"cannot encode the runtime's error {dict(error)!r}: {exc}")
            )

    # -- RPCs -------------------------------------------------------------------------------------------

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        info = self.adapter.info()
        return hpb.DescribeResponse(
            harness_protocol_version=HARNESS_PROTOCOL_VERSION,
            implementation=hpb.Implementation(
                name=info.name,
                version=info.version,
                language=info.language,
                language_version=info.language_version,
                homepage=info.homepage,
                adapter=info.adapter,
            ),
            spec_versions=list(info.spec_versions),
            profiles=list(info.profiles),
            not_applicable=dict(info.not_applicable),
            capabilities=list(info.capabilities),
        )

    def CreateAgent(
        self, request: hpb.CreateAgentRequest, context: grpc.ServicerContext
    ) -> hpb.CreateAgentResponse:
        if (full := self._full()) is not None:  # checked before building: nothing is created past the cap
            return hpb.CreateAgentResponse(harness_error=full)
        trace = Trace()
        scenario: Scenario | OrchestratorScenario
        if request.HasField("orchestrator") == request.HasField("spec"):
            return hpb.CreateAgentResponse(
                harness_error=harness_error("CreateAgent needs exactly one of spec and orchestrator")
            )
        try:
            if request.HasField("orchestrator"):
                orchestrator = parse_orchestrator(jsonmap.from_proto(request.orchestrator))
                scenario = orchestrator
                agent = self.adapter.create_orchestrator(orchestrator, trace)
            else:
                scenario = parse_scenario(_spec_json(request.spec))
                agent = self.adapter.create(scenario, trace)
        except (ScenarioError, JsonMappingError) as exc:
            return hpb.CreateAgentResponse(harness_error=harness_error(f"cannot build scenario: {exc}"))
        except AdapterError as exc:
            return hpb.CreateAgentResponse(harness_error=harness_error(str(exc)))
        except Exception as exc:  # a refusal of the runtime (a bad session id, ...) or an adapter bug
            if (error := self._refusal(exc)) is not None:
                return self._refused(hpb.CreateAgentResponse, error)
            return hpb.CreateAgentResponse(harness_error=_unexpected(exc))
        trace.take()
        handle = self._add(LiveAgent(agent, trace, scenario))
        if handle is None:  # another thread filled the last place meanwhile
            self._dispose(agent)
            return hpb.CreateAgentResponse(harness_error=self._full() or harness_error("agent cap reached"))
        return hpb.CreateAgentResponse(agent=handle)

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        live = self._get(request.agent)
        if live is None:
            return hpb.InvokeResponse(harness_error=harness_error(f"unknown agent handle {request.agent!r}"))
        try:
            inp = wire.invoke_input(request)
        except JsonMappingError as exc:
            return hpb.InvokeResponse(harness_error=harness_error(f"bad input: {exc}"))
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
                harness_error=harness_error("bad input: directToolCall input must be a JSON object")
            )
        streamed = request.HasField("stream") and request.stream
        if streamed and (live.orchestrator or not {"prompt", "content", "interruptResponses"} & inp.keys()):
            return hpb.InvokeResponse(
                harness_error=harness_error("stream goes with an agent's prompt, content or resume")
            )
        if live.orchestrator and not ("prompt" in inp or "interruptResponses" in inp):
            return hpb.InvokeResponse(
                harness_error=harness_error("an orchestrator takes a prompt or interruptResponses only")
            )
        with live.lock:
            return self._invoke_locked(live, inp, stream=streamed)

    def _invoke_locked(
        self, live: LiveAgent[Any], inp: dict[str, Any], *, stream: bool = False
    ) -> hpb.InvokeResponse:
        trace = live.trace
        trace.take()  # whatever a previous request left behind (a restore, a snapshot) is not this Invoke's
        trace.emit("invocation_start")
        doc: dict[str, Any] = {}
        try:
            if live.orchestrator:
                # No invocation_end: an orchestrator's stop reasons are not an agent's (harness protocol 5).
                doc["orchestratorResult"] = self.adapter.invoke_orchestrator(live.agent, _invoke_input(inp))
            elif "directToolCall" in inp:
                call = inp["directToolCall"]  # an object with an object input: checked by Invoke
                direct = DirectToolCall(str(call.get("name", "")), dict(call.get("input", {})))
                doc["toolResult"] = self.adapter.call_tool(live.agent, direct)
            else:
                given = _invoke_input(inp)
                run = self.adapter.abandon if given.kind == "abandon" else self.adapter.invoke
                if stream:
                    result = consume_stream(self.adapter.stream(live.agent, given), trace)
                else:
                    result = run(live.agent, given)
                doc["result"] = result
                trace.emit("invocation_end", stopReason=result.get("stopReason"))
        except (ScenarioError, AdapterError) as exc:
            return hpb.InvokeResponse(harness_error=harness_error(str(exc), traceback.format_exc()))
        except Exception as exc:
            if (error := self._refusal(exc)) is not None:
                doc["error"] = error
            else:  # outside the closed error set: the implementation crashed
                doc["crash"] = {
                    "type": type(exc).__name__,
                    "message": str(exc),
                    "details": traceback.format_exc(),
                }
        try:
            doc["trace"] = trace.take()
            doc["messages"] = [] if live.orchestrator else self.adapter.messages(live.agent)
            doc["state"] = (
                self.adapter.orchestrator_state(live.agent)
                if live.orchestrator
                else self.adapter.state(live.agent)
            )
            return _invoke_reply(doc)
        except Exception as exc:
            return hpb.InvokeResponse(
                harness_error=harness_error(f"cannot encode reply: {exc!r}", traceback.format_exc())
            )

    def TakeSnapshot(
        self, request: hpb.TakeSnapshotRequest, context: grpc.ServicerContext
    ) -> hpb.TakeSnapshotResponse:
        live = self._get(request.agent)
        if live is None:
            return hpb.TakeSnapshotResponse(
                harness_error=harness_error(f"unknown agent handle {request.agent!r}")
            )
        if live.orchestrator:
            return hpb.TakeSnapshotResponse(harness_error=harness_error("an orchestrator has no snapshot"))
        try:
            with live.lock:
                doc = self.adapter.snapshot(live.agent, stored=request.stored)
            text = json.dumps(doc, ensure_ascii=False)
        except AdapterError as exc:
            return hpb.TakeSnapshotResponse(harness_error=harness_error(str(exc)))
        except Exception as exc:
            if (error := self._refusal(exc)) is not None:
                return self._refused(hpb.TakeSnapshotResponse, error)
            return hpb.TakeSnapshotResponse(harness_error=_unexpected(exc))
        return hpb.TakeSnapshotResponse(snapshot_json=text)

    def RestoreAgent(
        self, request: hpb.RestoreAgentRequest, context: grpc.ServicerContext
    ) -> hpb.RestoreAgentResponse:
        if (full := self._full()) is not None:
            return hpb.RestoreAgentResponse(harness_error=full)
        try:
            spec = _spec_json(request.spec)
        except JsonMappingError as exc:
            return hpb.RestoreAgentResponse(harness_error=harness_error(f"bad scenario: {exc}"))
        trace = Trace()
        try:
            scenario = parse_scenario(spec)
            # The text as sent: the runtime parses it with its own limits (ROC-SEC-014), so a hostile
            # document is its refusal, never the adapter's crash.
            agent = self.adapter.restore(request.snapshot_json, scenario, trace, request.model_turn_offset)
        except ScenarioError as exc:
            return hpb.RestoreAgentResponse(harness_error=harness_error(f"cannot build scenario: {exc}"))
        except AdapterError as exc:
            return hpb.RestoreAgentResponse(harness_error=harness_error(str(exc)))
        except Exception as exc:
            if (error := self._refusal(exc)) is not None:
                return self._refused(hpb.RestoreAgentResponse, error)
            return hpb.RestoreAgentResponse(harness_error=_unexpected(exc))
        handle = self._add(LiveAgent(agent, trace, scenario))
        if handle is None:
            self._dispose(agent)
            return hpb.RestoreAgentResponse(harness_error=self._full() or harness_error("agent cap reached"))
        # Whatever fired while restoring is reported with the new handle.
        doc = {"agent": handle, "trace": trace.take()}
        try:
            return cast(
                hpb.RestoreAgentResponse, jsonmap.to_proto("roc.conformance.v1.RestoreAgentResponse", doc)
            )
        except Exception as exc:
            return hpb.RestoreAgentResponse(harness_error=_unexpected(exc))

    def DisposeAgent(
        self, request: hpb.DisposeAgentRequest, context: grpc.ServicerContext
    ) -> hpb.DisposeAgentResponse:
        with self._lock:
            live = self._agents.pop(request.agent, None)
        # Not under the agent's lock: an Invoke the client gave up on may still run, and disposing must not
        # wait for it (the runner disposes after a deadline).
        if live is not None and (problem := self._dispose(live.agent)) is not None:
            return hpb.DisposeAgentResponse(harness_error=problem)
        return hpb.DisposeAgentResponse()

    def _dispose(self, agent: Any) -> hpb.HarnessError | None:
        try:
            self.adapter.dispose(agent)
        except Exception as exc:
            return _unexpected(exc)
        return None

    def InspectAgent(
        self, request: hpb.InspectAgentRequest, context: grpc.ServicerContext
    ) -> hpb.InspectAgentResponse:
        live = self._get(request.agent)
        if live is None:
            return hpb.InspectAgentResponse(
                harness_error=harness_error(f"unknown agent handle {request.agent!r}")
            )
        if live.orchestrator:
            return hpb.InspectAgentResponse(harness_error=harness_error("InspectAgent names an orchestrator"))
        try:
            with live.lock:
                doc = {"inspection": self.adapter.inspect(live.agent)}
            return cast(
                hpb.InspectAgentResponse, jsonmap.to_proto("roc.conformance.v1.InspectAgentResponse", doc)
            )
        except AdapterError as exc:
            return hpb.InspectAgentResponse(harness_error=harness_error(str(exc)))
        except Exception as exc:
            return hpb.InspectAgentResponse(harness_error=_unexpected(exc))

    def ListPending(
        self, request: hpb.ListPendingRequest, context: grpc.ServicerContext
    ) -> hpb.ListPendingResponse:
        target = request.WhichOneof("target")
        try:
            if target == "agent":
                live = self._get(request.agent)
                if live is None:
                    return hpb.ListPendingResponse(
                        harness_error=harness_error(f"unknown agent handle {request.agent!r}")
                    )
                if live.orchestrator:
                    return hpb.ListPendingResponse(
                        harness_error=harness_error("ListPending names an orchestrator")
                    )
                with live.lock:
                    pending = self.adapter.pending(live.agent)
            elif target == "snapshot":
                scenario = parse_scenario(_spec_json(request.snapshot.spec))
                pending = self.adapter.pending_of_snapshot(request.snapshot.snapshot_json, scenario)
            else:
                return hpb.ListPendingResponse(harness_error=harness_error("ListPending names no target"))
        except (ScenarioError, JsonMappingError) as exc:
            return hpb.ListPendingResponse(harness_error=harness_error(f"cannot build scenario: {exc}"))
        except AdapterError as exc:
            return hpb.ListPendingResponse(harness_error=harness_error(str(exc)))
        except Exception as exc:
            if (error := self._refusal(exc)) is not None:
                return self._refused(hpb.ListPendingResponse, error)
            # The reply has no crash arm: a listing that fails outside the closed set is reported as is.
            return hpb.ListPendingResponse(harness_error=_unexpected(exc))
        try:
            return cast(
                hpb.ListPendingResponse,
                jsonmap.to_proto("roc.conformance.v1.ListPendingResponse", {"pending": list(pending)}),
            )
        except Exception as exc:
            problem = harness_error(f"cannot encode the pending list: {exc!r}", traceback.format_exc())
            return hpb.ListPendingResponse(harness_error=problem)

    def close(self) -> None:
        """Forget every agent and let the adapter release what it holds."""
        with self._lock:
            self._agents.clear()
        self.adapter.close()


def _invoke_reply(doc: dict[str, Any]) -> hpb.InvokeResponse:
    """The reply of ``doc``; its trace and history are mapped item by item through ``wire.many_to_proto``
    (which remembers each distinct value). Lists that do not map are left to the whole document's mapping,
    so the error is the one it always was."""
    trace, messages = doc.get("trace"), doc.get("messages")
    try:
        events = wire.many_to_proto("TraceEvent", trace) if isinstance(trace, list) else None
        history = wire.many_to_proto("Message", messages) if isinstance(messages, list) else None
    except Exception:  # whatever it is, the whole document's mapping says it as it always did
        events = history = None
    if events is None or history is None:
        return cast(hpb.InvokeResponse, jsonmap.to_proto("roc.conformance.v1.InvokeResponse", doc))
    rest = {key: ([] if key in ("trace", "messages") else value) for key, value in doc.items()}
    reply = cast(hpb.InvokeResponse, jsonmap.to_proto("roc.conformance.v1.InvokeResponse", rest))
    reply.trace.extend(cast(list[Any], events))  # copies: the remembered values stay untouched
    reply.messages.extend(cast(list[Any], history))
    return reply


def callback_stream(run: Callable[[Callable[[Any], None]], Any]) -> Iterator[dict[str, Any]]:
    """The stream ``RuntimeAdapter.stream`` returns, for a runtime whose streaming API takes a callback.

    ``run(on_interrupt)`` runs the invocation, calling ``on_interrupt(interrupt_json)`` for each interrupt
    event as the runtime emits it (from any thread), and returns the ``AgentResult`` JSON or raises what the
    runtime raises. It runs on a thread of its own, so each event reaches the kit (and wakes the
    ``awaitStreamed`` steps) while the invocation still runs.
    """
    channel: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

    def work() -> None:
        try:
            result = run(lambda interrupt: channel.put(("event", {"interrupt": interrupt})))
        except BaseException as exc:  # handed to the consumer: the service maps it as invoke's would be
            channel.put(("raise", exc))
        else:
            channel.put(("event", {"result": result}))
        channel.put(("end", None))

    threading.Thread(target=work, name="roc-kit-stream", daemon=True).start()
    while True:
        kind, value = channel.get()
        if kind == "end":
            return
        if kind == "raise":
            raise value
        yield value


class StreamBroken(Exception):
    """A runtime's stream broke the shape of spec 17 (no final event, or events after it): a crash."""


def consume_stream(events: Iterable[Any] | AsyncIterable[Any], trace: Trace) -> dict[str, Any]:
    """Consume a streamed invocation's events (``RuntimeAdapter.stream``): ``streamed_interrupt`` for each
    interrupt event as it arrives; the final event's ``AgentResult``, or ``Refused`` with its Error.

    The whole stream is read, also past the final event, so that an event after it is seen (ROC-STREAM-001).
    """
    if isinstance(events, AsyncIterable):
        return asyncio.run(_consume_async(events, trace))
    final = _Final()
    for event in events:
        final.take(event, trace)
    return final.outcome()


async def _consume_async(events: AsyncIterable[Any], trace: Trace) -> dict[str, Any]:
    final = _Final()
    async for event in events:
        final.take(event, trace)
    return final.outcome()


@dataclass
class _Final:
    """The final event of a stream, once it came, and what came after it."""

    event: dict[str, Any] | None = None
    late: list[Any] = field(default_factory=list)

    def take(self, event: Any, trace: Trace) -> None:
        if self.event is not None:
            self.late.append(event)
        elif isinstance(event, dict) and len(event) == 1 and "interrupt" in event:
            trace.streamed_interrupt(event["interrupt"])
        elif isinstance(event, dict) and len(event) == 1 and ("result" in event or "error" in event):
            self.event = event
        else:
            raise StreamBroken(f"a stream event that is not an interrupt, a result or an error: {event!r}")

    def outcome(self) -> dict[str, Any]:
        if self.event is None:
            raise StreamBroken("the stream ended without a result or an error event")
        if self.late:
            raise StreamBroken(f"{len(self.late)} event(s) after the final event, first: {self.late[0]!r}")
        if "error" in self.event:
            raise Refused(self.event["error"])
        result: dict[str, Any] = self.event["result"]
        return result


def _invoke_input(inp: dict[str, Any]) -> InvokeInput:
    if "prompt" in inp:
        return InvokeInput("prompt", inp["prompt"])
    if "content" in inp:
        return InvokeInput("content", list(inp["content"]))
    if "abandon" in inp:
        body = inp["abandon"]
        args: dict[str, Any] = {"then": "continue" if body.get("continueModel") else "end"}
        if "message" in body:
            args["message"] = body["message"]
        return InvokeInput("abandon", args)
    # Wrapped, never checked: a body without a response or with a numeric id must reach the runtime, whose
    # rejection (ROC-RESUME-004/005) is what the suite judges.
    return InvokeInput("interruptResponses", wire.resume_blocks(list(inp["interruptResponses"])))
