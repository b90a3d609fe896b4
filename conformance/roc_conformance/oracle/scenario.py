"""The AgentSpec scenario language (JSON form), parsed into small immutable values.

The oracle reads scenarios through these types only, so a malformed scenario fails loudly here
instead of producing a wrong prediction later.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from roc_conformance.canonical import canonical_text

JSON = Any
Executor = Literal["sequential", "concurrent"]
HookEvent = Literal["BeforeToolCall", "BeforeTools", "AfterToolCall", "AfterTools"]
HOOK_EVENTS: tuple[HookEvent, ...] = ("BeforeToolCall", "BeforeTools", "AfterToolCall", "AfterTools")
INTERRUPTIBLE_EVENTS: frozenset[str] = frozenset({"BeforeToolCall", "BeforeTools"})


class ScenarioError(ValueError):
    """The scenario is malformed or uses a construct the oracle does not model."""


@dataclass(frozen=True)
class Step:
    """One step of a tool or hook program; ``op`` is the single key of the step object."""

    op: Literal["interrupt", "return", "fail", "cancel", "cancelIf", "skipIfState", "setState", "runAgent"]
    args: dict[str, JSON]
    # A ``runAgent`` step's nested scenario, parsed (profile agent-as-tool, spec 12); None for other steps.
    nested: AgentSpec | None = None


@dataclass(frozen=True)
class ToolDef:
    name: str
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class HookDef:
    index: int
    event: HookEvent
    tool_name: str | None
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class AgentSpec:
    agent_id: str
    executor: Executor
    turns: tuple[tuple[dict[str, JSON], ...], ...]
    tools: dict[str, ToolDef]
    hooks: tuple[HookDef, ...]
    state: dict[str, JSON]
    raw: dict[str, JSON]

    def hooks_for(self, event: str) -> list[HookDef]:
        return [h for h in self.hooks if h.event == event]


_TOOL_OPS = frozenset({"interrupt", "return", "fail", "skipIfState", "setState", "runAgent"})
# The oracle names a sub-agent's interrupt, as its outer tool use propagates it, by the inner name and the
# inner raise point joined with this mark (see subagents.propagated_key): a nested name must not hold it.
NESTED_MARK = "@"
_HOOK_OPS = frozenset({"interrupt", "cancel", "cancelIf", "skipIfState", "setState"})


def _steps(raw: object, allowed: frozenset[str], where: str, depth: int = 0) -> tuple[Step, ...]:
    if not isinstance(raw, list):
        raise ScenarioError(f"{where}: steps must be a list")
    out: list[Step] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or len(item) != 1:
            raise ScenarioError(f"{where}[{i}]: a step is an object with exactly one key")
        ((op, args),) = item.items()
        if op not in allowed:
            raise ScenarioError(f"{where}[{i}]: step {op!r} is not allowed here")
        if not isinstance(args, dict):
            raise ScenarioError(f"{where}[{i}]: step arguments must be an object")
        if op == "interrupt" and (not isinstance(args.get("name"), str) or not args["name"]):
            raise ScenarioError(f"{where}[{i}]: interrupt needs a non-empty name")
        if (
            op == "interrupt"
            and "reasonFromState" in args
            and ("reason" in args or not isinstance(args["reasonFromState"], str))
        ):
            raise ScenarioError(f"{where}[{i}]: interrupt takes a reason or a reasonFromState key")
        if op == "interrupt" and depth > 0 and NESTED_MARK in args["name"]:
            raise ScenarioError(f"{where}[{i}]: a sub-agent's interrupt name must not hold {NESTED_MARK!r}")
        nested: AgentSpec | None = None
        if op == "runAgent":
            # Harness protocol 5: {"runAgent": {"agent": AgentSpec, "prompt"}}; the nested spec nests further.
            if not isinstance(args.get("agent"), dict) or not isinstance(args.get("prompt"), str):
                raise ScenarioError(f"{where}[{i}]: runAgent needs an agent (an AgentSpec) and a prompt")
            nested = _parse(args["agent"], depth + 1)
        out.append(Step(op, dict(args), nested))
    return tuple(out)


def parse_spec(doc: dict[str, JSON]) -> AgentSpec:
    """Parse the JSON AgentSpec of TEAM.md; raises ScenarioError on anything malformed."""
    return _parse(doc, 0)


def _parse(doc: dict[str, JSON], depth: int) -> AgentSpec:
    """``depth``: 0 for the agent the harness creates, n for a runAgent step's sub-agent n levels down."""
    try:
        executor = doc.get("executor", "sequential")
        if executor not in ("sequential", "concurrent"):
            raise ScenarioError(f"unknown executor {executor!r}")
        turns: list[tuple[dict[str, JSON], ...]] = []
        for t in doc.get("model", {}).get("turns", []):
            turns.append(tuple(json.loads(json.dumps(b)) for b in t["content"]))
        tools: dict[str, ToolDef] = {}
        for t in doc.get("tools", []):
            steps = _steps(t.get("steps", []), _TOOL_OPS, f"tool {t['name']}", depth)
            tools[t["name"]] = ToolDef(t["name"], steps)
        hooks: list[HookDef] = []
        for i, h in enumerate(doc.get("hooks", [])):
            if h["event"] not in HOOK_EVENTS:
                raise ScenarioError(f"hook {i}: unknown event {h['event']!r}")
            steps = _steps(h.get("steps", []), _HOOK_OPS, f"hook {i}")
            if h["event"] not in INTERRUPTIBLE_EVENTS and any(
                s.op in ("interrupt", "cancel", "cancelIf") for s in steps
            ):
                raise ScenarioError(f"hook {i}: {h['event']} cannot interrupt or cancel")
            hooks.append(HookDef(i, h["event"], h.get("toolName"), steps))
        state = doc.get("state", {})
        if not isinstance(state, dict):
            raise ScenarioError("state must be an object")
        return AgentSpec(
            agent_id=str(doc.get("agentId", "agent")),
            executor=executor,
            turns=tuple(turns),
            tools=tools,
            hooks=tuple(hooks),
            state=json.loads(json.dumps(state)),
            raw=doc,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ScenarioError(f"malformed AgentSpec: {exc!r}") from exc


def tool_uses(content: tuple[dict[str, JSON], ...] | list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """The toolUse bodies of an assistant message, in message order."""
    return [b["toolUse"] for b in content if "toolUse" in b]


def canonical(value: JSON) -> str:
    """The spec's canonical JSON text (§8.2): JSON equality that keeps 0 != false and 1 == 1.0."""
    return canonical_text(value)


def json_equal(a: JSON, b: JSON) -> bool:
    return canonical(a) == canonical(b)


_MAX_SAFE = 2**53 - 1


def same_canonical(a: JSON, b: JSON) -> bool:
    """``canonical(a) == canonical(b)``, computed without serializing when the two are plainly the same.

    The oracle compares whole histories after every step, and the pure-Python RFC 8785 serializer made that
    a large share of the suite's time. ``_plainly_same`` answers True only where both canonical texts
    certainly exist and are equal (same JSON types all the way down, finite numbers, safe integers, valid
    Unicode); any other pair, equal or not, goes to the canonical comparison itself, so the answer (and
    a ``NotCanonicalJson`` for a value without a canonical form) is exactly the canonical one.
    """
    try:
        plain = _plainly_same(a, b)
    except RecursionError:  # too deep to walk here: the canonical comparison decides (and refuses it)
        plain = False
    return plain or canonical(a) == canonical(b)


def _valid_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")  # a lone surrogate has no UTF-8 (and no canonical form)
    except UnicodeEncodeError:
        return False
    return True


def _plainly_same(a: Any, b: Any) -> bool:
    kind = type(a)
    if kind is not type(b):  # exact types: bool is not int, a subclass or tuple goes the canonical way
        return False
    if a is None:
        return True
    if kind is str:
        return bool(a == b and _valid_text(a))
    if kind is bool:
        return bool(a == b)
    if kind is int:
        return bool(a == b and -_MAX_SAFE <= a <= _MAX_SAFE)
    if kind is float:
        return bool(a == b and math.isfinite(a))
    if kind is list:
        return len(a) == len(b) and all(_plainly_same(x, y) for x, y in zip(a, b, strict=True))
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if type(key) is not str or not _valid_text(key) or key not in b:
                return False
            if not _plainly_same(value, b[key]):
                return False
        return True
    return False
