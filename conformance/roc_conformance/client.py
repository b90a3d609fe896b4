"""Typed gRPC client of the RoC conformance harness (``roc.conformance.v1.HarnessService``).

INTERFACE NOTE (for the oracle, the state machine and the vector runner; JSON in, JSON out)
-------------------------------------------------------------------------------------------
Everything is the spec's JSON (conformance/README.md, TEAM AgentSpec/trace vocabulary). Construct with
``HarnessClient.connect("127.0.0.1:50051")`` or receive one from the runner (``CheckContext.client``).

    client.describe() -> Description                 # .profiles, .capabilities: frozenset[str], ...
    client.create_agent(spec: dict) -> str           # an opaque agent handle (not spec["agentId"])
    client.try_create_agent(spec) -> {"agent": str} | {"error": Error}   # runtime may refuse (sessions)
    client.invoke(agent, inp) -> dict                # inp: {"prompt": str} | {"content": [any JSON]}
                                                     #    | {"interruptResponses": [body: any JSON]}
                                                     #    | {"directToolCall": {"name", "input": {...}}}
                                                     #    | {"abandon": {"message"?, "continueModel"?}}
        interruptResponses lists raw bodies, normally {"interruptId", "response", "metadata"?}; malformed
        ones (no id, a number as id, extra members, no response, metadata that is not an object) reach the
        runtime as they are (since harness protocol 2).
        returns {"result": AgentResult} | {"error": Error} | {"toolResult": ToolResult} | {"crash": {...}}
                plus "trace": [event], "messages": [Message] (history after the call), "state": {...}
    client.take_snapshot(agent, stored=False) -> {"snapshot": dict, "snapshotJson": str} | {"error": Error}
        stored=True: what the agent's session store holds now (AgentSpec "session": {"store", "sessionId"})
    client.restore_agent(snapshot: dict | str, spec, model_turn_offset=N)
        -> {"agent": str, "trace": [events fired while restoring]} | {"error": Error}
        model_turn_offset = number of model_call events the original agent has seen (the next scripted turn).
    client.dispose_agent(agent) -> None
    client.inspect(agent) -> {"activated": bool, "interrupts": [{"id", "name", "reason"?, "source",
                              "metadata"?, "answered": bool, "response"?, "responseMetadata"?}],
                              "preservedToolUseIds": [str],
                              "pendingAssistantMessage"?: Message, "messages": [Message], "state": {...}}
        the agent's interrupt state without invoking it; only when "inspect" is in describe().capabilities.
    client.list_pending(agent) -> {"pending": [PendingInterrupt]} | {"error": Error} | {"harness_error": str}
    client.list_pending_snapshot(snapshot: dict | str, spec)  -> the same, for a snapshot document read
        without restoring it (profile pending-list; the list is raw JSON, exactly as the runtime returned it).
        Unlike every other RPC, a harness_error here is a value, not a fault: an adapter answers one for a
        runtime without a listing API, and a check may want to say so.
    client.transcript -> list[dict]                  # every RPC so far: {"rpc", "request", "response"} (JSON)
    client.mark() -> int; client.transcript_text(since=mark) -> str   # readable RPC transcript for notes

Faults are exceptions, never results: a timeout, an unreachable adapter, ``harness_error`` or a reply that
breaks the contract raise ``roc_conformance.errors.HarnessFault`` (subclasses ``HarnessTimeout``,
``HarnessUnavailable``, ``AdapterError``). After the first fault a client is *latched*: every later call
raises the same fault at once, so a Hypothesis run against a dead adapter ends fast instead of waiting out a
deadline per shrink step. Checks report ``ConformanceViolation(req_ids, message)`` for wrong observations.
``{"crash": ...}`` is the implementation failing outside the closed error set: a violation, not a fault.

What the runner expects from the oracle side (roc_conformance.oracle / roc_conformance.machine):
    oracle.vectors.load_vectors() -> [vector]
    oracle.vectors.run_vector(vector, client) -> (violations, driver)
        a vector's "requirements" name what it verifies; optional "profiles" (else derived from its agent:
        core + hooks if any hook + "<executor>-executor" + sessions if any restore step).
    machine.build_machine(client, profiles: frozenset[str]) -> type[RuleBasedStateMachine]
    machine.MACHINE_REQUIREMENTS: tuple[str, ...]     # every requirement ID the machine can fail
    Profiles: only send {"directToolCall"} when "direct-tool-call" is in client.describe().profiles
    (an SDK without a direct-call API does not claim it; the runner then skips checks that need it). Since
    harness protocol 3 "direct-tool-call", "session-store" and "snapshot-integrity" are profiles; the only
    capability left is "inspect".
    The runner calls hypothesis.stateful.run_state_machine_as_test(cls, settings=<certify|explore>) and maps
    the (shrunk) ConformanceViolation to its requirement IDs; the exception's __notes__ become the
    counterexample.

Trace emission rules an oracle can rely on (also in conformance/README.md): ``invocation_start`` is the first
event of every Invoke, also for rejected input; ``invocation_end{stopReason}`` is the last event when the
outcome is a result and absent otherwise; an input rejected before the run starts (``error`` from resume or
prompt validation) shows no other events, while an error raised mid-run (e.g. DUPLICATE_INTERRUPT_NAME,
DIRECT_CALL_INTERRUPT) keeps the events recorded up to that point. A tool body that stops at an interrupt call
(paused or refused) ends with ``tool_end{outcome: "interrupted"}``. Direct tool calls record ``tool_start`` /
``tool_end`` with an implementation-chosen toolUseId and no hook events.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import grpc
from google.protobuf.message import Message

from roc_conformance import wire
from roc_conformance.canonical import NotCanonicalJson, parse_strict
from roc_conformance.errors import (
    AdapterError,
    HarnessFault,
    HarnessTimeout,
    HarnessUnavailable,
    ProtocolMismatch,
)
from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc

HARNESS_PROTOCOL_VERSION = 6
"""The harness protocol version this suite speaks (``DescribeRequest.harness_protocol_version``)."""

SPEC_1_1_PROFILES = frozenset({"decisions", "abandon", "expiry", "pending-list", "idempotent-resume"})
"""The profiles of RoC 1.1; harness protocol 4 is the first that can drive them."""

SPEC_1_2_PROFILES = frozenset({"agent-as-tool", "multi-agent"})
"""The profiles of RoC 1.2 the harness can drive; harness protocol 5 is the first (``Step.run_agent``,
``TraceEvent.agent_path``, ``CreateAgentRequest.orchestrator``)."""

SPEC_1_3_PROFILES = frozenset({"response-schema", "questions", "approval", "streaming", "audit"})
"""The profiles of RoC 1.3; harness protocol 6 is the first that can drive them
(``InterruptStep.response_schema``, ``Step.ask``, ``AgentSpec.approval``, ``InvokeRequest.stream``,
``InspectedInterrupt.response_metadata``)."""

PROFILES_SINCE: dict[int, frozenset[str]] = {4: SPEC_1_1_PROFILES, 5: SPEC_1_2_PROFILES, 6: SPEC_1_3_PROFILES}
"""The first harness protocol that can drive each group of profiles: an adapter speaking an older one must
not claim them."""

ACCEPTED_PROTOCOLS = frozenset({3, 4, 5, HARNESS_PROTOCOL_VERSION})
"""Protocols the suite accepts: 6; 5 from an adapter that claims none of ``SPEC_1_3_PROFILES``, 4 from one
that claims none of ``SPEC_1_2_PROFILES`` either, and 3 from one that claims none of ``SPEC_1_1_PROFILES``
either (protocols 4, 5 and 6 only added messages, fields and an RPC that such an adapter is never sent)."""

PROTOCOL_CHANGES: dict[int, tuple[str, ...]] = {
    2: (
        "Invoke.content is raw JSON (google.protobuf.ListValue): any block, malformed ones included, "
        "reaches the runtime as sent",
        "Invoke.interrupt_responses is the list of interruptResponse bodies as raw JSON "
        '(google.protobuf.ListValue); the adapter wraps each body as {"interruptResponse": body} '
        "and passes it on unvalidated",
        "DirectToolCall.input is a JSON object (google.protobuf.Struct)",
        'new RPC InspectAgent, capability "inspect": an agent\'s pending interrupts, answers, '
        "preserved results and pending assistant message, read without invoking it",
        "AgentSpec tool names (and hook toolName filters) match ^[a-zA-Z0-9_-]{1,64}$",
    ),
    3: (
        '"direct-tool-call", "session-store" and "snapshot-integrity" are profiles: declare them in '
        'DescribeResponse.profiles; DescribeResponse.capabilities knows only "inspect"',
        "roc.v1 data model (spec 2.7): Interrupt.metadata (field 9) and InterruptResponse.metadata "
        "(field 3) are google.protobuf.Struct extension points; InspectedInterrupt.metadata (field 7)",
        "AgentSpec interrupt steps take an optional metadata object (InterruptStep.metadata, field 4), "
        "passed to the runtime's raise API as it is; a null reason is no reason",
        "roc.v1 data model: Snapshot.revision is uint32 (a JSON number, 0..4294967295), no longer int64",
        "roc.v1 data model: ErrorCode gains INVALID_INPUT (15) and INTERNAL (16)",
        "roc.v1 data model: ToolUse.input is a JSON object, and a google.protobuf.Value holding null_value "
        "in Interrupt.reason, Interrupt.response or InterruptResponse.response has no JSON form (leave the "
        "field unset: a null reason is no reason)",
        'for a runtime that does not claim "hooks" the trace needs only invocation_start, invocation_end, '
        "model_call, tool_start and tool_end; the suite ignores other kinds there",
    ),
    4: (
        'the RoC 1.1 profiles "decisions", "abandon", "expiry", "pending-list" and '
        '"idempotent-resume" can be claimed; an adapter that claims none of them may keep speaking '
        "protocol 3",
        "InterruptStep gains expires_at (5), on_expiry (6, ExpiryOutcome {decision, message?}), passed to "
        'the raise as they are, and handle_decision (7): the program takes {"decision", "message"?} of a '
        "decline or cancel as the last answer and goes on",
        "InvokeRequest.input gains abandon (8, Abandon {message?, continue_model}): the runtime's abandon "
        'operation, then "continue" when continue_model is true, else "end"',
        "new RPC ListPending: the pending interrupts of an agent, or of a snapshot document (SnapshotSource "
        "{snapshot_json, spec}) read without restoring it, as raw JSON (pending), an Error or a HarnessError",
        "roc.v1 data model (spec 1.1): Decision, InterruptResponse.decision (4) and message (5), "
        "Interrupt.on_expiry (10), decision (11) and message (12), STOP_REASON_ABANDONED (9), "
        "PendingInterrupt, PendingAnswer, InterruptState.consumed (4), AbandonInput",
    ),
    5: (
        'the RoC 1.2 profiles "agent-as-tool" and "multi-agent" can be claimed; an adapter that claims no '
        "RoC 1.2 profile may keep speaking protocol 4",
        "Step gains run_agent (8, RunAgentStep {agent, prompt}), a tool step: the nested AgentSpec runs as "
        "the tool use's sub-agent through the runtime's sub-agent call, its final text received like an "
        "answer; the nested spec's integrity and session are ignored",
        "TraceEvent gains agent_path (16): empty for the agent the handle names, the outer toolUseIds from "
        'the top agent down for an event of a sub-agent (JSON "agentPath", omitted when empty)',
        "roc.v1 data model (spec 1.2): InterruptSource.inner (InnerInterrupt {agentId, interruptId, "
        "source}), InterruptSource kind NODE, InterruptState.children (KeptSubAgent; snapshot format 2.2)",
        "CreateAgentRequest gains orchestrator (2, OrchestratorSpec {kind, nodes, edges, entry, "
        "max_handoffs, hooks}; exactly one of spec and orchestrator): a graph or swarm of agent nodes, "
        'whose node agents hand off with a toolUse of the reserved tool name "handoff_to" and input '
        '{"node": id}; HookEvent gains BEFORE_NODE_CALL (5) and AFTER_NODE_CALL (6) for its NodeHookSpec '
        "callbacks",
        "InvokeResponse.outcome gains orchestrator_result (9, OrchestratorResult {stop_reason, interrupts, "
        "results: NodeRun {node_id, visit, result}, cancelled}), the answer of an orchestrator handle",
        "TraceEvent gains node_start (17, NodeStartEvent {node_id, visit}) and node_end (18, NodeEndEvent "
        "{node_id, visit, outcome}); HookCallbackEvent gains node_id (4) and visit (5) for the node events; "
        'a node agent\'s events carry agent_path ["node:<node id>", ...]',
    ),
    6: (
        'the RoC 1.3 profiles "response-schema", "questions", "approval", "streaming" and "audit" can be '
        "claimed; an adapter that claims no RoC 1.3 profile may keep speaking protocol 5",
        "InterruptStep gains response_schema (8), passed to the raise as it is",
        "Step gains ask (9, AskStep {name, question}): a structured question through the runtime's question "
        "API; and await_streamed (10, AwaitStreamedStep {name, timeout_ms}), a tool step that waits until "
        "the invocation's stream has delivered an interrupt of that name",
        "AgentSpec gains builtin_tools (9: \"ask_user\"), approval (10, tool name -> ApprovalPolicy "
        "{decisions}: the runtime's ready approval hook, registered first) and record_resume_guard (11); "
        "ToolSpec gains input_schema (3)",
        "InvokeRequest gains stream (9): the input goes to the runtime's streaming API, each interrupt event "
        "recorded as trace event streamed_interrupt (19, {interrupt}) when the consumer receives it",
        "TraceEvent gains resume_guard (20, {responses, kept}); ToolStartEvent gains input (3), the input "
        "the body received; InspectedInterrupt gains response_metadata (8)",
        "roc.v1 data model (spec 1.3): Interrupt.response_metadata (13; snapshot format 2.3)",
    ),
}
"""What each harness protocol version changed from the one before (the changelog of conformance/README.md
says the same; a test keeps the two equal). Shown when an adapter speaks an older protocol."""

CAPABILITIES = frozenset({"inspect"})
"""The adapter capabilities this harness protocol defines (conformance/README.md, the handshake). Since
protocol 3, direct tool calls, session stores and snapshot integrity are profiles
(``FORMER_CAPABILITIES``)."""

FORMER_CAPABILITIES = frozenset({"direct-tool-call", "session-store", "snapshot-integrity"})
"""Capabilities of protocol 2 that protocol 3 made profiles: an adapter declares them in ``profiles``."""

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # use fullmatch: in Python, $ also matches before "\n"
"""Tool names the suite may put in an AgentSpec (agent-spec.schema.json, ``ToolName``): both Strands SDKs
refuse others, so a scenario with another name would be the suite's bug, not the implementation's."""

R = TypeVar("R", bound=Message)


@dataclass(frozen=True)
class Timeouts:
    """Per-RPC deadlines in seconds. Invoke and snapshot calls run the implementation, so they get more."""

    describe: float = 10.0
    create_agent: float = 10.0
    invoke: float = 15.0
    take_snapshot: float = 10.0
    restore_agent: float = 10.0
    dispose_agent: float = 5.0
    inspect_agent: float = 5.0
    list_pending: float = 10.0

    def scaled(self, factor: float) -> Timeouts:
        return Timeouts(*(getattr(self, f) * factor for f in self.__dataclass_fields__))


MAX_REPLY_BYTES = 8 * 1024 * 1024
"""The largest reply the suite reads (gRPC refuses a larger one: an adapter fault)."""
MAX_TRACE_EVENTS = 10_000
"""The most trace events one Invoke reply may carry. Every scenario the suite sends needs a few hundred at
most; a reply with more is a runaway adapter or runtime, reported as an adapter fault (ERROR)."""


class RunDeadline(HarnessTimeout):
    """The whole run's time budget (``--max-run-seconds``) is spent: nothing more is sent."""

    kind = "run-deadline"


@dataclass(frozen=True)
class Description:
    """What ``Describe`` returned."""

    harness_protocol_version: int
    implementation: dict[str, Any]
    spec_versions: tuple[str, ...]
    profiles: frozenset[str]
    not_applicable: dict[str, str] = field(default_factory=dict)
    capabilities: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "harnessProtocolVersion": self.harness_protocol_version,
            "implementation": self.implementation,
            "specVersions": list(self.spec_versions),
            "profiles": sorted(self.profiles),
            "notApplicable": dict(self.not_applicable),
            "capabilities": sorted(self.capabilities),
        }


class AgentRefused(Exception):
    """CreateAgent: the runtime refused to build the agent (an ``Error`` value, not an adapter fault)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


class HarnessClient:
    """One connection to one adapter. Not thread-safe; use one per worker."""

    def __init__(
        self,
        channel: grpc.Channel | None,
        *,
        target: str = "",
        timeouts: Timeouts | None = None,
        stub: Any | None = None,
    ) -> None:
        # ``stub`` replaces the gRPC stub of ``channel``: any object with the service's unary methods
        # (``stub.Invoke(request, timeout=...) -> reply``), e.g. one that calls a servicer in this process,
        # so the same client can be measured without the transport (benchmarks/suite.py).
        if stub is None and channel is None:
            raise ValueError("a HarnessClient needs a channel or a stub")
        self._channel = channel
        self._stub = stub if stub is not None else hgrpc.HarnessServiceStub(channel)  # type: ignore[no-untyped-call]
        self.target = target
        self.timeouts = timeouts or Timeouts()
        self.transcript: list[dict[str, Any]] = []
        self.latched: HarnessFault | None = None
        self.rpc_count = 0
        self.rpc_seconds = 0.0
        self.live_agents: set[str] = set()
        self.deadline: float | None = None  # time.monotonic() after which no RPC is sent (the run budget)
        # Called with (rpc, decoded reply) for every reply; the runner validates them against the schemas.
        self.observers: list[
            Callable[[str, dict[str, Any]], None]
        ] = []  # handles created and not yet disposed (the runner cleans up)

    @classmethod
    def connect(cls, target: str, *, timeouts: Timeouts | None = None) -> HarnessClient:
        options = [("grpc.max_receive_message_length", MAX_REPLY_BYTES)]
        return cls(grpc.insecure_channel(target, options=options), target=target, timeouts=timeouts)

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()

    def __enter__(self) -> HarnessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transcript -------------------------------------------------------------------------

    def mark(self) -> int:
        """A position in the transcript, for ``transcript_text(since=...)``."""
        return len(self.transcript)

    def reset_latch(self) -> None:
        """Forget a previous fault (the runner does this between checks)."""
        self.latched = None

    def transcript_text(self, since: int = 0) -> str:
        """The RPCs since ``since`` as readable lines (request -> response, JSON)."""
        lines = []
        for entry in self.transcript[since:]:
            req = json.dumps(entry["request"], sort_keys=True)
            resp = json.dumps(entry["response"], sort_keys=True)
            lines.append(f"{entry['rpc']}({req})\n    -> {resp}")
        return "\n".join(lines)

    # -- plumbing ---------------------------------------------------------------------------

    def _call(
        self, rpc: str, method: Callable[..., R], request: Message, timeout: float, request_json: Any
    ) -> R:
        if self.latched is not None:
            raise self.latched
        start = time.monotonic()
        if self.deadline is not None:
            if start >= self.deadline:
                raise self._fault(RunDeadline(rpc, "the run's time budget (--max-run-seconds) is spent"))
            timeout = min(timeout, self.deadline - start)
        try:
            reply: R = method(request, timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            details = exc.details() if hasattr(exc, "details") else str(exc)
            fault: HarnessFault
            if (
                code == grpc.StatusCode.DEADLINE_EXCEEDED
                and self.deadline is not None
                and (time.monotonic() >= self.deadline)
            ):
                fault = RunDeadline(rpc, "the run's time budget (--max-run-seconds) ran out during this call")
            elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
                fault = HarnessTimeout(rpc, f"no answer within {timeout:g}s")
            elif code == grpc.StatusCode.UNAVAILABLE:
                fault = HarnessUnavailable(rpc, f"adapter unavailable: {details}")
            else:
                fault = AdapterError(rpc, f"gRPC status {code.name if code else '?'}: {details}")
            self.transcript.append({"rpc": rpc, "request": request_json, "response": {"fault": str(fault)}})
            self.latched = fault
            raise fault from exc
        finally:
            self.rpc_count += 1
            self.rpc_seconds += time.monotonic() - start
        return reply

    def _record(self, rpc: str, request_json: Any, response_json: Any) -> None:
        self.transcript.append({"rpc": rpc, "request": request_json, "response": response_json})

    def _fault(self, fault: HarnessFault) -> HarnessFault:
        self.latched = fault
        return fault

    def _decode(self, rpc: str, reply: Message) -> dict[str, Any]:
        try:
            doc: dict[str, Any] = jsonmap.from_proto(reply)
        except JsonMappingError as exc:
            raise self._fault(AdapterError(rpc, f"reply has no JSON form: {exc}")) from exc
        return doc

    def _decode_invoke(self, reply: hpb.InvokeResponse) -> dict[str, Any]:
        """``_decode`` of an Invoke reply, its trace and history through ``wire.many_from_proto`` (each
        distinct value mapped once: every reply repeats much of the one before), its other members one by
        one from the reply itself (a copy of a message may list a Struct's members in another order).

        The members come in the order the whole reply's mapping gives them (the set ones by field number,
        then the empty lists); anything that does not map is left to that mapping, so the fault says what
        it always said."""
        try:
            doc: dict[str, Any] = {}
            for field, value in reply.ListFields():
                if field.name in ("trace", "messages"):
                    doc[field.json_name] = wire.many_from_proto(value)
                else:
                    doc[field.json_name] = jsonmap.from_proto(value)
        except JsonMappingError:
            return self._decode("Invoke", reply)
        doc.setdefault("trace", [])
        doc.setdefault("messages", [])
        return doc

    def _check_harness_error(self, rpc: str, doc: dict[str, Any]) -> None:
        err = doc.get("harnessError")
        if err is not None:
            raise self._fault(
                AdapterError(rpc, f"harness_error: {err.get('message', '')}", details=err.get("details"))
            )

    # -- RPCs -------------------------------------------------------------------------------

    def describe(self) -> Description:
        req = hpb.DescribeRequest(harness_protocol_version=HARNESS_PROTOCOL_VERSION)
        req_json = {"harnessProtocolVersion": HARNESS_PROTOCOL_VERSION}
        reply = self._call("Describe", self._stub.Describe, req, self.timeouts.describe, req_json)
        doc = self._decode("Describe", reply)
        self._record("Describe", req_json, doc)
        version = int(doc.get("harnessProtocolVersion", 0))
        if version not in ACCEPTED_PROTOCOLS:
            raise self._fault(ProtocolMismatch("Describe", protocol_mismatch_message(version)))
        too_new = sorted(
            profile
            for since, group in PROFILES_SINCE.items()
            if version < since
            for profile in group & set(doc.get("profiles", []))
        )
        if version < HARNESS_PROTOCOL_VERSION and too_new:
            raise self._fault(
                ProtocolMismatch("Describe", protocol_mismatch_message(version, claimed=too_new))
            )
        return Description(
            harness_protocol_version=version,
            implementation=dict(doc.get("implementation", {})),
            spec_versions=tuple(doc.get("specVersions", [])),
            profiles=frozenset(doc.get("profiles", [])),
            not_applicable=dict(doc.get("notApplicable", {})),
            capabilities=frozenset(doc.get("capabilities", [])),
        )

    def create_agent(self, spec: dict[str, Any]) -> str:
        """Build an agent; the runtime refusing to build it raises ``AgentRefused``."""
        out = self.try_create_agent(spec)
        if "error" in out:
            raise AgentRefused(out["error"])
        return str(out["agent"])

    def try_create_agent(self, spec: dict[str, Any]) -> dict[str, Any]:
        """``{"agent": handle}``, or ``{"error": Error}`` when the runtime refuses (e.g. a bad session id)."""
        _check_tool_names(spec)
        try:
            req = hpb.CreateAgentRequest(spec=wire.agent_spec_to_proto(spec))
        except JsonMappingError as exc:
            raise ValueError(f"not a valid AgentSpec: {exc}") from exc
        req_json = {"spec": spec}
        reply = self._call("CreateAgent", self._stub.CreateAgent, req, self.timeouts.create_agent, req_json)
        doc = self._decode("CreateAgent", reply)
        self._record("CreateAgent", {"spec": spec}, doc)
        self._check_harness_error("CreateAgent", doc)
        if "error" in doc:
            return {"error": doc["error"]}
        agent = doc.get("agent")
        if not isinstance(agent, str) or not agent:
            raise self._fault(AdapterError("CreateAgent", "reply carries no agent handle"))
        self.live_agents.add(agent)
        return {"agent": agent}

    def create_orchestrator(self, spec: dict[str, Any]) -> str:
        """Build a graph or swarm from an OrchestratorSpec (profile multi-agent, harness protocol 5); the
        handle is invoked like an agent's and answers ``orchestratorResult``."""
        for node in spec.get("nodes", []):
            if isinstance(node, dict) and isinstance(node.get("agent"), dict):
                _check_tool_names(node["agent"])
        try:
            req = hpb.CreateAgentRequest(
                orchestrator=cast(
                    hpb.OrchestratorSpec, jsonmap.to_proto("roc.conformance.v1.OrchestratorSpec", spec)
                )
            )
        except JsonMappingError as exc:
            raise ValueError(f"not a valid OrchestratorSpec: {exc}") from exc
        req_json = {"orchestrator": spec}
        reply = self._call("CreateAgent", self._stub.CreateAgent, req, self.timeouts.create_agent, req_json)
        doc = self._decode("CreateAgent", reply)
        self._record("CreateAgent", req_json, doc)
        self._check_harness_error("CreateAgent", doc)
        if "error" in doc:
            raise AgentRefused(doc["error"])
        handle = doc.get("agent")
        if not isinstance(handle, str) or not handle:
            raise self._fault(AdapterError("CreateAgent", "reply carries no orchestrator handle"))
        self.live_agents.add(handle)
        return handle

    def invoke(self, agent: str, inp: dict[str, Any], *, stream: bool = False) -> dict[str, Any]:
        """One Invoke; with ``stream`` the adapter runs it through the runtime's streaming API (profile
        streaming, harness protocol 6) and the reply's trace holds a ``streamed_interrupt`` per event."""
        try:
            req = wire.invoke_request(agent, inp)
        except JsonMappingError as exc:
            raise ValueError(f"not a valid invoke input: {exc}") from exc
        req_json = {"agent": agent, **inp}
        if stream:
            req.stream = True
            req_json["stream"] = True
        reply = self._call("Invoke", self._stub.Invoke, req, self.timeouts.invoke, req_json)
        if len(reply.trace) > MAX_TRACE_EVENTS:  # before decoding it: a runaway reply costs no more
            events = len(reply.trace)
            self._record("Invoke", req_json, {"fault": f"{events} trace events"})
            limit = f"{events} trace events in one reply (at most {MAX_TRACE_EVENTS})"
            raise self._fault(AdapterError("Invoke", limit))
        doc = self._decode_invoke(reply)
        self._record("Invoke", req_json, doc)
        self._check_harness_error("Invoke", doc)
        for observe in self.observers:
            observe("Invoke", doc)
        outcomes = [k for k in ("result", "error", "toolResult", "crash", "orchestratorResult") if k in doc]
        if len(outcomes) != 1:
            raise self._fault(AdapterError("Invoke", f"reply carries {len(outcomes)} outcomes, expected 1"))

        doc.setdefault("trace", [])
        doc.setdefault("messages", [])
        doc.setdefault("state", {})
        return doc

    def take_snapshot(self, agent: str, *, stored: bool = False) -> dict[str, Any]:
        """Take a snapshot (or, with ``stored``, read what the agent's session store holds)."""
        req = hpb.TakeSnapshotRequest(agent=agent, stored=stored)
        req_json = {"agent": agent, **({"stored": True} if stored else {})}
        reply = self._call(
            "TakeSnapshot", self._stub.TakeSnapshot, req, self.timeouts.take_snapshot, req_json
        )
        doc = self._decode("TakeSnapshot", reply)
        self._check_harness_error("TakeSnapshot", doc)
        if "error" in doc:
            self._record("TakeSnapshot", req_json, doc)
            return {"error": doc["error"]}
        text = doc.get("snapshotJson")
        if not isinstance(text, str):
            raise self._fault(AdapterError("TakeSnapshot", "reply carries neither a snapshot nor an error"))
        try:
            # As RoC reads JSON (spec 8.2): repeated member names, numbers beyond a double are refused.
            snapshot = parse_strict(text)
        except NotCanonicalJson as exc:
            # The implementation wrote a broken document. Report it to the check.
            self._record("TakeSnapshot", req_json, {"snapshotJson": text})
            return {"snapshot": None, "snapshotJson": text, "decodeError": str(exc)}
        self._record("TakeSnapshot", req_json, {"snapshot": snapshot})
        return {"snapshot": snapshot, "snapshotJson": text}

    def restore_agent(
        self, snapshot: dict[str, Any] | str, spec: dict[str, Any], *, model_turn_offset: int = 0
    ) -> dict[str, Any]:
        text = snapshot if isinstance(snapshot, str) else json.dumps(snapshot, ensure_ascii=False)
        _check_tool_names(spec)
        try:
            req = hpb.RestoreAgentRequest(
                snapshot_json=text, spec=wire.agent_spec_to_proto(spec), model_turn_offset=model_turn_offset
            )
        except JsonMappingError as exc:
            raise ValueError(f"not a valid AgentSpec: {exc}") from exc
        req_json = {
            "snapshot": snapshot if not isinstance(snapshot, str) else text,
            "spec": spec,
            "modelTurnOffset": model_turn_offset,
        }
        reply = self._call(
            "RestoreAgent", self._stub.RestoreAgent, req, self.timeouts.restore_agent, req_json
        )
        doc = self._decode("RestoreAgent", reply)
        self._record("RestoreAgent", req_json, doc)
        self._check_harness_error("RestoreAgent", doc)
        for observe in self.observers:
            observe("RestoreAgent", doc)
        if "error" in doc:
            return {"error": doc["error"]}
        agent = doc.get("agent")
        if not isinstance(agent, str) or not agent:
            raise self._fault(AdapterError("RestoreAgent", "reply carries neither an agent nor an error"))
        self.live_agents.add(agent)
        return {"agent": agent, "trace": doc.get("trace", [])}

    def inspect(self, agent: str) -> dict[str, Any]:
        """The agent's interrupt state, history and application state, read without invoking it.

        Needs the adapter capability ``inspect``; a reply without an inspection is an adapter fault.
        """
        req = hpb.InspectAgentRequest(agent=agent)
        req_json = {"agent": agent}
        reply = self._call(
            "InspectAgent", self._stub.InspectAgent, req, self.timeouts.inspect_agent, req_json
        )
        doc = self._decode("InspectAgent", reply)
        self._record("InspectAgent", req_json, doc)
        self._check_harness_error("InspectAgent", doc)
        inspection = doc.get("inspection")
        if not isinstance(inspection, dict):
            raise self._fault(AdapterError("InspectAgent", "reply carries neither an inspection nor a fault"))
        for observe in self.observers:
            observe("InspectAgent", inspection)
        inspection.setdefault("interrupts", [])
        inspection.setdefault("preservedToolUseIds", [])
        inspection.setdefault("messages", [])
        inspection.setdefault("state", {})
        return inspection

    def list_pending(self, agent: str) -> dict[str, Any]:
        """The agent's pending interrupts (profile pending-list), read without invoking it.

        ``{"pending": [...]}`` (raw JSON, unchecked), ``{"error": Error}``, or ``{"harness_error": message}``
        when the adapter cannot list (a value here, so a check can report it as ERROR with the reason).
        """
        return self._list_pending(hpb.ListPendingRequest(agent=agent), {"agent": agent})

    def list_pending_snapshot(self, snapshot: dict[str, Any] | str, spec: dict[str, Any]) -> dict[str, Any]:
        """The pending interrupts of a snapshot document, read without restoring it; as ``list_pending``.

        ``spec`` is the scenario whose configuration (integrity keys) reads the document, as for a restore.
        """
        text = snapshot if isinstance(snapshot, str) else json.dumps(snapshot, ensure_ascii=False)
        _check_tool_names(spec)
        try:
            source = hpb.SnapshotSource(snapshot_json=text, spec=wire.agent_spec_to_proto(spec))
        except JsonMappingError as exc:
            raise ValueError(f"not a valid AgentSpec: {exc}") from exc
        return self._list_pending(
            hpb.ListPendingRequest(snapshot=source), {"snapshot": {"snapshot": snapshot, "spec": spec}}
        )

    def _list_pending(self, req: hpb.ListPendingRequest, req_json: dict[str, Any]) -> dict[str, Any]:
        reply = self._call("ListPending", self._stub.ListPending, req, self.timeouts.list_pending, req_json)
        doc = self._decode("ListPending", reply)
        self._record("ListPending", req_json, doc)
        if "harnessError" in doc:
            err = doc["harnessError"]
            return {"harness_error": str(err.get("message", "")) if isinstance(err, dict) else str(err)}
        if "error" in doc:
            return {"error": doc["error"]}
        pending = doc.get("pending")
        if not isinstance(pending, list):
            raise self._fault(AdapterError("ListPending", "reply carries no list, error or harness_error"))
        for observe in self.observers:
            observe("ListPending", doc)
        return {"pending": pending}

    def dispose_agent(self, agent: str) -> None:
        req = hpb.DisposeAgentRequest(agent=agent)
        req_json = {"agent": agent}
        self.live_agents.discard(agent)
        reply = self._call(
            "DisposeAgent", self._stub.DisposeAgent, req, self.timeouts.dispose_agent, req_json
        )
        doc = self._decode("DisposeAgent", reply)
        self._record("DisposeAgent", req_json, doc)
        self._check_harness_error("DisposeAgent", doc)


def _check_tool_names(spec: dict[str, Any]) -> None:
    names = [t.get("name") for t in spec.get("tools", []) if isinstance(t, dict)]
    names += [h["toolName"] for h in spec.get("hooks", []) if isinstance(h, dict) and "toolName" in h]
    bad = [n for n in names if not (isinstance(n, str) and TOOL_NAME.fullmatch(n))]
    if bad:
        raise ValueError(f"not a valid AgentSpec: tool names {bad} break {TOOL_NAME.pattern}")


def protocol_mismatch_message(adapter_version: int, *, claimed: list[str] | None = None) -> str:
    """Why the suite refuses an adapter's harness protocol, with what changed since the adapter's version.

    ``claimed``: profiles that an adapter speaking an older, otherwise accepted protocol claims although that
    protocol cannot drive them (``PROFILES_SINCE``).
    """
    head = f"adapter speaks harness protocol {adapter_version}, suite speaks {HARNESS_PROTOCOL_VERSION}"
    if claimed:
        head += f", and protocol {adapter_version} cannot drive the profiles it claims ({', '.join(claimed)})"
    if adapter_version > HARNESS_PROTOCOL_VERSION:
        return f"{head}; use a suite that speaks protocol {adapter_version}"
    changes = [
        f"  {version}: {change}"
        for version in range(max(adapter_version, 0) + 1, HARNESS_PROTOCOL_VERSION + 1)
        for change in PROTOCOL_CHANGES.get(version, ())
    ]
    listing = "\n".join(changes)
    return (
        f"{head}. Update the adapter (conformance/README.md, 'Harness protocol changelog'); "
        f"changed since protocol {adapter_version}:\n{listing}"
    )


def wait_until_ready(target: str, *, timeout: float = 15.0) -> None:
    """Block until a gRPC server answers at ``target`` (used after starting an adapter process)."""
    channel = grpc.insecure_channel(target)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
    except grpc.FutureTimeoutError as exc:
        raise HarnessUnavailable("connect", f"no adapter listening at {target} after {timeout:g}s") from exc
    finally:
        channel.close()
