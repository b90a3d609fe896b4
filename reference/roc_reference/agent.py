"""``Agent``: the public face of the runtime — invoke, resume, direct tool calls, snapshots, sessions.

An invocation is a transaction. Its input is validated first (a rejected input raises a RocError and
changes nothing). Then, with a session, the agent claims the session (compare-and-set on the revision,
and with a file store a claim record that marks the revision as taken, so any other resumer fails with
SESSION_CONFLICT before running anything; ``sessions.claims``), runs the loop, and saves again at the
interrupt boundary or when the invocation completes. If anything fails after the claim, the agent returns
to the state it claimed with; the claim stays when a tool of the claimed batch completed (``recover``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from . import SPEC_VERSION
from .decisions import ABANDON_TEXT, Decision
from .errors import (
    InternalError,
    InterruptPendingError,
    InvalidInputError,
    InvalidResumeError,
    NotInterruptedError,
    RocError,
    SnapshotInvalidError,
)
from .executors import Executor, RunOne, SequentialExecutor, ToolOutcome
from .guard import ResumeGuard, response_of, run_guard
from .history import History, Mark
from .hooks import AfterInvocationEvent, BeforeInvocationEvent, HookProvider, HookRegistry, MessageAddedEvent
from .integrity import sign
from .interrupts import (
    AnswerBook,
    InterruptState,
    RaisePoint,
    Resolution,
    UnitRun,
    interrupt_state_of,
    response_metadata_of,
)
from .loop import Loop
from .models import Model
from .session_api import SessionManager
from .sessions.claims import ledger_for
from .snapshot import SCHEMA_VERSION, Snapshot, now_rfc3339, parse_snapshot
from .state import AgentState
from .streaming import Sink, StreamEvent, StreamingExecutor, stream_invocation
from .tools import Tool, ToolCaller, ToolContext
from .types import (
    MAX_VALUE_BYTES,
    AgentResult,
    ContentBlock,
    Interrupt,
    Message,
    TextBlock,
    ToolResult,
    ToolUse,
    error_result,
    is_json_value,
    json_value_problem,
    private_copy,
    tool_result_message,
)

PromptInput = str | Sequence[ContentBlock | dict[str, Any]]
DEFAULT_AGENT_ID = "default"
Clock = Callable[[], datetime]
"""The agent's clock (an aware datetime); expiry is judged by it (ROC-EXPIRY-003)."""
AbandonThen = Literal["end", "continue"]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Saved:
    """What a failed invocation rolls back to."""

    messages: Mark
    state: dict[str, Any]
    interrupts: InterruptState


class Agent:
    """An agent that pauses for human input and resumes where it stopped (RoC 1.0)."""

    def __init__(
        self,
        model: Model,
        tools: Iterable[Tool] = (),
        hooks: Iterable[HookProvider] = (),
        executor: Executor | None = None,
        state: Mapping[str, Any] | None = None,
        session: SessionManager | None = None,
        agent_id: str | None = None,
        *,
        integrity_keys: Mapping[str, bytes] | None = None,
        signing_key_id: str | None = None,
        resume_guard: ResumeGuard | None = None,
        max_resume_blocks: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        """Build an agent; with ``session``, continue from the session's stored snapshot, if any.

        ``integrity_keys`` (key id -> key) verify the tag of every snapshot this agent loads; with
        ``signing_key_id`` the agent tags every snapshot it writes with that key (ROC-SEC-002..004).
        ``resume_guard`` sees each valid resume input with the interrupts it answers before any answer is
        stored, and refuses it by raising (ROC-SEC-001). ``max_resume_blocks`` bounds a resume input
        (INVALID_RESUME beyond it, ROC-SEC-009). ``clock`` (default: UTC now) judges ``expiresAt``.
        """
        if signing_key_id is not None and signing_key_id not in (integrity_keys or {}):
            raise ValueError(f"signing key {signing_key_id!r} is not among the integrity keys")
        self.model = model
        self.tool_registry: dict[str, Tool] = {}
        for t in tools:
            if t.name in self.tool_registry:
                raise ValueError(f"two tools named {t.name!r}")
            self.tool_registry[t.name] = t
        self.hooks = HookRegistry()
        for provider in hooks:
            self.hooks.add_hook(provider)
        self.executor: Executor = executor if executor is not None else SequentialExecutor()
        self.agent_id = agent_id or DEFAULT_AGENT_ID
        self.state = AgentState(dict(state or {}))
        self.tool = ToolCaller(self)
        self._messages = History()
        self._interrupts = InterruptState()
        self._revision = 0
        self._stored_revision: int | None = None
        self._session = session
        # A manager that declares it only reads a saved document during ``save`` and keeps nothing of it is
        # lent the history's JSON instead of a copy: the save then costs what the cycle added, not the
        # history. Every other manager gets fresh documents, as ROC-SEC-016 asks of what is handed out.
        self._lends = getattr(session, "borrows_documents", False) is True
        self._integrity_keys = dict(integrity_keys) if integrity_keys is not None else None
        self._signing_key_id = signing_key_id
        self._resume_guard = resume_guard
        self._max_resume_blocks = max_resume_blocks
        self._clock: Clock = clock if clock is not None else utc_now
        self._lock = threading.RLock()
        # ROC-STREAM-005: set by ``stream`` for one invocation (under ``_lock``); gets each unit's interrupts.
        self._stream_sink: Sink | None = None
        self._checkpoint = self._capture()  # where a failing invocation rolls back to (ROC-ERR-006/012)
        # ROC-SESSION-018: the claim of the invocation in flight (file stores only; see sessions.claims)
        self._ledger = ledger_for(session)
        self._claimed_batch: frozenset[str] = frozenset()  # tool uses pending when the claim was taken
        self._claimed_ran = False  # a tool of that batch completed in this invocation
        if session is not None:
            doc = session.load()
            if doc is not None:
                snapshot = parse_snapshot(doc, integrity_keys=self._integrity_keys)
                if agent_id is not None and snapshot.agent.agent_id != agent_id:  # ROC-SESSION-008
                    raise SnapshotInvalidError(
                        f"session holds agent {snapshot.agent.agent_id!r}, not {agent_id!r}"
                    )
                self._apply(snapshot)
                self._stored_revision = snapshot.revision

    # --- read-only views ---------------------------------------------------------------------

    def _shown_messages(self) -> list[Message]:
        """The transcript as the agent shows it: its own list, not a copy. Every public view reads it here."""
        return self._messages.messages

    @property
    def messages(self) -> list[Message]:
        """The transcript (copies: a frozen message can still hold a mutable tool input or metadata)."""
        return [private_copy(m) for m in self._shown_messages()]

    def messages_json(self) -> list[dict[str, Any]]:
        """The transcript as spec JSON: fresh documents that share nothing with the agent (ROC-SEC-016), made
        without first copying each message the way ``messages`` must."""
        return [m.to_json() for m in self._shown_messages()]

    @property
    def last_message(self) -> Message | None:
        """A copy of the newest message of the transcript, or ``None`` while it is empty."""
        shown = self._shown_messages()
        return private_copy(shown[-1]) if shown else None

    @property
    def is_interrupted(self) -> bool:
        return self._interrupts.activated

    @property
    def interrupts(self) -> list[Interrupt]:
        """The interrupts waiting for an answer (copies: a caller's edit never reaches a stored reason)."""
        return [private_copy(i) for i in self._interrupts.unanswered()]

    @property
    def revision(self) -> int:
        return self._revision

    def pending_interrupts(self) -> list[dict[str, Any]]:
        """ROC-PENDING-001..003: every pending interrupt (unanswered, answered or decided) as spec JSON, with
        ``answer`` when something is stored; ``[]`` when idle. Reads only: no hook, no save, no revision."""
        with self._lock:
            return self._interrupts.pending_list()

    # --- invocation --------------------------------------------------------------------------

    def __call__(self, prompt: PromptInput) -> AgentResult:
        return self.invoke(prompt)

    async def invoke_async(self, prompt: PromptInput) -> AgentResult:
        return await asyncio.to_thread(self.invoke, prompt)

    def stream(self, prompt: PromptInput) -> AsyncIterator[StreamEvent]:
        """``invoke`` as events (profile streaming, ROC-STREAM-001..005): each interrupt the moment its unit's
        run ends, then the result or the error. Everything else is as for ``invoke``; see ``streaming``."""
        return stream_invocation(self, prompt)

    def invoke(self, prompt: PromptInput) -> AgentResult:
        """Run with a prompt, or resume with a list of ``interruptResponse`` blocks."""
        with self._lock:
            try:
                answers, user_message, metadata = self._accept(prompt)
            except RocError as error:  # ROC-RESEND-001: mark blocks identical to what was answered
                already = self._interrupts.resend_ids(prompt)
                if already:
                    error.details = {**(error.details or {}), "alreadyAnswered": already}
                raise
            # ROC-SESSION-011/012/018: claim first
            self._claim(_claim_input(answers, user_message, metadata))
            return self._run(answers, user_message, [], metadata=metadata)

    def _accept(
        self, prompt: PromptInput
    ) -> tuple[list[Resolution], Message | None, dict[str, dict[str, Any]]]:
        """Validate an input: the answers and decisions to apply (with expiry outcomes) and the metadata of
        their blocks (ROC-AUDIT-003), or the prompt."""
        # ROC-RESUME-010, ROC-RESUME-011: every check happens before anything changes or runs.
        answers = self._interrupts.parse_resume(prompt)
        if self._max_resume_blocks is not None and len(answers) > self._max_resume_blocks:
            raise InvalidResumeError(f"resume input has more than {self._max_resume_blocks} blocks")
        if not answers:
            user_message = None if self._interrupts.activated else _prompt_message(prompt)
            return [], user_message, {}
        now = self._clock()
        if now.tzinfo is None:  # a naive clock reads UTC (ROC-EXPIRY-003); comparing it would raise
            now = now.replace(tzinfo=UTC)
        self._interrupts.check_expiry(answers, now)  # ROC-EXPIRY-004, after ROC-RESUME-014's codes
        given = response_metadata_of(prompt)
        if self._resume_guard is not None:  # ROC-SEC-001: the application may refuse the input
            self._guard(given, answers)
        # ROC-EXPIRY-005: expired interrupts the input leaves open get their expiry outcome, now, so the
        # claim records it and a recovery replays the same outcome whatever the clock says by then.
        return [*answers, *self._interrupts.expiry_resolutions(answers, now)], None, given

    def _guard(self, given: Mapping[str, dict[str, Any]], answers: list[Resolution]) -> None:
        """ROC-SEC-001, ROC-AUDIT-005: the guard sees every block (answer or decision) with ``given``, its
        metadata, and the answers already stored for the batch with the metadata kept with them."""
        assert self._resume_guard is not None
        stored = self._interrupts.interrupts
        blocks = [response_of(i, r, given.get(i)) for i, r in answers]
        kept = [
            response_of(key, entry.decision or entry.response, entry.response_metadata)
            for key, entry in stored.items()
            if entry.answered
        ]
        run_guard(self._resume_guard, [stored[i].interrupt for i, _ in answers], blocks, kept)

    def abandon(self, message: str | None = None, *, then: AbandonThen = "end") -> AgentResult:
        """End the pending batch from outside (ROC-ABANDON-001..005), through the claim/save path of a resume.

        Every tool use of the batch without a preserved result gets an error result with ``message`` (or
        ``ABANDON_TEXT``); no tool body and no tool hook runs. ``then="end"`` ends the invocation with stop
        reason ``"abandoned"``; ``then="continue"`` calls the model next, as after any completed batch.
        """
        with self._lock:
            if not self._interrupts.activated:  # ROC-ABANDON-002
                raise NotInterruptedError("the agent is not interrupted; there is nothing to abandon")
            if message is not None and (  # ROC-ABANDON-006
                not isinstance(message, str) or json_value_problem(message, max_bytes=MAX_VALUE_BYTES)
            ):
                raise InvalidInputError("an abandon message is a string within the limits of spec 10.6")
            if then not in ("end", "continue"):  # ROC-ABANDON-006
                raise InvalidInputError(f"then must be 'end' or 'continue', not {then!r}")
            # ROC-ABANDON-001: accepted whatever the pending interrupts are (answered, decided, expired).
            abandon = _Abandon(message, then)
            self._claim({"abandon": abandon.to_json()})
            return self._run([], None, [], abandon)

    def recover(self) -> AgentResult | None:
        """Finish an invocation whose claimant ended without completing it (ROC-SESSION-021).

        The explicit recovery of a session whose invocation died (killed process) or could not save its
        outcome (full disk): take over the stale claim, reload the claimed revision, and run the claimed
        invocation again with the input it recorded (the same answers or prompt). Tool results the claim
        recorded are preserved and never run again (ROC-SESSION-020); a tool that was running when the
        claimant died has no recorded result and runs again from its start, as any interrupted unit does
        on resume (spec 3.3). Returns ``None`` when no claim stands; raises SESSION_CONFLICT while
        the claimant still runs.
        """
        with self._lock:
            ledger = self._ledger
            if ledger is None or self._session is None:
                raise ValueError("recover() needs an agent bound to a file session store")
            with ledger.guard():
                record = ledger.take_over()
                if record is None:
                    return None
                try:
                    doc = self._session.load()
                    keys = self._integrity_keys
                    snapshot = None if doc is None else parse_snapshot(doc, integrity_keys=keys)
                    if snapshot is None or snapshot.revision != record.get("revision"):
                        # The claimant's end save committed; only the removal of its claim was lost.
                        ledger.release()
                        if snapshot is not None:
                            self._apply(snapshot)
                            self._stored_revision = snapshot.revision
                        return None
                    self._apply(snapshot)
                    self._stored_revision = snapshot.revision
                    claim_input = record.get("input") or {}
                    answers: list[Resolution] = [(str(i), r) for i, r in claim_input.get("answers", [])]
                    answers += [(str(i), Decision(d, m)) for i, d, m in claim_input.get("decisions", [])]
                    metadata = {str(i): m for i, m in (claim_input.get("metadata") or {}).items()}
                    prompt = claim_input.get("prompt")
                    user_message = None if prompt is None else Message.model_validate(prompt)
                    recorded = [ToolResult.model_validate(r) for r in record.get("results", [])]
                    abandon = _Abandon.from_json(claim_input.get("abandon"))
                except BaseException:
                    ledger.abandon()
                    raise
            self._claimed_batch = self._pending_ids()
            return self._run(answers, user_message, recorded, abandon, metadata)

    def _run(
        self,
        answers: list[Resolution],
        user_message: Message | None,
        recorded: list[ToolResult],
        abandon: _Abandon | None = None,
        metadata: Mapping[str, dict[str, Any]] | None = None,
    ) -> AgentResult:
        """The claimed part of an invocation: answers applied (or the batch abandoned), the loop, the end
        save."""
        saved = self._checkpoint = self._capture()
        started = False
        ending = False
        try:
            self._interrupts.apply_answers(answers, metadata)  # ROC-AUDIT-003: kept with the answers
            self._preserve(recorded)  # ROC-SESSION-020: what the claim recorded never runs again
            started = True
            self.hooks.invoke(BeforeInvocationEvent(self))  # ROC-HOOK-001
            if user_message is not None:
                self._append(user_message)  # ROC-HOOK-004
            ended = None if abandon is None else self._abandon_batch(abandon)
            result = ended if ended is not None else self._loop().run()
            started = False
            self.hooks.invoke(AfterInvocationEvent(self, result))  # ROC-HOOK-002
            ending = True
            self._finish()  # ROC-SESSION-013, ROC-SESSION-019: interrupt boundary or completion
        except BaseException as exc:
            if started:  # ROC-HOOK-002: the pair brackets every invocation, also a failing one
                with contextlib.suppress(Exception):
                    self.hooks.invoke(AfterInvocationEvent(self, None, exc))
            # ROC-ERR-006: a failed invocation leaves the agent as it was. ROC-ERR-012: after INTERNAL (a
            # model that failed, say) the batches completed in this invocation stay, so a retry cannot run
            # their approved tools again.
            self._reinstate(self._checkpoint if isinstance(exc, InternalError) else saved)
            self._drop_claim(keep=ending or self._claimed_ran)
            raise
        return result

    def _loop(self) -> Loop:
        executor = self.executor
        if self._ledger is not None and self._ledger.holding and self._claimed_batch:
            executor = _RecordingExecutor(self, executor)  # ROC-SESSION-020
        if self._stream_sink is not None:
            executor = StreamingExecutor(executor, self._stream_sink)  # ROC-STREAM-005
        return Loop(
            agent=self,
            model=self.model,
            hooks=self.hooks,
            tools=self.tool_registry,
            executor=executor,
            interrupts=self._interrupts,
            messages=self._messages.messages,
            append=self._append,
            checkpoint=self._mark_checkpoint,
        )

    def _abandon_batch(self, abandon: _Abandon) -> AgentResult | None:
        """ROC-ABANDON-003/004: complete the pending batch with error results, running no tool and no tool
        hook; the result for ``then="end"`` (ROC-ABANDON-005), ``None`` when the loop goes on."""
        pending = self._interrupts.pending
        assert pending is not None  # an activated agent has its pending batch (snapshot rule)
        text = ABANDON_TEXT if abandon.message is None else abandon.message
        preserved = {r.tool_use_id: r for r in pending.completed_tool_results}
        uses = pending.assistant_message.tool_uses()
        results = [preserved.get(u.tool_use_id) or error_result(u.tool_use_id, text) for u in uses]
        self._append(pending.assistant_message)  # results in tool-use order, appended together
        self._append(tool_result_message(results))
        self._interrupts.complete_cycle()  # the batch's stored answers and decisions are consumed
        self._mark_checkpoint()
        if abandon.then == "continue":
            return None
        return AgentResult(stop_reason="abandoned", message=private_copy(pending.assistant_message))

    def _mark_checkpoint(self) -> None:
        self._checkpoint = self._capture()

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        self.hooks.invoke(MessageAddedEvent(self, message))

    # --- direct tool calls -------------------------------------------------------------------

    def call_tool_directly(self, name: str, tool_input: Mapping[str, Any]) -> ToolResult:
        """``agent.tool.<name>(**input)``; see ``ToolCaller`` (ROC-DIRECT-001)."""
        with self._lock:
            if self._interrupts.activated:  # ROC-DIRECT-004: refused while interrupted; ROC-PENDING-005
                raise InterruptPendingError(
                    f"the agent is interrupted; direct call of {name!r} refused",
                    details={"pending": self._interrupts.pending_list()},
                )
            tool_input = dict(tool_input)
            if not is_json_value(tool_input):  # ROC-ERR-001: a rejected input has a code (chapter 7 table)
                raise InvalidInputError("a direct tool call's input must be a JSON object")
            use = ToolUse(tool_use_id=f"direct:{name}", name=name, input=tool_input)
            tool = self.tool_registry.get(name)
            if tool is None:
                return error_result(use.tool_use_id, f"unknown tool: {name}")
            point = RaisePoint("tool", len(self._messages), use.tool_use_id, name)
            unit = UnitRun(point, AnswerBook({}), direct=True)
            before = self.state.to_dict()
            try:
                return tool.run(use, ToolContext(use, self, unit))
            except BaseException:
                self.state.replace(before)  # ROC-DIRECT-003: a refused call changes nothing
                raise

    # --- as a sub-agent (profile agent-as-tool) ------------------------------------------------

    def as_tool(self, name: str | None = None, description: str | None = None) -> Tool:
        """This agent as a tool taking ``{"prompt": str}``: the seed's agent-as-tool with no plumbing.

        Its body is one ``tool_context.run_agent`` call; the tool result is the sub-agent's final text.
        """
        definition = self

        def run(prompt: str, tool_context: ToolContext) -> AgentResult:
            return tool_context.run_agent(definition, prompt)

        text = description if description is not None else f"Ask the agent {self.agent_id!r}."
        return Tool(name=name or self.agent_id, fn=run, context=True, description=text)

    def spawn(self, doc: Mapping[str, Any] | None) -> Agent:
        """A new instance of this agent used as a definition (ROC-AGENT-010): the same model, tools, hooks,
        executor, guard and clock; the messages and state of ``doc`` (a kept sub-agent, as a snapshot
        document) or, without one, this agent's own. The definition itself is never changed."""
        child = Agent(
            self.model,
            tools=self.tool_registry.values(),
            executor=self.executor,
            agent_id=self.agent_id,
            resume_guard=self._resume_guard,
            clock=self._clock,
        )
        child.hooks = self.hooks
        if doc is None:
            with self._lock:
                child._messages.replace(self._shown_messages())
                child.state.replace(self.state.to_dict())
            return child
        child._apply(parse_snapshot(doc))  # the caller checked it is this definition's (ROC-AGENT-009)
        return child

    def child_state(self) -> dict[str, Any]:
        """This agent as a kept sub-agent: ``{"agent", "interruptState"}`` (``interruptState.children``)."""
        doc = self._unsigned_doc(self._revision)
        return {"agent": doc["agent"], "interruptState": doc["interruptState"]}

    # --- snapshots ---------------------------------------------------------------------------

    def take_snapshot(self) -> dict[str, Any]:
        """The spec Snapshot of this agent (JSON)."""
        with self._lock:
            return self._snapshot_doc(self._revision)

    def _snapshot_doc(self, revision: int, *, lend: bool = False) -> dict[str, Any]:
        doc = self._unsigned_doc(revision, lend=lend)
        if self._signing_key_id is not None and self._integrity_keys is not None:
            return sign(doc, self._signing_key_id, self._integrity_keys[self._signing_key_id])
        return doc

    def _unsigned_doc(self, revision: int, *, lend: bool = False) -> dict[str, Any]:
        """The snapshot document; with ``lend`` its messages are the history's own JSON list (for a session
        manager that borrows documents, see ``_lends``), else fresh copies (ROC-SEC-016)."""
        messages = self._messages.json_view() if lend else self._messages.json_copies()
        return {
            "schemaVersion": SCHEMA_VERSION,
            "specVersion": SPEC_VERSION,
            "createdAt": now_rfc3339(),
            "revision": revision,
            "agent": {
                "agentId": self.agent_id,
                "messages": messages,
                "state": self.state.to_dict(),
            },
            "interruptState": self._interrupts.to_json(),
        }

    @classmethod
    def from_snapshot(
        cls,
        doc: Mapping[str, Any],
        *,
        model: Model,
        tools: Iterable[Tool] = (),
        hooks: Iterable[HookProvider] = (),
        executor: Executor | None = None,
        integrity_keys: Mapping[str, bytes] | None = None,
        agent_id: str | None = None,
        signing_key_id: str | None = None,
        max_snapshot_bytes: int | None = None,
        clock: Clock | None = None,
        resume_guard: ResumeGuard | None = None,
    ) -> Agent:
        """A fresh agent continuing from ``doc`` (validated completely first; never half-applied).

        ``agent_id``, when given, must equal the snapshot's ``agent.agentId`` (ROC-SESSION-008);
        ``max_snapshot_bytes`` bounds the document's size (ROC-SEC-010); ``resume_guard`` as for ``Agent``.
        """
        snapshot = parse_snapshot(
            dict(doc) if isinstance(doc, Mapping) else doc,
            integrity_keys=integrity_keys,
            max_bytes=max_snapshot_bytes,
        )
        if agent_id is not None and snapshot.agent.agent_id != agent_id:
            raise SnapshotInvalidError(f"snapshot holds agent {snapshot.agent.agent_id!r}, not {agent_id!r}")
        agent = cls(
            model,
            tools=tools,
            hooks=hooks,
            executor=executor,
            agent_id=snapshot.agent.agent_id,
            integrity_keys=integrity_keys,
            signing_key_id=signing_key_id,
            clock=clock,
            resume_guard=resume_guard,
        )
        agent._apply(snapshot)
        return agent

    def _apply(self, snapshot: Snapshot) -> None:
        interrupts = interrupt_state_of(snapshot)
        self.agent_id = snapshot.agent.agent_id
        self._messages.replace(snapshot.agent.messages)
        self.state.replace(snapshot.agent.state)
        self._interrupts = interrupts
        self._revision = snapshot.revision

    # --- sessions and rollback ---------------------------------------------------------------

    def _save(self) -> None:
        """A save point: compare-and-set the next revision into the session (no-op without one).

        ROC-SESSION-009, ROC-SESSION-010: the first stored snapshot has revision 0, each later one the
        replaced + 1,
        and the store refuses the save (SESSION_CONFLICT) unless it still holds the revision we know.
        """
        if self._session is None:
            return
        revision = 0 if self._stored_revision is None else self._stored_revision + 1
        doc = self._snapshot_doc(revision, lend=self._lends)
        self._session.save(doc, expected_revision=self._stored_revision)
        self._revision = self._stored_revision = revision

    def _claim(self, claim_input: dict[str, Any]) -> None:
        """The save before anything runs, as a claim on the stored revision (ROC-SESSION-018).

        Under the claim mutex: refuse when another invocation holds (or held and never finished) the
        revision this agent builds on, compare-and-set the next revision, and record the claim with its
        input. Without the record, an agent loading the claimed revision saw an ordinary paused session and
        ran the approved tool again; only its end save conflicted, after the tool had run.
        """
        self._claimed_ran = False
        self._claimed_batch = self._pending_ids()
        if self._ledger is None:
            self._save()
            return
        with self._ledger.guard():
            self._ledger.refuse_if_claimed(self._stored_revision)
            self._save()
            assert self._stored_revision is not None
            self._ledger.acquire(self._stored_revision, claim_input)

    def _finish(self) -> None:
        """The end save; it ends the claim in the same critical section (ROC-SESSION-019)."""
        if self._ledger is None:
            self._save()
            return
        with self._ledger.guard():
            self._save()
            self._ledger.release()

    def _drop_claim(self, *, keep: bool) -> None:
        """After a failed invocation: keep the claim when a claimed tool ran or the end save failed.

        Kept, the claim refuses every later invocation (SESSION_CONFLICT, ``live: false``) until
        ``recover`` finishes it, so a retry cannot run a completed tool again (ROC-SESSION-020). When
        nothing of the claimed batch ran, the claim is removed: the store holds the claimed revision, which
        is the state the agent rolled back to, and a retry simply claims again.
        """
        ledger = self._ledger
        if ledger is None or not ledger.holding:
            return
        if not keep:
            with contextlib.suppress(Exception), ledger.guard():  # else it stays, recoverable
                ledger.release()
        ledger.abandon()

    def _pending_ids(self) -> frozenset[str]:
        pending = self._interrupts.pending if self._interrupts.activated else None
        if pending is None:
            return frozenset()
        return frozenset(u.tool_use_id for u in pending.assistant_message.tool_uses())

    def _preserve(self, recorded: list[ToolResult]) -> None:
        """Add results a claim recorded to the pending batch's preserved results (ROC-TOOL-011)."""
        pending = self._interrupts.pending
        if not recorded or pending is None:
            return
        have = {r.tool_use_id for r in pending.completed_tool_results}
        uses = {u.tool_use_id for u in pending.assistant_message.tool_uses()}
        extra = [r for r in recorded if r.tool_use_id in uses and r.tool_use_id not in have]
        self._interrupts.pending = pending.model_copy(
            update={"completed_tool_results": [*pending.completed_tool_results, *extra]}
        )

    def _record(self, result: ToolResult) -> None:
        """Called as each tool of the claimed batch completes, before the next step can lose it."""
        if result.tool_use_id not in self._claimed_batch or self._ledger is None:
            return
        self._claimed_ran = True
        self._ledger.record_result(result.to_json())

    def _capture(self) -> _Saved:
        return _Saved(self._messages.mark(), self.state.to_dict(), self._interrupts.copy())

    def _reinstate(self, saved: _Saved) -> None:
        self._messages.restore(saved.messages)
        self.state.replace(saved.state)
        self._interrupts = saved.interrupts


@dataclass(frozen=True)
class _Abandon:
    """An accepted abandon input (the claim records it, so a recovery ends the batch the same way)."""

    message: str | None
    then: AbandonThen

    def to_json(self) -> dict[str, Any]:
        return {"then": self.then, **({} if self.message is None else {"message": self.message})}

    @staticmethod
    def from_json(doc: Any) -> _Abandon | None:
        if not isinstance(doc, dict):
            return None
        message = doc.get("message")
        then: AbandonThen = "continue" if doc.get("then") == "continue" else "end"
        return _Abandon(message if isinstance(message, str) else None, then)


def _claim_input(
    answers: list[Resolution], user_message: Message | None, metadata: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What a claim records of an accepted input (``recover`` runs it again), the blocks' metadata with it
    (ROC-AUDIT-003: a recovered invocation keeps it as the first run would have)."""
    if user_message is not None:
        return {"prompt": user_message.to_json()}
    claim: dict[str, Any] = {"answers": [[i, r] for i, r in answers if not isinstance(r, Decision)]}
    decided = [[i, r.kind, r.message] for i, r in answers if isinstance(r, Decision)]
    if decided:
        claim["decisions"] = decided
    if metadata:
        claim["metadata"] = dict(metadata)
    return claim


class _RecordingExecutor:
    """Wraps the agent's executor: each result of the claimed batch is recorded as the tool completes."""

    def __init__(self, agent: Agent, inner: Executor) -> None:
        self._agent = agent
        self._inner = inner
        self.name = inner.name

    def run(self, tool_uses: Sequence[ToolUse], run_one: RunOne) -> list[ToolOutcome]:
        def recorded(use: ToolUse) -> ToolOutcome:
            outcome = run_one(use)
            if outcome.result is not None:
                self._agent._record(outcome.result)
            return outcome

        return self._inner.run(tool_uses, recorded)


def _prompt_message(prompt: PromptInput) -> Message:
    """The user message for a prompt: a string, or a non-empty list of text blocks (ROC-TOOL-016).

    Anything else is INVALID_INPUT (ROC-ERR-010); this runtime's model takes text only, which the spec leaves
    to the runtime for prompts the schema allows.
    """
    if isinstance(prompt, str):
        return Message(role="user", content=[TextBlock(text=prompt)])
    if isinstance(prompt, list | tuple) and prompt:
        try:
            blocks = [b if isinstance(b, TextBlock) else TextBlock.model_validate(b) for b in prompt]
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise InvalidInputError(f"a prompt block is not a text block: {exc}") from None
        return Message(role="user", content=list(blocks))
    raise InvalidInputError("a prompt is a string or a non-empty list of text blocks")
