"""Drive one agent of an implementation in lockstep with the oracle and check every observation.

Used by the static vectors and by the Hypothesis machine, so both apply the same checks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import reqs
from .check import IdBinder, Violation, check_history, check_result
from .engine import MISSING, Input, Key, OracleAgent, Outcome, Ref, Response, Resume, UnknownRef
from .scenario import JSON, AgentSpec, canonical, parse_spec


class Implementation(Protocol):
    """What the suite needs from an implementation under test (HarnessClient satisfies it)."""

    def describe(self) -> Any: ...  # has .profiles: frozenset[str]
    def create_agent(self, spec: dict[str, Any]) -> str: ...
    def invoke(self, agent: str, inp: dict[str, Any]) -> dict[str, Any]: ...
    def take_snapshot(self, agent: str) -> dict[str, Any]: ...
    def restore_agent(
        self, snapshot: dict[str, Any] | str, spec: dict[str, Any], *, model_turn_offset: int = 0
    ) -> dict[str, Any]: ...
    def dispose_agent(self, agent: str) -> None: ...


@dataclass
class Exchange:
    """One step as it happened, for the readable transcript of a counterexample."""

    request: dict[str, JSON]
    response: dict[str, JSON]


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

    def __post_init__(self) -> None:
        self.spec = parse_spec(self.spec_doc)
        self.oracle = OracleAgent(self.spec)
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
        """Wire and oracle forms of one resume; a str ref is a literal id (wrong or consumed)."""
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
            if not omit_response:
                item["response"] = copy.deepcopy(value)
            wire.append(item)
            refs.append(Response(oref, MISSING if omit_response else copy.deepcopy(value)))
        return {"interruptResponses": wire}, Resume(tuple(refs))

    # ---- steps ----------------------------------------------------------------------------------

    def invoke(self, wire: dict[str, JSON], inp: Input) -> list[Violation]:
        """Invoke both; return every MUST finding (SHOULD findings go to ``warnings``)."""
        symbolic = self._symbolic(wire)
        outcome = self.oracle.invoke(inp)
        self.steps.append((symbolic, outcome, copy.deepcopy(self.oracle.pending_assistant)))
        observed = self.impl.invoke(self.handle, wire)
        self.log.append(Exchange({"rpc": "Invoke", **wire}, observed))
        self.last_outcome = outcome
        self.model_calls += sum(1 for e in observed.get("trace") or [] if e.get("kind") == "model_call")
        if outcome.completed_batches:
            self.binder.retire()  # a batch completed: its ids are consumed, later batches mint new ones
            self.batch_restored = False
        found = check_result(outcome, observed, self.binder, self.spec.executor)
        if not outcome.poisoned:
            found += check_history(
                self.oracle.messages,
                self.oracle.state,
                observed,
                self.oracle.messages_known,
                after_error=outcome.is_error,
                free=self.oracle.free_content,
            )
        if self.batch_restored:
            found = [_as_session_finding(v) for v in found]
        if outcome.poisoned:
            self.dead = True
        elif not outcome.is_error and not self.oracle.activated:
            self.binder.retire()  # the cycle completed: its ids are consumed
            self.batch_restored = False
        musts = [v for v in found if v.level == "MUST"]
        self.warnings += [v for v in found if v.level != "MUST"]
        return musts

    def _symbolic(self, wire: dict[str, JSON]) -> dict[str, JSON]:
        """The input with interrupt ids replaced by references (ids are opaque; vectors name interrupts)."""
        if "interruptResponses" not in wire:
            return copy.deepcopy(wire)
        by_id = {v: k for k, v in self.binder.history.items()}
        items: list[dict[str, JSON]] = []
        for r in wire["interruptResponses"]:
            key = by_id.get(r.get("interruptId"))
            item: dict[str, JSON] = (
                {"interrupt": {"name": key[2], "kind": key[0], **({"toolUseId": key[1]} if key[1] else {})}}
                if key is not None
                else {"interruptId": str(r.get("interruptId"))}
            )
            if "response" in r:
                item["response"] = copy.deepcopy(r["response"])
            items.append(item)
        return {"interruptResponses": items}

    def restore(self) -> list[Violation]:
        """Snapshot, dispose, restore into a fresh agent (as a new process would)."""
        self.steps.append((None, None, None))
        snap = self.impl.take_snapshot(self.handle)
        self.log.append(Exchange({"rpc": "TakeSnapshot"}, {"snapshot": "…"}))
        if "snapshot" not in snap:
            return [Violation([reqs.SESSION_RESTORE], f"TakeSnapshot failed: {canonical(snap)[:300]}")]
        self.impl.dispose_agent(self.handle)
        restored = self.impl.restore_agent(
            snap["snapshot"], self.spec_doc, model_turn_offset=self.model_calls
        )
        self.log.append(Exchange({"rpc": "RestoreAgent", "modelTurnOffset": self.model_calls}, restored))
        if "agent" not in restored:
            self.dead = True
            self.disposed = True
            return [Violation([reqs.SESSION_RESTORE], f"RestoreAgent failed: {canonical(restored)[:300]}")]
        self.handle = str(restored["agent"])
        self.oracle = self.oracle.copy()
        self.batch_restored = self.batch_restored or self.oracle.activated
        self.binder.restored = True
        return []

    def dispose(self) -> None:
        if not self.disposed:
            self.disposed = True
            self.impl.dispose_agent(self.handle)

    def transcript(self) -> str:
        """A readable RPC transcript of everything this driver did."""
        lines: list[str] = []
        for n, ex in enumerate(self.log):
            lines.append(f"[{n}] → {canonical(ex.request)}")
            resp = {k: v for k, v in ex.response.items() if k not in ("messages",)}
            lines.append(f"    ← {canonical(resp)}")
        return "\n".join(lines)


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
    return Violation([*v.requirements, *extra], v.message) if extra else v
