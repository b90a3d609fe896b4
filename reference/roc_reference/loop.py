"""The agent loop: model call, BeforeTools, per tool BeforeToolCall, body, AfterToolCall, AfterTools.

One *cycle* handles one assistant message with tool uses. Its assistant message and tool-result message
are appended to the history only when the cycle completes; until then they live in the interrupt state's
pending tool execution, so the history never holds a toolUse without its toolResult
(ROC-TOOL-005, ROC-TOOL-006).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .approval_data import with_edit_prefix
from .errors import InternalError, RocError
from .executors import Executor, ToolOutcome
from .hooks import (
    DEFAULT_CANCEL_MESSAGE,
    DEFAULT_CANCEL_TOOL_MESSAGE,
    AfterModelCallEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookRegistry,
    cancel_text,
)
from .interrupts import AnswerBook, InterruptRaised, InterruptState, RaisePoint, UnitRun
from .models import Model, ModelTurn
from .subagents import SubAgentCall
from .tools import Tool, ToolContext
from .types import (
    AgentResult,
    Interrupt,
    Message,
    PendingToolExecution,
    ToolResult,
    ToolUse,
    error_result,
    private_copy,
    tool_result_message,
)

if TYPE_CHECKING:
    from .agent import Agent


@dataclass
class CycleOutcome:
    """The end of one tool cycle: interrupts raised (empty when it completed), results so far, and the units
    that ran (``(source kind, toolUseId)``: what may withdraw an interrupt, ROC-ANSWER-005)."""

    interrupts: list[Interrupt]
    pending: PendingToolExecution
    result_message: Message | None = None
    ran: frozenset[tuple[str, str | None]] = frozenset()
    children: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The batch's sub-agents as they stand after this cycle (``interruptState.children``)."""


@dataclass
class Loop:
    """Everything one invocation works on. ``append`` records a message and fires MessageAdded."""

    agent: Agent
    model: Model
    hooks: HookRegistry
    tools: Mapping[str, Tool]
    executor: Executor
    interrupts: InterruptState
    messages: list[Message]
    append: Callable[[Message], None]
    # Called after each batch completes: the point an INTERNAL failure rolls back to (ROC-ERR-012).
    checkpoint: Callable[[], None] = lambda: None

    def run(self) -> AgentResult:
        """Run cycles until the model ends its turn or an interrupt stops the invocation."""
        while True:
            if self.interrupts.pending is not None:
                # ROC-TOOL-013: resuming a pending batch; no model call until every tool use has a result.
                pending = self.interrupts.pending
            else:
                self.hooks.invoke(BeforeModelCallEvent(self.agent))
                turn = self._call_model()
                # A private copy: the model (and whoever holds its turns) keeps no handle on the batch.
                turn = replace(turn, message=private_copy(turn.message))
                self.hooks.invoke(AfterModelCallEvent(self.agent, turn.message, turn.stop_reason))
                if not turn.message.tool_uses():  # ROC-TOOL-001: the turn ends the invocation
                    self.append(turn.message)
                    stop = "end_turn" if turn.stop_reason == "tool_use" else turn.stop_reason
                    # The caller gets copies: nothing it holds aliases the history (spec 10.2).
                    return AgentResult(stop_reason=stop, message=private_copy(turn.message))
                pending = PendingToolExecution(assistant_message=turn.message, completed_tool_results=[])
            outcome = self.run_cycle(pending)
            if outcome.interrupts:
                # ROC-STOP-001, ROC-STOP-004: an unanswered interrupt ends the invocation; no model call.
                reported = self.interrupts.stop(
                    outcome.interrupts, outcome.pending, outcome.ran, outcome.children
                )
                # ROC-SNAP-013, spec 10.2: the caller gets copies, so editing the result after the stop cannot
                # change the pending batch, what runs on resume, or the reasons a snapshot stores.
                return AgentResult(
                    stop_reason="interrupt",
                    message=private_copy(pending.assistant_message),
                    interrupts=[private_copy(i) for i in reported],
                )
            assert outcome.result_message is not None
            # ROC-TOOL-003, ROC-TOOL-005: deferred append; both messages enter the history now, together.
            self.append(pending.assistant_message)
            self.append(outcome.result_message)
            self.interrupts.complete_cycle()  # ROC-ANSWER-007: consumed on completion
            self.checkpoint()

    def _call_model(self) -> ModelTurn:
        """One model call; a failure of the model or its provider is INTERNAL (ROC-ERR-011)."""
        try:
            return self.model.call(tuple(self.messages))
        except RocError:
            raise
        except Exception as exc:
            raise InternalError(f"the model call failed: {type(exc).__name__}: {exc}") from exc

    def run_cycle(self, pending: PendingToolExecution) -> CycleOutcome:
        """One tool cycle over ``pending.assistant_message``, keeping the results already completed."""
        assistant = pending.assistant_message
        uses = assistant.tool_uses()
        book = self.interrupts.book()
        ordinal = len(self.messages)  # the batch's place in the history: part of its interrupt ids
        results: dict[str, ToolResult] = {r.tool_use_id: r for r in pending.completed_tool_results}
        children = dict(self.interrupts.children)  # each tool use's body reads and writes its own key

        before = BeforeToolsEvent(self.agent, message=assistant)
        batch_point = RaisePoint("before_tools", ordinal, batch=tuple(u.tool_use_id for u in uses))
        raised = self.hooks.invoke_interruptible(before, UnitRun(batch_point, book))
        ran: set[tuple[str, str | None]] = {("before_tools", None)}
        if raised:
            # ROC-HOOK-019, ROC-HOOK-010: a batch interrupt runs no tool, no BeforeToolCall, no AfterTools.
            return CycleOutcome(raised, pending, ran=frozenset(ran), children=children)

        # ROC-TOOL-011: a tool use with a preserved result never runs again.
        todo = [u for u in uses if u.tool_use_id not in results]
        interrupts: list[Interrupt] = []
        batch_cancel = cancel_text(before.cancel, DEFAULT_CANCEL_MESSAGE)
        if batch_cancel is not None:
            for use in todo:  # ROC-CANCEL-005, ROC-CANCEL-006: error results, no events
                results[use.tool_use_id] = error_result(use.tool_use_id, batch_cancel)
        else:
            for outcome in self.executor.run(todo, lambda use: self.run_tool(use, book, ordinal, children)):
                if outcome.result is not None:
                    results[outcome.tool_use.tool_use_id] = outcome.result
                interrupts.extend(outcome.interrupts)
                ran |= outcome.ran

        # ROC-TOOL-004: results in tool-use order, whatever the completion order.
        ordered = [results[u.tool_use_id] for u in uses if u.tool_use_id in results]
        so_far = PendingToolExecution(assistant_message=assistant, completed_tool_results=ordered)
        if interrupts and not self.hooks.has_callbacks(AfterToolsEvent):
            # The result message of an interrupted cycle is seen by AfterTools callbacks alone; without any
            # it is not built (a sequential batch of N stops N times, each with up to N results).
            return CycleOutcome(interrupts, so_far, None, frozenset(ran), children)
        message = tool_result_message(ordered)
        # ROC-HOOK-010, ROC-HOOK-011: AfterTools fires once for every cycle whose BeforeTools let the batch
        # proceed, carrying the result message as it stands (preserved + new results; only some when a
        # tool interrupted).
        self.hooks.invoke(AfterToolsEvent(self.agent, assistant, message))
        return CycleOutcome(interrupts, so_far, message, frozenset(ran), children)

    def run_tool(
        self, use: ToolUse, book: AnswerBook, ordinal: int, children: dict[str, dict[str, Any]] | None = None
    ) -> ToolOutcome:
        """BeforeToolCall fan-out, then cancel or the body, then AfterToolCall. ``children``: the cycle's
        sub-agents (``CycleOutcome.children``), which the body's sub-agent call reads and updates."""
        children = {} if children is None else children
        book.check_input(use)  # ROC-SNAP-013: the approved input is the input that runs
        before = BeforeToolCallEvent(self.agent, tool_use=use)
        point = RaisePoint("before_tool_call", ordinal, use.tool_use_id, use.name)
        raised = self.hooks.invoke_interruptible(before, UnitRun(point, book))
        ran = frozenset({("before_tool_call", use.tool_use_id)})
        if raised:
            # ROC-HOOK-018, ROC-HOOK-009, ROC-CANCEL-007: no body, no AfterToolCall, no result; an
            # interrupt outranks cancel_tool set by another callback in the same pass.
            return ToolOutcome(use, interrupts=raised, ran=ran)

        cancel = cancel_text(before.cancel_tool, DEFAULT_CANCEL_TOOL_MESSAGE)
        if cancel is not None:  # ROC-CANCEL-001, ROC-HOOK-009: error result + AfterToolCall
            result = error_result(use.tool_use_id, cancel)
        elif (tool := self.tools.get(use.name)) is None:
            result = error_result(use.tool_use_id, f"unknown tool: {use.name}")  # ROC-TOOL-009
        else:
            body_point = RaisePoint("tool", ordinal, use.tool_use_id, use.name)
            # The body gets its own copy of the input: whatever it does to it, a replay runs the same input.
            # ROC-APPROVE-008, ROC-APPROVE-013: the effective input, the edited one after an approval's edit
            # (read from the stored answer, so a replay or a restored agent runs the same input).
            edited = book.edited_input(use.tool_use_id)
            private = private_copy(use if edited is None else use.model_copy(update={"input": edited}))
            unit = UnitRun(body_point, book)
            context = ToolContext(private, self.agent, unit, SubAgentCall(body_point, unit, book, children))
            # ROC-ANSWER-005: a body that ran can withdraw its own and its sub-agent's interrupts
            ran |= {("tool", use.tool_use_id), ("agent_as_tool", use.tool_use_id)}
            try:
                result = tool.run(private, context)
            except InterruptRaised as signal:  # ROC-TOOL-010: an interrupted body records no result
                return ToolOutcome(use, interrupts=list(signal.interrupts), ran=ran)
            children.pop(use.tool_use_id, None)  # ROC-AGENT-007: the result is preserved, not the sub-agent
            if edited is not None:  # ROC-APPROVE-009: the model learns what ran (its toolUse stays as it was)
                result = with_edit_prefix(result, edited)
        after = AfterToolCallEvent(self.agent, use, result, cancel_message=cancel)
        self.hooks.invoke(after)
        return ToolOutcome(use, result=after.result, ran=ran)
