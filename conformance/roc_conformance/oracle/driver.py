"""Drive one agent of an implementation in lockstep with the oracle and check every observation.

Used by the static vectors and by the Hypothesis machine, so both apply the same checks.

Independence. A run stays *in sync* while the implementation does what the oracle predicts. At the first
wrong observation (a *primary* finding) the driver decides whether the oracle can go on modelling the
implementation, judged by what the spec still pins down:

- **resynced** — the control flow matched (same outcome kind, stop reason, interrupts and trace) and only
  data differed (history, state, reasons, ids, messages), or the implementation rejected an input the oracle
  accepted (an error changes nothing, so the oracle is put back to where it was). The oracle adopts what the
  implementation observably holds (its state, the model turns it used) and the run stays in sync: later
  findings are primary again, each judged on its own.
- **tainted** — the trace differed (a unit ran that must not have, or did not run): the implementation's
  inner state is no longer known. The run goes on, but later findings are *consequences* of the first one.
- **ended** — the implementation accepted what must be rejected, crashed, or reported other interrupts or
  another stop reason: nothing after that step can be predicted, so the scenario stops.

Rules whose wording is relative are judged relative to the implementation's own previous reply: a rejected
input must leave *its* history and state as they were (ROC-RESUME-010), and MessageAdded events must match
what *it* appended (ROC-HOOK-003), whatever the oracle expected the history to be.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import reqs
from .check import IdBinder, Violation, _as, check_history, check_result
from .copying import deep_copy
from .engine import (
    MISSING,
    Abandon,
    Decided,
    Input,
    Key,
    OracleAgent,
    Outcome,
    Ref,
    Response,
    Resume,
    UnknownRef,
)
from .scenario import JSON, AgentSpec, canonical, parse_spec, same_canonical
from .streams import check_stream, streams, take_streamed

IN_SYNC, RESYNCED, TAINTED, ENDED = "in sync", "resynced", "tainted", "ended"


class Implementation(Protocol):
    """What the suite needs from an implementation under test (HarnessClient satisfies it)."""

    def describe(self) -> Any: ...  # has .profiles: frozenset[str]
    def create_agent(self, spec: dict[str, Any]) -> str: ...
    def invoke(self, agent: str, inp: dict[str, Any], *, stream: bool = False) -> dict[str, Any]: ...
    def take_snapshot(self, agent: str) -> dict[str, Any]: ...
    def restore_agent(
        self, snapshot: dict[str, Any] | str, spec: dict[str, Any], *, model_turn_offset: int = 0
    ) -> dict[str, Any]: ...
    def dispose_agent(self, agent: str) -> None: ...


@dataclass
class Exchange:
    """One RPC as it happened, for the readable transcript of a counterexample.

    ``step`` is the scenario step it belongs to (None: the CreateAgent before step 0). Steps are numbered
    from 0 in the order they ran, one per invoke and one per snapshot + restore (whose TakeSnapshot and
    RestoreAgent share the number): the index into a vector's ``steps`` and into ``Driver.steps``. Messages
    ("step 2: ...", ``diverged_at``) and the transcript (``[step 2]``) use this one numbering.
    """

    request: dict[str, JSON]
    response: dict[str, JSON]
    step: int | None = None


@dataclass
class Driver:
    impl: Implementation
    spec_doc: dict[str, JSON]
    spec: AgentSpec = field(init=False)
    oracle: OracleAgent = field(init=False)
    handle: str = field(init=False)
    binder: IdBinder = field(default_factory=IdBinder)
    model_calls: int = 0
    log: list[Exchange] = field(default_factory=list)
    last_outcome: Outcome | None = None
    warnings: list[Violation] = field(default_factory=list)
    dead: bool = False  # the oracle no longer models this agent (runtime error mid-run)
    batch_restored: bool = False  # the pending batch crossed a snapshot + restore
    # (symbolic input or None for a restore, oracle outcome, pending assistant message) per step,
    # for turning a counterexample into a static vector (vectors.driver_to_vector).
    steps: list[tuple[dict[str, JSON] | None, Outcome | None, dict[str, JSON] | None]] = field(
        default_factory=list
    )
    disposed: bool = False
    sync: str = IN_SYNC  # IN_SYNC, TAINTED or ENDED (see the module docstring)
    primaries: list[Violation] = field(default_factory=list)  # first divergences, with their step
    consequences: list[tuple[Violation, tuple[str, ...]]] = field(default_factory=list)  # (finding, after)
    diverged_at: str = ""  # the step whose divergence tainted or ended the run
    # ... and the requirements it broke: what follows is listed under these (an earlier failure the oracle
    # re-synchronised past, e.g. a wrong result message, caused none of it)
    diverged_by: tuple[str, ...] = ()
    exercised_in_sync: set[str] = field(default_factory=set)  # requirements judged on unspoiled steps
    exercised_any: set[str] = field(default_factory=set)  # requirements any step exercised
    seen_messages: JSON = field(default_factory=list)  # the implementation's history in its last reply
    seen_state: JSON = None  # ... and its state (None until a reply shows it)
    hook_events: bool = True  # the implementation claims `hooks`, so its trace shows hook events (spec 4.1)
    history_left: tuple[str, ...] = ()  # a rejected input changed the history: the requirements it broke
    # The adapter can read the interrupt state (capability "inspect"): after a refused input the driver
    # reads it, so answers a refused resume stored are found at that step, not by whatever step later
    # trips over them (a failed restore, a missing interrupt).
    inspect: bool = False
    # The profiles the implementation claims (decisions, abandon and expiry change what it must accept).
    profiles: frozenset[str] = frozenset()
    # The blocks of the last accepted resume, as (interrupt id, response or Decided): a client that lost the
    # reply sends them again, and that must never run anything twice (ROC-ANSWER-004/008/009).
    last_resume: list[tuple[str, JSON]] | None = None

    def __post_init__(self) -> None:
        self.spec = parse_spec(self.spec_doc)
        self.oracle = OracleAgent(self.spec, self.profiles)
        self.handle = self.impl.create_agent(self.spec_doc)
        self.log.append(Exchange({"rpc": "CreateAgent", "spec": self.spec_doc}, {"agent": self.handle}))

    # ---- references: oracle keys <-> observed ids ---------------------------------------------

    def id_for(self, key: Key) -> str | None:
        return self.binder.id_for(key)

    def pending(self) -> list[Key]:
        return self.oracle.pending_keys()

    def resume_input(
        self, answers: list[tuple[Ref | str, JSON]], *, omit_response: bool = False
    ) -> tuple[dict[str, JSON], Resume]:
        """Wire and oracle forms of one resume; a str ref is a literal id (wrong or consumed); a ``Decided``
        value sends a decision block (spec 11.1) instead of an answer."""
        wire: list[dict[str, JSON]] = []
        refs: list[Response] = []
        for ref, value in answers:
            oref: Ref
            if isinstance(ref, str):
                iid = ref
                oref = self.binder.resolve(ref)
            elif isinstance(ref, UnknownRef):
                iid, oref = ref.raw, ref
            else:
                known = self.id_for(ref)
                oref = ref if ref in self.oracle.known_keys() or known is None else self.binder.resolve(known)
                # An interrupt the implementation never reported has no id: send a stand-in.
                iid = known if known is not None else f"unreported:{ref[0]}:{ref[1] or '-'}:{ref[2]}"
            item: dict[str, JSON] = {"interruptId": iid}
            if isinstance(value, Decided):
                item.update(value.body())
                wire.append(item)
                refs.append(
                    Response(oref, deep_copy(value.response), value.decision, deep_copy(value.message))
                )
                continue
            if not omit_response:
                item["response"] = deep_copy(value)
            wire.append(item)
            refs.append(Response(oref, MISSING if omit_response else deep_copy(value)))
        return {"interruptResponses": wire}, Resume(tuple(refs))

    @staticmethod
    def abandon_input(
        message: JSON = MISSING, *, then_continue: bool = False
    ) -> tuple[dict[str, JSON], Abandon]:
        """Wire (harness protocol 4) and oracle forms of an abandon (profile abandon)."""
        body: dict[str, JSON] = {} if message is MISSING else {"message": message}
        if then_continue:
            body["continueModel"] = True
        return {"abandon": body}, Abandon(message, "continue" if then_continue else "end")

    # ---- steps ----------------------------------------------------------------------------------

    def invoke(
        self, wire: dict[str, JSON], inp: Input, context: str = "", *, stream: bool | None = None
    ) -> list[Violation]:
        """Invoke both; return the primary MUST findings of this step (SHOULD findings go to ``warnings``,
        findings after a tainting divergence to ``consequences``). ``stream``: send it streamed or not
        (profile streaming); ``None`` lets ``streams`` decide."""
        symbolic = self._symbolic(wire)
        before = self.oracle.copy()
        outcome = self.oracle.invoke(inp)
        self.steps.append((symbolic, outcome, deep_copy(self.oracle.pending_assistant)))
        streamed = streams(self.profiles, wire, stream)  # profile streaming: some invocations are streamed
        observed = (
            self.impl.invoke(self.handle, wire, stream=True)
            if streamed
            else self.impl.invoke(self.handle, wire)
        )
        stream_found = check_stream(observed, take_streamed(observed)) if streamed else []
        request = {"rpc": "Invoke", **wire, **({"stream": True} if streamed else {})}
        self.log.append(Exchange(request, observed, len(self.steps) - 1))
        self.last_outcome = outcome
        # The harness's model cursor is the top agent's: a sub-agent's model calls (agentPath) are its own.
        self.model_calls += sum(
            1 for e in observed.get("trace") or [] if e.get("kind") == "model_call" and not e.get("agentPath")
        )
        if outcome.completed_batches and not _rejected(observed):
            self.binder.retire()  # a batch completed: its ids are consumed, later batches mint new ones
            self.batch_restored = False
        appended = self._appended(observed)
        found = check_result(outcome, observed, self.binder, self.spec.executor, appended, self.hook_events)
        found += stream_found
        if not outcome.poisoned and not (outcome.is_error and not _rejected(observed)):
            # (an input accepted that must be refused is the failure; what it then did is its consequence)
            found += check_history(
                self.oracle.messages,
                self.oracle.state,
                observed,
                self.oracle.messages_known,
                after_error=outcome.is_error,
                free=self.oracle.free_content,
                before=(self.seen_messages, self.seen_state) if outcome.is_error else None,
                pending=self.oracle.pending_assistant,
                reasons=outcome.tool_reasons,
                units_ran=outcome.is_error and not outcome.trace_checked,
            )
        if self.batch_restored:
            found = [_as_session_finding(v) for v in found]
        stored = (
            self._stored_by_refusal(before)
            if self.inspect and self.sync == IN_SYNC and outcome.is_error and _rejected(observed)
            else []
        )
        found += self._pending_details(outcome, observed)
        if isinstance(inp, Resume) and not outcome.is_error and not _rejected(observed):
            self.last_resume = _blocks(wire)
        found = [v.with_context(context) if context else v for v in [*found, *stored]]
        musts = [v for v in found if v.level == "MUST"]
        self.exercised_any |= outcome.exercised
        if self.history_left and self.sync == IN_SYNC:
            # A rejected input left messages behind, which the oracle (put back as the rule says) never
            # holds: every later history differs for that reason alone (and an implementation may repair
            # what was left, e.g. add results for a lone toolUse), so it is listed under that failure. So is
            # a later refusal: the failed input left the agent in a state the oracle does not hold (an SDK
            # whose error path went on running may be interrupted now and refuse a prompt).
            left = [v for v in musts if (v.facet == "data" and v.about_history) or v.refusal]
            self.consequences += [(v, self.history_left) for v in left]
            musts = [v for v in musts if v not in left]
        if self.sync != IN_SYNC:
            self.consequences += [(v, self.diverged_by) for v in musts]
            self._remember(observed)
            return []
        self.warnings += [v for v in found if v.level != "MUST"]
        verdict = self._divergence(outcome, observed, musts) if musts else IN_SYNC
        if stored:
            verdict = TAINTED  # it holds answers the oracle does not: later findings follow from them
        if verdict in (RESYNCED, IN_SYNC) and outcome.kind != "error" and _rejected(observed):
            # the implementation refused (IN_SYNC: a refusal folded under an earlier failure above): an error
            # leaves the agent as it was
            self.oracle = before
            outcome = self._as_refused(outcome)
        if verdict in (IN_SYNC, RESYNCED):
            self.exercised_in_sync |= outcome.exercised
            self._retire_finished(outcome)
            self._adopt(observed)
        else:
            self.sync = verdict
            self.diverged_at = context or f"step {len(self.steps) - 1}"
            # Within the step the most specific divergence is primary: which interrupts or outcome (the
            # oracle names the rule that decides them), else which units ran; what the step left behind
            # (history, state) follows from it. (Measured on the broken fixtures, this order names the broken
            # rule with the fewest collateral IDs; the trace's multiset differences are the noisier witness.)
            # An ``implied`` finding is never primary: another finding of the step forces it.
            keep = [v for v in musts if v.facet == "outcome"] or [
                v for v in musts if v.facet not in ("data", "implied")
            ]
            if keep:
                after = tuple(dict.fromkeys(r for v in keep for r in v.requirements))
                self.consequences += [(v, after) for v in musts if v not in keep]
                musts = keep
            self.diverged_by = tuple(dict.fromkeys(r for v in musts for r in v.requirements))
        if outcome.poisoned or verdict == ENDED:
            self.dead = True
        if outcome.is_error and not self.history_left:
            left = [v for v in musts if v.about_history]
            self.history_left = tuple(dict.fromkeys(r for v in left for r in v.requirements))
        self.primaries += musts
        self._remember(observed)
        return musts

    def _divergence(self, outcome: Outcome, observed: dict[str, JSON], musts: list[Violation]) -> str:
        """How far the oracle can follow the implementation after a wrong observation (module docstring)."""
        refused = _rejected(observed)
        if outcome.is_error:
            return RESYNCED if refused else ENDED  # accepted what must be rejected: not modelled any more
        if "crash" in observed:
            return ENDED
        if refused or outcome.kind == "direct":
            return RESYNCED
        if any(v.facet == "outcome" for v in musts):
            return ENDED  # another stop reason or other interrupts: what the caller must answer is unknown
        if any(v.facet == "trace" for v in musts):
            return TAINTED
        return RESYNCED

    def _pending_details(self, outcome: Outcome, observed: dict[str, JSON]) -> list[Violation]:
        """ROC-PENDING-005: an INTERRUPT_PENDING error lists the pending interrupts, each with what is stored
        for it (compared by id; the order is a SHOULD and not judged here)."""
        err = observed.get("error")
        if reqs.PENDING_DETAILS not in outcome.exercised or not isinstance(err, dict):
            return []
        if err.get("code") != "INTERRUPT_PENDING":
            return []
        details = err.get("details")
        listed = details.get("pending") if isinstance(details, dict) else None
        if not isinstance(listed, list):
            return [Violation([reqs.PENDING_DETAILS], f"INTERRUPT_PENDING without details.pending: {err!r}")]
        expected = {self.id_for(k): v for k, v in self.oracle.pending_list().items()}
        if None in expected:
            return []  # an interrupt the implementation never reported: no id to compare by
        got = {str(e.get("id")): e for e in listed if isinstance(e, dict)}
        problems: list[str] = []
        if set(got) != set(expected) or len(got) != len(listed):
            problems.append(f"ids {sorted(map(str, got))}, expected {sorted(map(str, expected))}")
        for iid, want in expected.items():
            entry = got.get(str(iid))
            if entry is None:
                continue
            if want is MISSING and "answer" in entry:
                problems.append(f"{iid} has answer {entry['answer']!r}, nothing is stored")
            elif want is not MISSING and not same_canonical(entry.get("answer"), want):
                problems.append(f"{iid} has answer {entry.get('answer')!r}, stored {want!r}")
        if not problems:
            return []
        return [Violation([reqs.PENDING_DETAILS], "details.pending: " + "; ".join(problems))]

    def _stored_by_refusal(self, before: OracleAgent) -> list[Violation]:
        """Answers the implementation holds after refusing a resume that the oracle (as it was before that
        input: a refusal changes nothing) does not hold."""
        inspect = getattr(self.impl, "inspect", None)
        if inspect is None:
            return []
        held = {self.id_for(k) for k, r in before.interrupts.items() if r.answered}
        extra = sorted(i for i in _stored_answers(inspect(self.handle)) if i not in held)
        if not extra:
            return []
        found = Violation(
            [reqs.RESUME_UNCHANGED],
            f"the refused resume stored answers for {extra} (read with InspectAgent right after it)",
        )
        return [_as("trace", found)]

    @staticmethod
    def _as_refused(outcome: Outcome) -> Outcome:
        """The oracle's outcome replaced by "nothing happened" (its batches did not complete)."""
        refused = copy.copy(outcome)
        refused.completed_batches = 0
        refused.exercised = {reqs.RESUME_UNCHANGED, reqs.ERROR_UNCHANGED}
        return refused

    def _retire_finished(self, outcome: Outcome) -> None:
        if not outcome.is_error and not self.oracle.activated:
            self.binder.retire()  # the cycle completed: its ids are consumed
            self.batch_restored = False

    def _adopt(self, observed: dict[str, JSON]) -> None:
        """Continue from what the implementation observably holds: its state and the model turns it used."""
        state = observed.get("state")
        self.oracle.adopt(state=state if isinstance(state, dict) else None, model_calls=self.model_calls)

    def _remember(self, observed: dict[str, JSON]) -> None:
        if isinstance(observed.get("messages"), list):
            self.seen_messages = deep_copy(observed["messages"])
        if "state" in observed:
            self.seen_state = deep_copy(observed["state"])

    def _appended(self, observed: dict[str, JSON]) -> list[dict[str, JSON]] | None:
        """The messages this reply's history added to the previous reply's (None: not a pure append)."""
        now, then = observed.get("messages"), self.seen_messages
        if not isinstance(now, list) or not isinstance(then, list) or len(now) < len(then):
            return None
        if not same_canonical(now[: len(then)], then):
            return None
        return [m if isinstance(m, dict) else {} for m in now[len(then) :]]

    def _symbolic(self, wire: dict[str, JSON]) -> dict[str, JSON]:
        """The input with interrupt ids replaced by references (ids are opaque; vectors name interrupts)."""
        if "interruptResponses" not in wire:
            return deep_copy(wire)
        by_id = {v: k for k, v in self.binder.history.items()}
        items: list[dict[str, JSON]] = []
        for r in wire["interruptResponses"]:
            key = by_id.get(r.get("interruptId"))
            item: dict[str, JSON] = (
                {"interrupt": {"name": key[2], "kind": key[0], **({"toolUseId": key[1]} if key[1] else {})}}
                if key is not None
                else {"interruptId": str(r.get("interruptId"))}
            )
            for member in ("response", "decision", "message"):
                if member in r:
                    item[member] = deep_copy(r[member])
            items.append(item)
        return {"interruptResponses": items}

    def restore(self) -> list[Violation]:
        """Snapshot, dispose, restore into a fresh agent (as a new process would)."""
        self.steps.append((None, None, None))
        step = len(self.steps) - 1
        snap = self.impl.take_snapshot(self.handle)
        self.log.append(Exchange({"rpc": "TakeSnapshot"}, {"snapshot": "…"}, step))
        if "snapshot" not in snap:
            return self._restore_failed(f"TakeSnapshot failed: {canonical(snap)[:300]}", end=False)
        self.impl.dispose_agent(self.handle)
        restored = self.impl.restore_agent(
            snap["snapshot"], self.spec_doc, model_turn_offset=self.model_calls
        )
        self.log.append(
            Exchange({"rpc": "RestoreAgent", "modelTurnOffset": self.model_calls}, restored, step)
        )
        if "agent" not in restored:
            self.disposed = True
            return self._restore_failed(f"RestoreAgent failed: {canonical(restored)[:300]}", end=True)
        self.handle = str(restored["agent"])
        # The restored agent is the snapshotted one: the oracle goes on as it is (nothing else holds it, so a
        # copy here, as OracleAgent.copy models a restore, would only cost time).
        self.batch_restored = self.batch_restored or self.oracle.activated
        self.binder.restored = True
        return []

    def _restore_failed(self, message: str, *, end: bool) -> list[Violation]:
        """A failed snapshot or restore: primary while in sync (and the end of the run when no agent is
        left), else a consequence of the earlier failure."""
        # ROC-AGENT-008: with sub-agents kept, the document carries them and a restored agent resumes them.
        kept = [reqs.AGENT_SNAPSHOT] if self.oracle.children else []
        finding = Violation([reqs.SESSION_RESTORE, *kept], message)
        if end:
            self.dead = True
        if self.sync != IN_SYNC or self.history_left:
            # After a divergence, or once a rejected input left messages in the history (a snapshot of it
            # holds them, e.g. a lone toolUse that a loader refuses), the failure follows from that one.
            after = self.diverged_by if self.sync != IN_SYNC else self.history_left
            self.consequences.append((finding, after))
            return []
        if end:
            self.sync = ENDED
            self.diverged_at = "snapshot + restore"
            self.diverged_by = finding.requirements
        self.primaries.append(finding)
        return [finding]

    def dispose(self) -> None:
        if not self.disposed:
            self.disposed = True
            self.impl.dispose_agent(self.handle)

    def transcript(self) -> str:
        """A readable RPC transcript of everything this driver did, each RPC labelled with its step.

        The label is the step number the findings use (``Exchange``): "step 2" in a message is the line
        ``[step 2]`` here, whatever RPCs came before it (the CreateAgent is ``[create]``, a snapshot + restore
        is one step of two RPCs).
        """
        lines: list[str] = []
        for ex in self.log:
            label = "create" if ex.step is None else f"step {ex.step}"
            lines.append(f"[{label}] → {canonical(ex.request)}")
            resp = {k: v for k, v in ex.response.items() if k not in ("messages",)}
            lines.append(f"    ← {canonical(resp)}")
        return "\n".join(lines)


def _blocks(wire: dict[str, JSON]) -> list[tuple[str, JSON]]:
    """A resume's blocks as (interrupt id, response or ``Decided``), to send them again as they were."""
    out: list[tuple[str, JSON]] = []
    for item in wire.get("interruptResponses") or []:
        if not isinstance(item, dict):
            continue
        value: JSON = item.get("response", MISSING)
        if "decision" in item or "message" in item:
            value = Decided(item.get("decision", MISSING), item.get("message", MISSING), value)
        out.append((str(item.get("interruptId")), value))
    return out


def _stored_answers(inspection: dict[str, Any]) -> dict[str, JSON]:
    return {
        str(i.get("id")): i.get("response")
        for i in inspection.get("interrupts") or []
        if isinstance(i, dict) and i.get("answered")
    }


def _rejected(observed: dict[str, JSON]) -> bool:
    """The implementation refused the input (an Error, or a crash where an error was due)."""
    return observed.get("error") is not None or "crash" in observed


_SESSION_OF = {
    reqs.ID_STABLE: reqs.SESSION_ID,
    reqs.RESUME_ACCEPT: reqs.SESSION_ANSWERS,
    reqs.BY_ID: reqs.SESSION_ANSWERS,
    reqs.PRESERVED: reqs.SESSION_PRESERVED,
    reqs.PARTIAL_KEPT: reqs.SESSION_KEPT,
    reqs.REPLAY_ANSWER: reqs.SESSION_KEPT,
}


def _as_session_finding(v: Violation) -> Violation:
    """A finding in a batch that crossed a restore also breaks the matching sessions requirement."""
    extra = [_SESSION_OF[i] for i in v.requirements if i in _SESSION_OF]
    return v.restated([*v.requirements, *extra], v.message) if extra else v
