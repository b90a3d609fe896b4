"""Interrupt state: ids, raise points, stored answers, resume validation, activation and consumption.

Interrupt ids (ROC-MODEL-002, ROC-MODEL-008, ROC-REPLAY-004)
------------------------------------------------------------
A new interrupt's id is derived only from its raise point, so replaying the same unit yields the same id::

    roc1:<kind>:<batch>:<scope>:<unit>:<name>

* ``kind`` is the source kind (``tool``, ``before_tool_call``, ``before_tools``);
* ``batch`` is the length of the message history when the tool batch began (decimal). The history does
  not change while a batch is pending (deferred append), so this is stable across replay and restore,
  and it grows with every completed batch, so ids are never reused across batches (ROC-MODEL-008) even
  when a model reuses a toolUseId;
* ``scope`` is the percent-encoded ``toolUseId`` for tool-bound kinds, and for ``before_tools`` the
  percent-encoded toolUseIds of the batch joined by ``,``;
* ``unit`` is ``body`` for a tool body, and the callback's registration index for a hook callback;
* ``name`` is the percent-encoded interrupt name.

Because the raising callback is part of the id, the runtime can tell when a callback reaches a name
that another callback of the same event instance raised in an earlier cycle of the batch (ROC-HOOK-021).

Percent-encoding (``urllib.parse.quote(..., safe="")``) escapes ``:`` and ``,``, so the encoding is
unambiguous: two different raise points never share an id. Callers never parse ids.

Stored interrupts are matched back to raise points by ``(kind, toolUseId, name)`` rather than by
recomputing the id, so a snapshot written by another implementation (other id format) still resumes.
"""

from __future__ import annotations

import re
import reprlib
import threading
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote

from .approval_data import BODY_KINDS, answer_rule_errors, bound_input, edits_of, merged_errors
from .audit import audit_problem
from .decisions import (
    DECISION_KINDS,
    Decision,
    InterruptDeclined,
    answer_digest,
    expiry_outcome,
    normalized_answer,
    on_expiry_problem,
)
from .errors import (
    DirectCallInterruptError,
    DuplicateInterruptNameError,
    DuplicateResponseError,
    ExpiredError,
    InterruptPendingError,
    InvalidReasonError,
    InvalidResponseError,
    InvalidResumeError,
    NotInterruptedError,
    RocError,
    SnapshotInvalidError,
    UnknownInterruptError,
)
from .integrity import input_digest
from .schemas import answer_errors, subset_problem
from .snapshot import Snapshot, parse_snapshot
from .types import (
    MAX_RESUME_BYTES,
    MAX_VALUE_BYTES,
    InnerInterrupt,
    Interrupt,
    InterruptResponseBlock,
    InterruptSource,
    InterruptSourceKind,
    PendingToolExecution,
    SnapshotInterrupt,
    ToolUse,
    json_copy,
    json_value_problem,
    json_value_size,
    parse_rfc3339,
    private_copy,
)

_T = TypeVar("_T")


def interrupt_id(kind: InterruptSourceKind, batch: int, scope: Sequence[str], unit: str, name: str) -> str:
    """The deterministic id of a raise point (see the module docstring for the derivation)."""
    encoded_scope = ",".join(_percent_encoded(part) for part in scope)
    return f"roc1:{kind}:{batch}:{encoded_scope}:{unit}:{_percent_encoded(name)}"


def propagated_interrupt(
    inner: Interrupt, agent_id: str, minted: str, kind: InterruptSourceKind, **place: str
) -> Interrupt:
    """The interrupt that stands for ``inner``, an interrupt of agent ``agent_id``, one level up (a
    sub-agent's for its tool use, ROC-AGENT-003; a node agent's for its orchestrator, ROC-GRAPH-007): id
    ``minted``, a source of ``kind`` at ``place`` (``tool_use_id`` and ``tool_name``, or ``node_id``) with
    ``inner``, and the name, reason, metadata and expiry unchanged, so a UI never parses ids."""
    link = InnerInterrupt(agent_id=agent_id, interrupt_id=inner.id, source=inner.source)
    source = InterruptSource(kind=kind, inner=link, **place)
    return private_copy(inner).model_copy(update={"id": minted, "source": source})


def routed_block(inner_id: str, value: Any, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``interruptResponse`` block that delivers an answer (or a ``Decision``) stored one level up to the
    interrupt ``inner_id`` it stands for (ROC-AGENT-004, ROC-GRAPH-011), with the ``metadata`` it was given
    with, so the inner agent keeps it too and its guard sees it (ROC-AUDIT-003, ROC-AUDIT-005)."""
    body: dict[str, Any] = {"interruptId": inner_id}
    if isinstance(value, Decision):
        body.update(value.to_json())
    else:
        body["response"] = json_copy(value)
    if metadata is not None:
        body["metadata"] = json_copy(metadata)
    return {"interruptResponse": body}


# The characters ``quote(..., safe="")`` never escapes (RFC 3986 unreserved).
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*", re.ASCII)


def _percent_encoded(text: str) -> str:
    # The same text as quote(text, safe=""); most ids and names need no escape, and quote costs several
    # microseconds even then (every tool use of a batch mints an id each time its body asks).
    return text if _UNRESERVED.fullmatch(text) else quote(text, safe="")


class InterruptRaised(BaseException):
    """Unwinds a hook callback or tool body that raised an unanswered interrupt.

    A ``BaseException`` so that a tool body's ``except Exception`` cannot swallow the pause. A tool body
    whose sub-agent stopped raises all the sub-agent's interrupts at once (``interrupts``, ROC-AGENT-001).
    """

    def __init__(self, interrupt: Interrupt, *more: Interrupt) -> None:
        super().__init__(interrupt.id)
        self.interrupt = interrupt
        self.interrupts = (interrupt, *more)


@dataclass(frozen=True)
class RaisePoint:
    """Where interrupts of one unit come from: the layer, and the tool use or batch it is bound to."""

    kind: InterruptSourceKind
    batch_ordinal: int
    tool_use_id: str | None = None
    tool_name: str | None = None
    batch: tuple[str, ...] = ()

    def source(self) -> InterruptSource:
        return InterruptSource(kind=self.kind, tool_use_id=self.tool_use_id, tool_name=self.tool_name)

    def scope(self) -> tuple[str, ...]:
        return self.batch if self.kind == "before_tools" else (self.tool_use_id or "",)


@dataclass(frozen=True)
class StoredInterrupt:
    """An interrupt of the current cycle and what the caller gave for it: an answer (``response``; null
    answers are refused) or a decision (``decision``); neither = unanswered.

    Immutable, its ``response`` included (a private copy nobody edits): storing an answer replaces the
    entry, so a rollback copy of the state (``InterruptState.copy``) can share the entries.
    """

    interrupt: Interrupt
    response: Any = None
    input_digest: str | None = None
    """For a tool-bound interrupt: the digest of the tool input it was raised for, computed once at the stop
    (or read from the snapshot) and never recomputed, so it keeps naming the input the person approved."""
    decision: Decision | None = None
    response_metadata: dict[str, Any] | None = None
    """ROC-AUDIT-003: the ``metadata`` of the block that gave the answer or decision, kept with it until the
    batch completes (a private copy nobody edits); never handed to the unit (ROC-RESUME-015)."""

    @property
    def answered(self) -> bool:
        """ROC-DECIDE-008: a decided interrupt is no longer unanswered."""
        return self.response is not None or self.decision is not None

    def normalized(self) -> dict[str, Any] | None:
        """What is stored, in the form of ROC-PENDING-002 (``None`` while unanswered)."""
        if self.decision is not None:
            return self.decision.to_json()
        return None if self.response is None else normalized_answer(json_copy(self.response))

    def expired(self, now: datetime) -> bool:
        """ROC-EXPIRY-003: ``expiresAt`` at or before ``now`` (checked when it entered, ROC-SEC-015)."""
        expires_at = self.interrupt.expires_at
        return expires_at is not None and parse_rfc3339(expires_at) <= now


Resolution = tuple[str, Any]
"""One accepted block of a resume input: ``(interruptId, response)`` for an answer, ``(interruptId,
Decision)`` for a decline or cancel (a JSON response is never a ``Decision``)."""


@dataclass(frozen=True)
class Consumed:
    """One answer or decision consumed by the most recently completed batch (``interruptState.consumed``)."""

    interrupt_id: str
    answer_digest: str

    def to_json(self) -> dict[str, str]:
        return {"interruptId": self.interrupt_id, "answerDigest": self.answer_digest}


class UnitRun:
    """One run of one interruptible unit: an event instance (all its callbacks) or one tool-body run.

    It answers ``interrupt(name)`` from the stored answers and enforces name uniqueness in its scope.
    """

    def __init__(self, point: RaisePoint, book: AnswerBook, *, direct: bool = False) -> None:
        self.point = point
        self._book = book
        self._direct = direct
        self._claimed: set[str] = set()
        self.error: RocError | None = None
        """The first misuse of ``interrupt`` in this run; re-raised even if user code swallowed it."""
        self.raised: Interrupt | None = None
        """The last pause of this run; it stands even if user code caught it (ROC-REPLAY-009)."""
        self.raised_with: tuple[Interrupt, ...] = ()
        """The interrupts raised together with ``raised`` (a stopped sub-agent's, ROC-AGENT-001)."""

    def pause(self) -> InterruptRaised:
        """The pause this run stands on (``raised`` and what came with it)."""
        assert self.raised is not None
        return InterruptRaised(self.raised, *self.raised_with)

    def propagate(self, interrupts: Sequence[Interrupt]) -> BaseException:
        """Pause with the propagated interrupts of a stopped sub-agent (ROC-AGENT-001). Their names are the
        sub-agent's and need not be unique here: their ids are (ROC-AGENT-002)."""
        if self._direct:  # ROC-DIRECT-001: a direct call has no caller to hand the sub-agent's questions to
            return self._fail(DirectCallInterruptError("a sub-agent interrupted in a direct tool call"))
        return self.pause_with(interrupts)

    def pause_with(self, interrupts: Sequence[Interrupt]) -> InterruptRaised:
        """Pause with several interrupts at once: a sub-agent's (``propagate``), or the questions the built-in
        ``ask_user`` raised in this run (ROC-ASK-006)."""
        self.raised, *rest = interrupts
        self.raised_with = tuple(rest)
        return self.pause()

    def _fail(self, error: RocError) -> RocError:
        if self.error is None:
            self.error = error
        return error

    def interrupt(
        self,
        name: str,
        reason: Any = None,
        *,
        owner: int | None = None,
        metadata: dict[str, Any] | None = None,
        expires_at: str | None = None,
        on_expiry: Mapping[str, Any] | None = None,
        response_schema: dict[str, Any] | None = None,
    ) -> Any:
        """The stored answer for ``name`` at this raise point, or pause by raising ``InterruptRaised``.

        ``reason`` ``None`` is no reason: the interrupt is reported without a ``reason`` member
        (ROC-MODEL-007, spec 2.1). ``metadata`` is the raiser's extension point (spec 2.1), a JSON object
        reported unchanged. ``expires_at`` and ``on_expiry`` are reported unchanged as ``expiresAt`` and
        ``onExpiry``, and ``response_schema`` as ``responseSchema`` (ROC-SCHEMA-001). A decided interrupt
        raises ``InterruptDeclined`` (ROC-DECIDE-003). ``owner`` is the registration index of the raising
        hook callback (``None`` for a tool body).
        """
        if not isinstance(name, str) or not name:  # ROC-STOP-007
            raise self._fail(InvalidReasonError("interrupt name must be a non-empty string"))
        # ROC-STOP-008: reason is any JSON value; ROC-SEC-012: one a snapshot can carry.
        problem = json_value_problem(reason, max_bytes=MAX_VALUE_BYTES)
        if problem is not None:
            raise self._fail(InvalidReasonError(f"interrupt reason of {name!r} is not acceptable: {problem}"))
        # spec 2.1: metadata is a JSON object, with the limits of a reason so that a snapshot can carry it.
        if metadata is not None and (
            not isinstance(metadata, dict)
            or json_value_problem(metadata, max_bytes=MAX_VALUE_BYTES) is not None
        ):
            raise self._fail(InvalidReasonError(f"interrupt metadata of {name!r} must be a JSON object"))
        if expires_at is not None:  # ROC-EXPIRY-001: an RFC 3339 date-time with a zone, in-range fields
            try:
                parse_rfc3339(expires_at)
            except ValueError:
                raise self._fail(
                    InvalidReasonError(f"expiresAt of {name!r} is not an RFC 3339 date-time: {expires_at!r}")
                ) from None
        if on_expiry is not None:  # ROC-EXPIRY-002
            expiry_problem = on_expiry_problem(on_expiry)
            if expiry_problem is not None:
                raise self._fail(InvalidReasonError(f"interrupt {name!r}: {expiry_problem}"))
        if response_schema is not None:  # ROC-SCHEMA-002: the portable subset, within the limits of a reason
            schema_problem = json_value_problem(response_schema, max_bytes=MAX_VALUE_BYTES) or subset_problem(
                response_schema
            )
            if schema_problem is not None:
                raise self._fail(InvalidReasonError(f"responseSchema of {name!r}: {schema_problem}"))
        if self._direct:  # ROC-DIRECT-001: no caller to hand control to
            raise self._fail(DirectCallInterruptError(f"interrupt {name!r} raised in a direct tool call"))
        # ROC-HOOK-021, ROC-HOOK-022, ROC-TOOL-014: a name is raised once per event instance / tool-body run.
        if name in self._claimed:
            raise self._fail(
                DuplicateInterruptNameError(f"interrupt name {name!r} used twice", details={"name": name})
            )
        self._claimed.add(name)
        unit = "body" if owner is None else str(owner)
        minted = interrupt_id(self.point.kind, self.point.batch_ordinal, self.point.scope(), unit, name)
        stored = self._book.find(self.point, name)
        if stored is not None and stored.interrupt.id.startswith("roc1:") and stored.interrupt.id != minted:
            # ROC-HOOK-021: another callback of this event instance raised this name in an earlier cycle.
            clash = DuplicateInterruptNameError(f"two callbacks raised {name!r}", details={"name": name})
            raise self._fail(clash)
        if stored is not None and stored.decision is not None:
            # ROC-DECIDE-003: the replayed raise point of a decided interrupt gets the decision
            raise InterruptDeclined(stored.decision, name=name, interrupt_id=stored.interrupt.id)
        if stored is not None and stored.answered:
            return json_copy(stored.response)  # ROC-REPLAY-003: the replayed raise point gets it
        if stored is not None:
            # ROC-REPLAY-004, ROC-ANSWER-002: an unanswered interrupt keeps its id, name and reason.
            self.raised, self.raised_with = stored.interrupt, ()
            raise InterruptRaised(stored.interrupt)
        extra: dict[str, Any] = {} if metadata is None else {"metadata": json_copy(metadata)}
        if expires_at is not None:
            extra["expires_at"] = expires_at
        if on_expiry is not None:
            extra["on_expiry"] = json_copy(dict(on_expiry))
        if response_schema is not None:
            extra["response_schema"] = json_copy(response_schema)
        self.raised = Interrupt(
            id=minted, name=name, reason=json_copy(reason), source=self.point.source(), **extra
        )
        self.raised_with = ()
        raise InterruptRaised(self.raised)


class AnswerBook:
    """Read-only view of the stored interrupts for one cycle (shared by executor threads).

    Indexed once when the cycle starts: a batch of N tool uses then costs N lookups, not N scans of N.
    """

    def __init__(self, stored: dict[str, StoredInterrupt]) -> None:
        self._by_unit: dict[tuple[str, str | None, str], StoredInterrupt] = {}
        self._bound: dict[str | None, list[StoredInterrupt]] = {}
        self._propagated: dict[str, list[StoredInterrupt]] = {}
        # ROC-APPROVE-013: toolUseId -> the input an approval's edit gave it (the body's effective input).
        self._edits = edits_of((s.interrupt, s.response) for s in stored.values())
        for entry in stored.values():
            src = entry.interrupt.source
            if src.inner is not None and src.tool_use_id is not None:  # matched by inner id, not by name
                self._propagated.setdefault(src.tool_use_id, []).append(entry)
            unit = None if src.kind == "before_tools" else src.tool_use_id  # a batch is one unit
            self._by_unit.setdefault((src.kind, unit, entry.interrupt.name), entry)
            if entry.input_digest is not None:
                self._bound.setdefault(src.tool_use_id, []).append(entry)

    def find(self, point: RaisePoint, name: str) -> StoredInterrupt | None:
        unit = None if point.kind == "before_tools" else point.tool_use_id
        return self._by_unit.get((point.kind, unit, name))

    def propagated(self, tool_use_id: str) -> list[StoredInterrupt]:
        """The stored interrupts propagated from the sub-agent of one tool use (ROC-AGENT-004)."""
        return self._propagated.get(tool_use_id, [])

    def edited_input(self, tool_use_id: str) -> dict[str, Any] | None:
        """The input the tool use's approval was answered with edit with (a copy), else ``None``
        (ROC-APPROVE-008, ROC-APPROVE-013: the body, also when replayed, runs with it)."""
        edited = self._edits.get(tool_use_id)
        return None if edited is None else json_copy(edited)

    def check_input(self, use: ToolUse) -> None:
        """Refuse to run a tool use whose input differs from the one its stored interrupts were raised for.

        ROC-SNAP-013, spec 10.2: called before the tool's BeforeToolCall callbacks and body run, so an answer
        only ever approves the input it was given for, whatever happened to the input in between.
        """
        bound = self._bound.get(use.tool_use_id, [])
        digest = input_digest(use.input) if bound else None  # once per tool use, not once per interrupt
        edited = self._edits.get(use.tool_use_id)
        edited_digest = input_digest(edited) if bound and edited is not None else digest
        for stored in bound:
            # ROC-APPROVE-013: the body's interrupts were raised for the effective (edited) input.
            expected = edited_digest if stored.interrupt.source.kind in BODY_KINDS else digest
            if expected != stored.input_digest:
                raise SnapshotInvalidError(
                    f"input of tool use {use.tool_use_id!r} differs from the input interrupt "
                    f"{stored.interrupt.id!r} was raised for",
                    details={"interruptId": stored.interrupt.id, "toolUseId": use.tool_use_id},
                )


@dataclass
class InterruptState:
    """The agent's interrupt state (``interruptState`` in a snapshot).

    ``activated`` is true exactly while the agent waits for answers; ``pending`` then holds the tool
    cycle in flight. ``interrupts`` holds every interrupt of that cycle, answered or not.
    """

    activated: bool = False
    interrupts: dict[str, StoredInterrupt] = field(default_factory=dict)
    pending: PendingToolExecution | None = None
    consumed: list[Consumed] = field(default_factory=list)
    """What the most recently completed (or abandoned) batch consumed (ROC-RESEND-001, ROC-RESEND-003)."""
    children: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Format 2.2 (ROC-AGENT-008): toolUseId -> the sub-agent its body ran in this batch, as the JSON of
    ``interruptState.children`` (a private document nobody edits in place)."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def book(self) -> AnswerBook:
        return AnswerBook(self.interrupts)

    def unanswered(self) -> list[Interrupt]:
        """The interrupts waiting for an answer, in the order of ROC-STOP-010."""
        waiting = [s.interrupt for s in self.interrupts.values() if not s.answered]
        uses = self.pending.assistant_message.tool_uses() if self.pending is not None and waiting else []
        return self._ordered(waiting, lambda i: i, uses)

    # --- resume input ------------------------------------------------------------------------

    def parse_resume(self, prompt: Any) -> list[Resolution]:
        """Validate input given to an agent; return the answers and decisions when it is a valid resume.

        Pure: raises a ``RocError`` and changes nothing on rejection. Returns ``[]`` for an ordinary
        prompt to an agent that is not interrupted (which the caller then appends as a user message).
        Checks run in the order of ROC-RESUME-014, each over the whole input: not interrupted + any
        interruptResponse -> NOT_INTERRUPTED; interrupted + not a list, or any block that is not an
        interruptResponse -> INTERRUPT_PENDING; empty list, a malformed interruptResponse or a malformed
        decision -> INVALID_RESUME; null or missing response, or metadata that is not a JSON object ->
        INVALID_RESPONSE; the same id twice -> DUPLICATE_RESPONSE; an id that is not an unanswered pending
        interrupt -> UNKNOWN_INTERRUPT. ``EXPIRED`` ranks after all of them (``check_expiry``).
        """
        blocks = prompt if isinstance(prompt, list) else None
        has_response = blocks is not None and any(_is_response_block(b) for b in blocks)
        if not self.activated:
            if has_response:  # ROC-RESUME-012, ROC-ANSWER-008: answers to an agent that is not interrupted
                raise NotInterruptedError("the agent is not interrupted; interruptResponse input is refused")
            return []
        if blocks is None:  # ROC-RESUME-002: a plain prompt while interrupted; ROC-PENDING-005: the list
            raise InterruptPendingError(
                "the agent is interrupted; resume with interruptResponse blocks",
                details={"pending": self.pending_list()},
            )
        if not blocks:  # ROC-RESUME-003: empty resume list
            raise InvalidResumeError("resume input must be a non-empty list of interruptResponse blocks")
        if not all(_is_response_block(b) for b in blocks):  # ROC-RESUME-002: other content or a mix
            raise InterruptPendingError(
                "the agent is interrupted; resume with interruptResponse blocks only",
                details={"pending": self.pending_list()},
            )
        bodies: list[_Body] = []
        for block in blocks:
            body = _response_body(block)
            if isinstance(body, str):  # ROC-RESUME-004, ROC-DECIDE-002: a malformed block or decision
                raise InvalidResumeError(
                    f"malformed interruptResponse block: {body}", details={"block": _describe(block)}
                )
            bodies.append(body)
        # ROC-SEC-011, ROC-SEC-013: every answer accepted here can be saved, so a save never fails after
        # the approved tool ran. Measured without recursion; the size check comes first (INVALID_RESUME
        # ranks before INVALID_RESPONSE, ROC-RESUME-014). A decision's message is measured like an answer.
        measured = [json_value_size(body.value) for body in bodies]
        total = sum(size for _, size in measured)
        if total > MAX_RESUME_BYTES:
            raise InvalidResumeError(
                f"the responses of one resume input exceed {MAX_RESUME_BYTES} bytes",
                details={"maxBytes": MAX_RESUME_BYTES},
            )
        for body, (problem, size) in zip(bodies, measured, strict=True):
            problem = body.problem(problem, size)  # ROC-RESUME-005, ROC-RESUME-006, ROC-RESUME-009
            if problem is not None:
                raise InvalidResponseError(
                    f"response to {body.interrupt_id!r} must be a JSON value other than null, within the "
                    f"limits of spec 10.6 ({problem})",
                    details={"interruptId": body.interrupt_id},
                )
            # ROC-AUDIT-001, ROC-AUDIT-002: the registered keys of the metadata, at the same rank.
            audit = None if body.metadata is _NO_METADATA else audit_problem(body.metadata)
            if audit is not None:
                path, form = audit
                raise InvalidResponseError(
                    f"{path} of the block for {body.interrupt_id!r} must be {form}",
                    details={"interruptId": body.interrupt_id, "path": path},
                )
        seen: set[str] = set()
        for body in bodies:  # ROC-RESUME-008: one answer or decision per interrupt per resume
            if body.interrupt_id in seen:
                raise DuplicateResponseError(
                    f"interrupt {body.interrupt_id!r} answered twice",
                    details={"interruptId": body.interrupt_id},
                )
            seen.add(body.interrupt_id)
        for body in bodies:  # ROC-RESUME-007, ROC-ANSWER-004, ROC-ANSWER-009, ROC-DECIDE-008
            stored = self.interrupts.get(body.interrupt_id)
            if stored is None or stored.answered:  # not an unanswered pending interrupt
                raise UnknownInterruptError(
                    f"no unanswered pending interrupt with id {body.interrupt_id!r}",
                    details={"interruptId": body.interrupt_id},
                )
        for body in bodies:  # ROC-SCHEMA-004, ROC-SCHEMA-005: an answer satisfies its responseSchema
            schema = self.interrupts[body.interrupt_id].interrupt.response_schema
            # ROC-SCHEMA-010: a restored schema outside the subset (a runtime without the profile wrote it)
            # only informs, as in RoC 1.0.
            checked = bool(schema) and body.decision == "answer" and subset_problem(schema) is None
            errors = answer_errors(schema, body.response) if schema and checked else []
            if body.decision == "answer":  # ROC-APPROVE-004: an approval's rules beyond its schema join them
                rules = answer_rule_errors(self.interrupts[body.interrupt_id].interrupt, body.response)
                errors = merged_errors(errors, rules) if rules else errors
            if errors:
                raise InvalidResponseError(
                    f"the answer to {body.interrupt_id!r} does not satisfy its responseSchema at "
                    f"{errors[0]['path']!r} ({errors[0]['keyword']})",
                    details={"interruptId": body.interrupt_id, "path": errors[0]["path"], "errors": errors},
                )
        return [body.resolution() for body in bodies]

    def check_expiry(self, resolutions: Sequence[Resolution], now: datetime) -> None:
        """ROC-EXPIRY-004: an answer for an expired interrupt is refused with EXPIRED (after every code of
        ROC-RESUME-014, ROC-EXPIRY-006); a decline or cancel for it is accepted (ROC-DECIDE-009)."""
        for interrupt_id_, value in resolutions:
            if isinstance(value, Decision):
                continue
            stored = self.interrupts[interrupt_id_]
            if stored.expired(now):
                raise ExpiredError(
                    f"interrupt {interrupt_id_!r} expired at {stored.interrupt.expires_at}",
                    details={"interruptId": interrupt_id_},
                )

    def expiry_resolutions(self, resolutions: Sequence[Resolution], now: datetime) -> list[Resolution]:
        """ROC-EXPIRY-005: the expiry outcome of every unanswered expired interrupt the input leaves open."""
        given = {interrupt_id_ for interrupt_id_, _ in resolutions}
        return [
            (key, expiry_outcome(stored.interrupt.on_expiry))
            for key, stored in self.interrupts.items()
            if not stored.answered and key not in given and stored.expired(now)
        ]

    def apply_answers(
        self, answers: Sequence[Resolution], metadata: Mapping[str, dict[str, Any]] | None = None
    ) -> None:
        """Store validated answers and decisions; they stay until their batch completes (ROC-ANSWER-003,
        ROC-DECIDE-008). ``metadata`` (interruptId -> the block's ``metadata``) is kept with each answer or
        decision it belongs to (ROC-AUDIT-003)."""
        stored = dict(self.interrupts)  # a new dict: a rollback copy keeps the old one (see ``copy``)
        kept = metadata or {}
        for interrupt_id_, value in answers:
            given = json_copy(kept.get(interrupt_id_))
            if isinstance(value, Decision):
                entry = replace(stored[interrupt_id_], decision=value, response_metadata=given)
            else:
                entry = replace(stored[interrupt_id_], response=json_copy(value), response_metadata=given)
            stored[interrupt_id_] = entry
        self.interrupts = stored

    def kept_metadata(self) -> dict[str, dict[str, Any]]:
        """ROC-AUDIT-005: interruptId -> the kept ``metadata`` of each answered or decided interrupt of the
        pending batch that has one (copies)."""
        return {
            key: json_copy(stored.response_metadata)
            for key, stored in self.interrupts.items()
            if stored.answered and stored.response_metadata is not None
        }

    def resend_ids(self, prompt: Any) -> list[str]:
        """ROC-RESEND-001/002: the ids of well-formed blocks of ``prompt`` identical to an answer or decision
        stored for the pending batch or consumed by the most recently completed batch (input order, once).

        Never fails: it only reads a rejected input to enrich its error.
        """
        known = {c.interrupt_id: c.answer_digest for c in self.consumed}
        for key, stored in self.interrupts.items():
            normalized = stored.normalized()
            if normalized is not None:
                known[key] = answer_digest(normalized)
        if not known or not isinstance(prompt, list):
            return []
        found: list[str] = []
        for block in prompt:
            try:
                body = _response_body(block) if _is_response_block(block) else None
                if body is None or isinstance(body, str) or body.interrupt_id in found:
                    continue
                problem, size = json_value_size(body.value)
                if body.problem(problem, size) is not None:
                    continue
                if known.get(body.interrupt_id) == answer_digest(body.normalized()):
                    found.append(body.interrupt_id)
            except Exception:  # a hostile block only means "not a re-send"; the real error is reported
                continue
        return found

    # --- pending list ------------------------------------------------------------------------

    def pending_list(self) -> list[dict[str, Any]]:
        """ROC-PENDING-001/002: every pending interrupt as reported, plus ``answer`` when something is
        stored; ``[]`` when not interrupted. Order of ROC-STOP-010 (an orchestrator's state has no pending
        batch: registration order). Reads only."""
        if not self.activated:
            return []
        entries: list[dict[str, Any]] = []
        uses = self.pending.assistant_message.tool_uses() if self.pending is not None else []
        for stored in self._ordered(list(self.interrupts.values()), lambda s: s.interrupt, uses):
            doc = stored.interrupt.to_json()
            normalized = stored.normalized()
            if normalized is not None:
                doc["answer"] = normalized
            entries.append(doc)
        return entries

    @staticmethod
    def _ordered(
        items: list[_T], interrupt_of: Callable[[_T], Interrupt], uses: Sequence[ToolUse]
    ) -> list[_T]:
        # ROC-STOP-010: batch-level interrupts first, then by tool use (``uses``: the pending batch's),
        # BeforeToolCall before the body; the stable sort keeps the registration order of the callbacks of
        # one event instance.
        order = {u.tool_use_id: n for n, u in enumerate(uses)}
        rank = {"before_tools": 0, "before_tool_call": 1, "tool": 2, "agent_as_tool": 2}

        def key(item: _T) -> tuple[int, int]:
            source = interrupt_of(item).source
            return order.get(source.tool_use_id or "", -1), rank.get(source.kind, 3)

        return sorted(items, key=key)

    # --- transitions -------------------------------------------------------------------------

    def stop(
        self,
        raised: list[Interrupt],
        pending: PendingToolExecution,
        ran: Set[tuple[str, str | None]],
        children: Mapping[str, dict[str, Any]] | None = None,
    ) -> list[Interrupt]:
        """Interrupt boundary: the interrupts to report, in order; the batch's answers are kept.

        ROC-ANSWER-005: an unanswered interrupt whose unit ran (``ran``: ``(source kind, toolUseId)``) and
        did not raise it again is withdrawn. ROC-STOP-002: one whose unit did not run stays pending and is
        reported again with what this cycle raised.
        """
        raised_ids = {i.id for i in raised}
        carried = [
            v
            for k, v in self.interrupts.items()
            if not v.answered
            and k not in raised_ids
            and (v.interrupt.source.kind, v.interrupt.source.tool_use_id) not in ran
        ]
        # Stored interrupts keep the place they were first raised in, so that the pending list
        # (ROC-PENDING-001) keeps the registration order of one event's callbacks, answered or not.
        staying = raised_ids | {v.interrupt.id for v in carried}
        kept = {k: v for k, v in self.interrupts.items() if v.answered or k in staying}
        uses = pending.assistant_message.tool_uses()  # once per stop: a batch may hold many tool uses
        inputs = {u.tool_use_id: u.input for u in uses}
        edits = edits_of((s.interrupt, s.response) for s in kept.values())
        for interrupt in raised:
            if interrupt.id in kept:  # raised again: the same interrupt (ROC-REPLAY-004), its digest kept
                continue
            tool_use_id = interrupt.source.tool_use_id
            # ROC-SNAP-006, ROC-SNAP-013: the digest is taken here, once, over the runtime's private input;
            # ROC-APPROVE-013: for the body's interrupts, over the effective input of an approval's edit.
            digest = (
                input_digest(bound_input(interrupt.source.kind, inputs[tool_use_id], edits.get(tool_use_id)))
                if tool_use_id in inputs
                else None
            )
            kept[interrupt.id] = StoredInterrupt(interrupt, input_digest=digest)
        self.interrupts = kept
        self.pending = pending
        self.activated = True
        if children is not None:
            self.children = dict(children)
        reported = [*raised, *(s.interrupt for s in carried)]
        return self._ordered(reported, lambda i: i, uses)  # ROC-STOP-010

    def complete_cycle(self) -> None:
        """Consumption: the batch's answers and decisions are used up when it completes (ROC-ANSWER-007,
        ROC-ANSWER-010, ROC-DECIDE-008); what they were is recorded to tell a re-send (ROC-RESEND-001)."""
        self.consumed = [
            Consumed(key, answer_digest(normalized))
            for key, stored in self.interrupts.items()
            if (normalized := stored.normalized()) is not None
        ]
        self.interrupts = {}
        self.pending = None
        self.activated = False
        self.children = {}

    # --- snapshot form -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "activated": self.activated,
            "interrupts": [self._snapshot_interrupt(s).to_json() for s in self.interrupts.values()],
            "pendingToolExecution": None if self.pending is None else self.pending.to_json(),
        }
        if self.consumed:  # ROC-RESEND-003 (format 2.1); absent when nothing was consumed
            doc["consumed"] = [c.to_json() for c in self.consumed]
        if self.children:  # ROC-AGENT-008 (format 2.2); absent when no sub-agent ran in the batch
            doc["children"] = json_copy(self.children)
        return doc

    def _snapshot_interrupt(self, stored: StoredInterrupt) -> SnapshotInterrupt:
        # ROC-SNAP-006: the digest taken at the stop, not one of the input as it stands now.
        fields = stored.interrupt.model_dump()
        for optional in ("metadata", "on_expiry"):  # absent stays absent (a stored null would be malformed)
            if fields.get(optional) is None:
                fields.pop(optional, None)
        decision = stored.decision
        return SnapshotInterrupt(
            **fields,
            response=json_copy(stored.response),
            input_digest=stored.input_digest,
            decision=None if decision is None else decision.kind,
            message=None if decision is None else decision.message,
            response_metadata=json_copy(stored.response_metadata),  # ROC-AUDIT-003 (format 2.3)
        )

    def copy(self) -> InterruptState:
        """An independent copy: the dict and list are new; the entries, the pending batch and what it holds
        are immutable (no method changes them in place), so they are shared."""
        return InterruptState(
            activated=self.activated,
            interrupts=dict(self.interrupts),
            pending=self.pending,
            consumed=list(self.consumed),
            children=dict(self.children),
        )


_STORED_ONLY = {"response", "input_digest", "decision", "message", "response_metadata"}
"""The members of a stored interrupt that are not the interrupt as reported."""


def interrupt_state_of(snapshot: Snapshot) -> InterruptState:
    """The interrupt state a validated snapshot holds (its loader checked every rule first)."""
    state = snapshot.interrupt_state
    interrupts = InterruptState(
        activated=state.activated,
        pending=state.pending_tool_execution,
        consumed=[Consumed(c.interrupt_id, c.answer_digest) for c in state.consumed or []],
        children=dict(snapshot.raw_children),
    )
    for stored in state.interrupts:
        wire = Interrupt.model_validate(stored.model_dump(exclude=_STORED_ONLY))
        decision = None if stored.decision is None else Decision(stored.decision, stored.message)
        # ROC-SNAP-013: the loader checked the digest against the input; it is kept, never recomputed.
        # ROC-AUDIT-003: the kept metadata of the answer or decision is read back with it.
        interrupts.interrupts[stored.id] = StoredInterrupt(
            wire, stored.response, stored.input_digest, decision, stored.response_metadata
        )
    return interrupts


def response_metadata_of(prompt: Any) -> dict[str, dict[str, Any]]:
    """interruptId -> the ``metadata`` of each block of a resume input ``parse_resume`` accepted (blocks
    without metadata are left out), as private copies (ROC-AUDIT-003, ROC-SEC-016)."""
    found: dict[str, dict[str, Any]] = {}
    for block in prompt if isinstance(prompt, list) else []:
        body = _response_body(block)
        if not isinstance(body, str) and isinstance(body.metadata, dict):
            found[body.interrupt_id] = json_copy(body.metadata)
    return found


def pending_interrupts_of(
    doc: Any, *, integrity_keys: Mapping[str, bytes] | None = None, max_snapshot_bytes: int | None = None
) -> list[dict[str, Any]]:
    """ROC-PENDING-004: the pending list of a stored snapshot document, without restoring it.

    The document is validated as a restore would (an invalid one raises the loader's error); the list
    equals what the writing agent's ``pending_interrupts()`` returned.
    """
    snapshot = parse_snapshot(doc, integrity_keys=integrity_keys, max_bytes=max_snapshot_bytes)
    return interrupt_state_of(snapshot).pending_list()


def _describe(value: Any) -> str:
    """A short description of a rejected input for error details: bounded, and never failing itself
    (``repr`` of an integer over 4,300 digits raises ValueError; reprlib also bounds size and depth)."""
    try:
        return reprlib.repr(value)
    except Exception:  # any repr can fail; the error being reported must not
        return f"<{type(value).__name__}>"


def _is_response_block(block: Any) -> bool:
    if isinstance(block, InterruptResponseBlock):
        return True
    return isinstance(block, dict) and "interruptResponse" in block


_NO_METADATA: Any = object()
"""The metadata of an answer that carries none (``None`` would be an explicit, and refused, null)."""
_BODY_MEMBERS = frozenset({"interruptId", "response", "metadata", "decision", "message"})


@dataclass(frozen=True)
class _Body:
    """A well-formed interruptResponse body: an answer (``decision`` "answer") or a decision."""

    interrupt_id: str
    decision: str
    response: Any
    message: str | None
    metadata: Any

    @property
    def value(self) -> Any:
        """What is measured against the value limits: the response, or a decision's message."""
        return self.response if self.decision == "answer" else self.message

    def problem(self, problem: str | None, size: int) -> str | None:
        """Why this body is INVALID_RESPONSE given its measured value, or ``None``."""
        if self.decision == "answer" and self.response is None:
            return "null"
        if problem is None and size > MAX_VALUE_BYTES:
            return f"canonical form larger than {MAX_VALUE_BYTES} bytes"
        if (
            problem is None
            and self.metadata is not _NO_METADATA
            and (
                not isinstance(self.metadata, dict)
                or json_value_problem(self.metadata, max_bytes=MAX_VALUE_BYTES) is not None
            )
        ):
            # spec 2.2: metadata is accepted only as a JSON object (one a runtime can keep); the unit gets the
            # response alone (ROC-RESUME-015), the metadata is kept with the answer (ROC-AUDIT-003).
            return "metadata is not a JSON object within the limits"
        return problem

    def normalized(self) -> dict[str, Any]:
        """ROC-PENDING-002 / ROC-RESEND-001: what a re-send is compared by (metadata never included)."""
        if self.decision == "answer":
            return normalized_answer(self.response)
        return Decision(self.decision, self.message).to_json()  # type: ignore[arg-type]

    def resolution(self) -> Resolution:
        if self.decision == "answer":
            return self.interrupt_id, self.response
        return self.interrupt_id, Decision(self.decision, self.message)  # type: ignore[arg-type]


def _response_body(block: Any) -> _Body | str:
    """The body of a block, or why it is malformed (INVALID_RESUME: ROC-RESUME-004, ROC-DECIDE-002).

    A missing response of an answer reads as null (INVALID_RESPONSE); a missing metadata is
    ``_NO_METADATA``. The body's members are ``interruptId``, ``response``, ``decision``, ``message`` and
    the ``metadata`` extension point (spec 2.2); any other member makes the block malformed.
    """
    if isinstance(block, InterruptResponseBlock):
        model = block.interrupt_response
        body: Any = model.model_dump(by_alias=True, exclude_none=True)
        if model.response is not None:
            body["response"] = model.response
    else:
        body = block.get("interruptResponse") if isinstance(block, dict) and len(block) == 1 else None
    if not isinstance(body, dict) or not set(body) <= _BODY_MEMBERS:
        return "not an object of interruptId, response, decision, message and metadata"
    interrupt_id_ = body.get("interruptId")
    if not isinstance(interrupt_id_, str) or not interrupt_id_:
        return "interruptId must be a non-empty string"
    decision = body.get("decision", "answer")
    if decision not in ("answer", *DECISION_KINDS):  # ROC-DECIDE-002
        return "decision must be 'answer', 'decline' or 'cancel'"
    if decision != "answer" and "response" in body:  # ROC-DECIDE-002
        return f"a {decision} carries no response"
    if decision == "answer" and "message" in body:  # ROC-DECIDE-002
        return "an answer carries no message"
    message = body.get("message")
    if "message" in body and not isinstance(message, str):  # ROC-DECIDE-002
        return "message must be a string"
    metadata = body.get("metadata", _NO_METADATA)
    return _Body(interrupt_id_, decision, body.get("response"), message, metadata)
