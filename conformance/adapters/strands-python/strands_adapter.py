"""strands_adapter.py: serves strands-agents (Python) to the RoC conformance suite through the adapter kit.

Run: ``python strands_adapter.py --port 0`` inside the adapter's own virtual environment
(``make strands-python``). Every scenario construct maps onto the SDK's public API: a ``Model`` subclass for
the script, ``@tool(context=True)`` tools raising with ``tool_context.interrupt``, one ``HookProvider`` for
the scenario's callbacks (``event.interrupt``, ``cancel_tool`` / ``cancel``), the SDK's tool executors and
``agent.state``. Mapping: conformance/README.md, "Mapping onto Strands Agents".
"""

from __future__ import annotations

import importlib.metadata
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from roc_conformance.adapter import (
    AdapterError,
    AdapterInfo,
    DirectToolCall,
    HookProgram,
    InvokeInput,
    Refused,
    RuntimeAdapter,
    Scenario,
    ScenarioError,
    ScriptedModel,
    StateView,
    ToolFailure,
    ToolProgram,
    Trace,
    main,
    run_hook,
    run_program,
    tool_result_content,
)
from roc_reference.errors import RocError
from scripted_model import StrandsScriptedModel, check_turns
from snapshot_translate import from_roc, load_roc, to_roc
from strands import Agent, tool
from strands.hooks import (
    AfterInvocationEvent,
    AfterModelCallEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    BeforeInvocationEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookProvider,
    HookRegistry,
    MessageAddedEvent,
)
from strands.hooks.registry import HookOrder
from strands.interrupt import InterruptException
from strands.tools.executors import ConcurrentToolExecutor, SequentialToolExecutor
from strands.types._snapshot import Snapshot
from strands.types.exceptions import SessionException, SnapshotException
from strands.types.tools import ToolContext
from translate import error_json, inspect_json, messages_json, result_json

ADAPTER_VERSION = "0.1.0"
PROFILES = (
    "core",
    "hooks",
    "sequential-executor",
    "concurrent-executor",
    "direct-tool-call",
    "sessions",
    "portable-snapshot",
)
CAPABILITIES = ("inspect",)
_EVENTS: dict[str, Any] = {
    "BeforeTools": BeforeToolsEvent,
    "BeforeToolCall": BeforeToolCallEvent,
    "AfterToolCall": AfterToolCallEvent,
    "AfterTools": AfterToolsEvent,
}


@dataclass
class Built:
    """One agent under test, with the adapter's raise-point record of its interrupts."""

    agent: Agent
    trace: Trace
    # interrupt id -> RoC InterruptSource; 1.62 interrupts have no source field, so the adapter records where
    # its programs raised each one (the id prefix agrees with it).
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The tool names of the current cycle's BeforeTools message: AfterTools carries results, not names.
    batch_names: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The SDK keeps no revision: 0 for a created agent, the restored document's for a restored one.
    revision: int = 0


def _state_view(agent: Any) -> StateView:
    state = agent.state
    return StateView(get=state.get, has=lambda key: key in (state.get() or {}), put=state.set)


def _raiser(built: Built, raise_api: Any, source: dict[str, Any]) -> Any:
    """The program's ``interrupt(name, reason)`` over a Strands raise API, recording the raise point."""

    def interrupt(name: str, reason: Any, **metadata: Any) -> Any:
        # A step's metadata is not passed on: Interrupt in 1.62 has no metadata member (id, name, reason,
        # response), so the runtime's result shows none, which the suite judges as the SDK's.
        try:
            return raise_api(name, reason=reason)
        except InterruptException as exc:
            with built.lock:
                built.sources[exc.interrupt.id] = dict(source)
            raise

    return interrupt


def _make_tool(program: ToolProgram, holder: dict[str, Built]) -> Any:
    def body(tool_context: ToolContext) -> dict[str, Any]:
        built = holder["built"]
        use = tool_context.tool_use
        source = {"kind": "tool", "toolUseId": use["toolUseId"], "toolName": program.name}
        try:
            with built.trace.tool_body(use["toolUseId"], program.name):
                run = run_program(
                    program.steps,
                    interrupt=_raiser(built, tool_context.interrupt, source),
                    state=_state_view(tool_context.agent),
                )
                return {"status": "success", "content": tool_result_content(run)}
        except ToolFailure as failure:
            # A fail step is an error result with exactly the step's text (the SDK's own wrapping of an
            # exception would prefix it with the exception type).
            return {"status": "error", "content": [{"text": str(failure)}]}

    schema = {"json": {"type": "object", "properties": {}, "additionalProperties": True}}
    return tool(
        name=program.name, description=f"scenario tool {program.name}", inputSchema=schema, context=True
    )(body)


def _tool_ids(message: Any, kind: str) -> list[str]:
    return [block[kind]["toolUseId"] for block in message.get("content", []) if kind in block]


class ScenarioHooks(HookProvider):
    """The trace recorders and the scenario's callbacks, registered in the order the trace rules need."""

    def __init__(self, scenario: Scenario, holder: dict[str, Built]) -> None:
        self.scenario = scenario
        self.holder = holder

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        # Recorders run first for every event: an event is traced before the scenario's callbacks of it run.
        # After* events run callbacks in reverse registration order, but only within one HookOrder, so a lower
        # order puts the recorders first there too.
        first = HookOrder.SDK_FIRST

        def trace() -> Trace:
            return self.holder["built"].trace

        registry.add_callback(BeforeInvocationEvent, lambda e: trace().before_invocation(), order=first)
        registry.add_callback(AfterInvocationEvent, lambda e: trace().after_invocation(), order=first)
        registry.add_callback(
            MessageAddedEvent, lambda e: trace().message_added(e.message["role"]), order=first
        )
        registry.add_callback(BeforeModelCallEvent, lambda e: trace().before_model_call(), order=first)
        registry.add_callback(AfterModelCallEvent, lambda e: trace().after_model_call(), order=first)
        registry.add_callback(BeforeToolsEvent, self._before_tools, order=first)
        registry.add_callback(
            BeforeToolCallEvent, lambda e: trace().before_tool_call(e.tool_use["toolUseId"]), order=first
        )
        registry.add_callback(
            AfterToolCallEvent,
            lambda e: trace().after_tool_call(e.tool_use["toolUseId"], e.result["status"]),
            order=first,
        )
        registry.add_callback(
            AfterToolsEvent, lambda e: trace().after_tools(_tool_ids(e.message, "toolResult")), order=first
        )
        for hook in self.scenario.hooks:
            registry.add_callback(_EVENTS[hook.event], self._callback(hook))

    def _before_tools(self, event: BeforeToolsEvent) -> None:
        built = self.holder["built"]
        built.batch_names = [b["toolUse"]["name"] for b in event.message.get("content", []) if "toolUse" in b]
        built.trace.before_tools(_tool_ids(event.message, "toolUse"))

    def _callback(self, hook: HookProgram) -> Any:
        def callback(event: Any) -> None:
            built = self.holder["built"]
            use: dict[str, Any] | None = getattr(event, "tool_use", None) if hook.per_tool else None
            if hook.per_tool:
                names = [use["name"]] if use else []
            elif hook.event == "BeforeTools":
                names = [b["toolUse"]["name"] for b in event.message.get("content", []) if "toolUse" in b]
            else:
                names = list(built.batch_names)
            if not hook.applies_to(names):
                return
            tool_use_id = use["toolUseId"] if use else None
            raise_api = None
            if hook.interruptible:
                if use is not None:
                    source = {"kind": "before_tool_call", "toolUseId": tool_use_id, "toolName": use["name"]}
                else:
                    source = {"kind": "before_tools"}
                raise_api = _raiser(built, event.interrupt, source)
            run = run_hook(
                built.trace,
                hook,
                interrupt=raise_api,
                state=_state_view(event.agent),
                tool_use_id=tool_use_id,
            )
            if run.cancel is not None:
                if isinstance(event, BeforeToolCallEvent):
                    event.cancel_tool = run.cancel
                elif isinstance(event, BeforeToolsEvent):
                    event.cancel = run.cancel

        return callback


def _check(scenario: Scenario) -> None:
    problem = check_turns(scenario.turns)
    if problem:
        raise ScenarioError(problem)
    if scenario.executor not in ("sequential", "concurrent"):
        raise ScenarioError(f"unknown executor {scenario.executor!r}")


class StrandsAdapter(RuntimeAdapter[Built]):
    def info(self) -> AdapterInfo:
        return AdapterInfo(
            name="strands-agents",
            version=importlib.metadata.version("strands-agents"),
            adapter=f"roc-strands-python {ADAPTER_VERSION}",
            profiles=PROFILES,
            homepage="https://github.com/strands-agents/sdk-python",
            capabilities=CAPABILITIES,
        )

    def create(self, scenario: Scenario, trace: Trace) -> Built:
        return self._build(scenario, trace, 0)

    def _build(self, scenario: Scenario, trace: Trace, model_turn_offset: int) -> Built:
        _check(scenario)
        if scenario.session is not None or scenario.integrity is not None:
            # Profiles session-store and snapshot-integrity are not claimed (README, "Not mapped").
            raise ScenarioError("this adapter binds no session store and configures no integrity key")
        holder: dict[str, Built] = {}
        executor = SequentialToolExecutor() if scenario.executor == "sequential" else ConcurrentToolExecutor()
        try:
            agent = Agent(
                model=StrandsScriptedModel(ScriptedModel(scenario.turns, trace, model_turn_offset)),
                tools=[_make_tool(p, holder) for p in scenario.tools],
                hooks=[ScenarioHooks(scenario, holder)],
                tool_executor=executor,
                state=dict(scenario.state),
                agent_id=scenario.agent_id,
                callback_handler=None,
            )
        except ValueError as exc:  # e.g. an agent id the SDK cannot take (it forbids path separators)
            raise ScenarioError(f"strands-agents cannot build this agent: {exc}") from exc
        built = Built(agent=agent, trace=trace)
        holder["built"] = built
        return built

    def invoke(self, agent: Built, inp: InvokeInput) -> dict[str, Any]:
        result = agent.agent(inp.value)  # exactly as sent: the SDK's own checks are what the suite judges
        return result_json(result, agent.sources)

    def call_tool(self, agent: Built, call: DirectToolCall) -> dict[str, Any]:
        result = getattr(agent.agent.tool, call.name)(**call.input)  # agent.tool.<name>(**input)
        return {key: result[key] for key in ("toolUseId", "status", "content") if key in result}

    def snapshot(self, agent: Built, *, stored: bool) -> Any:
        if stored:
            raise AdapterError("this adapter binds no session store (profile session-store is not claimed)")
        taken = agent.agent.take_snapshot(preset="session")  # the SDK's own persisted form
        with agent.lock:
            sources = dict(agent.sources)
        return to_roc(
            taken.to_dict(),
            agent_id=agent.agent.agent_id,
            sources=sources,
            revision=agent.revision,
            created_at=taken.created_at,
        )

    def restore(self, snapshot_json: str, scenario: Scenario, trace: Trace, model_turn_offset: int) -> Built:
        try:
            doc = load_roc(snapshot_json, scenario.agent_id)
        except RocError as exc:  # the binding refuses an invalid document with the spec's code
            raise Refused(exc.to_json()) from exc
        strands_snapshot, sources = from_roc(doc)
        built = self._build(scenario, trace, model_turn_offset)
        try:
            built.agent.load_snapshot(Snapshot.from_dict(strands_snapshot))  # the SDK's own loader
        except (SnapshotException, SessionException) as exc:
            raise AdapterError(f"strands-agents did not load the translated snapshot: {exc}") from exc
        built.sources.update(sources)
        built.revision = doc["revision"]
        return built

    def inspect(self, agent: Built) -> dict[str, Any]:
        with agent.lock:
            sources = dict(agent.sources)
        return inspect_json(agent.agent, sources)

    def error_json(self, exc: Exception) -> dict[str, Any] | None:
        return error_json(exc)

    def messages(self, agent: Built) -> list[Any]:
        return messages_json(agent.agent.messages)

    def state(self, agent: Built) -> dict[str, Any]:
        return dict(agent.agent.state.get() or {})


if __name__ == "__main__":
    sys.exit(main(StrandsAdapter))
