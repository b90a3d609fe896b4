"""AgentSpec (JSON) -> a live ``roc_reference.Agent`` whose every observable step is recorded as a trace.

Recording uses only public runtime surfaces, the way an adapter for any SDK would: hook callbacks placed
so that they run before the scenario's own callbacks of the same event (so each event is recorded before the
callbacks it runs; for After* events, which run in reverse registration order, that means registered last),
tool wrappers around the step programs, and a scripted model that counts its calls. Nothing is written onto
event objects.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roc_reference.agent import Agent
from roc_reference.executors import ConcurrentExecutor, Executor, SequentialExecutor
from roc_reference.hooks import (
    AfterInvocationEvent,
    AfterModelCallEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    BeforeInvocationEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookEvent,
    HookRegistry,
    MessageAddedEvent,
)
from roc_reference.models import EXHAUSTED_TEXT, ModelTurn
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.tools import Tool, ToolContext
from roc_reference.types import JsonContent, Message, TextBlock, ToolResult, ToolUseBlock

from .programs import (
    HOOK_OPS,
    PASSIVE_HOOK_OPS,
    TOOL_OPS,
    ProgramRun,
    ScenarioError,
    StateView,
    Step,
    parse_steps,
    run_program,
)

HOOK_EVENTS = ("BeforeTools", "BeforeToolCall", "AfterToolCall", "AfterTools")


class Trace:
    """The events of the current Invoke, in order; thread-safe (concurrent executors record from threads)."""

    def __init__(self) -> None:
        self._events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def emit(self, kind: str, **fields: Any) -> None:
        with self._lock:
            self._events.append({"kind": kind, **fields})

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            events, self._events = self._events, []
            return events


class CountingModel:
    """The scripted model of the harness: call i answers turns[offset + i] (conformance/README.md)."""

    def __init__(self, turns: Sequence[Message], trace: Trace, offset: int = 0) -> None:
        self.turns = list(turns)
        self.trace = trace
        self.next_turn = offset
        self._lock = threading.Lock()

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        with self._lock:
            index = self.next_turn
            self.next_turn += 1
        self.trace.emit("model_call", turn=index)
        if index >= len(self.turns):
            return ModelTurn(Message(role="assistant", content=[TextBlock(text=EXHAUSTED_TEXT)]), "end_turn")
        message = self.turns[index]
        uses_tools = any(isinstance(b, ToolUseBlock) for b in message.content)
        return ModelTurn(message, "tool_use" if uses_tools else "end_turn")


@dataclass(frozen=True)
class ParsedSpec:
    """A validated AgentSpec."""

    agent_id: str
    executor: str
    turns: tuple[Message, ...]
    tools: tuple[tuple[str, tuple[Step, ...]], ...]
    hooks: tuple[tuple[str, str | None, tuple[Step, ...]], ...]
    state: dict[str, Any] = field(default_factory=dict)
    integrity: tuple[str, bytes] | None = None
    session: tuple[str, str] | None = None  # (store name, session id)

    def integrity_kwargs(self) -> dict[str, Any]:
        """Agent keyword arguments for the configured integrity key (sign on write, verify on read)."""
        if self.integrity is None:
            return {}
        key_id, secret = self.integrity
        return {"integrity_keys": {key_id: secret}, "signing_key_id": key_id}


def parse_spec(spec: Mapping[str, Any]) -> ParsedSpec:
    """Validate the scenario; a ``ScenarioError`` becomes the adapter's harness_error."""
    executor = spec.get("executor")
    if executor not in ("sequential", "concurrent"):
        raise ScenarioError(f"executor must be 'sequential' or 'concurrent', got {executor!r}")
    model = spec.get("model") or {}
    turns: list[Message] = []
    for i, turn in enumerate(model.get("turns", [])):
        try:
            turns.append(Message.model_validate({"role": "assistant", "content": turn.get("content", [])}))
        except ValueError as exc:
            raise ScenarioError(f"model.turns[{i}]: {exc}") from exc
    tools: list[tuple[str, tuple[Step, ...]]] = []
    seen: set[str] = set()
    for i, tool in enumerate(spec.get("tools", [])):
        name = tool.get("name")
        if not isinstance(name, str) or not name or name in seen:
            raise ScenarioError(f"tools[{i}]: missing or duplicate name {name!r}")
        seen.add(name)
        tools.append((name, parse_steps(tool.get("steps", []), TOOL_OPS, f"tools[{i}].steps")))
    hooks: list[tuple[str, str | None, tuple[Step, ...]]] = []
    for i, hook in enumerate(spec.get("hooks", [])):
        event = hook.get("event")
        if event not in HOOK_EVENTS:
            raise ScenarioError(f"hooks[{i}]: unknown event {event!r}")
        allowed = HOOK_OPS if event in ("BeforeTools", "BeforeToolCall") else PASSIVE_HOOK_OPS
        hooks.append(
            (event, hook.get("toolName"), parse_steps(hook.get("steps", []), allowed, f"hooks[{i}].steps"))
        )
    state = spec.get("state") or {}
    if not isinstance(state, dict):
        raise ScenarioError("state must be a JSON object")
    integrity = spec.get("integrity")
    keys: tuple[str, bytes] | None = None
    if integrity is not None:
        if not isinstance(integrity.get("keyId"), str) or not isinstance(integrity.get("secret"), str):
            raise ScenarioError("integrity needs a keyId and a secret")
        # An empty key makes every HMAC computable by anyone (ROC-SEC-002 would sign nothing), and an empty
        # key id names no key: refused as an unbuildable scenario, never silently accepted.
        if not integrity["keyId"] or not integrity["secret"]:
            raise ScenarioError("integrity keyId and secret must not be empty")
        keys = (integrity["keyId"], integrity["secret"].encode("utf-8"))
    binding = spec.get("session")
    session: tuple[str, str] | None = None
    if binding is not None:
        if not isinstance(binding.get("store"), str) or not isinstance(binding.get("sessionId"), str):
            raise ScenarioError("session needs a store and a sessionId")
        session = (binding["store"], binding["sessionId"])
    return ParsedSpec(
        session=session,
        integrity=keys,
        agent_id=str(spec.get("agentId") or "agent"),
        executor=executor,
        turns=tuple(turns),
        tools=tuple(tools),
        hooks=tuple(hooks),
        state=dict(state),
    )


class ScenarioToolFailure(Exception):
    """Raised by a scenario tool's ``fail`` step: the body fails the way any tool body fails.

    The runtime, not the adapter, must turn a failing body into an error result (ROC-TOOL-008), so the
    adapter raises instead of building that result itself; otherwise the suite would only see the adapter.
    """


def _tool_result(tool_use_id: str, run: ProgramRun) -> ToolResult:
    return ToolResult(
        tool_use_id=tool_use_id,
        status="success",
        content=[JsonContent(json={"answers": run.answers, "value": run.value})],
    )


def _make_tool(name: str, steps: tuple[Step, ...], trace: Trace) -> Tool:
    def body(tool_context: ToolContext, **_input: Any) -> ToolResult:
        use_id = tool_context.tool_use.tool_use_id
        trace.emit("tool_start", toolUseId=use_id, name=name)
        view = StateView(
            get=lambda key: tool_context.agent.state.get(key),
            has=lambda key: key in tool_context.agent.state,
            put=lambda key, value: tool_context.agent.state.set(key, value),
        )
        try:
            run = run_program(steps, interrupt=tool_context.interrupt, state=view)
        except BaseException:
            # The body stopped at an interrupt: a pause (InterruptRaised) or a refused one (a RocError such
            # as DUPLICATE_INTERRUPT_NAME or DIRECT_CALL_INTERRUPT). Either way it produced no result.
            trace.emit("tool_end", toolUseId=use_id, outcome="interrupted")
            raise
        if run.end == "fail":
            trace.emit("tool_end", toolUseId=use_id, outcome="failed")
            raise ScenarioToolFailure(run.fail_message)
        result = _tool_result(use_id, run)
        trace.emit("tool_end", toolUseId=use_id, outcome="returned")
        return result

    return Tool(name=name, fn=body, context=True, description=f"scenario tool {name}")


def _record_message_added(trace: Trace, event: MessageAddedEvent) -> None:
    """Record a MessageAdded event only if the history already ends with the message it announces.

    ROC-HOOK-003 asks for the event *after* the append. The event alone cannot show when it fired, but the
    history can: an event fired before its append (or for a message never appended) is left out of the
    trace, and the suite then sees fewer MessageAdded events than messages the history gained.
    """
    history = event.agent.messages
    if history and history[-1] == event.message:
        trace.emit("message_added", role=event.message.role)


class ScenarioHooks:
    """Registers the recorder callbacks, then the scenario's callbacks in spec order (hookIndex)."""

    def __init__(self, parsed: ParsedSpec, trace: Trace) -> None:
        self.parsed = parsed
        self.trace = trace

    def register_hooks(self, registry: HookRegistry, **_kwargs: Any) -> None:
        trace = self.trace
        registry.add_callback(
            BeforeToolsEvent,
            lambda e: trace.emit("before_tools", toolUseIds=[u.tool_use_id for u in e.message.tool_uses()]),
        )
        registry.add_callback(
            BeforeToolCallEvent, lambda e: trace.emit("before_tool_call", toolUseId=e.tool_use.tool_use_id)
        )
        registry.add_callback(MessageAddedEvent, lambda e: _record_message_added(trace, e))
        registry.add_callback(BeforeInvocationEvent, lambda e: trace.emit("before_invocation"))
        registry.add_callback(BeforeModelCallEvent, lambda e: trace.emit("before_model_call"))
        # An After* recorder must run before the scenario's callbacks of its event, and it must not mark the
        # event object to say it did (SDK events may refuse new attributes: strands-agents' do). The runtime
        # runs After* callbacks in reverse registration order (ROC-HOOK-014), so each recorder is registered
        # where that order runs it first: after the scenario's callbacks for a reverse-order event. (A
        # strands adapter gets the same effect from a lower HookOrder.)
        after = self._after_recorders()
        for event_type, record in after:
            if not event_type.reverse_order:
                registry.add_callback(event_type, record)
        for index, (event, tool_name, steps) in enumerate(self.parsed.hooks):
            self._register(registry, index, event, tool_name, steps)
        for event_type, record in after:
            if event_type.reverse_order:
                registry.add_callback(event_type, record)

    def _after_recorders(self) -> list[tuple[type[HookEvent], Callable[[Any], None]]]:
        trace = self.trace

        def after_tool_call(e: AfterToolCallEvent) -> None:
            trace.emit("after_tool_call", toolUseId=e.tool_use.tool_use_id, status=e.result.status)

        def after_tools(e: AfterToolsEvent) -> None:
            trace.emit("after_tools", toolUseIds=[r.tool_use_id for r in e.message.tool_results()])

        return [
            (AfterToolCallEvent, after_tool_call),
            (AfterToolsEvent, after_tools),
            (AfterInvocationEvent, lambda e: trace.emit("after_invocation")),
            (AfterModelCallEvent, lambda e: trace.emit("after_model_call")),
        ]

    def _register(
        self, registry: HookRegistry, index: int, event: str, tool_name: str | None, steps: tuple[Step, ...]
    ) -> None:
        trace = self.trace

        def view(agent: Agent) -> StateView:
            return StateView(get=agent.state.get, has=lambda k: k in agent.state, put=agent.state.set)

        if event == "BeforeToolCall":

            def before_tool_call(e: BeforeToolCallEvent) -> None:
                if tool_name is not None and e.tool_use.name != tool_name:
                    return
                trace.emit("hook_callback", event=event, hookIndex=index, toolUseId=e.tool_use.tool_use_id)
                run = run_program(steps, interrupt=e.interrupt, state=view(e.agent))
                if run.cancel is not None:
                    e.cancel_tool = run.cancel

            registry.add_callback(BeforeToolCallEvent, before_tool_call)
        elif event == "BeforeTools":

            def before_tools(e: BeforeToolsEvent) -> None:
                if tool_name is not None and all(u.name != tool_name for u in e.message.tool_uses()):
                    return
                trace.emit("hook_callback", event=event, hookIndex=index)
                run = run_program(steps, interrupt=e.interrupt, state=view(e.agent))
                if run.cancel is not None:
                    e.cancel = run.cancel

            registry.add_callback(BeforeToolsEvent, before_tools)
        elif event == "AfterToolCall":

            def after_tool_call(e: AfterToolCallEvent) -> None:
                if tool_name is not None and e.tool_use.name != tool_name:
                    return
                trace.emit("hook_callback", event=event, hookIndex=index, toolUseId=e.tool_use.tool_use_id)
                run_program(steps, interrupt=None, state=view(e.agent))

            registry.add_callback(AfterToolCallEvent, after_tool_call)
        else:

            def after_tools(e: AfterToolsEvent) -> None:
                if tool_name is not None and all(
                    u.name != tool_name for u in e.assistant_message.tool_uses()
                ):
                    return
                trace.emit("hook_callback", event=event, hookIndex=index)
                run_program(steps, interrupt=None, state=view(e.agent))

            registry.add_callback(AfterToolsEvent, after_tools)


@dataclass
class Built:
    """A scenario agent and its recorder."""

    agent: Agent
    trace: Trace
    parsed: ParsedSpec
    session: FileSessionManager | None = None


class Stores:
    """The session stores of one adapter process: one directory per store name, created on first use."""

    def __init__(self) -> None:
        self._root: tempfile.TemporaryDirectory[str] | None = None
        self._stores: dict[str, FileSessionStore] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> FileSessionStore:
        with self._lock:
            if self._root is None:
                self._root = tempfile.TemporaryDirectory(prefix="roc-harness-stores-")
            store = self._stores.get(name)
            if store is None:
                digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:24]
                store = FileSessionStore(Path(self._root.name) / digest)
                self._stores[name] = store
            return store

    def close(self) -> None:
        with self._lock:
            if self._root is not None:
                self._root.cleanup()
                self._root = None
            self._stores.clear()


def _session(parsed: ParsedSpec, stores: Stores | None) -> FileSessionManager | None:
    """The runtime's session manager for the binding (the store validates the session id: ROC-SEC-006)."""
    if parsed.session is None:
        return None
    if stores is None:
        raise ScenarioError("this adapter keeps no session stores")
    store_name, session_id = parsed.session
    keys = parsed.integrity_kwargs()
    signing = (keys["signing_key_id"], keys["integrity_keys"][keys["signing_key_id"]]) if keys else None
    return stores.get(store_name).manager(session_id, signing_key=signing)


def _parts(
    parsed: ParsedSpec, trace: Trace, offset: int
) -> tuple[CountingModel, list[Tool], ScenarioHooks, Executor]:
    model = CountingModel(parsed.turns, trace, offset)
    tools = [_make_tool(name, steps, trace) for name, steps in parsed.tools]
    executor: Executor = ConcurrentExecutor() if parsed.executor == "concurrent" else SequentialExecutor()
    return model, tools, ScenarioHooks(parsed, trace), executor


def build_agent(spec: Mapping[str, Any], stores: Stores | None = None) -> Built:
    """A fresh agent for ``spec``; with a session binding it loads whatever its session holds."""
    parsed = parse_spec(spec)
    trace = Trace()
    model, tools, hooks, executor = _parts(parsed, trace, 0)
    session = _session(parsed, stores)
    agent = Agent(
        model,
        tools=tools,
        hooks=[hooks],
        executor=executor,
        state=parsed.state,
        agent_id=parsed.agent_id,
        session=session,
        **parsed.integrity_kwargs(),
    )
    return Built(agent, trace, parsed, session)


def restore_agent(snapshot: Any, spec: Mapping[str, Any], model_turn_offset: int) -> Built:
    """A fresh agent built from ``spec`` (tools, hooks, model, executor) continuing from ``snapshot``.

    Raises the runtime's ``RocError`` (SNAPSHOT_*) for a snapshot it refuses.
    """
    parsed = parse_spec(spec)
    trace = Trace()
    model, tools, hooks, executor = _parts(parsed, trace, model_turn_offset)
    agent = Agent.from_snapshot(
        snapshot,
        model=model,
        tools=tools,
        hooks=[hooks],
        executor=executor,
        agent_id=parsed.agent_id,  # the definition's id: a snapshot of another agent is refused
        **parsed.integrity_kwargs(),
    )
    # Whatever fired while restoring stays in the trace; the servicer reports it with the new handle.
    return Built(agent, trace, parsed)


__all__ = ["Built", "ScenarioError", "Stores", "Trace", "build_agent", "restore_agent"]
