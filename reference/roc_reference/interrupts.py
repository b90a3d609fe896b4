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

import reprlib
import threading
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

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
from .types import (
    MAX_RESUME_BYTES,
    MAX_VALUE_BYTES,
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
)


def interrupt_id(kind: InterruptSourceKind, batch: int, scope: Sequence[str], unit: str, name: str) -> str:
    """The deterministic id of a raise point (see the module docstring for the derivation)."""
    encoded_scope = ",".join(quote(part, safe="") for part in scope)
    return f"roc1:{kind}:{batch}:{encoded_scope}:{unit}:{quote(name, safe='')}"


class InterruptRaised(BaseException):
    """Unwinds a hook callback or tool body that raised an unanswered interrupt.

    A ``BaseException`` so that a tool body's ``except Exception`` cannot swallow the pause.
    """

    def __init__(self, interrupt: Interrupt) -> None:
        super().__init__(interrupt.id)
        self.interrupt = interrupt


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


@dataclass
class StoredInterrupt:
    """An interrupt of the current cycle and its answer (``None`` = unanswered; null answers are refused)."""

    interrupt: Interrupt
    response: Any = None
    input_digest: str | None = None
    """For a tool-bound interrupt: the digest of the tool input it was raised for, computed once at the stop
    (or read from the snapshot) and never recomputed, so it keeps naming the input the person approved."""

    @property
    def answered(self) -> bool:
        return self.response is not None


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
    ) -> Any:
        """The stored answer for ``name`` at this raise point, or pause by raising ``InterruptRaised``.

        ``reason`` ``None`` is no reason: the interrupt is reported without a ``reason`` member
        (ROC-MODEL-007, spec 2.1). ``metadata`` is the raiser's extension point (spec 2.1), a JSON object
        reported unchanged.
        ``owner`` is the registration index of the raising hook callback (``None`` for a tool body).
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
        if stored is not None and stored.answered:
            return json_copy(stored.response)  # ROC-REPLAY-003: the replayed raise point gets it
        if stored is not None:
            # ROC-REPLAY-004, ROC-ANSWER-002: an unanswered interrupt keeps its id, name and reason.
            self.raised = stored.interrupt
            raise InterruptRaised(stored.interrupt)
        extra = {} if metadata is None else {"metadata": json_copy(metadata)}
        self.raised = Interrupt(
            id=minted, name=name, reason=json_copy(reason), source=self.point.source(), **extra
        )
        raise InterruptRaised(self.raised)


class AnswerBook:
    """Read-only view of the stored interrupts for one cycle (shared by executor threads)."""

    def __init__(self, stored: dict[str, StoredInterrupt]) -> None:
        self._stored = stored

    def find(self, point: RaisePoint, name: str) -> StoredInterrupt | None:
        for entry in self._stored.values():
            src = entry.interrupt.source
            same_unit = point.kind == "before_tools" or src.tool_use_id == point.tool_use_id
            if entry.interrupt.name == name and src.kind == point.kind and same_unit:
                return entry
        return None


@dataclass
class InterruptState:
    """The agent's interrupt state (``interruptState`` in a snapshot).

    ``activated`` is true exactly while the agent waits for answers; ``pending`` then holds the tool
    cycle in flight. ``interrupts`` holds every interrupt of that cycle, answered or not.
    """

    activated: bool = False
    interrupts: dict[str, StoredInterrupt] = field(default_factory=dict)
    pending: PendingToolExecution | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def book(self) -> AnswerBook:
        return AnswerBook(self.interrupts)

    def unanswered(self) -> list[Interrupt]:
        return [s.interrupt for s in self.interrupts.values() if not s.answered]

    # --- resume input ------------------------------------------------------------------------

    def parse_resume(self, prompt: Any) -> list[tuple[str, Any]]:
        """Validate input given to an agent; return the answers when it is a valid resume.

        Pure: raises a ``RocError`` and changes nothing on rejection. Returns ``[]`` for an ordinary
        prompt to an agent that is not interrupted (which the caller then appends as a user message).
        Checks run in the order of ROC-RESUME-014, each over the whole input: not interrupted + any
        interruptResponse -> NOT_INTERRUPTED; interrupted + not a list, or any block that is not an
        interruptResponse -> INTERRUPT_PENDING; empty list or a malformed interruptResponse ->
        INVALID_RESUME; null or missing response, or metadata that is not a JSON object -> INVALID_RESPONSE;
        the same id twice ->
        DUPLICATE_RESPONSE; an id that is not an unanswered pending interrupt -> UNKNOWN_INTERRUPT.
        """
        blocks = prompt if isinstance(prompt, list) else None
        has_response = blocks is not None and any(_is_response_block(b) for b in blocks)
        if not self.activated:
            if has_response:  # ROC-RESUME-012, ROC-ANSWER-008: answers to an agent that is not interrupted
                raise NotInterruptedError("the agent is not interrupted; interruptResponse input is refused")
            return []
        if blocks is None:  # ROC-RESUME-002: a plain prompt while interrupted
            raise InterruptPendingError("the agent is interrupted; resume with interruptResponse blocks")
        if not blocks:  # ROC-RESUME-003: empty resume list
            raise InvalidResumeError("resume input must be a non-empty list of interruptResponse blocks")
        if not all(_is_response_block(b) for b in blocks):  # ROC-RESUME-002: other content or a mix
            raise InterruptPendingError("the agent is interrupted; resume with interruptResponse blocks only")
        answers: list[tuple[str, Any]] = []
        metadata: list[Any] = []
        for block in blocks:
            body = _response_body(block)
            if body is None:  # ROC-RESUME-004
                raise InvalidResumeError(
                    "malformed interruptResponse block", details={"block": _describe(block)}
                )
            answers.append(body[:2])
            metadata.append(body[2])
        # ROC-SEC-011, ROC-SEC-013: every answer accepted here can be saved, so a save never fails after
        # the approved tool ran. Measured without recursion; the size check comes first (INVALID_RESUME
        # ranks before INVALID_RESPONSE, ROC-RESUME-014).
        measured = [json_value_size(response) for _, response in answers]
        total = sum(size for _, size in measured)
        if total > MAX_RESUME_BYTES:
            raise InvalidResumeError(
                f"the responses of one resume input exceed {MAX_RESUME_BYTES} bytes",
                details={"maxBytes": MAX_RESUME_BYTES},
            )
        for (interrupt_id_, response), (problem, size), meta in zip(answers, measured, metadata, strict=True):
            # ROC-RESUME-005, ROC-RESUME-006, ROC-RESUME-009
            if response is None:
                problem = "null"
            elif problem is None and size > MAX_VALUE_BYTES:
                problem = f"canonical form larger than {MAX_VALUE_BYTES} bytes"
            elif (
                problem is None
                and meta is not _NO_METADATA
                and (
                    not isinstance(meta, dict)
                    or json_value_problem(meta, max_bytes=MAX_VALUE_BYTES) is not None
                )
            ):
                # spec 2.2: metadata is accepted only as a JSON object (one a runtime could keep); it is then
                # dropped here: the unit gets the response alone, and this runtime keeps no metadata.
                problem = "metadata is not a JSON object within the limits"
            if problem is not None:
                raise InvalidResponseError(
                    f"response to {interrupt_id_!r} must be a JSON value other than null, within the limits "
                    f"of spec 10.6 ({problem})",
                    details={"interruptId": interrupt_id_},
                )
        seen: set[str] = set()
        for interrupt_id_, _ in answers:  # ROC-RESUME-008: one answer per interrupt per resume
            if interrupt_id_ in seen:
                raise DuplicateResponseError(
                    f"interrupt {interrupt_id_!r} answered twice", details={"interruptId": interrupt_id_}
                )
            seen.add(interrupt_id_)
        pending = {i.id for i in self.unanswered()}
        for interrupt_id_, _ in answers:  # ROC-RESUME-007, ROC-ANSWER-004, ROC-ANSWER-009
            if interrupt_id_ not in pending:
                raise UnknownInterruptError(
                    f"no unanswered pending interrupt with id {interrupt_id_!r}",
                    details={"interruptId": interrupt_id_},
                )
        now = datetime.now(UTC)
        for interrupt_id_, _ in answers:  # ROC-ERR-009 (MAY): an answer after expiresAt is refused
            expires_at = self.interrupts[interrupt_id_].interrupt.expires_at
            # ROC-SEC-015: expiresAt was checked when it entered (Interrupt model), so this cannot fail.
            if expires_at is not None and parse_rfc3339(expires_at) <= now:
                raise ExpiredError(
                    f"interrupt {interrupt_id_!r} expired at {expires_at}",
                    details={"interruptId": interrupt_id_},
                )
        return answers

    def apply_answers(self, answers: list[tuple[str, Any]]) -> None:
        """Store validated answers; they stay until their batch completes (ROC-ANSWER-003)."""
        for interrupt_id_, response in answers:
            self.interrupts[interrupt_id_].response = json_copy(response)

    # --- transitions -------------------------------------------------------------------------

    def stop(
        self, raised: list[Interrupt], pending: PendingToolExecution, ran: Set[tuple[str, str | None]]
    ) -> list[Interrupt]:
        """Interrupt boundary: the interrupts to report, in order; the batch's answers are kept.

        ROC-ANSWER-005: an unanswered interrupt whose unit ran (``ran``: ``(source kind, toolUseId)``) and
        did not raise it again is withdrawn. ROC-STOP-002: one whose unit did not run stays pending and is
        reported again with what this cycle raised.
        """
        kept = {k: v for k, v in self.interrupts.items() if v.answered}
        raised_ids = {i.id for i in raised}
        carried = [
            v
            for k, v in self.interrupts.items()
            if not v.answered
            and k not in raised_ids
            and (v.interrupt.source.kind, v.interrupt.source.tool_use_id) not in ran
        ]
        inputs = {u.tool_use_id: u.input for u in pending.assistant_message.tool_uses()}
        for interrupt in raised:
            tool_use_id = interrupt.source.tool_use_id
            # ROC-SNAP-006, ROC-SNAP-013: the digest is taken here, once, over the runtime's private input.
            digest = input_digest(inputs[tool_use_id]) if tool_use_id in inputs else None
            kept[interrupt.id] = StoredInterrupt(interrupt, input_digest=digest)
        for stored in carried:  # its digest is the one taken when it first stopped
            kept[stored.interrupt.id] = stored
        self.interrupts = kept
        self.pending = pending
        self.activated = True
        # ROC-STOP-010: batch-level interrupts first, then by tool use, BeforeToolCall before the body; the
        # stable sort keeps the registration order of the callbacks of one event instance.
        order = {tool_use_id: n for n, tool_use_id in enumerate(inputs)}
        rank = {"before_tools": 0, "before_tool_call": 1, "tool": 2}
        reported = [*raised, *(s.interrupt for s in carried)]
        return sorted(
            reported,
            key=lambda i: (order.get(i.source.tool_use_id or "", -1), rank.get(i.source.kind, 3)),
        )

    def complete_cycle(self) -> None:
        """Consumption: the batch's answers are used up when it completes (ROC-ANSWER-007, ROC-ANSWER-010)."""
        self.interrupts = {}
        self.pending = None
        self.activated = False

    # --- snapshot form -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "activated": self.activated,
            "interrupts": [self._snapshot_interrupt(s).to_json() for s in self.interrupts.values()],
            "pendingToolExecution": None if self.pending is None else self.pending.to_json(),
        }

    def _snapshot_interrupt(self, stored: StoredInterrupt) -> SnapshotInterrupt:
        # ROC-SNAP-006: the digest taken at the stop, not one of the input as it stands now.
        fields = stored.interrupt.model_dump()
        if fields.get("metadata") is None:  # absent stays absent (a stored null would be malformed)
            fields.pop("metadata", None)
        return SnapshotInterrupt(
            **fields,
            response=json_copy(stored.response),
            input_digest=stored.input_digest,
        )

    def check_input(self, use: ToolUse) -> None:
        """Refuse to run a tool use whose input differs from the one its stored interrupts were raised for.

        ROC-SNAP-013, spec 10.2: called before the tool's BeforeToolCall callbacks and body run, so an answer
        only ever approves the input it was given for, whatever happened to the input in between.
        """
        for stored in self.interrupts.values():
            digest = stored.input_digest
            bound = digest is not None and stored.interrupt.source.tool_use_id == use.tool_use_id
            if bound and input_digest(use.input) != digest:
                raise SnapshotInvalidError(
                    f"input of tool use {use.tool_use_id!r} differs from the input interrupt "
                    f"{stored.interrupt.id!r} was raised for",
                    details={"interruptId": stored.interrupt.id, "toolUseId": use.tool_use_id},
                )

    def copy(self) -> InterruptState:
        """An independent copy (interrupt and message models are immutable; answers are deep-copied)."""
        return InterruptState(
            activated=self.activated,
            interrupts={
                key: StoredInterrupt(entry.interrupt, json_copy(entry.response), entry.input_digest)
                for key, entry in self.interrupts.items()
            },
            pending=self.pending,
        )


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


def _response_body(block: Any) -> tuple[str, Any, Any] | None:
    """``(interruptId, response, metadata)`` of a well-formed block, else None.

    A missing response reads as null (INVALID_RESPONSE); a missing metadata is ``_NO_METADATA``. The
    body's members are ``interruptId``, ``response`` and the ``metadata`` extension point (spec 2.2); any
    other member makes the block malformed (ROC-RESUME-004).
    """
    if isinstance(block, InterruptResponseBlock):
        body_model = block.interrupt_response
        meta = _NO_METADATA if body_model.metadata is None else body_model.metadata
        return body_model.interrupt_id, body_model.response, meta
    body = block.get("interruptResponse") if isinstance(block, dict) and len(block) == 1 else None
    if not isinstance(body, dict) or not set(body) <= {"interruptId", "response", "metadata"}:
        return None
    interrupt_id_ = body.get("interruptId")
    if not isinstance(interrupt_id_, str) or not interrupt_id_:
        return None
    return interrupt_id_, body.get("response"), body.get("metadata", _NO_METADATA)
