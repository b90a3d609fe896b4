"""The oracle: a small executable model of the RoC rules (DESIGN.md pinned semantics 1-19).

It runs an AgentSpec the way a conforming runtime must and predicts, per invocation, the result or the
acceptable error codes, and a canonical trace. Interrupts are named by *key* — (source kind, toolUseId,
name) — never by id: ids are opaque, so the checker binds observed ids to keys and checks their
distinctness and stability instead of their values.

Deliberately independent of ``roc_reference``: the suite must not inherit the reference's bugs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from . import reqs
from .copying import deep_copy
from .scenario import JSON, AgentSpec, HookDef, ScenarioError, Step, json_equal, tool_uses
from .subagents import KIND as AGENT_AS_TOOL
from .subagents import Kept, interrupt_name, run_sub_agent

Key = tuple[str, str | None, str]
"""An interrupt's identity: (source kind, toolUseId or None, name). A propagated interrupt of a sub-agent
(spec 12) folds the inner key into the name: see ``subagents.propagated_key``."""

Unit = tuple[str, str | None, int]
"""A unit that can raise: (layer, toolUseId, hook index or -1 for a tool body)."""


class _Missing:
    """A singleton that survives deepcopy (snapshots of the oracle copy everything)."""

    def __repr__(self) -> str:
        return "MISSING"

    def __copy__(self) -> _Missing:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Missing:
        return self


MISSING: Any = _Missing()
CODES_ANY_RESUME_SHAPE = frozenset({"NOT_INTERRUPTED", "INVALID_RESUME"})

# The fixed texts of spec chapter 11 (ROC-DECIDE-007, ROC-EXPIRY-005, ROC-ABANDON-003).
DECLINE_TEXT = "The request was declined."
CANCEL_TEXT = "The request was cancelled without a decision."
EXPIRY_TEXT = "The request expired without an answer."
ABANDON_TEXT = "The request was abandoned."
DECISIONS = ("decline", "cancel")


@dataclass(frozen=True)
class UnknownRef:
    """An interrupt id the oracle does not know: a wrong id, one consumed in a finished batch
    (``consumed``), or a malformed reference (missing, empty or not a string: ``malformed``).

    ``reissued``: a consumed id that the implementation also reports for a pending interrupt of a later
    batch (against ROC-MODEL-008); accepting it delivers the consumed answer to that batch (ROC-ANSWER-010).
    """

    raw: str
    consumed: bool = False
    malformed: bool = False
    reissued: bool = False


Ref = Key | UnknownRef


@dataclass(frozen=True)
class Response:
    ref: Ref
    response: JSON  # MISSING when the block has no response member
    decision: JSON = MISSING  # the block's ``decision`` member as sent (MISSING: absent, an answer)
    message: JSON = MISSING  # ... and its ``message`` member

    @property
    def is_answer(self) -> bool:
        return self.decision is MISSING or self.decision == "answer"


@dataclass(frozen=True)
class Prompt:
    content: list[dict[str, JSON]]  # the user message content (a text prompt becomes [{"text": ...}])
    content_form: bool = False  # sent as an array of blocks rather than a string


@dataclass(frozen=True)
class Resume:
    responses: tuple[Response, ...]


@dataclass(frozen=True)
class Mixed:
    """Content that mixes interruptResponse blocks with other blocks."""

    content: list[dict[str, JSON]]


@dataclass(frozen=True)
class Direct:
    name: str
    input: JSON


@dataclass(frozen=True)
class Decided:
    """A decision block's members as a caller sends them (spec 11.1); members MISSING are left out."""

    decision: JSON
    message: JSON = MISSING
    response: JSON = MISSING  # only in a malformed decision (ROC-DECIDE-002)

    def body(self) -> dict[str, JSON]:
        members = {"decision": self.decision, "message": self.message, "response": self.response}
        return {k: deep_copy(v) for k, v in members.items() if v is not MISSING}


@dataclass(frozen=True)
class Abandon:
    """The abandon input (profile abandon): end the pending batch without asking the units again."""

    message: JSON = MISSING  # MISSING: no message (the default text)
    then: Literal["end", "continue"] = "end"


Input = Prompt | Resume | Mixed | Direct | Abandon


@dataclass
class Registered:
    key: Key
    reason: JSON  # MISSING when raised without a reason
    source: dict[str, JSON]
    answered: bool = False  # answered or decided: no longer unanswered (ROC-DECIDE-008)
    response: JSON = None
    decision: str | None = None  # "decline" / "cancel" when decided (response unused)
    message: JSON = MISSING  # the decision's message (MISSING: none)
    extra: dict[str, JSON] = field(default_factory=dict)  # expiresAt / onExpiry as raised (spec 11.3)

    def decided(self) -> dict[str, JSON]:
        """The decision as a unit that handles it receives it: ``{"decision", "message"?}``."""
        return {"decision": self.decision, **({} if self.message is MISSING else {"message": self.message})}

    def decision_text(self) -> str:
        """ROC-DECIDE-007: the message exactly when there is one, else the fixed text."""
        if self.message is not MISSING:
            return str(self.message)
        return DECLINE_TEXT if self.decision == "decline" else CANCEL_TEXT

    def expired(self, now: datetime) -> bool:
        """ROC-EXPIRY-003, for the deadlines the suite uses (a day or more away from its clock)."""
        at = self.extra.get("expiresAt")
        if not isinstance(at, str):
            return False
        try:
            when = datetime.fromisoformat(at.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return False
        return when.tzinfo is not None and when <= now


@dataclass(frozen=True)
class ExpectedInterrupt:
    key: Key
    reason: JSON  # MISSING: absent (or null) reason
    source: dict[str, JSON]
    extra: dict[str, JSON] = field(default_factory=dict)  # expiresAt / onExpiry, reported unchanged

    @property
    def name(self) -> str:
        return interrupt_name(self.key)


@dataclass
class Outcome:
    """What one invocation must produce."""

    kind: Literal["result", "error", "direct"]
    codes: frozenset[str] = frozenset()  # for errors: every acceptable code
    error_reqs: tuple[str, ...] = ()  # requirement(s) an error outcome checks
    stop_reason: str | None = None
    message: dict[str, JSON] | None = None  # None: not compared (interrupt results)
    interrupts: list[ExpectedInterrupt] = field(default_factory=list)
    direct_result: dict[str, JSON] | None = None
    trace: list[dict[str, JSON]] = field(default_factory=list)
    preferred: str | None = None  # ROC-RESUME-014 (SHOULD): the code to report when several apply
    answered: list[Key] = field(default_factory=list)  # answered, not consumed: never reported again
    interrupted: set[str] = field(default_factory=set)  # toolUseIds whose body or BeforeToolCall raised
    resumed: bool = False
    completed_batches: int = 0  # batches that completed in this invocation (their ids are consumed)
    poisoned: bool = False  # the agent's later behaviour is not modelled
    trace_checked: bool = True
    exercised: set[str] = field(default_factory=set)  # requirement IDs this invocation exercises
    tool_reasons: dict[str, str] = field(default_factory=dict)  # toolUseId -> rule deciding if it runs
    reason_changed: set[Key] = field(default_factory=set)  # re-raised with another reason (ROC-STOP-011)
    # Pending interrupts an earlier *rejected* resume named (since the last accepted input): an implementation
    # that kept that input's answers shows it here, by not asking them again (ROC-RESUME-010).
    rejected_named: set[Key] = field(default_factory=set)
    withdrawn: set[Key] = field(default_factory=set)  # withdrawn now: never reported again (ANSWER-005)
    decided: set[Key] = field(default_factory=set)  # declined or cancelled (by the caller or by expiry)
    expiry_resolved: set[Key] = field(default_factory=set)  # ... by expiry in this invocation (EXPIRY-005)
    abandon: bool = False  # the outcome of an accepted abandon (ROC-ABANDON-*)
    order_req: str = reqs.ERROR_ORDER  # the SHOULD a code other than ``preferred`` breaks
    # agentPath -> what the sub-agent call did there (subagents.SITUATION_REQS): started, resumed, ...
    agent_paths: dict[tuple[str, ...], str] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.kind == "error"


class _Raise(Exception):
    def __init__(self, key: Key, reason: JSON) -> None:
        self.key = key
        self.reason = reason


class _DuplicateName(Exception):
    def __init__(self, req_id: str) -> None:
        self.req_id = req_id


class _DirectInterrupt(Exception):
    pass


@dataclass
class ProgramRun:
    raised: tuple[Key, JSON] | None = None
    # A sub-agent that stopped: one (key, reason, source, expiry members) per unanswered inner interrupt.
    propagated: list[tuple[Key, JSON, dict[str, JSON], dict[str, JSON]]] = field(default_factory=list)
    declined: str | None = None  # the text of a decision the unit did not handle (ROC-DECIDE-004..006)
    handled: bool = False  # the unit took a decision as its answer (handleDecision)
    answers: list[JSON] = field(default_factory=list)
    cancel: str | None = None
    end: Literal["return", "fail", "none"] = "none"
    value: JSON = None
    fail_message: str = ""


def _same_reason(a: JSON, b: JSON) -> bool:
    """Reasons compare as JSON; no reason (MISSING) equals only no reason."""
    if a is MISSING or b is MISSING:
        return a is b
    return json_equal(a, b)


def _falsy(value: JSON) -> bool:
    return value is not None and value is not MISSING and not value


def success(tool_use_id: str, answers: list[JSON], value: JSON) -> dict[str, JSON]:
    return {
        "toolUseId": tool_use_id,
        "status": "success",
        "content": [{"json": {"answers": list(answers), "value": value}}],
    }


def error_result(tool_use_id: str, message: str) -> dict[str, JSON]:
    return {"toolUseId": tool_use_id, "status": "error", "content": [{"text": message}]}


class OracleAgent:
    """One agent as a conforming runtime would hold it. ``copy()`` is snapshot+restore."""

    def __init__(self, spec: AgentSpec, profiles: frozenset[str] | set[str] = frozenset()) -> None:
        self.spec = spec
        # The profiles the implementation claims: decisions, abandon and expiry change what it must accept.
        self.profiles = frozenset(profiles)
        self.messages: list[dict[str, JSON]] = []
        self.state: dict[str, JSON] = deep_copy(spec.state)
        self.pending_assistant: dict[str, JSON] | None = None
        self.completed: dict[str, dict[str, JSON]] = {}
        self.interrupts: dict[Key, Registered] = {}
        self.owners: dict[Key, Unit] = {}
        self.messages_known = True  # False once a direct call ran (its history effect is unpinned)
        self.free_content: set[str] = set()  # toolUseIds whose result text is the implementation's
        self.consumed_names: set[tuple[str, str]] = set()  # (layer, name) of consumed answers
        # Units of the pending batch whose firing set a cancel but stopped with an interrupt:
        # ("before_tools", None) or ("before_tool_call", toolUseId). Such a cancel must not carry over
        # (ROC-CANCEL-008), so a later firing that sets none lets the tools run.
        self.stale_cancels: set[tuple[str, str | None]] = set()
        self._resuming = False
        self.poisoned = False
        self._trace: list[dict[str, JSON]] = []
        self._exercised: set[str] = set()
        self._why: dict[str, str] = {}
        self._interrupted: set[str] = set()
        self._answered_now: list[Key] = []
        self._reason_changed: set[Key] = set()
        self._withdrawn: set[Key] = set()  # withdrawn by this invocation's stop (ROC-ANSWER-005)
        self._decided: set[Key] = set()  # decided by this invocation's input or by expiry
        self._expiry_resolved: set[Key] = set()  # ... by expiry (ROC-EXPIRY-005)
        # expiresAt / onExpiry of the interrupt steps raised in this cycle, by key (registered at the stop)
        self._raise_extra: dict[Key, dict[str, JSON]] = {}
        self._cycle_start = 0  # index in the trace where the current tool cycle began
        # Keys named by rejected resumes since the last accepted input (see Outcome.rejected_named). Private,
        # so the rollback of a failed invocation keeps it.
        self._rejected_named: set[Key] = set()
        self._completed = 0
        # The scripted model's cursor: call i uses turns[i]. It belongs to the harness's model, not to the
        # agent, so a failed invocation does not rewind it (the agent itself is restored, ROC-ERR-006).
        self._model_calls = 0
        # Sub-agents kept by the pending batch, by outer toolUseId (spec 12, ROC-AGENT-008): public, so the
        # rollback of a failed invocation puts them back too.
        self.children: dict[str, Kept] = {}
        # A sub-agent's scripted model answers turns[n] for a history of n assistant messages (harness
        # protocol 5), not by a cursor of its own.
        self._history_turns = False
        self._agent_paths: dict[tuple[str, ...], str] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> OracleAgent:
        return self.copy()  # a kept sub-agent is copied with its parent (snapshot + restore)

    # ---- public surface -------------------------------------------------------------------------

    @property
    def activated(self) -> bool:
        return self.pending_assistant is not None

    def copy(self) -> OracleAgent:
        clone = type(self).__new__(type(self))  # a subclass (a broken model in tests) stays itself
        clone.__dict__.update({k: deep_copy(v) for k, v in self.__dict__.items() if k != "spec"})
        clone.spec = self.spec
        return clone

    def adopt(self, *, state: dict[str, JSON] | None, model_calls: int) -> None:
        """Re-synchronise with an implementation that diverged only in data: continue from the state it
        holds and the model turns it has used (the scripted model's cursor is the harness's, not ours)."""
        if state is not None:
            self.state = deep_copy(state)
        self._model_calls = model_calls

    def pending_list(self) -> dict[Key, JSON]:
        """ROC-PENDING-001/002: every pending interrupt, with what is stored for it (MISSING: nothing)."""
        out: dict[Key, JSON] = {}
        for key, reg in self.interrupts.items():
            if not reg.answered:
                out[key] = MISSING
            elif reg.decision is not None:
                out[key] = reg.decided()
            else:
                out[key] = {"decision": "answer", "response": deep_copy(reg.response)}
        return out

    def pending_keys(self) -> list[Key]:
        """Unanswered pending interrupts: the only ones a resume can name (ROC-RESUME-007, ROC-ANSWER-004)."""
        return [k for k, r in self.interrupts.items() if not r.answered]

    def batch_index(self) -> int:
        """How many batches (assistant messages) the history holds; names the pending batch."""
        return sum(1 for m in self.messages if m["role"] == "assistant")

    def known_keys(self) -> list[Key]:
        return list(self.interrupts)

    def invoke(self, inp: Input) -> Outcome:
        if self.poisoned:
            raise ScenarioError("the agent hit a runtime error earlier; its behaviour is not modelled")
        before = self.copy()
        self._trace = [{"kind": "invocation_start"}]
        self._exercised = set()
        self._why = {}
        self._interrupted = set()
        self._answered_now = []
        self._reason_changed = set()
        self._withdrawn = set()
        self._decided = set()
        self._expiry_resolved = set()
        self._raise_extra = {}
        self._completed = 0
        self._agent_paths = {}
        if isinstance(inp, Direct):
            out = self._direct(inp)
        elif isinstance(inp, Resume):
            out = self._resume(inp)
        elif isinstance(inp, Abandon):
            out = self._abandon(inp)
        elif self.activated:
            out = self._error(
                {"INTERRUPT_PENDING"},
                reqs.RESUME_ONLY_RESPONSES
                if isinstance(inp, Mixed) or inp.content_form
                else reqs.RESUME_PROMPT,
            )
        elif isinstance(inp, Mixed):
            out = self._error({"NOT_INTERRUPTED"}, reqs.NOT_INTERRUPTED)
        else:
            self._append({"role": "user", "content": deep_copy(inp.content)})
            try:
                out = self._loop()
            except _DuplicateName as exc:
                out = self._error({"DUPLICATE_INTERRUPT_NAME"}, exc.req_id, reqs.ERROR_UNCHANGED)
        if out.is_error:
            # ROC-ERR-006: an invocation that ends with an Error leaves the agent as it was.
            self.__dict__.update({k: v for k, v in before.__dict__.items() if not k.startswith("_")})
            if "DUPLICATE_INTERRUPT_NAME" in out.codes or "DIRECT_CALL_INTERRUPT" in out.codes:
                out.trace_checked = False  # units ran before the failure; only the outcome is pinned
        out.exercised |= self._exercised
        if "pending-list" in self.profiles and out.codes == {"INTERRUPT_PENDING"}:
            out.exercised.add(reqs.PENDING_DETAILS)
        # Every key answered at some point of this invocation: an implementation that asks one again
        # forgot a kept answer (ROC-ANSWER-003) or reports an answered interrupt (ROC-STOP-005).
        answered = [k for k, r in before.interrupts.items() if r.answered]
        answered += [k for k, r in self.interrupts.items() if r.answered and k not in answered]
        answered += [k for k in self._answered_now if k not in answered]
        out.answered = answered
        out.tool_reasons = dict(self._why)
        out.reason_changed = set(self._reason_changed)
        out.completed_batches = 0 if out.is_error else self._completed
        out.interrupted = set(self._interrupted)
        out.withdrawn = set() if out.is_error else set(self._withdrawn)
        out.decided = {k for k, r in before.interrupts.items() if r.decision is not None}
        out.decided |= set() if out.is_error else set(self._decided)
        out.expiry_resolved = set() if out.is_error else set(self._expiry_resolved)
        out.agent_paths = {} if out.is_error else dict(self._agent_paths)
        self._track_rejected_answers(inp, before, out)
        return out

    def _track_rejected_answers(self, inp: Input, before: OracleAgent, out: Outcome) -> None:
        """Remember the pending interrupts a rejected resume named, until the next accepted input; on that
        one, blame the tools that run past a raise point only such an answer could open on ROC-RESUME-010."""
        out.rejected_named = set(self._rejected_named)
        if out.is_error:
            if isinstance(inp, Resume):
                pending = set(before.pending_keys())
                self._rejected_named |= {r.ref for r in inp.responses if r.ref in pending}
            return
        self._rejected_named = set()
        kept = [i.key for i in out.interrupts if i.key in out.rejected_named]
        if any(layer == "before_tools" for layer, _, _ in kept):
            opened = {t for t, why in out.tool_reasons.items() if why == "bt_interrupt"}
        else:
            opened = {str(tuid) for _, tuid, _ in kept if tuid is not None}
            if opened:  # a kept answer lets that tool go on, and the sequential executor the ones after it
                opened |= {t for t, why in out.tool_reasons.items() if why == "seq_skipped"}
        for tuid in opened:
            out.tool_reasons[tuid] = "rejected_kept"

    # ---- input validation (pinned semantics 12, 13, 16; ROC-RESUME-*) ---------------------------

    _ORDER = (
        "NOT_INTERRUPTED",
        "INTERRUPT_PENDING",
        "INVALID_RESUME",
        "INVALID_RESPONSE",
        "DUPLICATE_RESPONSE",
        "UNKNOWN_INTERRUPT",
        "EXPIRED",  # ROC-EXPIRY-006 (SHOULD): after every code of ROC-RESUME-014
    )

    def _error(self, codes: set[str], *req_ids: str) -> Outcome:
        preferred = next((c for c in self._ORDER if c in codes), sorted(codes)[0])
        return Outcome(
            kind="error",
            codes=frozenset(codes),
            error_reqs=tuple(dict.fromkeys(req_ids)),
            preferred=preferred,
            order_req=reqs.EXPIRY_ORDER if "EXPIRED" in codes else reqs.ERROR_ORDER,
            trace=list(self._trace),
            exercised={reqs.RESUME_UNCHANGED, reqs.RESUME_NOTHING_RUNS, *req_ids},
        )

    def _resume(self, inp: Resume) -> Outcome:
        if not self.activated:
            if not inp.responses:
                return self._error({"NOT_INTERRUPTED", "INVALID_RESUME"}, reqs.NOT_INTERRUPTED)
            consumed = any(isinstance(r.ref, UnknownRef) and r.ref.consumed for r in inp.responses)
            return self._error(
                {"NOT_INTERRUPTED"},
                reqs.NOT_INTERRUPTED,
                *([reqs.CONSUMED_NOT_INTERRUPTED] if consumed else []),
            )
        if not inp.responses:
            return self._error({"INVALID_RESUME"}, reqs.RESUME_EMPTY)
        codes: set[str] = set()
        req_ids: list[str] = []
        seen: set[Ref] = set()
        pending = set(self.pending_keys())
        now = datetime.now(UTC)
        for r in inp.responses:
            shape = self._decision_shape(r)
            if shape is not None:
                codes.add("INVALID_RESUME")
                req_ids.append(shape)
            if isinstance(r.ref, UnknownRef) and r.ref.malformed:
                codes.add("INVALID_RESUME")
                req_ids.append(reqs.RESUME_MALFORMED)
            elif r.ref not in pending:
                codes.add("UNKNOWN_INTERRUPT")
                if isinstance(r.ref, UnknownRef):
                    req_ids.append(reqs.CONSUMED_UNKNOWN if r.ref.consumed else reqs.RESUME_UNKNOWN)
                    if r.ref.reissued:
                        req_ids.append(reqs.CONSUMED_NOT_DELIVERED)
                else:
                    req_ids.append(reqs.ANSWERED_UNKNOWN if r.ref in self.interrupts else reqs.WITHDRAWN)
                    if r.ref in self.interrupts and self.interrupts[r.ref].decision is not None:
                        req_ids.append(reqs.DECIDE_ANSWERED)
            elif r.is_answer and "expiry" in self.profiles and self.interrupts[r.ref].expired(now):
                codes.add("EXPIRED")  # ROC-EXPIRY-004: an answer that came too late
                req_ids.append(reqs.EXPIRY_ANSWER)
            if r.ref in seen:
                codes.add("DUPLICATE_RESPONSE")
                req_ids.append(reqs.RESUME_DUPLICATE)
            seen.add(r.ref)
            if r.is_answer and (r.response is None or r.response is MISSING):
                codes.add("INVALID_RESPONSE")
                req_ids.append(reqs.RESUME_NULL)
        if codes:
            # One code per condition; when several hold, any of them is conformant (MUST) and the
            # first in the ROC-RESUME-014 order is preferred (SHOULD).
            if any(not isinstance(r.ref, UnknownRef) and r.ref[0] == AGENT_AS_TOOL for r in inp.responses):
                # ROC-AGENT-012: validated on the outer agent; nothing runs at any level, nothing changes.
                req_ids.append(reqs.AGENT_VALIDATED)
            return self._error(codes, *req_ids)
        for r in inp.responses:
            assert not isinstance(r.ref, UnknownRef)
            reg = self.interrupts[r.ref]
            reg.answered = True
            self._answered_now.append(r.ref)
            if not r.is_answer:
                reg.decision, reg.message = str(r.decision), deep_copy(r.message)
                self._decided.add(r.ref)
                self._exercised.add(reqs.DECIDE_ACCEPT)
                if reg.expired(now):
                    self._exercised.add(reqs.DECIDE_EXPIRED)
                continue
            reg.response = deep_copy(r.response)
            if _falsy(r.response):
                self._exercised.add(reqs.RESUME_PRESENCE)
        self._resolve_expired(now)
        self._exercised |= {
            reqs.RESUME_ACCEPT,
            reqs.REPLAY_RERUN,
            reqs.REPLAY_ANSWER,
            reqs.RESUME_SKIPS_MODEL,
            reqs.BY_ID,
            reqs.RESUME_NOT_APPENDED,
        }
        if self.pending_keys():
            self._exercised |= {reqs.PARTIAL, reqs.PARTIAL_SAME, reqs.PARTIAL_KEPT}
        try:
            out = self._loop()
        except _DuplicateName as exc:
            return self._error({"DUPLICATE_INTERRUPT_NAME"}, exc.req_id, reqs.ERROR_UNCHANGED)
        out.resumed = True
        return out

    def _decision_shape(self, r: Response) -> str | None:
        """The requirement a block's decision members break (None: well-formed). Without the profile
        ``decisions`` any such member makes the block malformed, as in RoC 1.0 (ROC-RESUME-004)."""
        if r.decision is MISSING and r.message is MISSING:
            return None
        if "decisions" not in self.profiles:
            return reqs.RESUME_MALFORMED
        if r.decision is MISSING or r.decision == "answer":
            return reqs.DECIDE_SHAPE if r.message is not MISSING else None
        if r.decision not in DECISIONS or r.response is not MISSING:
            return reqs.DECIDE_SHAPE
        if r.message is not MISSING and not isinstance(r.message, str):
            return reqs.DECIDE_SHAPE
        return None

    def _resolve_expired(self, now: datetime) -> None:
        """ROC-EXPIRY-005: an accepted resume first resolves every expired interrupt it left unanswered."""
        if "expiry" not in self.profiles:
            return
        for key in self.pending_keys():
            reg = self.interrupts[key]
            if not reg.expired(now):
                continue
            outcome = reg.extra.get("onExpiry")
            outcome = outcome if isinstance(outcome, dict) else {}
            reg.answered = True
            reg.decision = str(outcome.get("decision", "decline"))
            reg.message = outcome.get("message", EXPIRY_TEXT)
            self._decided.add(key)
            self._expiry_resolved.add(key)
            self._exercised |= {reqs.EXPIRY_RESOLVED, reqs.EXPIRY_CLOCK}

    def _abandon(self, inp: Abandon) -> Outcome:
        """ROC-ABANDON-001..005: complete the pending batch with error results, running no unit."""
        if not self.activated:
            return self._error({"NOT_INTERRUPTED"}, reqs.ABANDON_IDLE)
        if inp.message is not MISSING and not isinstance(inp.message, str):
            return self._error({"INVALID_INPUT"}, reqs.ABANDON_MALFORMED)
        assert self.pending_assistant is not None
        assistant = self.pending_assistant
        text = ABANDON_TEXT if inp.message is MISSING else str(inp.message)
        results = dict(self.completed)
        uses = tool_uses(assistant["content"])
        for u in uses:
            tuid = str(u["toolUseId"])
            if tuid in results:
                self._why[tuid] = "preserved"
            else:
                results[tuid] = error_result(tuid, text)
                self._why[tuid] = "abandoned"
        self._append(deep_copy(assistant))
        self._append(
            {
                "role": "user",
                "content": [{"toolResult": deep_copy(results[str(u["toolUseId"])])} for u in uses],
            }
        )
        self._exercised |= {
            reqs.ABANDON_ACCEPT,
            reqs.ABANDON_RESULTS,
            reqs.ABANDON_RUNS_NOTHING,
            reqs.ABANDON_THEN,
            reqs.MESSAGE_ADDED,
        }
        if any(r.decision is not None for r in self.interrupts.values()):
            self._exercised.add(reqs.DECIDE_ANSWERED)
        self._consume_batch()
        if inp.then == "continue":
            try:
                out = self._loop()
            except _DuplicateName as exc:
                return self._error({"DUPLICATE_INTERRUPT_NAME"}, exc.req_id, reqs.ERROR_UNCHANGED)
        else:
            self._emit("invocation_end", stopReason="abandoned")
            out = Outcome(
                kind="result",
                stop_reason="abandoned",
                message=deep_copy(assistant),
                trace=list(self._trace),
            )
        out.abandon = True
        return out

    def _direct(self, inp: Direct) -> Outcome:
        if self.activated:
            return self._error({"INTERRUPT_PENDING"}, reqs.DIRECT_PENDING)
        tool = self.spec.tools.get(inp.name)
        if tool is None:
            raise ScenarioError(f"direct call of unknown tool {inp.name!r}")
        choice = "fires for a direct call is the implementation's choice"
        if self._matching("BeforeToolCall", [inp.name]):
            raise ScenarioError(f"whether BeforeToolCall {choice}")
        if any(s.op == "setState" for h in self._matching("AfterToolCall", [inp.name]) for s in h.steps):
            # ... and this callback would change the state: the oracle could not predict it.
            raise ScenarioError(f"whether AfterToolCall {choice}")
        try:
            run = self._run_program(tool.steps, "tool", None, inp.name, ("tool", None, -1), direct=True)
        except _DirectInterrupt:
            return self._error({"DIRECT_CALL_INTERRUPT"}, reqs.DIRECT_INTERRUPT, reqs.DIRECT_IDLE)
        # ROC-DIRECT-006: recording the call in the history is optional, so the history is unknown from here.
        self.messages_known = False
        result = self._tool_result("direct", run)
        return Outcome(
            kind="direct",
            direct_result=result,
            trace=list(self._trace),
            trace_checked=False,
            exercised={reqs.DIRECT_INTERRUPT, reqs.DIRECT_NO_MODEL},
        )

    # ---- the agent loop -------------------------------------------------------------------------

    def _emit(self, kind: str, **fields: JSON) -> None:
        self._trace.append({"kind": kind, **fields})

    def _append(self, message: dict[str, JSON]) -> None:
        self.messages.append(message)
        self._emit("message_added", role=message["role"])

    def _loop(self) -> Outcome:
        while True:
            if self.pending_assistant is None:
                turn = self.batch_index() if self._history_turns else self._model_calls
                self._model_calls += 1
                self._emit("model_call", turn=turn)
                self._exercised.add(reqs.LOOP)
                content = (
                    list(deep_copy(self.spec.turns[turn]))
                    if turn < len(self.spec.turns)
                    else [{"text": "script exhausted"}]
                )
                message: dict[str, JSON] = {"role": "assistant", "content": content}
                if not tool_uses(content):
                    self._append(message)
                    self._emit("invocation_end", stopReason="end_turn")
                    return Outcome(
                        kind="result",
                        stop_reason="end_turn",
                        message=deep_copy(message),
                        trace=list(self._trace),
                    )
                self.pending_assistant = message
            stopped = self._cycle(self.pending_assistant)
            if stopped is not None:
                self._emit("invocation_end", stopReason="interrupt")
                self._exercised |= {
                    reqs.STOP_REASON,
                    reqs.STOP_ALL_INTERRUPTS,
                    reqs.STOP_NO_MODEL_CALL,
                    reqs.RESULT_INTERRUPTS_IFF,
                    reqs.ID_DISTINCT,
                    reqs.TRANSCRIPT,
                    reqs.STOP_MESSAGE,
                    reqs.NO_DANGLING,
                }
                return Outcome(
                    kind="result",
                    stop_reason="interrupt",
                    message=deep_copy(self.pending_assistant),
                    interrupts=[self._expected(k) for k in stopped],
                    answered=[k for k, r in self.interrupts.items() if r.answered],
                    trace=list(self._trace),
                )

    def _expected(self, key: Key) -> ExpectedInterrupt:
        reg = self.interrupts[key]
        return ExpectedInterrupt(key, deep_copy(reg.reason), dict(reg.source), deep_copy(reg.extra))

    def _matching(self, event: str, names: list[str]) -> list[HookDef]:
        return [h for h in self.spec.hooks_for(event) if h.tool_name is None or h.tool_name in names]

    def _cycle(self, assistant: dict[str, JSON]) -> list[Key] | None:
        """One tool cycle. Returns the keys raised when it stops for interrupts, else None."""
        uses = tool_uses(assistant["content"])
        ids: list[str] = [u["toolUseId"] for u in uses]
        for i in ids:
            if i in self.completed:
                self._why[i] = "preserved"
        self._cycle_start = len(self._trace)  # the units that ran in this cycle are read off its events
        self._emit("before_tools", toolUseIds=list(ids))
        raised: list[tuple[Key, JSON, dict[str, JSON]]] = []
        cancel: str | None = None
        bt_declined = False
        bt_hooks = self._matching("BeforeTools", [u["name"] for u in uses])
        for hook in bt_hooks:
            self._emit("hook_callback", event="BeforeTools", hookIndex=hook.index)
            run = self._run_hook(hook, "before_tools", None, None)
            if run.raised is not None:
                raised.append((*run.raised, {"kind": "before_tools"}))
            if run.declined is not None:
                # ROC-DECIDE-006: as if the callback had set cancel to the decision text and returned.
                run.cancel = run.declined
                bt_declined = True
                self._exercised.add(reqs.DECIDE_BT)
            if run.cancel is not None:
                cancel = run.cancel
        self._exercised |= {reqs.BT_ONCE, reqs.BT_FULL_MESSAGE, reqs.TOOL_BATCH}
        self._resuming = bool(self.interrupts)
        if len(bt_hooks) > 1:
            self._exercised |= {reqs.FANOUT, reqs.FANOUT_ALL, reqs.HOOK_ORDER}
        if self.completed:
            self._exercised |= {
                reqs.PRESERVED,
                reqs.AFTER_TOOLS_CONTENT,
                reqs.PRESERVED_UNCHANGED,
                reqs.ATC_NOT_FOR_PRESERVED,
            }
        if raised:
            self._exercised |= {reqs.BT_INTERRUPT, reqs.AFTER_TOOLS_NOT_ON_BT}
            if cancel is not None:
                self._exercised.add(reqs.BT_OUTRANKS_CANCEL)
                self.stale_cancels.add(("before_tools", None))
            for i in ids:
                self._why.setdefault(i, "bt_interrupt")
            return self._stop(raised, ids)
        after_bt = any(k[0] == "before_tools" for k in self.interrupts)
        if bt_hooks and after_bt:
            self._exercised |= {reqs.BT_RERUN, reqs.REPLAY_HOOKS}
        results = dict(self.completed)
        if cancel is not None:
            self._exercised |= {reqs.CANCEL_BATCH, reqs.CANCEL_BATCH_NO_ATC, reqs.CANCEL_COMPLETES}
            if cancel == "":
                self._exercised.add(reqs.CANCEL_EMPTY_MESSAGE)
            for u in uses:
                if u["toolUseId"] not in results:
                    results[u["toolUseId"]] = error_result(u["toolUseId"], cancel)
                    # An empty message is its own situation: a runtime that tests the cancel by truthiness
                    # runs the tools anyway, which breaks ROC-CANCEL-004, not the batch-cancel rule.
                    self._why[u["toolUseId"]] = "batch_cancel_empty" if cancel == "" else "batch_cancel"
                    if bt_declined:
                        self._why[u["toolUseId"]] = "bt_declined"
        else:
            for u in uses:
                if u["toolUseId"] in results:
                    continue
                outcome = self._tool(u)
                if isinstance(outcome, list):
                    raised.extend(outcome)
                    self._interrupted.add(u["toolUseId"])
                    if self.spec.executor == "sequential":
                        self._exercised |= {reqs.EXEC_SEQUENTIAL, reqs.EXEC_SEQ_PRESERVED}
                        for i in ids:
                            self._why.setdefault(i, "seq_skipped")
                        break
                else:
                    results[u["toolUseId"]] = outcome
            if self.spec.executor == "concurrent" and raised:
                self._exercised |= {reqs.EXEC_CONCURRENT, reqs.EXEC_CONC_REPORTED}
            self._exercised.add(
                reqs.EXEC_SEQ_ORDER if self.spec.executor == "sequential" else reqs.EXEC_CONC_ORDER
            )
        self.completed = results
        ordered = [results[i] for i in ids if i in results]
        self._emit("after_tools", toolUseIds=[r["toolUseId"] for r in ordered])
        self._exercised |= {reqs.AFTER_TOOLS_ONCE, reqs.AFTER_TOOL_CALL, reqs.AFTER_TOOLS_CONTENT}
        for hook in self._matching("AfterTools", [u["name"] for u in uses]):
            self._emit("hook_callback", event="AfterTools", hookIndex=hook.index)
            self._run_hook(hook, "after_tools", None, None)
        if raised:
            return self._stop(raised, ids)
        self._append(deep_copy(assistant))
        self._append({"role": "user", "content": [{"toolResult": deep_copy(r)} for r in ordered]})
        self._exercised |= {
            reqs.TRANSCRIPT,
            reqs.RESULT_ORDER,
            reqs.BATCH_APPEND,
            reqs.CONTINUE,
            reqs.MESSAGE_ADDED,
        }
        if self.interrupts:
            self._exercised.add(reqs.CONSUMED)
        self._consume_batch()
        return None

    def _consume_batch(self) -> None:
        """The batch is complete (appended, or abandoned): its answers and decisions are used up."""
        self.consumed_names |= {(k[0], k[2]) for k in self.interrupts}
        self.pending_assistant = None
        self.completed = {}
        self.interrupts = {}
        self.owners = {}
        self.stale_cancels = set()
        self.children = {}  # ROC-AGENT-008: kept until the outer batch completes
        self._completed += 1

    def _ran(self) -> set[tuple[str, str | None]]:
        """The units that ran in the current cycle, as (source kind, toolUseId): the event instances that
        fired (every callback runs in each firing, ROC-HOOK-016) and the tool bodies that started."""
        kind = {"before_tools": "before_tools", "before_tool_call": "before_tool_call", "tool_start": "tool"}
        units: set[tuple[str, str | None]] = set()
        for event in self._trace[self._cycle_start :]:
            if event.get("kind") in kind and "agentPath" not in event:  # a sub-agent's units are its own
                tuid = event.get("toolUseId")
                units.add((kind[str(event["kind"])], None if tuid is None else str(tuid)))
                if event["kind"] == "tool_start":  # the body runs the sub-agent call, if it has one
                    units.add((AGENT_AS_TOOL, None if tuid is None else str(tuid)))
        return units

    def _stop(self, raised: list[tuple[Key, JSON, dict[str, JSON]]], ids: list[str]) -> list[Key]:
        keys: list[Key] = []
        for key, reason, source in raised:
            if key not in self.interrupts:
                self.interrupts[key] = Registered(key, deep_copy(reason), source)
                self.interrupts[key].extra = self._raise_extra.get(key, {})
            elif not _same_reason(self.interrupts[key].reason, reason):
                # ROC-STOP-011: the replayed unit passed another reason; the first one stays.
                self._exercised.add(reqs.REASON_KEPT)
                self._reason_changed.add(key)
            keys.append(key)
            if (key[0], key[2]) in self.consumed_names:
                self._exercised.add(reqs.CONSUMED_NOT_DELIVERED)  # same raise point as a consumed answer
        names = [(k[0], k[2]) for k in keys]
        if any(names.count((kind, n)) > 1 for kind, n in names):
            self._exercised |= {reqs.NO_CLASH_HOOK, reqs.NO_CLASH_TOOL}  # one name, several tool uses
        if len(keys) > 1:
            self._exercised.add(reqs.INTERRUPT_ORDER)
        if self._resuming:
            self._exercised.add(reqs.ID_STABLE)
        # ROC-ANSWER-005: an unanswered interrupt whose unit ran and did not raise it again is withdrawn;
        # ROC-STOP-002: one whose unit did not run stays pending and is reported again.
        ran = self._ran()
        for k in [k for k in self.pending_keys() if k not in keys]:
            if (k[0], k[1]) in ran:
                del self.interrupts[k]
                self._exercised.add(reqs.WITHDRAWN)
                self._withdrawn.add(k)
            else:
                keys.append(k)
                self._exercised.add(reqs.STILL_PENDING)
        # ROC-STOP-010: batch-level interrupts first, then by tool use; for one tool use, BeforeToolCall
        # before its body (a stable sort keeps the registration order of one event instance).
        rank = {"before_tools": 0, "before_tool_call": 1, "tool": 2, AGENT_AS_TOOL: 2}
        keys.sort(key=lambda k: (-1 if k[1] is None else ids.index(k[1]), rank.get(k[0], 3)))
        return keys

    def _tool(self, use: dict[str, JSON]) -> dict[str, JSON] | list[tuple[Key, JSON, dict[str, JSON]]]:
        tuid: str = use["toolUseId"]
        name: str = use["name"]
        self._emit("before_tool_call", toolUseId=tuid)
        raised: list[tuple[Key, JSON, dict[str, JSON]]] = []
        cancel: str | None = None
        btc_declined = False
        btc_handled = False  # a callback took a decision as its answer (what it then decides follows from it)
        hooks = self._matching("BeforeToolCall", [name])
        for hook in hooks:
            self._emit("hook_callback", event="BeforeToolCall", hookIndex=hook.index, toolUseId=tuid)
            run = self._run_hook(hook, "before_tool_call", tuid, name)
            if run.raised is not None:
                raised.append(
                    (*run.raised, {"kind": "before_tool_call", "toolUseId": tuid, "toolName": name})
                )
            if run.declined is not None:
                # ROC-DECIDE-005: as if the callback had set cancel_tool to the decision text and returned.
                run.cancel = run.declined
                btc_declined = True
                self._exercised.add(reqs.DECIDE_BTC)
            btc_handled = btc_handled or run.handled
            if run.cancel is not None:
                cancel = run.cancel
        self._exercised.add(reqs.BTC_ONCE)
        if len(hooks) > 1:
            self._exercised |= {reqs.FANOUT, reqs.FANOUT_ALL, reqs.HOOK_ORDER}
        if raised:
            self._exercised |= {reqs.BTC_INTERRUPT, reqs.ATC_NOT_FOR_INTERRUPTED}
            self._why[tuid] = "btc_interrupt"
            if cancel is not None:
                self._exercised.add(reqs.BTC_OUTRANKS_CANCEL)
                self._why[tuid] = "btc_interrupt_over_cancel"
                self.stale_cancels.add(("before_tool_call", tuid))
            return raised
        if cancel is not None:
            self._exercised |= {reqs.CANCEL_TOOL, reqs.CANCEL_MESSAGE, reqs.CANCEL_COMPLETES}
            if cancel == "":
                self._exercised.add(reqs.CANCEL_EMPTY_MESSAGE)
            # As for the batch: an ignored "" cancel breaks ROC-CANCEL-004 (see check._EXTRA).
            self._why[tuid] = "tool_cancel_empty" if cancel == "" else "tool_cancel"
            if btc_declined:
                self._why[tuid] = "btc_declined"
            elif btc_handled and cancel != "":
                self._why[tuid] = "tool_cancel_decided"
            result = error_result(tuid, cancel)
        else:
            if self.stale_cancels & {("before_tools", None), ("before_tool_call", tuid)}:
                # ROC-CANCEL-008: an earlier firing set a cancel but stopped; this one set none, so the
                # tool runs. A tool that does not run here had that cancel carried over.
                self._exercised.add(reqs.CANCEL_NOT_CARRIED)
                self._why[tuid] = "cancel_not_carried"
            elif any(k[1] == tuid for k in self.interrupts):
                self._why[tuid] = "rerun"
            elif any(k[0] == "before_tools" for k in self.interrupts):
                self._why[tuid] = "after_bt"
            elif self.spec.executor == "concurrent":
                self._why[tuid] = "concurrent"
            else:
                self._why[tuid] = "normal"
                if self._resuming:
                    self._exercised.add(reqs.EXEC_SEQ_CONTINUE)
            tool = self.spec.tools.get(name)
            if tool is None:
                # ROC-TOOL-009: an error result whose text is the implementation's; the batch goes on.
                self._exercised.add(reqs.UNKNOWN_TOOL)
                self._why[tuid] = "unknown_tool"
                self.free_content.add(tuid)
                result = error_result(tuid, f"unknown tool: {name}")
            else:
                self._emit("tool_start", toolUseId=tuid, name=name)
                run = self._run_program(tool.steps, "tool", tuid, name, ("tool", tuid, -1))
                if run.propagated:
                    # ROC-AGENT-001: the body stops with its sub-agent: an interrupt per unanswered inner one.
                    self._emit("tool_end", toolUseId=tuid, outcome="interrupted")
                    self._exercised |= {reqs.TOOL_INTERRUPT_NO_RESULT, reqs.ATC_NOT_FOR_INTERRUPTED}
                    for key, _, _, extra in run.propagated:
                        if extra:
                            self._raise_extra[key] = extra
                    return [(key, reason, source) for key, reason, source, _ in run.propagated]
                if run.raised is not None:
                    self._emit("tool_end", toolUseId=tuid, outcome="interrupted")
                    self._exercised |= {reqs.TOOL_INTERRUPT_NO_RESULT, reqs.ATC_NOT_FOR_INTERRUPTED}
                    return [(*run.raised, {"kind": "tool", "toolUseId": tuid, "toolName": name})]
                result = self._tool_result(tuid, run)
                if run.end == "fail":
                    self._exercised.add(reqs.TOOL_FAIL)
                if run.declined is not None:
                    # ROC-DECIDE-004: an error result holding the decision text; the batch goes on.
                    self._exercised |= {reqs.DECIDE_TOOL, reqs.TOOL_FAIL}
                    self._why[tuid] = "tool_declined"
                    result = error_result(tuid, run.declined)
                failed = run.end == "fail" or run.declined is not None
                self._emit("tool_end", toolUseId=tuid, outcome="failed" if failed else "returned")
                if self._why.get(tuid) == "agent_second_call":
                    # ROC-AGENT-011: an ordinary failure of the body, which an adapter records as it records
                    # an exception from the runtime (the harness kit: "interrupted"); "*": not judged.
                    self._trace[-1]["outcome"] = "*"
        self._emit("after_tool_call", toolUseId=tuid, status=result["status"])
        for hook in self._matching("AfterToolCall", [name]):
            self._emit("hook_callback", event="AfterToolCall", hookIndex=hook.index, toolUseId=tuid)
            self._run_hook(hook, "after_tool_call", tuid, name)
        return result

    def _reason(self, args: dict[str, JSON]) -> JSON:
        """The reason an interrupt step passes at this raise: fixed, or the state now (reasonFromState)."""
        if "reasonFromState" in args:
            value = self.state.get(args["reasonFromState"])
            return MISSING if value is None else deep_copy(value)
        return deep_copy(args["reason"]) if "reason" in args else MISSING

    @staticmethod
    def _tool_result(tuid: str, run: ProgramRun) -> dict[str, JSON]:
        if run.end == "fail":
            return error_result(tuid, run.fail_message)
        return success(tuid, run.answers, run.value)

    # ---- step programs (replay: every run starts from the first step) --------------------------

    def _run_hook(self, hook: HookDef, layer: str, tuid: str | None, name: str | None) -> ProgramRun:
        return self._run_program(hook.steps, layer, tuid, name, (layer, tuid, hook.index))

    def _run_program(
        self,
        steps: tuple[Step, ...],
        layer: str,
        tuid: str | None,
        tool_name: str | None,
        unit: Unit,
        *,
        direct: bool = False,
    ) -> ProgramRun:
        run = ProgramRun()
        last: JSON = MISSING
        names_this_run: set[str] = set()
        sub_agent_called = False
        for step in steps:
            a = step.args
            if step.op == "runAgent":
                if direct or step.nested is None or tuid is None or tool_name is None:
                    raise ScenarioError("a sub-agent call outside a tool use of the loop is not modelled")
                if sub_agent_called:
                    # ROC-AGENT-011: a second call fails the body like any failure; the text is the runtime's.
                    self._exercised.add(reqs.AGENT_ONE_CALL)
                    self.free_content.add(tuid)
                    self._why[tuid] = "agent_second_call"
                    run.end, run.fail_message = "fail", "a tool body runs at most one sub-agent per run"
                    return run
                sub_agent_called = True
                sub = run_sub_agent(self, step.nested, str(a["prompt"]), tuid, tool_name)
                self._trace.extend(sub.trace)
                self._agent_paths.update(sub.paths)
                if sub.answer is None:
                    run.propagated = sub.propagated
                    return run
                run.answers.append(sub.answer)  # received like an answer (harness protocol 5)
                last = sub.answer
                continue
            if step.op == "interrupt":
                if direct:
                    raise _DirectInterrupt()
                if layer not in ("tool", "before_tool_call", "before_tools"):
                    raise ScenarioError(f"{layer} cannot interrupt")
                key: Key = (layer, tuid, a["name"])
                owner = self.owners.get(key)
                if a["name"] in names_this_run:
                    raise _DuplicateName(
                        reqs.DUPLICATE_NAME_TOOL if layer == "tool" else reqs.DUPLICATE_NAME_RUN
                    )
                if owner is not None and owner != unit:
                    raise _DuplicateName(reqs.DUPLICATE_NAME)
                names_this_run.add(a["name"])
                self.owners[key] = unit
                reg = self.interrupts.get(key)
                if reg is not None and reg.answered and reg.decision is not None:
                    # ROC-DECIDE-003: the raise reports the decision; a step with handleDecision takes it as
                    # its answer and goes on, any other stops the unit with the default outcome.
                    self._exercised |= {reqs.DECIDE_DELIVERED, reqs.DECIDE_TEXT}
                    if not a.get("handleDecision"):
                        run.declined = reg.decision_text()
                        return run
                    run.answers.append(reg.decided())
                    last = reg.decided()
                    run.handled = True
                    continue
                if reg is not None and reg.answered:
                    run.answers.append(deep_copy(reg.response))
                    last = reg.response
                    if _falsy(reg.response):
                        self._exercised.add(reqs.RESUME_PRESENCE)
                    continue
                self._exercised.add(reqs.ONE_AT_A_TIME)
                if len(names_this_run) > 1:
                    self._exercised |= {reqs.FURTHER_INTERRUPT, reqs.MULTI_ANSWERS}
                run.raised = (key, self._reason(a))
                extra: dict[str, JSON] = {m: deep_copy(a[m]) for m in ("expiresAt", "onExpiry") if m in a}
                if extra:
                    self._raise_extra[key] = extra
                    self._exercised |= {
                        reqs.EXPIRY_AT if m == "expiresAt" else reqs.EXPIRY_OUTCOME for m in extra
                    }
                return run
            if step.op == "return":
                run.end, run.value = "return", deep_copy(a.get("value"))
                return run
            if step.op == "fail":
                run.end, run.fail_message = "fail", str(a.get("message", ""))
                return run
            if step.op == "cancel":
                run.cancel = str(a.get("message", "cancelled"))
            elif step.op == "cancelIf":
                allowed = a.get("answerNotIn", [])
                if last is MISSING or not any(json_equal(last, x) for x in allowed):
                    run.cancel = str(a.get("message", "cancelled"))
            elif step.op == "skipIfState":
                if a["key"] in self.state and json_equal(self.state[a["key"]], a.get("equals")):
                    return run
            elif step.op == "setState":
                self._exercised |= {reqs.STATE_PERSISTS, reqs.STATE_KEPT}
                if a.get("fromAnswer"):
                    self.state[a["key"]] = deep_copy(None if last is MISSING else last)
                else:
                    self.state[a["key"]] = deep_copy(a.get("value"))
        return run
