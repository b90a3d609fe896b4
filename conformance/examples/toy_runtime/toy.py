"""toy: a small agent runtime that implements RoC 1.0 (profiles core, hooks, sequential-executor).

It is the runtime of the tutorial "Write an adapter for your runtime" (docs/adapters/tutorial.md): small
enough to read in one sitting, written from the spec alone. Its data is plain JSON (dicts and lists) in the
spec's shapes; comments name the requirement (``ROC-<AREA>-<NNN>``) a piece implements.

Using it::

    agent = Agent(model, tools={"search": search}, state={})
    agent.hooks.add("BeforeToolCall", approve)      # callbacks receive an Event
    result = agent.invoke("find the report")         # an AgentResult dict, or raises RocError
    if result["stopReason"] == "interrupt":
        answers = [{"interruptResponse": {"interruptId": i["id"], "response": "yes"}}
                   for i in result["interrupts"]]
        result = agent.invoke(answers)

* ``model(messages)`` returns ``(content_blocks, stop_reason)`` for the next assistant turn.
* A tool is ``fn(ctx, tool_input)`` returning its result content, a list of ``{"text": str}`` and
  ``{"json": value}`` items (a ``str`` is one text item); an exception becomes an error result holding its
  message. ``ctx.interrupt(name, reason)`` returns the caller's answer, or pauses the agent until there is
  one; on resume the body runs again from its start, and the call then returns the stored answer.
* Hook callbacks get an ``Event``; on ``BeforeTools`` / ``BeforeToolCall`` they may call
  ``event.interrupt(...)`` or set ``event.cancel`` (``True`` or a message).

One executor only: sequential.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import rfc8785

JSON = Any
Message = dict[str, Any]
Model = Callable[[list[Message]], tuple[list[dict[str, Any]], str]]
Tool = Callable[["ToolContext", dict[str, Any]], Any]
Callback = Callable[["Event"], None]

EVENTS = (
    "BeforeInvocation",
    "AfterInvocation",
    "MessageAdded",
    "BeforeModelCall",
    "AfterModelCall",
    "BeforeTools",
    "BeforeToolCall",
    "AfterToolCall",
    "AfterTools",
)
REVERSED = frozenset({"AfterInvocation", "AfterModelCall", "AfterToolCall", "AfterTools"})  # ROC-HOOK-014
CANCEL_TOOL_TEXT = "the tool call was cancelled"  # ROC-CANCEL-003: a non-empty default
CANCEL_BATCH_TEXT = "the tool batch was cancelled"
MAX_DEPTH = 64  # spec 10.6: the limits of a JSON value
MAX_INT = 2**53 - 1
MAX_VALUE_BYTES = 256 * 1024
MAX_RESUME_BYTES = 1024 * 1024


# --- errors: the closed code set of chapter 7 -------------------------------------------------------


class RocError(Exception):
    """An error value ``{code, message, details?}`` (ROC-ERR-001, ROC-ERR-003, ROC-ERR-004)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.details = code, message, details

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            doc["details"] = self.details
        return doc


def json_problem(value: JSON, max_bytes: int | None = MAX_VALUE_BYTES) -> str | None:
    """Why ``value`` is no JSON value within the limits of spec 10.6, or ``None`` (iterative)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list | dict):
            if depth + 1 > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH}"
            if isinstance(item, dict) and not all(isinstance(k, str) for k in item):
                return "an object key is not a string"
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_INT:
                return "an integer outside +-(2**53 - 1)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "a number that is not finite"
        else:
            return f"a {type(item).__name__} is not JSON"
    try:
        size = len(rfc8785.dumps(value))  # the canonical form (spec 8.2) is what the size limit counts
    except Exception as exc:  # a lone surrogate, say
        return f"no canonical form: {exc}"
    if max_bytes is not None and size > max_bytes:
        return f"larger than {max_bytes} bytes in canonical form"
    return None


def text_result(tool_use_id: str, text: str, status: str = "error") -> dict[str, Any]:
    return {"toolUseId": tool_use_id, "status": status, "content": [{"text": text}]}


# --- interrupts ------------------------------------------------------------------------------------


class _Pause(BaseException):
    """Unwinds a unit that raised an unanswered interrupt (``except Exception`` in a tool body misses it)."""


@dataclass
class Stored:
    """An interrupt of the pending batch, its answer, and which callback raised it (``None``: a tool body)."""

    interrupt: dict[str, Any]
    owner: int | None
    answered: bool = False  # by the presence of an answer, not its truthiness (ROC-RESUME-009)
    response: JSON = None


class Unit:
    """One run of a tool body, or one firing of an interruptible event (all its callbacks)."""

    def __init__(self, agent: Agent, kind: str, tool_use: dict[str, Any] | None) -> None:
        self.agent, self.kind, self.tool_use = agent, kind, tool_use
        self.owner: int | None = None  # the index of the callback running now
        self.names: set[str] = set()
        self.raised: Stored | None = None  # the pause of the current callback or body
        self.error: RocError | None = None  # a misuse the unit's own code might swallow

    def fail(self, code: str, message: str, **details: Any) -> RocError:
        self.error = self.error or RocError(code, message, **details)
        return self.error

    def interrupt(self, name: str, reason: JSON = None, metadata: dict[str, Any] | None = None) -> JSON:
        if not isinstance(name, str) or not name:  # ROC-STOP-007
            raise self.fail("INVALID_REASON", "an interrupt name must be a non-empty string")
        if (problem := json_problem(reason)) is not None:  # ROC-STOP-008, ROC-SEC-012
            raise self.fail("INVALID_REASON", f"the reason of {name!r} is refused: {problem}")
        if metadata is not None and (not isinstance(metadata, dict) or json_problem(metadata)):
            raise self.fail("INVALID_REASON", f"the metadata of {name!r} must be a JSON object within limits")
        if name in self.names:  # ROC-TOOL-014, ROC-HOOK-021, ROC-HOOK-022: once per body run / firing
            raise self.fail("DUPLICATE_INTERRUPT_NAME", f"interrupt name {name!r} raised twice", name=name)
        self.names.add(name)
        use_id = None if self.tool_use is None else self.tool_use["toolUseId"]
        stored = self.agent._find(self.kind, use_id, name)
        if stored is not None and stored.owner != self.owner:  # ROC-HOOK-021: across cycles of the batch
            raise self.fail("DUPLICATE_INTERRUPT_NAME", f"two callbacks raised {name!r}", name=name)
        if stored is not None and stored.answered:
            return copy.deepcopy(stored.response)  # ROC-REPLAY-003, ROC-ANSWER-003
        if stored is None:  # a new interrupt (else ROC-REPLAY-004, ROC-STOP-011: the same one as before)
            source: dict[str, Any] = {"kind": self.kind}
            if self.tool_use is not None:  # ROC-MODEL-004; ROC-MODEL-005: batch interrupts name no tool
                source |= {"toolUseId": use_id, "toolName": self.tool_use["name"]}
            interrupt: dict[str, Any] = {
                "id": self.agent._mint_id(self.kind, use_id, self.owner, name),
                "name": name,
            }
            if reason is not None:  # ROC-MODEL-007: no reason, no member
                interrupt["reason"] = copy.deepcopy(reason)
            interrupt["source"] = source
            if metadata is not None:  # ROC-MODEL-014
                interrupt["metadata"] = copy.deepcopy(metadata)
            stored = Stored(interrupt, self.owner)
        self.raised = stored
        raise _Pause  # ROC-REPLAY-005: nothing after the raise point runs


@dataclass
class ToolContext:
    """What a tool body sees: its tool use, the agent (``ctx.agent.state``) and ``interrupt``."""

    tool_use: dict[str, Any]
    agent: Agent
    _unit: Unit

    def interrupt(self, name: str, reason: JSON = None, metadata: dict[str, Any] | None = None) -> JSON:
        return self._unit.interrupt(name, reason, metadata)


# --- hooks -----------------------------------------------------------------------------------------


@dataclass
class Event:
    """One hook event; the members an event sets are named beside each member below."""

    name: str
    agent: Agent
    # MessageAdded, AfterModelCall: the message; BeforeTools, AfterTools: the batch's assistant message
    message: Message = field(default_factory=dict)
    tool_use: dict[str, Any] = field(default_factory=dict)  # BeforeToolCall, AfterToolCall
    result: Any = None  # AfterToolCall: the tool result; AfterTools: the tool-result message; AfterInvocation
    cancel: bool | str = False  # BeforeTools, BeforeToolCall: True or a message refuses the tool(s)
    _unit: Unit | None = field(default=None, repr=False)

    def interrupt(self, name: str, reason: JSON = None, metadata: dict[str, Any] | None = None) -> JSON:
        if self._unit is None:  # ROC-HOOK-015: only BeforeTools and BeforeToolCall are interruptible
            raise RuntimeError(f"{self.name} is not an interruptible event")
        return self._unit.interrupt(name, reason, metadata)


class Hooks:
    """Callbacks per event name, in registration order."""

    def __init__(self) -> None:
        self._callbacks: dict[str, list[Callback]] = {name: [] for name in EVENTS}

    def add(self, event: str, callback: Callback) -> None:
        if event not in self._callbacks:
            raise ValueError(f"unknown hook event {event!r}")
        self._callbacks[event].append(callback)

    def fire(self, event: Event) -> None:
        callbacks = self._callbacks[event.name]  # ROC-HOOK-013 in order, ROC-HOOK-014 After* reversed
        for callback in reversed(callbacks) if event.name in REVERSED else list(callbacks):
            callback(event)

    def fire_interruptible(self, event: Event, unit: Unit) -> list[Stored]:
        """Fan-out: every callback runs, also after another raised; one interrupt per raising callback."""
        event._unit, raised = unit, list[Stored]()
        try:
            for index, callback in enumerate(self._callbacks[event.name]):  # ROC-HOOK-016
                unit.owner, unit.raised = index, None
                with contextlib.suppress(_Pause):
                    callback(event)
                if unit.error is not None:
                    raise unit.error
                if unit.raised is not None:  # ROC-HOOK-017 (and ROC-REPLAY-009: a caught pause stands)
                    raised.append(unit.raised)
        finally:
            event._unit = None
        return raised


# --- the agent -------------------------------------------------------------------------------------


@dataclass
class _Saved:
    """What a failed invocation rolls back to."""

    messages: list[Message]
    state: dict[str, Any]
    stored: dict[str, Stored]
    pending: dict[str, Any] | None


class Agent:
    """An agent: history, ``state`` and interrupt state; idle or interrupted (spec 3.1)."""

    def __init__(
        self, model: Model, tools: dict[str, Tool] | None = None, state: dict[str, Any] | None = None
    ) -> None:
        self.model = model
        self.tools = dict(tools or {})
        self.hooks = Hooks()
        self.state: dict[str, Any] = copy.deepcopy(state or {})  # ROC-MODEL-012: lives with the agent
        self.messages: list[Message] = []
        # The interrupt state: the interrupts of the pending batch by id, and the batch itself
        # ({"assistant": message, "results": {toolUseId: result}}); ROC-TOOL-005: not in the history.
        self.stored: dict[str, Stored] = {}
        self.pending: dict[str, Any] | None = None
        self._checkpoint = self._capture()  # where an INTERNAL failure rolls back to (ROC-ERR-012)

    @property
    def interrupted(self) -> bool:
        return self.pending is not None

    # --- invocation ------------------------------------------------------------------------------

    def invoke(self, prompt: str | list[Any]) -> dict[str, Any]:
        """Run a prompt, or resume with ``interruptResponse`` blocks; an AgentResult, or raises RocError."""
        answers = self._check_input(prompt)  # ROC-RESUME-010/011: every check before anything changes
        saved = self._checkpoint = self._capture()
        begun = False
        try:
            for interrupt_id, response in answers:
                stored = self.stored[interrupt_id]
                stored.answered, stored.response = True, copy.deepcopy(response)
            begun = True
            self._fire("BeforeInvocation")  # ROC-HOOK-001
            if not answers:  # ROC-TOOL-016, ROC-HOOK-004; ROC-RESUME-013: an answer is never a message
                content = [{"text": prompt}] if isinstance(prompt, str) else copy.deepcopy(prompt)
                self._append({"role": "user", "content": content})
            result = self._loop()
            begun = False
            self._fire("AfterInvocation", result=result)  # ROC-HOOK-002
            return result
        except Exception as exc:
            error = exc if isinstance(exc, RocError) else RocError("INTERNAL", f"{type(exc).__name__}: {exc}")
            if begun:  # ROC-HOOK-002: AfterInvocation brackets a failing invocation too
                with contextlib.suppress(Exception):  # the invocation's own error is the one reported
                    self._fire("AfterInvocation", result=error)
            # ROC-ERR-006: an error leaves the agent as it was; ROC-ERR-012: INTERNAL keeps completed batches.
            self._restore(self._checkpoint if error.code == "INTERNAL" else saved)
            if error is exc:
                raise
            raise error from exc

    def _check_input(self, prompt: Any) -> list[tuple[str, JSON]]:
        """The answers of a valid resume, or `[]` for a valid prompt; else a RocError (ROC-RESUME-014)."""
        blocks = prompt if isinstance(prompt, list) else None
        is_answer = [isinstance(b, dict) and "interruptResponse" in b for b in blocks or []]
        if not self.interrupted:
            if any(is_answer):  # ROC-RESUME-012, ROC-ANSWER-008
                raise RocError("NOT_INTERRUPTED", "the agent is not interrupted; there is nothing to answer")
            text_only = blocks and all(
                isinstance(b, dict) and list(b) == ["text"] and isinstance(b["text"], str) for b in blocks
            )
            if not (isinstance(prompt, str) or text_only):  # ROC-ERR-010 (this toy's model reads text only)
                raise RocError("INVALID_INPUT", "a prompt is a string or a non-empty list of text blocks")
            return []
        if blocks is None or not all(is_answer):  # ROC-RESUME-002
            raise RocError(
                "INTERRUPT_PENDING", "the agent is interrupted: answer with interruptResponse blocks"
            )
        if not blocks:  # ROC-RESUME-003
            raise RocError("INVALID_RESUME", "a resume input is a non-empty list")
        bodies = [block["interruptResponse"] for block in blocks]
        for block, body in zip(blocks, bodies, strict=True):  # ROC-RESUME-004: a closed block and body
            if (
                len(block) != 1
                or not isinstance(body, dict)
                or not set(body) <= {"interruptId", "response", "metadata"}
                or not isinstance(body.get("interruptId"), str)
                or not body["interruptId"]
            ):
                raise RocError("INVALID_RESUME", f"a malformed interruptResponse block: {body!r:.200}")
        responses = [b.get("response") for b in bodies if json_problem(b.get("response"), None) is None]
        if sum(len(rfc8785.dumps(r)) for r in responses) > MAX_RESUME_BYTES:  # ROC-SEC-013
            raise RocError("INVALID_RESUME", f"the responses exceed {MAX_RESUME_BYTES} bytes together")
        for body in bodies:
            iid, problem = body["interruptId"], None
            if body.get("response") is None:  # ROC-RESUME-005
                problem = "no response, or null"
            elif (problem := json_problem(body["response"])) is None and "metadata" in body:  # ROC-SEC-011
                meta = body["metadata"]  # ROC-RESUME-015: an object, accepted but never handed to the unit
                problem = json_problem(meta) if isinstance(meta, dict) else "metadata is not a JSON object"
            if problem is not None:
                raise RocError(
                    "INVALID_RESPONSE", f"the answer to {iid!r} is refused: {problem}", interruptId=iid
                )
        ids = [body["interruptId"] for body in bodies]
        for iid in ids:  # ROC-RESUME-008
            if ids.count(iid) > 1:
                raise RocError("DUPLICATE_RESPONSE", f"{iid!r} is answered twice", interruptId=iid)
        for iid in ids:  # ROC-RESUME-007, ROC-ANSWER-004/005/009; ROC-ANSWER-006: by id only
            if iid not in self.stored or self.stored[iid].answered:
                raise RocError(
                    "UNKNOWN_INTERRUPT", f"no unanswered pending interrupt {iid!r}", interruptId=iid
                )
        return [(body["interruptId"], body["response"]) for body in bodies]

    def _loop(self) -> dict[str, Any]:
        while True:
            if self.pending is None:
                self._fire("BeforeModelCall")
                content, stop_reason = self.model(copy.deepcopy(self.messages))
                turn = {"role": "assistant", "content": copy.deepcopy(content)}
                self._fire("AfterModelCall", message=copy.deepcopy(turn))
                if not tool_uses(turn):  # ROC-TOOL-001: the turn ends the invocation with its stop reason
                    self._append(turn)
                    stop = "end_turn" if stop_reason == "tool_use" else stop_reason
                    return {"stopReason": stop, "message": copy.deepcopy(turn), "interrupts": []}
                self.pending = {"assistant": turn, "results": {}}  # ROC-TOOL-002: run the batch first
            raised = self._cycle(self.pending["assistant"], self.pending["results"])
            if raised:  # ROC-STOP-001, ROC-STOP-004: no model call after an unanswered raise
                return {
                    "stopReason": "interrupt",
                    "message": copy.deepcopy(self.pending["assistant"]),  # ROC-STOP-005
                    "interrupts": copy.deepcopy(raised),
                }
            # ROC-TOOL-003: the batch completes; its two messages enter the history together, in order.
            assistant, results = self.pending["assistant"], self.pending["results"]
            self._append(assistant)
            self._append(_result_message(assistant, results))
            self.stored, self.pending = {}, None  # ROC-ANSWER-007: the answers are consumed
            self._checkpoint = self._capture()  # ROC-ERR-012: an INTERNAL failure keeps this batch
            # ROC-TOOL-007: the loop goes on with a model call

    def _cycle(self, assistant: Message, results: dict[str, Any]) -> list[dict[str, Any]]:
        """One tool cycle over the pending batch; the interrupts to report (none: the batch completed)."""
        uses = tool_uses(assistant)
        ran: set[tuple[str, str | None]] = {("before_tools", None)}  # units that ran (ROC-ANSWER-005)
        before = Event("BeforeTools", self, message=copy.deepcopy(assistant))  # ROC-HOOK-006, ROC-HOOK-007
        raised = self.hooks.fire_interruptible(before, Unit(self, "before_tools", None))
        if raised:  # ROC-HOOK-019, ROC-CANCEL-007: no tool, no BeforeToolCall, no AfterTools
            return self._stop(raised, ran, uses)
        todo = [u for u in uses if u["toolUseId"] not in results]  # ROC-TOOL-011: preserved results stay
        if before.cancel is not False:  # ROC-CANCEL-005, ROC-CANCEL-006: error results, no per-tool events
            text = CANCEL_BATCH_TEXT if before.cancel is True else str(before.cancel)
            for use in todo:
                results[use["toolUseId"]] = text_result(use["toolUseId"], text)
            todo = []
        for use in todo:  # the sequential executor: one at a time, in tool-use order (ROC-EXEC-001)
            raised = self._run_tool(use, results, ran)
            if raised:  # ROC-EXEC-002: the cycle ends at the first tool use that interrupts
                break
        # ROC-HOOK-010, ROC-HOOK-011: AfterTools with the results as they stand, in tool-use order.
        self._fire("AfterTools", message=copy.deepcopy(assistant), result=_result_message(assistant, results))
        return self._stop(raised, ran, uses) if raised else []

    def _run_tool(
        self, use: dict[str, Any], results: dict[str, Any], ran: set[tuple[str, str | None]]
    ) -> list[Stored]:
        """BeforeToolCall, then the cancel or the body, then AfterToolCall; the interrupts it raised."""
        use_id = use["toolUseId"]
        ran.add(("before_tool_call", use_id))
        before = Event("BeforeToolCall", self, tool_use=copy.deepcopy(use))
        raised = self.hooks.fire_interruptible(before, Unit(self, "before_tool_call", use))
        if raised:  # ROC-HOOK-018, ROC-CANCEL-007: no body, no result, no AfterToolCall
            return raised
        tool = self.tools.get(use["name"])
        if before.cancel is not False:  # ROC-CANCEL-001..004: a message, even "", is the result's text
            result = text_result(use_id, CANCEL_TOOL_TEXT if before.cancel is True else str(before.cancel))
        elif tool is None:  # ROC-TOOL-009
            result = text_result(use_id, f"unknown tool {use['name']!r}")
        else:
            ran.add(("tool", use_id))
            unit = Unit(self, "tool", use)
            value: Any = None
            try:  # ROC-REPLAY-001: the body runs from its start, on its own copy of the input
                value = tool(ToolContext(copy.deepcopy(use), self, unit), copy.deepcopy(use["input"]))
            except _Pause:
                pass
            except RocError:
                raise
            except Exception as exc:  # ROC-TOOL-008: a failing body gives an error result, the batch goes on
                value = exc
            if unit.error is not None:  # a misuse of interrupt() fails the invocation, even if swallowed
                raise unit.error
            if unit.raised is not None:  # ROC-TOOL-010, ROC-REPLAY-009: the pause stands, no result
                return [unit.raised]
            result = _body_result(use_id, value)
        results[use_id] = result
        self._fire("AfterToolCall", tool_use=copy.deepcopy(use), result=copy.deepcopy(result))  # ROC-HOOK-009
        return []

    def _stop(
        self, raised: list[Stored], ran: set[tuple[str, str | None]], uses: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The interrupt boundary: keep what was raised, withdraw what a unit that ran did not raise again."""
        kept = {
            iid: s  # ROC-ANSWER-003: answers stay; ROC-ANSWER-005: withdrawn when the unit ran without it
            for iid, s in self.stored.items()
            if s.answered
            or (s.interrupt["source"]["kind"], s.interrupt["source"].get("toolUseId")) not in ran
        }
        self.stored = kept | {s.interrupt["id"]: s for s in raised}
        # ROC-STOP-002: this cycle's and the still-open earlier ones; ROC-STOP-010: tool-use order, then
        # BeforeTools before BeforeToolCall before the body, then the callbacks' registration order.
        order = {u["toolUseId"]: n for n, u in enumerate(uses)}
        rank = {"before_tools": 0, "before_tool_call": 1, "tool": 2}
        open_ = [s for s in self.stored.values() if not s.answered]
        open_.sort(
            key=lambda s: (
                order.get(s.interrupt["source"].get("toolUseId"), -1),
                rank[s.interrupt["source"]["kind"]],
                s.owner or 0,
            )
        )
        return [s.interrupt for s in open_]

    # --- helpers ---------------------------------------------------------------------------------

    def _mint_id(self, kind: str, tool_use_id: str | None, owner: int | None, name: str) -> str:
        """A new interrupt's id, from its raise point and the batch's place in the history.

        A replay raises at the same point and finds the stored interrupt (ROC-REPLAY-004); the history grows
        with each completed batch, so a later batch never reuses an id (ROC-MODEL-008).
        """
        point = json.dumps([kind, len(self.messages), tool_use_id, owner, name])
        return f"toy-{kind}-{hashlib.sha256(point.encode()).hexdigest()[:16]}"

    def _find(self, kind: str, tool_use_id: str | None, name: str) -> Stored | None:
        """The stored interrupt of a raise point (kind, toolUseId, name) in the pending batch."""
        for stored in self.stored.values():
            src = stored.interrupt["source"]
            if (
                stored.interrupt["name"] == name
                and src["kind"] == kind
                and src.get("toolUseId") == tool_use_id
            ):
                return stored
        return None

    def _fire(self, name: str, **members: Any) -> None:
        self.hooks.fire(Event(name, self, **members))

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        self._fire("MessageAdded", message=copy.deepcopy(message))  # ROC-HOOK-003: after the append

    def _capture(self) -> _Saved:
        return _Saved(*copy.deepcopy((self.messages, self.state, self.stored, self.pending)))

    def _restore(self, saved: _Saved) -> None:
        self.messages[:] = copy.deepcopy(saved.messages)
        self.state.clear()
        self.state.update(copy.deepcopy(saved.state))
        self.stored, self.pending = copy.deepcopy(saved.stored), copy.deepcopy(saved.pending)


def tool_uses(message: Message) -> list[dict[str, Any]]:
    """The tool uses of a message, in order."""
    return [block["toolUse"] for block in message.get("content", []) if "toolUse" in block]


def _result_message(assistant: Message, results: dict[str, Any]) -> Message:
    """The tool-result message: one result per tool use that has one, in tool-use order (ROC-TOOL-004)."""
    ordered = [results[u["toolUseId"]] for u in tool_uses(assistant) if u["toolUseId"] in results]
    return {"role": "user", "content": [{"toolResult": copy.deepcopy(r)} for r in ordered]}


def _body_result(tool_use_id: str, value: Any) -> dict[str, Any]:
    """A tool's result from what its body gave: an exception, a text, or a list of content items."""
    if isinstance(value, Exception):  # ROC-TOOL-008: the failure message as one text block
        return text_result(tool_use_id, str(value))
    if isinstance(value, str):
        return text_result(tool_use_id, value, "success")
    if not (isinstance(value, list) and all(_is_item(item) for item in value)):
        return text_result(tool_use_id, "the tool returned no list of text and json items")
    return {"toolUseId": tool_use_id, "status": "success", "content": copy.deepcopy(value)}


def _is_item(item: Any) -> bool:
    """A tool-result item: ``{"text": str}`` or ``{"json": value}`` (spec 2.3)."""
    if not isinstance(item, dict) or len(item) != 1:
        return False
    if "text" in item:
        return isinstance(item["text"], str)
    return "json" in item and json_problem(item["json"], None) is None
