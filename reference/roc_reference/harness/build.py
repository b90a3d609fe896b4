"""A kit ``Scenario`` -> a live ``roc_reference.Agent`` whose every observable step is recorded as a trace.

The adapter kit (``roc_conformance.adapter``) parses the scenario, runs the step programs, plays the
scripted model and writes the events; this module puts those pieces on the runtime's public surfaces, the
way an adapter for any SDK would: hook callbacks placed so that they run before the scenario's own
callbacks of the same event (so each event is recorded before the callbacks it runs; for After* events,
which run in reverse registration order, that means registered last), tool wrappers around the step
programs, and a model wrapper around the kit's scripted model. Nothing is written onto event objects.

Decisions (profile decisions): the runtime's interrupt operation raises ``InterruptDeclined`` for a declined
or cancelled interrupt. ``decision_of`` recognises it, so a step with ``handleDecision`` catches it and takes
``{"decision", "message"?}`` as its answer, and a step without lets it propagate to the runtime's default
outcome. ``expiresAt`` and ``onExpiry`` reach the raise through the kit as they are.

Sub-agents (profile agent-as-tool, harness protocol 5): a ``runAgent`` step calls ``tool_context.run_agent``
with a definition built afresh from the nested scenario (``sub_agent``), recording into the outer tool use's
nested recorder (``Trace.nested``), so every event of the sub-agent carries its ``agentPath``. The adapter
keeps no sub-agent itself: the runtime decides whether the call starts, resumes or only reports one. The
definition's model (``HistoryModel``) answers the turn its history stands at.

Questions (profile questions, harness protocol 6): an ``ask`` step calls the question API of its unit
(``tool_context.ask`` or ``event.ask``); ``builtinTools: ["ask_user"]`` adds the runtime's own ``ask_user``
tool (``roc_reference.questions.ask_user``), its body wrapped only to record ``tool_start`` / ``tool_end``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from roc_conformance.adapter import (
    HookProgram,
    Scenario,
    ScenarioError,
    ScriptedModel,
    StateView,
    StoreDirectories,
    ToolProgram,
    Trace,
    assistant_turns,
    parse_scenario,
    run_hook,
    run_program,
    tool_result_content,
)

from roc_reference.agent import Agent
from roc_reference.approval import ApprovalHook
from roc_reference.decisions import InterruptDeclined
from roc_reference.executors import ConcurrentExecutor, Executor, SequentialExecutor
from roc_reference.guard import ResumeGuard
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
from roc_reference.questions import ASK_USER, ask_user
from roc_reference.schemas import subset_problem
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.tools import Tool, ToolContext
from roc_reference.types import (
    AgentResult,
    Interrupt,
    InterruptResponse,
    JsonContent,
    Message,
    TextBlock,
    ToolResult,
)


def _messages(scenario: Scenario) -> tuple[Message, ...]:
    """The scripted turns as the runtime's assistant messages (validated once, at build time)."""
    turns: list[Message] = []
    for i, content in enumerate(scenario.turns):
        try:
            turns.append(Message.model_validate({"role": "assistant", "content": content}))
        except ValueError as exc:
            raise ScenarioError(f"model.turns[{i}]: {exc}") from exc
    return tuple(turns)


class CountingModel:
    """The runtime's model interface over the kit's scripted model (which records ``model_call``)."""

    def __init__(self, turns: Sequence[Message], trace: Trace, offset: int = 0) -> None:
        self.turns = list(turns)
        # The script's content is only counted here: the answers are the messages validated at build time.
        self.script = ScriptedModel([[]] * len(self.turns), trace, offset)

    @property
    def next_turn(self) -> int:
        return self.script.next_turn

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        reply = self.script.next_reply()
        if reply.exhausted:
            return ModelTurn(Message(role="assistant", content=[TextBlock(text=EXHAUSTED_TEXT)]), "end_turn")
        message = self.turns[reply.turn]
        return ModelTurn(message, "tool_use" if message.tool_uses() else "end_turn")


class HistoryModel:
    """A sub-agent's model (harness protocol 5): it answers the turn its history stands at, as a real model
    reads the conversation, so a resumed, restored or concurrent instance of one definition needs no
    position of its own."""

    def __init__(self, turns: Sequence[Message], trace: Trace) -> None:
        self.turns = list(turns)
        self.script = ScriptedModel([[]] * len(self.turns), trace)

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        reply = self.script.reply_at(assistant_turns([m.to_json() for m in messages]))
        if reply.exhausted:
            return ModelTurn(Message(role="assistant", content=[TextBlock(text=EXHAUSTED_TEXT)]), "end_turn")
        message = self.turns[reply.turn]
        return ModelTurn(message, "tool_use" if message.tool_uses() else "end_turn")


def final_text(result: AgentResult) -> str:
    """What a ``runAgent`` step receives: the text blocks of the sub-agent's final message, joined."""
    return "".join(b.text for b in result.message.content if isinstance(b, TextBlock))


def sub_agent(scenario: Scenario, trace: Trace) -> Agent:
    """A fresh definition of the nested scenario of a ``runAgent`` step, recording into ``trace`` (the nested
    recorder of the outer tool use). Built anew for every run of the step: the runtime spawns the instance
    it runs (or resumes) from it, and the definition's parts only say how the sub-agent is made. Integrity
    and session bindings of the nested spec are ignored: a sub-agent travels inside its parent's snapshot."""
    tools = _tools(scenario, trace)
    executor: Executor = ConcurrentExecutor() if scenario.executor == "concurrent" else SequentialExecutor()
    return Agent(
        HistoryModel(_messages(scenario), trace),
        tools=tools,
        hooks=[ScenarioHooks(scenario, trace)],
        executor=executor,
        state=scenario.state,
        agent_id=scenario.agent_id,
    )


def decision_of(exc: BaseException) -> dict[str, Any] | None:
    """The ``{"decision", "message"?}`` a handled decision hands the program; ``None`` for anything else."""
    if not isinstance(exc, InterruptDeclined):
        return None
    doc: dict[str, Any] = {"decision": exc.decision}
    if exc.message is not None:
        doc["message"] = exc.message
    return doc


def _make_tool(program: ToolProgram, trace: Trace) -> Tool:
    def body(tool_context: ToolContext, **_input: Any) -> ToolResult:
        use_id = tool_context.tool_use.tool_use_id
        view = StateView(
            get=lambda key: tool_context.agent.state.get(key),
            has=lambda key: key in tool_context.agent.state,
            put=lambda key, value: tool_context.agent.state.set(key, value),
        )

        # A ``fail`` step raises the kit's ToolFailure: the runtime, not the adapter, must turn a failing
        # body into an error result (ROC-TOOL-008); otherwise the suite would only see the adapter.
        def run_agent(scenario: Scenario, prompt: str) -> str:
            # ROC-AGENT-001: the runtime's sub-agent call; a sub-agent that stops stops this body with it.
            return final_text(tool_context.run_agent(sub_agent(scenario, trace.nested(use_id)), prompt))

        # tool_start carries the input the body received: after an approval's edit, the edited one (16.5)
        with trace.tool_body(use_id, program.name, decision_of=decision_of, tool_input=dict(_input)):
            content = tool_result_content(
                run_program(
                    program.steps,
                    interrupt=tool_context.interrupt,
                    state=view,
                    decision_of=decision_of,
                    run_agent=run_agent,
                    await_streamed=trace.await_streamed,  # profile streaming: the consumer wakes it
                    ask=tool_context.ask,  # profile questions: the runtime's question API
                )
            )
            return ToolResult(
                tool_use_id=use_id, status="success", content=[JsonContent(json=b["json"]) for b in content]
            )

    # ``inputSchema`` (profile approval): the runtime refuses one outside the portable subset, as ``@tool``
    # does; the scenario then cannot be built.
    if program.input_schema is not None and (problem := subset_problem(program.input_schema)) is not None:
        raise ScenarioError(f"tool {program.name!r}: inputSchema is outside the portable subset: {problem}")
    return Tool(
        name=program.name,
        fn=body,
        context=True,
        description=f"scenario tool {program.name}",
        input_schema=program.input_schema,
    )


def _builtin_tool(name: str, trace: Trace) -> Tool:
    """The runtime's built-in tool ``name`` of ``AgentSpec.builtinTools`` (harness protocol 6), recording
    ``tool_start`` / ``tool_end`` around its body like a scenario tool; the body is the runtime's own."""
    builtin = {ASK_USER: ask_user}.get(name)  # profile questions, spec 15.4
    if builtin is None:
        raise ScenarioError(f"builtinTools: this runtime has no built-in tool {name!r}")

    def body(tool_context: ToolContext, **tool_input: Any) -> Any:
        with trace.tool_body(tool_context.tool_use.tool_use_id, name, decision_of=decision_of):
            return builtin.fn(tool_context, **tool_input)

    return replace(builtin, fn=body, context=True)


def _tools(scenario: Scenario, trace: Trace) -> list[Tool]:
    """The scenario's tools, then its built-in ones."""
    tools = [_make_tool(program, trace) for program in scenario.tools]
    return tools + [_builtin_tool(name, trace) for name in scenario.builtin_tools]


def _record_message_added(trace: Trace, event: MessageAddedEvent) -> None:
    """Record a MessageAdded event only if the history already ends with the message it announces.

    ROC-HOOK-003 asks for the event *after* the append. The event alone cannot show when it fired, but the
    history can: an event fired before its append (or for a message never appended) is left out of the
    trace, and the suite then sees fewer MessageAdded events than messages the history gained.
    """
    if event.agent.last_message == event.message:
        trace.message_added(event.message.role)


def _view(agent: Agent) -> StateView:
    return StateView(get=agent.state.get, has=lambda k: k in agent.state, put=agent.state.set)


class ScenarioHooks:
    """Registers the recorder callbacks, then the scenario's callbacks in spec order (hookIndex)."""

    def __init__(self, scenario: Scenario, trace: Trace) -> None:
        self.scenario = scenario
        self.trace = trace

    def register_hooks(self, registry: HookRegistry, **_kwargs: Any) -> None:
        trace = self.trace
        registry.add_callback(
            BeforeToolsEvent, lambda e: trace.before_tools([u.tool_use_id for u in e.message.tool_uses()])
        )
        registry.add_callback(BeforeToolCallEvent, lambda e: trace.before_tool_call(e.tool_use.tool_use_id))
        registry.add_callback(MessageAddedEvent, lambda e: _record_message_added(trace, e))
        registry.add_callback(BeforeInvocationEvent, lambda e: trace.before_invocation())
        registry.add_callback(BeforeModelCallEvent, lambda e: trace.before_model_call())
        # An After* recorder must run before the scenario's callbacks of its event, and it must not mark the
        # event object to say it did (SDK events may refuse new attributes: strands-agents' do). The runtime
        # runs After* callbacks in reverse registration order (ROC-HOOK-014), so each recorder is registered
        # where that order runs it first: after the scenario's callbacks for a reverse-order event. (A
        # strands adapter gets the same effect from a lower HookOrder.)
        after = self._after_recorders()
        for event_type, record in after:
            if not event_type.reverse_order:
                registry.add_callback(event_type, record)
        if self.scenario.approval:  # profile approval: the runtime's ready hook, before the scenario's hooks
            policies = {name: list(d) for name, d in self.scenario.approval.items()}
            ApprovalHook(policies).register_hooks(registry)
        for hook in self.scenario.hooks:
            self._register(registry, hook)
        for event_type, record in after:
            if event_type.reverse_order:
                registry.add_callback(event_type, record)

    def _after_recorders(self) -> list[tuple[type[HookEvent], Callable[[Any], None]]]:
        trace = self.trace

        def after_tool_call(e: AfterToolCallEvent) -> None:
            trace.after_tool_call(e.tool_use.tool_use_id, e.result.status)

        def after_tools(e: AfterToolsEvent) -> None:
            trace.after_tools([r.tool_use_id for r in e.message.tool_results()])

        return [
            (AfterToolCallEvent, after_tool_call),
            (AfterToolsEvent, after_tools),
            (AfterInvocationEvent, lambda e: trace.after_invocation()),
            (AfterModelCallEvent, lambda e: trace.after_model_call()),
        ]

    def _register(self, registry: HookRegistry, hook: HookProgram) -> None:
        trace = self.trace
        if hook.event == "BeforeToolCall":

            def before_tool_call(e: BeforeToolCallEvent) -> None:
                if hook.applies_to([e.tool_use.name]):
                    use_id = e.tool_use.tool_use_id
                    run = run_hook(
                        trace,
                        hook,
                        interrupt=e.interrupt,
                        state=_view(e.agent),
                        tool_use_id=use_id,
                        decision_of=decision_of,
                        ask=e.ask,
                    )
                    if run.cancel is not None:
                        e.cancel_tool = run.cancel

            registry.add_callback(BeforeToolCallEvent, before_tool_call)
        elif hook.event == "BeforeTools":

            def before_tools(e: BeforeToolsEvent) -> None:
                if hook.applies_to([u.name for u in e.message.tool_uses()]):
                    run = run_hook(
                        trace,
                        hook,
                        interrupt=e.interrupt,
                        state=_view(e.agent),
                        decision_of=decision_of,
                        ask=e.ask,
                    )
                    if run.cancel is not None:
                        e.cancel = run.cancel

            registry.add_callback(BeforeToolsEvent, before_tools)
        elif hook.event == "AfterToolCall":

            def after_tool_call(e: AfterToolCallEvent) -> None:
                if hook.applies_to([e.tool_use.name]):
                    run_hook(
                        trace, hook, interrupt=None, state=_view(e.agent), tool_use_id=e.tool_use.tool_use_id
                    )

            registry.add_callback(AfterToolCallEvent, after_tool_call)
        else:

            def after_tools(e: AfterToolsEvent) -> None:
                if hook.applies_to([u.name for u in e.assistant_message.tool_uses()]):
                    run_hook(trace, hook, interrupt=None, state=_view(e.agent))

            registry.add_callback(AfterToolsEvent, after_tools)


@dataclass
class Built:
    """A scenario agent and its recorder."""

    agent: Agent
    trace: Trace
    scenario: Scenario
    session: FileSessionManager | None = None


class Stores:
    """The session stores of one adapter process: one runtime store per store name, created on first use."""

    def __init__(self) -> None:
        self._dirs = StoreDirectories()
        self._stores: dict[str, FileSessionStore] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> FileSessionStore:
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                store = FileSessionStore(self._dirs.path(name))
                self._stores[name] = store
            return store

    def close(self) -> None:
        with self._lock:
            self._dirs.close()
            self._stores.clear()


def _integrity_kwargs(scenario: Scenario) -> dict[str, Any]:
    """Agent keyword arguments for the configured integrity key (sign on write, verify on read)."""
    key = scenario.integrity
    return {} if key is None else {"integrity_keys": {key.key_id: key.secret}, "signing_key_id": key.key_id}


def _session(scenario: Scenario, stores: Stores | None) -> FileSessionManager | None:
    """The runtime's session manager for the binding (the store validates the session id: ROC-SEC-006)."""
    if scenario.session is None:
        return None
    if stores is None:
        raise ScenarioError("this adapter keeps no session stores")
    key = scenario.integrity
    signing = None if key is None else (key.key_id, key.secret)
    return stores.get(scenario.session.store).manager(scenario.session.session_id, signing_key=signing)


def _parts(
    scenario: Scenario, trace: Trace, offset: int
) -> tuple[CountingModel, list[Tool], ScenarioHooks, Executor]:
    model = CountingModel(_messages(scenario), trace, offset)
    tools = _tools(scenario, trace)
    executor: Executor = ConcurrentExecutor() if scenario.executor == "concurrent" else SequentialExecutor()
    return model, tools, ScenarioHooks(scenario, trace), executor


def _recording_guard(scenario: Scenario, trace: Trace) -> ResumeGuard | None:
    """``recordResumeGuard`` (profile audit): a guard that accepts every input and records what it saw, the
    blocks with their metadata and the metadata kept for the answers given before (ROC-AUDIT-005)."""
    if not scenario.record_resume_guard:
        return None

    def guard(
        interrupts: list[Interrupt], responses: list[InterruptResponse], kept: list[InterruptResponse]
    ) -> None:
        trace.resume_guard(
            [r.to_json() for r in responses],
            [{"interruptId": r.interrupt_id, "metadata": r.metadata} for r in kept if r.metadata is not None],
        )

    return guard


def build(scenario: Scenario, trace: Trace, stores: Stores | None = None) -> Built:
    """A fresh agent for ``scenario``; with a session binding it loads whatever its session holds."""
    model, tools, hooks, executor = _parts(scenario, trace, 0)
    session = _session(scenario, stores)
    agent = Agent(
        model,
        tools=tools,
        hooks=[hooks],
        executor=executor,
        state=scenario.state,
        agent_id=scenario.agent_id,
        session=session,
        resume_guard=_recording_guard(scenario, trace),
        **_integrity_kwargs(scenario),
    )
    return Built(agent, trace, scenario, session)


def restore(snapshot: Any, scenario: Scenario, trace: Trace, model_turn_offset: int) -> Built:
    """A fresh agent built from ``scenario`` (tools, hooks, model, executor) continuing from ``snapshot``.

    Raises the runtime's ``RocError`` (SNAPSHOT_*) for a snapshot it refuses.
    """
    model, tools, hooks, executor = _parts(scenario, trace, model_turn_offset)
    agent = Agent.from_snapshot(
        snapshot,
        model=model,
        tools=tools,
        hooks=[hooks],
        executor=executor,
        agent_id=scenario.agent_id,  # the definition's id: a snapshot of another agent is refused
        resume_guard=_recording_guard(scenario, trace),
        **_integrity_kwargs(scenario),
    )
    return Built(agent, trace, scenario)


def build_agent(spec: Mapping[str, Any], stores: Stores | None = None) -> Built:
    """``build`` from an AgentSpec's JSON (for tests and tools that hold a spec, not a kit ``Scenario``)."""
    return build(parse_scenario(spec), Trace(), stores)


def restore_agent(snapshot: Any, spec: Mapping[str, Any], model_turn_offset: int) -> Built:
    """``restore`` from an AgentSpec's JSON; events fired while restoring stay in the trace."""
    return restore(snapshot, parse_scenario(spec), Trace(), model_turn_offset)


__all__ = [
    "Built",
    "ScenarioError",
    "Stores",
    "Trace",
    "build",
    "build_agent",
    "decision_of",
    "restore",
    "restore_agent",
]
