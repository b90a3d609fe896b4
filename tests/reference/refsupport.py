"""Shared helpers for the reference runtime tests: turns, a tracing hook, an in-memory session."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from roc_reference import (
    AfterInvocationEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    Agent,
    BeforeInvocationEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookRegistry,
    MessageAddedEvent,
)
from roc_reference.errors import SessionConflictError

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "spec" / "schema" / "v1"


def use(tid: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": tid, "name": name, "input": tool_input}}


def text(t: str) -> dict[str, Any]:
    return {"text": t}


def answer(interrupt_id: str, response: Any) -> dict[str, Any]:
    return {"interruptResponse": {"interruptId": interrupt_id, "response": response}}


def answers(result: Any, response: Any) -> list[dict[str, Any]]:
    return [answer(i.id, response) for i in result.interrupts]


def frozen(agent: Agent) -> dict[str, Any]:
    """The agent's snapshot without the one member that changes by itself (createdAt)."""
    doc = agent.take_snapshot()
    del doc["createdAt"]
    return doc


class Callbacks:
    """Registers plain functions on events."""

    def __init__(self, *pairs: tuple[type, Any]) -> None:
        self.pairs = pairs

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        for event_type, fn in self.pairs:
            registry.add_callback(event_type, fn)


class Tracer:
    """Records the observable events of an agent, in order (a HookProvider registered first)."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []
        self._lock = threading.Lock()

    def add(self, *event: Any) -> None:
        with self._lock:
            self.events.append(event)

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeInvocationEvent, lambda e: self.add("invocation_start"))
        registry.add_callback(BeforeModelCallEvent, lambda e: self.add("model_call"))
        registry.add_callback(
            BeforeToolsEvent,
            lambda e: self.add("before_tools", tuple(u.tool_use_id for u in e.message.tool_uses())),
        )
        registry.add_callback(
            BeforeToolCallEvent, lambda e: self.add("before_tool_call", e.tool_use.tool_use_id)
        )
        registry.add_callback(
            AfterToolCallEvent, lambda e: self.add("after_tool_call", e.tool_use.tool_use_id, e.result.status)
        )
        registry.add_callback(
            AfterToolsEvent,
            lambda e: self.add("after_tools", tuple(r.tool_use_id for r in e.message.tool_results())),
        )
        registry.add_callback(MessageAddedEvent, lambda e: self.add("message_added", e.message.role))
        registry.add_callback(
            AfterInvocationEvent, lambda e: self.add("invocation_end", e.result.stop_reason)
        )

    def kinds(self, kind: str) -> list[tuple[Any, ...]]:
        return [e for e in self.events if e[0] == kind]

    def count(self, kind: str) -> int:
        return len(self.kinds(kind))

    def clear(self) -> None:
        self.events.clear()


class MemorySession:
    """A SessionManager keeping one snapshot in memory, compare-and-set on the revision."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] | None = None
        self.saves: list[dict[str, Any]] = []

    def load(self) -> dict[str, Any] | None:
        return copy.deepcopy(self.doc)

    def save(self, snapshot: Mapping[str, Any], *, expected_revision: int | None) -> None:
        current = None if self.doc is None else self.doc["revision"]
        if current != expected_revision:
            raise SessionConflictError(f"stored revision {current}, expected {expected_revision}")
        self.doc = copy.deepcopy(dict(snapshot))
        self.saves.append(self.doc)


def json_paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) to a value inside ``doc``, for mutating one place at a time."""
    found = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += json_paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += json_paths(value, (*prefix, index))
    return found


def history_is_whole(messages: list[Any]) -> bool:
    """No toolUse without its toolResult in the next message, and no toolResult without its toolUse."""
    for i, m in enumerate(messages):
        uses = {u.tool_use_id for u in m.tool_uses()}
        following = messages[i + 1] if i + 1 < len(messages) else None
        if uses and (following is None or {r.tool_use_id for r in following.tool_results()} != uses):
            return False
        results = {r.tool_use_id for r in m.tool_results()}
        if results and (i == 0 or not results <= {u.tool_use_id for u in messages[i - 1].tool_uses()}):
            return False
    return True


def _registry() -> Registry:  # type: ignore[type-arg]
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def validator(name: str) -> Draft202012Validator:
    doc = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
    return Draft202012Validator(doc, registry=_registry())


def assert_schema_valid(name: str, instance: Any) -> None:
    errors = sorted(validator(name).iter_errors(instance), key=str)
    assert not errors, [e.message for e in errors]
