"""The trace of one Invoke: a thread-safe event recorder and helpers that write each event kind.

Event kinds and fields are the table in conformance/README.md ("The trace"). An adapter calls the helper
named after the event where its runtime fires it; the recorder must run before the scenario's own callbacks
of that event (README, "Rules the oracle relies on"). ``invocation_start`` and ``invocation_end`` are written
by the kit's service around each Invoke, never by the adapter.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from roc_conformance.adapter.programs import DecisionOf, ProgramRun, StateView, ToolFailure, run_program
from roc_conformance.adapter.scenario import HookProgram


class _Sink:
    """The events of one agent and of every sub-agent it runs, in the order they were recorded."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        # Names of the interrupts the consumer of this Invoke's stream received (profile streaming); an
        # ``awaitStreamed`` step waits on ``streamed`` for its name. Cleared by ``take``.
        self.streamed_names: set[str] = set()
        self.streamed = threading.Condition(self.lock)


class Trace:
    """The events recorded since the last ``take``, in order; safe to record from several threads.

    ``nested(tool_use_id)`` is the recorder of the sub-agent that tool use runs (profile agent-as-tool,
    harness protocol 5): it writes into the same trace, each event with ``agentPath``, the outer toolUseIds
    from the top agent down. The top agent's events carry no ``agentPath``.
    """

    def __init__(self) -> None:
        self._sink = _Sink()
        self._path: tuple[str, ...] = ()

    @property
    def agent_path(self) -> tuple[str, ...]:
        """Whose events this recorder writes: ``()`` for the top agent."""
        return self._path

    def nested(self, tool_use_id: str) -> Trace:
        """The recorder of the sub-agent run by tool use ``tool_use_id`` of this recorder's agent."""
        child = Trace.__new__(Trace)
        child._sink = self._sink
        child._path = (*self._path, tool_use_id)
        return child

    def node(self, node_id: str) -> Trace:
        """The recorder of the agent of node ``node_id`` of an orchestrator (profile multi-agent): its events
        carry ``agentPath`` ``["node:<node id>", ...]``."""
        return self.nested("node:" + node_id)

    def emit(self, kind: str, **fields: Any) -> None:
        """Record one event ``{"kind": kind, **fields}`` (prefer the named helpers below)."""
        event = {"kind": kind, **fields}
        if self._path:
            event["agentPath"] = list(self._path)
        with self._sink.lock:
            self._sink.events.append(event)

    def take(self) -> list[dict[str, Any]]:
        """The events recorded so far (by this recorder and its nested ones), removing them.

        It also forgets the interrupts streamed so far: the service takes at each Invoke's start, so an
        ``awaitStreamed`` step waits only for the events of its own invocation."""
        with self._sink.lock:
            events, self._sink.events = self._sink.events, []
            self._sink.streamed_names.clear()
            return events

    # -- streaming (profile streaming, harness protocol 6) ----------------------------------------------

    def streamed_interrupt(self, interrupt: Any) -> None:
        """The consumer of the invocation's stream received an interrupt event (``interrupt``: its JSON).

        Records ``streamed_interrupt`` and wakes the ``awaitStreamed`` steps waiting for its name. The kit's
        service calls it for each interrupt event of a streamed Invoke (``RuntimeAdapter.stream``)."""
        self.emit("streamed_interrupt", interrupt=interrupt)
        name = interrupt.get("name") if isinstance(interrupt, dict) else None
        with self._sink.streamed:
            if isinstance(name, str):
                self._sink.streamed_names.add(name)
            self._sink.streamed.notify_all()

    def await_streamed(self, name: str, timeout_seconds: float) -> bool:
        """Block until an interrupt named ``name`` was streamed in this invocation, or the timeout ends;
        whether it was (an ``awaitStreamed`` step: pass it to ``run_program`` as ``await_streamed``)."""
        with self._sink.streamed:
            return self._sink.streamed.wait_for(lambda: name in self._sink.streamed_names, timeout_seconds)

    # -- audit (profile audit, harness protocol 6) -------------------------------------------------------

    def resume_guard(self, responses: Sequence[dict[str, Any]], kept: Sequence[dict[str, Any]]) -> None:
        """The resume guard installed for ``recordResumeGuard`` saw a resume input (spec 10.7).

        ``responses``: each block's ``interruptResponse`` body as the guard received it (``interruptId``,
        ``response`` or ``decision`` and ``message``, ``metadata``), in input order; ``kept``:
        ``{"interruptId", "metadata"}`` of each interrupt of the batch already answered or decided whose
        answer came with metadata, as the runtime showed them to the guard."""
        self.emit("resume_guard", responses=copy.deepcopy(list(responses)), kept=copy.deepcopy(list(kept)))

    # -- lifecycle events of the runtime ---------------------------------------------------------------

    def before_invocation(self) -> None:
        self.emit("before_invocation")

    def after_invocation(self) -> None:
        self.emit("after_invocation")

    def before_model_call(self) -> None:
        self.emit("before_model_call")

    def after_model_call(self) -> None:
        self.emit("after_model_call")

    def model_call(self, turn: int) -> None:
        """The scripted model was called and answers script index ``turn`` (``ScriptedModel`` does this)."""
        self.emit("model_call", turn=turn)

    def message_added(self, role: str) -> None:
        """A message was appended to the history (record it only after the append: ROC-HOOK-003)."""
        self.emit("message_added", role=role)

    # -- tool events ------------------------------------------------------------------------------------

    def before_tools(self, tool_use_ids: Sequence[str]) -> None:
        """BeforeTools fired for a cycle; ids in the assistant message's order."""
        self.emit("before_tools", toolUseIds=list(tool_use_ids))

    def before_tool_call(self, tool_use_id: str) -> None:
        self.emit("before_tool_call", toolUseId=tool_use_id)

    def after_tool_call(self, tool_use_id: str, status: str) -> None:
        """AfterToolCall fired with a result of ``status`` (``success`` or ``error``)."""
        self.emit("after_tool_call", toolUseId=tool_use_id, status=status)

    def after_tools(self, tool_use_ids: Sequence[str]) -> None:
        """AfterTools fired; ids of the results in its tool-result message, in message order."""
        self.emit("after_tools", toolUseIds=list(tool_use_ids))

    def hook_callback(self, event: str, hook_index: int, tool_use_id: str | None = None) -> None:
        """A scenario callback runs (``tool_use_id`` for the per-tool events only)."""
        if tool_use_id is None:
            self.emit("hook_callback", event=event, hookIndex=hook_index)
        else:
            self.emit("hook_callback", event=event, hookIndex=hook_index, toolUseId=tool_use_id)

    # -- orchestrator events (profile multi-agent, harness protocol 5) ---------------------------------

    def node_start(self, node_id: str, visit: int) -> None:
        """The orchestrator takes up a node run in this invocation (at most once per run and invocation)."""
        self.emit("node_start", nodeId=node_id, visit=visit)

    def node_end(self, node_id: str, visit: int, outcome: str) -> None:
        """A node run ended in this invocation: ``completed``, ``interrupted`` or ``cancelled``."""
        self.emit("node_end", nodeId=node_id, visit=visit, outcome=outcome)

    def node_hook_callback(self, event: str, hook_index: int, node_id: str, visit: int) -> None:
        """A scenario callback on a node event runs (``BeforeNodeCall`` or ``AfterNodeCall``)."""
        self.emit("hook_callback", event=event, hookIndex=hook_index, nodeId=node_id, visit=visit)

    def tool_start(self, tool_use_id: str, name: str, tool_input: dict[str, Any] | None = None) -> None:
        """``tool_input``: the input the body received (harness protocol 6), recorded when given."""
        if tool_input is None:
            self.emit("tool_start", toolUseId=tool_use_id, name=name)
        else:
            self.emit("tool_start", toolUseId=tool_use_id, name=name, input=copy.deepcopy(tool_input))

    def tool_end(self, tool_use_id: str, outcome: str) -> None:
        """``outcome``: ``returned``, ``failed`` or ``interrupted``."""
        self.emit("tool_end", toolUseId=tool_use_id, outcome=outcome)

    @contextmanager
    def tool_body(
        self,
        tool_use_id: str,
        name: str,
        *,
        decision_of: DecisionOf | None = None,
        tool_input: dict[str, Any] | None = None,
    ) -> Iterator[None]:
        """Around a tool body: ``tool_start`` on entry, ``tool_end`` on the way out.

        The outcome follows how the block ends: normally, ``returned``; with ``ToolFailure`` (a ``fail``
        step) or a decision the body did not handle (what ``decision_of`` recognises; the runtime makes it
        an error result, ROC-DECIDE-004), ``failed``; with any other exception, ``interrupted``: the body
        stopped at an interrupt call, whether the runtime paused it (its pause signal) or refused the
        interrupt (its error). The exception always propagates, for the runtime to handle. ``tool_input``
        (harness protocol 6): the input the body received, which ``tool_start`` carries (spec 16.5: after an
        approval's edit, the edited input), so the suite sees what ran.
        """
        self.tool_start(tool_use_id, name, tool_input)
        try:
            yield
        except ToolFailure:
            self.tool_end(tool_use_id, "failed")
            raise
        except Exception as exc:
            decided = decision_of is not None and decision_of(exc) is not None
            self.tool_end(tool_use_id, "failed" if decided else "interrupted")
            raise
        except BaseException:
            self.tool_end(tool_use_id, "interrupted")
            raise
        self.tool_end(tool_use_id, "returned")


def run_hook(
    trace: Trace,
    hook: HookProgram,
    *,
    interrupt: Callable[..., Any] | None,
    state: StateView,
    tool_use_id: str | None = None,
    decision_of: DecisionOf | None = None,
    ask: Callable[[str, Any], Any] | None = None,
) -> ProgramRun:
    """Record ``hook_callback`` for a scenario callback, then run its program.

    Call it only when the callback applies (``hook.applies_to``). ``interrupt`` is the event's raise API
    (``None`` for After* events, whose programs cannot interrupt); ``tool_use_id`` is given for per-tool
    events; ``ask`` is the event's question API for ``ask`` steps (profile questions). The caller applies
    ``run.cancel`` (``True``: cancel with the runtime's default message).
    """
    trace.hook_callback(hook.event, hook.index, tool_use_id if hook.per_tool else None)
    return run_program(hook.steps, interrupt=interrupt, state=state, decision_of=decision_of, ask=ask)
