"""Tools: the ``@tool`` decorator, ``ToolContext.interrupt``, running a body into a ToolResult, direct calls.

A tool body receives the toolUse ``input`` as keyword arguments, plus ``tool_context`` when it declares
that parameter (or was decorated with ``context=True``). Its return value becomes the result content:
a ``str`` gives ``[{"text": ...}]``, a ``ToolResult`` is taken as is (its toolUseId corrected), a
sub-agent's ``AgentResult`` gives the text of its final message, anything else must be JSON and gives
``[{"json": value}]``. An ordinary exception gives an error result whose content is
``[{"text": str(exception)}]`` — a failing tool never crashes the agent (ROC-TOOL-008).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MethodType
from typing import TYPE_CHECKING, Any, overload

from .decisions import InterruptDeclined
from .errors import RocError
from .interrupts import AnswerBook, UnitRun
from .schemas import subset_problem
from .subagents import SubAgentCall
from .types import AgentResult, JsonContent, TextBlock, ToolResult, ToolUse, error_result, is_json_value

if TYPE_CHECKING:
    from .agent import Agent, PromptInput

CONTEXT_PARAM = "tool_context"


@dataclass
class ToolContext:
    """What a tool body can see of its call: the tool use, the agent, ``interrupt`` and ``run_agent``."""

    tool_use: ToolUse
    agent: Agent
    _unit: UnitRun
    _sub_agent: SubAgentCall | None = None

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
        """Return the caller's answer to ``name``, or pause the agent until it is answered (ROC-REPLAY-001).

        On resume the body runs again from its start (replay) and this call returns the stored answer,
        so code before it runs again: keep it idempotent. ``metadata`` (a JSON object, e.g. a UI hint) is
        reported with the interrupt unchanged (ROC-MODEL-014); so are ``expires_at`` (RFC 3339) and
        ``on_expiry`` (ROC-EXPIRY-001/002). A declined or cancelled interrupt raises ``InterruptDeclined``
        (ROC-DECIDE-003); a body that lets it escape gets an error result with the decision text.
        ``response_schema`` (a schema of the portable subset, spec 14.2) is reported unchanged as
        ``responseSchema`` and every answer is validated against it before it is stored (ROC-SCHEMA-004).
        """
        extra: dict[str, Any] = {}
        # Only the keywords given: the broken fixtures patch UnitRun.interrupt without the later ones.
        if metadata is not None:
            extra["metadata"] = metadata
        if expires_at is not None:
            extra["expires_at"] = expires_at
        if on_expiry is not None:
            extra["on_expiry"] = on_expiry
        if response_schema is not None:
            extra["response_schema"] = response_schema
        return self._unit.interrupt(name, reason, **extra)

    def ask(
        self,
        name: str,
        question: Any,
        *,
        metadata: dict[str, Any] | None = None,
        expires_at: str | None = None,
        on_expiry: Mapping[str, Any] | None = None,
    ) -> Any:
        """Ask a structured question (profile questions, spec 15): return the person's answer
        ``{"selected": [labels], "other"?: text}``, or pause until it comes, as ``interrupt`` does.

        The interrupt's reason is ``question``, its metadata ``{"kind": "question"}`` merged into
        ``metadata``, its response schema the one derived from the question (ROC-ASK-001); a malformed
        question fails with INVALID_REASON (ROC-ASK-002).
        """
        from .questions import ask  # here: questions builds its ask_user Tool from this module

        return ask(self._unit, name, question, metadata=metadata, expires_at=expires_at, on_expiry=on_expiry)

    def run_agent(self, agent: Agent, prompt: PromptInput) -> AgentResult:
        """Run ``agent`` as this tool use's sub-agent and return its result (profile agent-as-tool, spec 12).

        When the sub-agent stops with interrupts, this tool use stops with them (ROC-AGENT-001); on resume
        the body runs again and this call resumes the same sub-agent with the caller's answers
        (ROC-AGENT-005), or returns the result it completed with (ROC-AGENT-007). ``agent`` is a definition:
        it is never changed, so one definition can serve several tool uses at once (ROC-AGENT-010).
        """
        if self._sub_agent is None:  # a direct call: nothing is kept, a stopping sub-agent is refused
            self._sub_agent = SubAgentCall(self._unit.point, self._unit, AnswerBook({}), {})
        return self._sub_agent.run(agent, prompt)


@dataclass(frozen=True)
class Tool:
    """A named tool body."""

    name: str
    fn: Callable[..., Any]
    context: bool = False
    description: str = ""
    input_schema: dict[str, Any] | None = None
    """The tool's input schema (a portable-subset JSON Schema, spec 14); an edited input is validated
    against it (ROC-APPROVE-005). ``None``: any JSON object is a valid input."""

    def __get__(self, instance: object, owner: type | None = None) -> Tool:
        """``@tool`` on a method: ``obj.method`` is a tool bound to ``obj``."""
        if instance is None:
            return self
        return replace(self, fn=MethodType(self.fn, instance))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the plain function (no agent, no interrupts)."""
        return self.fn(*args, **kwargs)

    def run(self, tool_use: ToolUse, context: ToolContext) -> ToolResult:
        """Run the body; ``InterruptRaised`` and ``RocError`` propagate, other errors become error results."""
        kwargs = dict(tool_use.input)  # a JSON object (spec 2.3): the ToolUse type refuses anything else
        if self.context:
            kwargs[CONTEXT_PARAM] = context
        try:
            value = self.fn(**kwargs)
        except RocError:
            raise  # misuse of interrupt() (bad name or reason, duplicate name) fails the invocation
        except Exception as exc:  # ROC-TOOL-008: a failing body gives an error result
            if context._unit.error is not None:
                raise context._unit.error from exc
            if context._unit.raised is not None:  # ROC-REPLAY-009: the pause stands, the failure is dropped
                raise context._unit.pause() from None
            if isinstance(exc, InterruptDeclined):  # ROC-DECIDE-004: exactly the decision text
                return error_result(tool_use.tool_use_id, exc.text)
            return error_result(tool_use.tool_use_id, str(exc))
        if context._unit.error is not None:  # the body swallowed a misuse of interrupt(); it still fails
            raise context._unit.error
        if context._unit.raised is not None:  # ROC-REPLAY-009: a caught pause stands; the return is dropped
            raise context._unit.pause()
        return to_result(tool_use.tool_use_id, value)


def to_result(tool_use_id: str, value: Any) -> ToolResult:
    """The success result for a body's return value (see the module docstring)."""
    if isinstance(value, ToolResult):
        return value.model_copy(update={"tool_use_id": tool_use_id})
    if isinstance(value, AgentResult):  # a sub-agent's result: its final message's text (ROC-AGENT-007)
        text = "\n".join(b.text for b in value.message.content if isinstance(b, TextBlock))
        return ToolResult(tool_use_id=tool_use_id, status="success", content=[TextBlock(text=text)])
    if isinstance(value, str):
        return ToolResult(tool_use_id=tool_use_id, status="success", content=[TextBlock(text=value)])
    if not is_json_value(value):
        return error_result(tool_use_id, f"tool returned a value that is not JSON: {type(value).__name__}")
    return ToolResult(tool_use_id=tool_use_id, status="success", content=[JsonContent(json=value)])


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *,
    name: str | None = None,
    context: bool | None = None,
    description: str | None = None,
    input_schema: dict[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    context: bool | None = None,
    description: str | None = None,
    input_schema: dict[str, Any] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a function a tool: ``@tool`` or ``@tool(name=..., context=True, input_schema={...})``.

    ``context`` defaults to whether the function has a ``tool_context`` parameter.
    """

    if input_schema is not None and (problem := subset_problem(input_schema)) is not None:
        raise ValueError(f"input_schema is outside the portable subset (spec 14): {problem}")

    def wrap(f: Callable[..., Any]) -> Tool:
        wants_context = CONTEXT_PARAM in inspect.signature(f).parameters if context is None else context
        return Tool(
            name=name or f.__name__,
            fn=f,
            context=wants_context,
            description=description if description is not None else inspect.getdoc(f) or "",
            input_schema=input_schema,
        )

    return wrap(fn) if fn is not None else wrap


class ToolCaller:
    """``agent.tool.<name>(**input)``: direct tool calls (ROC-DIRECT-001..006).

    A direct call runs the body only (no hooks, no history change) and returns its ToolResult.
    It is refused while the agent is interrupted (INTERRUPT_PENDING), and a body that tries to interrupt
    fails the call with DIRECT_CALL_INTERRUPT, leaving the agent (including ``agent.state``) unchanged.
    """

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    def __getattr__(self, name: str) -> Callable[..., ToolResult]:
        tools = self._agent.tool_registry
        if name not in tools:
            raise AttributeError(f"no tool named {name!r}")

        def call(**tool_input: Any) -> ToolResult:
            return self._agent.call_tool_directly(name, tool_input)

        return call

    def __dir__(self) -> list[str]:
        return sorted(self._agent.tool_registry)
