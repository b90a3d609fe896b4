"""An AgentSpec (the JSON ``roc_conformance.wire.agent_spec_from_proto`` gives) as plain, validated data.

Only what the scenario language itself defines is checked here (conformance/README.md, "The scenario
language"); what a runtime makes of the pieces (whether a model turn is a valid message for it, whether a
session id is acceptable) is the runtime's business, so an adapter converts and validates those itself.
Some things are passed through on purpose: an empty interrupt name, for example, must reach the runtime,
whose refusal is what the suite judges (see ``programs.parse_steps``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from roc_conformance.adapter.programs import (
    HOOK_OPS,
    PASSIVE_HOOK_OPS,
    TOOL_OPS,
    ScenarioError,
    Step,
    parse_steps,
)

EXECUTORS = ("sequential", "concurrent")
HOOK_EVENTS = ("BeforeTools", "BeforeToolCall", "AfterToolCall", "AfterTools")
INTERRUPTIBLE_EVENTS = frozenset({"BeforeTools", "BeforeToolCall"})
PER_TOOL_EVENTS = frozenset({"BeforeToolCall", "AfterToolCall"})


@dataclass(frozen=True)
class ToolProgram:
    """A scenario tool: its name and the steps its body runs."""

    name: str
    steps: tuple[Step, ...]
    input_schema: dict[str, Any] | None = None
    """``inputSchema`` (harness protocol 6, profile approval): registered with the tool as it is; whether
    it is in the portable subset is the runtime's business."""


@dataclass(frozen=True)
class HookProgram:
    """A scenario hook callback. ``index`` is its place in the spec (the trace's ``hookIndex``)."""

    index: int
    event: str
    tool_name: str | None
    steps: tuple[Step, ...]

    @property
    def interruptible(self) -> bool:
        """Before* callbacks may interrupt and cancel; After* callbacks only read and write state."""
        return self.event in INTERRUPTIBLE_EVENTS

    @property
    def per_tool(self) -> bool:
        """BeforeToolCall / AfterToolCall fire once per tool use (their trace events carry a toolUseId)."""
        return self.event in PER_TOOL_EVENTS

    def applies_to(self, tool_names: Sequence[str]) -> bool:
        """Whether the callback runs for an event about these tools (one name for per-tool events).

        Without a ``toolName`` it always runs; with one, when any of the event's tool uses has that name.
        """
        return self.tool_name is None or self.tool_name in tool_names


@dataclass(frozen=True)
class IntegrityKey:
    """The snapshot integrity key: sign on write, verify on read (profile ``snapshot-integrity``)."""

    key_id: str
    secret: bytes


@dataclass(frozen=True)
class SessionBinding:
    """The session an agent is bound to (profile ``session-store``): a named store and a session id."""

    store: str
    session_id: str


@dataclass(frozen=True)
class Scenario:
    """A validated AgentSpec.

    ``turns`` are the scripted model's answers, each a list of content blocks as JSON (an assistant
    message's content); ``state`` is a fresh copy of the initial agent state.
    """

    agent_id: str
    executor: str
    turns: tuple[list[Any], ...]
    tools: tuple[ToolProgram, ...]
    hooks: tuple[HookProgram, ...]
    state: dict[str, Any] = field(default_factory=dict)
    integrity: IntegrityKey | None = None
    session: SessionBinding | None = None
    builtin_tools: tuple[str, ...] = ()
    """The runtime's built-in tools the agent offers, by RoC name (harness protocol 6): ``ask_user``
    (profile questions, spec 15.4). An adapter refuses a name its runtime has no tool for."""
    approval: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """``approval`` (harness protocol 6, profile approval): tool name -> the decisions its approvals allow,
    in the order approve, edit, reject (all three when the spec lists none). Empty: no approval hook."""
    record_resume_guard: bool = False
    """``recordResumeGuard`` (harness protocol 6, profile audit): install a resume guard (ROC-SEC-001) that
    accepts every input and records what it saw with ``Trace.resume_guard``."""


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where} must be a JSON object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where} must be a list")
    return value


def _turns(spec: Mapping[str, Any]) -> tuple[list[Any], ...]:
    model = _object(spec.get("model") or {}, "model")
    turns: list[list[Any]] = []
    for i, turn in enumerate(_list(model.get("turns", []), "model.turns")):
        content = _object(turn, f"model.turns[{i}]").get("content", [])
        turns.append(list(_list(content, f"model.turns[{i}].content")))
    return tuple(turns)


def _tools(spec: Mapping[str, Any]) -> tuple[ToolProgram, ...]:
    tools: list[ToolProgram] = []
    seen: set[str] = set()
    for i, raw in enumerate(_list(spec.get("tools", []), "tools")):
        tool = _object(raw, f"tools[{i}]")
        name = tool.get("name")
        if not isinstance(name, str) or not name or name in seen:
            raise ScenarioError(f"tools[{i}]: missing or duplicate name {name!r}")
        seen.add(name)
        steps = parse_steps(tool.get("steps", []), TOOL_OPS, f"tools[{i}].steps")
        schema = tool.get("inputSchema")
        if schema is not None and not isinstance(schema, dict):
            raise ScenarioError(f"tools[{i}].inputSchema must be a JSON object")
        nested = tuple(_nested(step, f"tools[{i}].steps[{j}]") for j, step in enumerate(steps))
        tools.append(ToolProgram(name, nested, None if schema is None else dict(schema)))
    return tuple(tools)


def _nested(step: Step, where: str) -> Step:
    """A ``runAgent`` step with its AgentSpec parsed into a ``Scenario`` (harness protocol 5)."""
    if step.op != "runAgent":
        return step
    try:
        agent = parse_scenario(step.args["agent"])
    except ScenarioError as exc:
        raise ScenarioError(f"{where}.runAgent.agent: {exc}") from exc
    return Step("runAgent", {"agent": agent, "prompt": step.args["prompt"]})


def _hooks(spec: Mapping[str, Any]) -> tuple[HookProgram, ...]:
    hooks: list[HookProgram] = []
    for i, raw in enumerate(_list(spec.get("hooks", []), "hooks")):
        hook = _object(raw, f"hooks[{i}]")
        event = hook.get("event")
        if event not in HOOK_EVENTS:
            raise ScenarioError(f"hooks[{i}]: unknown event {event!r}")
        tool_name = hook.get("toolName")
        if tool_name is not None and not isinstance(tool_name, str):
            raise ScenarioError(f"hooks[{i}]: toolName must be a string")
        allowed = HOOK_OPS if event in INTERRUPTIBLE_EVENTS else PASSIVE_HOOK_OPS
        steps = parse_steps(hook.get("steps", []), allowed, f"hooks[{i}].steps")
        hooks.append(HookProgram(i, event, tool_name, steps))
    return tuple(hooks)


def _builtin_tools(spec: Mapping[str, Any], tools: Sequence[ToolProgram]) -> tuple[str, ...]:
    """``builtinTools``: distinct names, none a scenario tool's (a tool name is unique in an agent)."""
    names = _list(spec.get("builtinTools", []), "builtinTools")
    taken = {t.name for t in tools}
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name or name in taken or names.index(name) != i:
            raise ScenarioError(f"builtinTools[{i}]: missing, duplicate or taken name {name!r}")
    return tuple(names)


APPROVAL_DECISIONS = ("approve", "edit", "reject")


def _approval(spec: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``approval``: tool name -> ``{"decisions"?: [...]}``, distinct decisions of the three (none: all)."""
    policies: dict[str, tuple[str, ...]] = {}
    raw_policies = spec.get("approval")
    for name, raw in _object({} if raw_policies is None else raw_policies, "approval").items():
        decisions = _list(_object(raw, f"approval.{name}").get("decisions", []), f"approval.{name}.decisions")
        if any(d not in APPROVAL_DECISIONS for d in decisions) or len(set(decisions)) != len(decisions):
            raise ScenarioError(f"approval.{name}.decisions: distinct values of {APPROVAL_DECISIONS}")
        policies[str(name)] = tuple(d for d in APPROVAL_DECISIONS if d in decisions or not decisions)
    return policies


def _flag(spec: Mapping[str, Any], name: str) -> bool:
    value = spec.get(name, False)
    if not isinstance(value, bool):
        raise ScenarioError(f"{name} must be a boolean")
    return value


def _integrity(spec: Mapping[str, Any]) -> IntegrityKey | None:
    raw = spec.get("integrity")
    if raw is None:
        return None
    integrity = _object(raw, "integrity")
    key_id, secret = integrity.get("keyId"), integrity.get("secret")
    if not isinstance(key_id, str) or not isinstance(secret, str):
        raise ScenarioError("integrity needs a keyId and a secret")
    # An empty key makes every HMAC computable by anyone (ROC-SEC-002 would sign nothing), and an empty key
    # id names no key: refused as an unbuildable scenario, never silently accepted.
    if not key_id or not secret:
        raise ScenarioError("integrity keyId and secret must not be empty")
    return IntegrityKey(key_id, secret.encode("utf-8"))


def _session(spec: Mapping[str, Any]) -> SessionBinding | None:
    raw = spec.get("session")
    if raw is None:
        return None
    binding = _object(raw, "session")
    store, session_id = binding.get("store"), binding.get("sessionId")
    if not isinstance(store, str) or not isinstance(session_id, str):
        raise ScenarioError("session needs a store and a sessionId")
    # The session id itself is not checked: refusing a bad one is the runtime's job (ROC-SEC-006).
    return SessionBinding(store, session_id)


def parse_scenario(spec: Mapping[str, Any]) -> Scenario:
    """Validate an AgentSpec; any problem is a ``ScenarioError`` (the adapter reports a harness_error)."""
    executor = spec.get("executor")
    if executor not in EXECUTORS:
        raise ScenarioError(f"executor must be 'sequential' or 'concurrent', got {executor!r}")
    turns = _turns(spec)
    tools = _tools(spec)
    hooks = _hooks(spec)
    state = spec.get("state") or {}
    if not isinstance(state, dict):
        raise ScenarioError("state must be a JSON object")
    return Scenario(
        agent_id=str(spec.get("agentId") or "agent"),
        executor=str(executor),
        turns=turns,
        tools=tools,
        hooks=hooks,
        state=dict(state),
        integrity=_integrity(spec),
        session=_session(spec),
        builtin_tools=_builtin_tools(spec, tools),
        approval=_approval(spec),
        record_resume_guard=_flag(spec, "recordResumeGuard"),
    )
