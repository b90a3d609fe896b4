"""Hook events, the hook registry, and fan-out with per-callback interrupt collection (ROC-HOOK-*).

Only ``BeforeToolsEvent`` and ``BeforeToolCallEvent`` are interruptible (ROC-HOOK-015). Callbacks run in
registration order, those of "after" events in reverse order. On an interruptible event every callback
runs even after another one raised (fan-out), and each callback contributes at most one interrupt per
pass (``interrupt`` unwinds it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from .decisions import InterruptDeclined
from .interrupts import InterruptRaised, UnitRun
from .types import AgentResult, Interrupt, Message, StopReason, ToolResult, ToolUse

if TYPE_CHECKING:
    from .agent import Agent

DEFAULT_CANCEL_TOOL_MESSAGE = "tool call cancelled"
DEFAULT_CANCEL_MESSAGE = "tool batch cancelled"


@dataclass
class HookEvent:
    """Base of every event; ``agent`` is the agent being run (state, messages)."""

    # ROC-HOOK-014: "after" callbacks run in reverse registration order, nesting inside "before" work.
    reverse_order: ClassVar[bool] = False

    agent: Agent


@dataclass
class BeforeInvocationEvent(HookEvent):
    """An invocation starts (after its input was accepted)."""


@dataclass
class AfterInvocationEvent(HookEvent):
    """An invocation ended with ``result``, or failed with ``error`` (ROC-HOOK-002: it fires either way)."""

    reverse_order = True

    result: AgentResult | None
    error: BaseException | None = None


@dataclass
class BeforeModelCallEvent(HookEvent):
    """The model is about to be called."""


@dataclass
class AfterModelCallEvent(HookEvent):
    """The model answered ``message`` with ``stop_reason``."""

    reverse_order = True

    message: Message
    stop_reason: StopReason


@dataclass
class MessageAddedEvent(HookEvent):
    """``message`` was appended to the history."""

    message: Message


@dataclass
class InterruptibleEvent(HookEvent):
    """An event whose callbacks may call ``interrupt(name, reason)``."""

    _unit: UnitRun | None = field(default=None, init=False, repr=False, compare=False)
    _owner: int = field(default=0, init=False, repr=False, compare=False)

    def interrupt(
        self,
        name: str,
        reason: Any = None,
        *,
        metadata: dict[str, Any] | None = None,
        expires_at: str | None = None,
        on_expiry: Mapping[str, Any] | None = None,
        response_schema: dict[str, Any] | None = None,
    ) -> Any:
        """Return the caller's answer to ``name``, or pause the agent until it is answered (ROC-HOOK-017).

        ``metadata`` (a JSON object, e.g. a UI hint) is reported with the interrupt unchanged (ROC-MODEL-014);
        so are ``expires_at`` (RFC 3339) and ``on_expiry`` (ROC-EXPIRY-001/002). A declined or cancelled
        interrupt raises ``InterruptDeclined`` (ROC-DECIDE-003); a callback that lets it escape gets the
        default outcome of its event (ROC-DECIDE-005/006). ``response_schema`` (portable subset, spec 14.2)
        is reported as ``responseSchema``; answers are validated against it before they are stored.
        """
        if self._unit is None:
            raise RuntimeError("interrupt() is only available while the event's callbacks run")
        extra: dict[str, Any] = {}
        # Only the keywords given: a unit replaced in tests may not know the later ones.
        if metadata is not None:
            extra["metadata"] = metadata
        if expires_at is not None:
            extra["expires_at"] = expires_at
        if on_expiry is not None:
            extra["on_expiry"] = on_expiry
        if response_schema is not None:
            extra["response_schema"] = response_schema
        return self._unit.interrupt(name, reason, owner=self._owner, **extra)

    def ask(
        self,
        name: str,
        question: Any,
        *,
        metadata: dict[str, Any] | None = None,
        expires_at: str | None = None,
        on_expiry: Mapping[str, Any] | None = None,
    ) -> Any:
        """Ask a structured question (profile questions, spec 15), as ``interrupt`` raises an interrupt: the
        reason is ``question``, the metadata says ``{"kind": "question"}``, the response schema is derived
        from the question (ROC-ASK-001); a malformed question fails with INVALID_REASON (ROC-ASK-002)."""
        if self._unit is None:
            raise RuntimeError("ask() is only available while the event's callbacks run")
        from .questions import ask  # here: questions imports the tools module, which imports this one

        return ask(
            self._unit,
            name,
            question,
            owner=self._owner,
            metadata=metadata,
            expires_at=expires_at,
            on_expiry=on_expiry,
        )

    def _decided(self, text: str) -> None:
        """The default outcome of a decision the callback did not handle (see the subclasses)."""
        raise NotImplementedError


@dataclass
class BeforeToolsEvent(InterruptibleEvent):
    """A batch of tool uses (``message``, the assistant message) is about to run.

    Set ``cancel`` to ``True`` or a message to give every tool without a result an error result
    (ROC-CANCEL-005).
    """

    message: Message = field(kw_only=True)
    cancel: bool | str = field(default=False, kw_only=True)

    def _decided(self, text: str) -> None:
        self.cancel = text  # ROC-DECIDE-006: as if the callback set cancel to the decision text


@dataclass
class BeforeToolCallEvent(InterruptibleEvent):
    """A tool use is about to run; ``cancel_tool`` = ``True`` or a message cancels it (ROC-CANCEL-001)."""

    tool_use: ToolUse = field(kw_only=True)
    cancel_tool: bool | str = field(default=False, kw_only=True)

    def _decided(self, text: str) -> None:
        self.cancel_tool = text  # ROC-DECIDE-005: as if the callback set cancel_tool to the decision text


@dataclass
class AfterToolCallEvent(HookEvent):
    """A tool use produced ``result`` (returned, failed or cancelled); ``result`` may be replaced."""

    reverse_order = True

    tool_use: ToolUse
    result: ToolResult
    cancel_message: str | None = None


@dataclass
class AfterToolsEvent(HookEvent):
    """A tool cycle ended; ``message`` is its tool-result message as it stands (ROC-HOOK-011)."""

    reverse_order = True

    assistant_message: Message
    message: Message


E = TypeVar("E", bound=HookEvent)
Callback = Callable[[Any], None]


class HookRegistry:
    """Typed callback registration and dispatch."""

    def __init__(self) -> None:
        self._callbacks: dict[type[HookEvent], list[Callback]] = {}

    def add_callback(self, event_type: type[E], callback: Callable[[E], None]) -> None:
        """Register ``callback`` for events of exactly ``event_type``."""
        self._callbacks.setdefault(event_type, []).append(callback)

    def add_hook(self, provider: HookProvider) -> None:
        """Let a provider register its callbacks."""
        provider.register_hooks(self)

    def has_callbacks(self, event_type: type[HookEvent]) -> bool:
        return bool(self._callbacks.get(event_type))

    def invoke(self, event: HookEvent) -> None:
        """Run every callback of a non-interruptible event (ROC-HOOK-013, ROC-HOOK-014 order)."""
        callbacks = list(self._callbacks.get(type(event), []))
        for callback in reversed(callbacks) if event.reverse_order else callbacks:
            callback(event)

    def invoke_interruptible(self, event: InterruptibleEvent, unit: UnitRun) -> list[Interrupt]:
        """Fan-out: run every callback, collect one interrupt per interrupting callback (ROC-HOOK-016)."""
        event._unit = unit  # one name scope for all callbacks of this event instance
        raised: list[Interrupt] = []
        try:
            for index, callback in enumerate(list(self._callbacks.get(type(event), []))):
                event._owner = index
                unit.raised = None
                try:
                    callback(event)
                except InterruptRaised as signal:  # ROC-HOOK-016, ROC-HOOK-017: every callback runs
                    raised.append(signal.interrupt)
                except InterruptDeclined as declined:  # ROC-DECIDE-005, ROC-DECIDE-006: not handled
                    event._decided(declined.text)
                    if unit.raised is not None:  # ROC-REPLAY-009: a pause it caught before still stands
                        raised.append(unit.raised)
                else:
                    if unit.raised is not None:  # ROC-REPLAY-009: the callback caught its own pause
                        raised.append(unit.raised)
                if unit.error is not None:  # a misuse the callback swallowed still fails the invocation
                    raise unit.error
        finally:
            event._unit = None
        return raised


class HookProvider(Protocol):
    """An object that registers callbacks, e.g. an approval policy."""

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None: ...


def cancel_text(value: bool | str, default: str) -> str | None:
    """The cancellation message for ``cancel``/``cancel_tool``, ``None`` when not cancelled.

    ROC-CANCEL-002, ROC-CANCEL-003, ROC-CANCEL-004: ``True`` gives the default message; any string,
    even ``""``, is the message (a cancel is judged by presence, like an answer).
    """
    if value is False or value is None:
        return None
    return default if value is True else str(value)


# --- multi-agent orchestration (profile multi-agent, spec chapter 13) ---------------------------------

if TYPE_CHECKING:
    from .orchestration import Orchestrator

DEFAULT_CANCEL_NODE_MESSAGE = "node call cancelled"


@dataclass
class BeforeNodeCallEvent(InterruptibleEvent):
    """A node of a graph or swarm is about to run: ``agent`` is the node's agent, not yet invoked for this
    visit; ``visit`` counts the node's runs in ``orchestrator`` (1 for the first).

    Callbacks may ``interrupt`` (ROC-GRAPH-001..003: fan-out, one interrupt per callback, names unique per
    event instance). ``cancel_node`` = ``True`` or a message cancels the node: its agent does not run and its
    successors do not run (ROC-GRAPH-004).
    """

    orchestrator: Orchestrator = field(kw_only=True)
    node_id: str = field(kw_only=True)
    visit: int = field(kw_only=True)
    cancel_node: bool | str = field(default=False, kw_only=True)

    def _decided(self, text: str) -> None:
        self.cancel_node = text  # ROC-GRAPH-005: as if the callback set cancel_node to the decision text


@dataclass
class AfterNodeCallEvent(HookEvent):
    """A node's agent completed its visit with ``result`` (ROC-GRAPH-015: never fired for a node that stopped
    with interrupts or was cancelled)."""

    reverse_order = True

    orchestrator: Orchestrator = field(kw_only=True)
    node_id: str = field(kw_only=True)
    visit: int = field(kw_only=True)
    result: AgentResult = field(kw_only=True)
