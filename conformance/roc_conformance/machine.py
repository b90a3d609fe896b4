"""A Hypothesis RuleBasedStateMachine that drives an implementation in lockstep with the oracle.

Each run draws a scenario within the declared profiles, creates the agent, then invokes: prompts, answers
(all / some / wrong id / twice / null / missing / already answered / consumed), direct calls, and — when
``sessions`` is declared — snapshot + restore into a fresh agent at random points. Every observation is
checked against the oracle; a finding raises a ConformanceViolation naming the ROC-* requirement(s), with a
readable RPC transcript as its counterexample (``Driver.to_vector`` turns it into a static vector).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from .oracle import reqs
from .oracle.check import Violation, merge
from .oracle.driver import IN_SYNC, Driver, Implementation
from .oracle.engine import MISSING, Decided, Direct, Input, Key, Mixed, Prompt, UnknownRef
from .oracle.scenario import JSON
from .oracle.vectors import driver_to_vector
from .strategies import DECISION_MESSAGES, answers, scenarios, subsets, wrong_ids

ImplementationFactory = Callable[[], Implementation]


@dataclass
class MachineLedger:
    """What the examples of one machine check saw, across its rounds (see ``checks.stateful``)."""

    exercised_in_sync: set[str] = field(default_factory=set)
    exercised_any: set[str] = field(default_factory=set)
    tolerated: int = 0  # findings of already-failed requirements that the run went on past


# What a passing machine run vouches for: every requirement the oracle's checks can name, except those
# its scenarios never set up (a unit raising one name twice, a withdrawn interrupt, a cancel set in a pass
# that then stopped for an interrupt), which only the static vectors exercise, and ROC-ERR-007, which the
# harness client enforces on every reply.
MACHINE_REQUIREMENTS: tuple[str, ...] = tuple(
    sorted(
        set(reqs.ALL.values())
        - {
            reqs.DUPLICATE_NAME_RUN,
            reqs.DUPLICATE_NAME_TOOL,
            reqs.WITHDRAWN,
            reqs.CANCEL_NOT_CARRIED,
            reqs.ERROR_XOR,
            reqs.EXPIRY_ORDER,  # an answer too late together with another fault: the explicit checks' case
            reqs.ABANDON_MALFORMED,  # the harness sends an abandon's message typed: never malformed
        }
        # Sub-agents (profile agent-as-tool): the machine judges them when the profile is claimed, but what a
        # passing run vouches for stays the same list for every implementation (it is not per profile).
        - {v for k, v in reqs.ALL.items() if k.startswith("AGENT_")}
        # Streaming likewise (a claim of streaming makes the machine stream some invocations, oracle/streams).
        - {v for k, v in reqs.ALL.items() if k.startswith("STREAM_")}
    )
)


class RocMachine(RuleBasedStateMachine):
    """Configured by ``make_machine``: ``factory`` gives the implementation, ``profiles`` what it declares."""

    factory: ClassVar[ImplementationFactory]
    profiles: ClassVar[frozenset[str]]
    direct_calls: ClassVar[bool] = True  # False when the adapter cannot make direct tool calls
    # Requirements already reported failing: a finding naming only these does not stop the run; the
    # driver re-synchronises (or ends this scenario) and the examples go on judging everything else.
    tolerate: ClassVar[frozenset[str]] = frozenset()
    inspect: ClassVar[bool] = False
    ledger: ClassVar[MachineLedger | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.impl = type(self).factory()
        self.driver: Driver | None = None

    # ---- plumbing ------------------------------------------------------------------------------

    @property
    def d(self) -> Driver:
        assert self.driver is not None
        return self.driver

    @property
    def consumed(self) -> list[str]:
        """Ids of finished batches (their answers are consumed), for the re-answer checks."""
        return sorted(self.d.binder.retired)

    def _run(self, wire: dict[str, JSON], inp: Any, what: str) -> None:
        self._raise(self.d.invoke(wire, inp, f"after {what}"), what)

    def _raise(self, found: list[Violation], what: str) -> None:
        if found and all(set(v.requirements) <= self.tolerate for v in found):
            if self.ledger is not None:
                self.ledger.tolerated += 1
            return
        if found:
            vector = counterexample_vector(self.d, found, self.profiles)
            text = counterexample_text(self.d, vector)
            raise merge(found, f"after {what}", counterexample=text, vector=vector)

    def _pending(self) -> list[Key]:
        return [k for k in self.d.pending() if self.d.id_for(k) is not None]

    def _answered(self) -> list[Key]:
        return [k for k, r in self.d.oracle.interrupts.items() if r.answered and self.d.id_for(k) is not None]

    def _live(self) -> bool:
        """The scenario goes on: the oracle still models the implementation (no divergence it cannot
        follow; a machine ends a tainted scenario rather than collect its consequences)."""
        return self.driver is not None and not self.d.dead and self.d.sync == IN_SYNC

    def _interrupted(self) -> bool:
        return self._live() and self.d.oracle.activated and bool(self._pending())

    def _idle(self) -> bool:
        return self._live() and not self.d.oracle.activated

    # ---- rules ---------------------------------------------------------------------------------

    @initialize(spec=st.data())
    def create(self, spec: st.DataObject) -> None:
        doc = spec.draw(scenarios(self.profiles), label="scenario")
        self.driver = Driver(
            self.impl, doc, hook_events="hooks" in self.profiles, inspect=self.inspect, profiles=self.profiles
        )

    @precondition(_idle)
    @rule(
        data=st.data(),
        kind=st.sampled_from(["text", "text", "text", "blocks", "blocks", "stray-answer", "direct"]),
        text=st.sampled_from(["go", "continue", "again"]),
    )
    def prompt(self, data: st.DataObject, kind: str, text: str) -> None:
        """An idle agent: a prompt (string or blocks), now and then a stray answer or a direct call."""
        if kind == "stray-answer":
            self._answer_when_idle(data)
            return
        if kind == "direct":
            name = self._direct_tool() if self.d.oracle.messages_known else None
            if name is not None:
                wire: dict[str, JSON] = {"directToolCall": {"name": name, "input": {}}}
                self._run(wire, Direct(name, {}), f"direct call {name}")
                return
        as_blocks = kind == "blocks"
        wire = {"content": [{"text": text}]} if as_blocks else {"prompt": text}
        self._run(wire, Prompt([{"text": text}], content_form=as_blocks), f"prompt {text!r}")

    @precondition(_interrupted)
    @rule(data=st.data())
    def answer_all(self, data: st.DataObject) -> None:
        pairs: list[tuple[Any, JSON]] = [
            (k, data.draw(answers, label=f"answer {k[2]}")) for k in self._pending()
        ]
        wire, inp = self.d.resume_input(pairs)
        self._run(wire, inp, "answering every pending interrupt")

    @precondition(lambda self: self._interrupted() and len(self._pending()) > 1)
    @rule(data=st.data())
    def answer_some(self, data: st.DataObject) -> None:
        keys = data.draw(subsets(self._pending(), proper=True), label="answered subset")
        wire, inp = self.d.resume_input([(k, data.draw(answers)) for k in keys])
        self._run(wire, inp, "a partial answer")

    @precondition(_interrupted)
    @rule(
        data=st.data(),
        fault=st.sampled_from(["twice", "wrong-id", "answered", "consumed"]),
    )
    def bad_ids(self, data: st.DataObject, fault: str) -> None:
        """Answers naming the wrong interrupts (an id twice, unknown, already answered, consumed)."""
        self.bad_resume(data, fault)

    @precondition(_interrupted)
    @rule(
        data=st.data(),
        fault=st.sampled_from(["null", "prompt", "missing", "empty", "blank-id", "mixed", "direct"]),
    )
    def bad_shape(self, data: st.DataObject, fault: str) -> None:
        """Input of the wrong shape for an interrupted agent (null, a prompt, no response, [], a mix)."""
        self.bad_resume(data, fault)

    def bad_resume(self, data: st.DataObject, fault: str) -> None:
        """A rejected input: must leave the agent exactly as it was (checked on the next steps too)."""
        pending = self._pending()
        first = pending[0]
        wire: dict[str, JSON]
        inp: Input
        if fault == "wrong-id":
            wire, inp = self.d.resume_input([(first, data.draw(answers)), (data.draw(wrong_ids), "y")])
        elif fault == "twice":
            wire, inp = self.d.resume_input([(first, data.draw(answers)), (first, data.draw(answers))])
        elif fault == "null":
            wire, inp = self.d.resume_input([(first, None)])
        elif fault == "missing":
            wire, inp = self.d.resume_input([(first, None)], omit_response=True)
        elif fault == "empty":
            wire, inp = self.d.resume_input([])
        elif fault == "blank-id":
            wire, inp = self.d.resume_input([("", "y")])
        elif fault == "answered" and self._answered():
            wire, inp = self.d.resume_input([(self._answered()[0], "again")])
        elif fault == "consumed" and self.consumed:
            wire, inp = self.d.resume_input([(data.draw(st.sampled_from(self.consumed)), "again")])
        elif fault == "mixed":
            iid = self.d.id_for(first)
            blocks: list[dict[str, JSON]] = [
                {"text": "hi"},
                {"interruptResponse": {"interruptId": iid, "response": "y"}},
            ]
            wire, inp = {"content": blocks}, Mixed(blocks)
        elif fault == "direct":
            name = self._direct_tool()
            if name is None:
                return
            wire, inp = {"directToolCall": {"name": name, "input": {}}}, Direct(name, {})
        else:
            wire, inp = {"prompt": "hello"}, Prompt([{"text": "hello"}])
        self._run(wire, inp, f"a bad resume ({fault})")

    def _answer_when_idle(self, data: st.DataObject) -> None:
        ref: Any = UnknownRef(data.draw(wrong_ids))
        use_consumed: bool = data.draw(st.booleans())
        if self.consumed and use_consumed:
            ref = data.draw(st.sampled_from(self.consumed))
        wire, inp = self.d.resume_input([(ref, "y")])
        self._run(wire, inp, "answering an agent that is not interrupted")

    def _direct_tool(self) -> str | None:
        if not self.direct_calls:
            return None
        spec = self.d.spec
        # Whether the tool-call events fire for a direct call is the implementation's choice (spec 5.5): a
        # tool is not called directly when a BeforeToolCall callback, or an AfterToolCall callback that writes
        # the state (which the oracle could then not predict), applies to it.
        hooked = {
            h.tool_name
            for h in spec.hooks
            if h.event == "BeforeToolCall"
            or (h.event == "AfterToolCall" and any(s.op == "setState" for s in h.steps))
        }
        if None in hooked:
            return None
        # A sub-agent call belongs to a tool use of the loop (spec 12): such a tool is not called directly.
        agents = {n for n, t in spec.tools.items() if any(step.op == "runAgent" for step in t.steps)}
        names = [n for n in spec.tools if n not in hooked and n not in agents]
        return names[0] if names else None

    @precondition(lambda self: self._live() and "sessions" in self.profiles)
    @rule()
    def snapshot_and_restore(self) -> None:
        self._raise(self.d.restore(), "snapshot + restore")

    @precondition(lambda self: self.driver is not None and not self._live())
    @rule()
    def scenario_over(self) -> None:
        """A tolerated failure ended this scenario: nothing more to drive (keeps the machine well-formed)."""

    def teardown(self) -> None:
        if self.driver is not None:
            if self.ledger is not None:
                self.ledger.exercised_in_sync |= self.driver.exercised_in_sync
                self.ledger.exercised_any |= self.driver.exercised_any
            self.driver.dispose()


decisions = st.builds(
    Decided,
    st.sampled_from(["decline", "cancel"]),
    st.one_of(st.just(MISSING), st.sampled_from(DECISION_MESSAGES)),
)
"""A decline or cancel, with or without a message (spec 11.1)."""


class DecisionMachine(RocMachine):
    """The machine with the inputs of spec 1.1: decisions mixed with answers, malformed decisions, abandon,
    and the last accepted resume sent again.

    A subclass, so the rules (and so the examples drawn) of an implementation that claims none of
    ``decisions``, ``abandon`` and ``idempotent-resume`` stay exactly those of ``RocMachine``.
    """

    @precondition(lambda self: self._interrupted() and "decisions" in self.profiles)
    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        """Decline or cancel some pending interrupts, answering some of the others (ROC-DECIDE-001)."""
        # A proper subset when it can be (``decide_all`` decides them all): what is left may have expired, and
        # is then resolved by its expiry outcome (ROC-EXPIRY-005).
        keys = data.draw(subsets(self._pending(), proper=True), label="decided or answered")
        pairs: list[tuple[Any, JSON]] = []
        for n, k in enumerate(keys):
            answer = n > 0 and data.draw(st.booleans(), label=f"answer {k[2]}")
            pairs.append((k, data.draw(answers if answer else decisions, label=f"decision {k[2]}")))
        wire, inp = self.d.resume_input(pairs)
        self._run(wire, inp, "deciding pending interrupts")

    @precondition(lambda self: self._interrupted() and "decisions" in self.profiles)
    @rule(data=st.data())
    def decide_all(self, data: st.DataObject) -> None:
        """Decline or cancel every pending interrupt: the batch completes on the default outcomes, or goes on
        where a unit handles its decision (ROC-DECIDE-003..007)."""
        wire, inp = self.d.resume_input([(k, data.draw(decisions)) for k in self._pending()])
        self._run(wire, inp, "deciding every pending interrupt")

    @precondition(lambda self: self._interrupted() and "decisions" in self.profiles)
    @rule(
        data=st.data(),
        fault=st.sampled_from(
            ["unknown-decision", "with-response", "answer-message", "message-type", "again"]
        ),
    )
    def bad_decision(self, data: st.DataObject, fault: str) -> None:
        """A malformed decision (ROC-DECIDE-002), or one for an interrupt already decided (ROC-DECIDE-008)."""
        first = self._pending()[0]
        value: JSON = {
            "unknown-decision": Decided("maybe"),
            "with-response": Decided("decline", response="y"),
            "answer-message": Decided("answer", "why", response="y"),
            "message-type": Decided("cancel", 5),
        }.get(fault)
        decided = [k for k in self._answered() if k in self.d.oracle.interrupts]
        if fault == "again" and decided:
            wire, inp = self.d.resume_input([(decided[0], data.draw(decisions))])
        else:
            wire, inp = self.d.resume_input([(first, value if value is not None else Decided("maybe"))])
        self._run(wire, inp, f"a bad decision ({fault})")

    @precondition(lambda self: self._live() and self.d.last_resume is not None)
    @rule(abandon=st.booleans())
    def resend(self, abandon: bool) -> None:
        """The last accepted resume again, as a client that lost its reply sends it: refused, nothing runs
        twice (ROC-ANSWER-004/008/009; the details of ROC-RESEND-001 are the explicit checks'). Now and then,
        on an idle agent, an abandon instead (ROC-ABANDON-002)."""
        assert self.d.last_resume is not None
        if abandon and "abandon" in self.profiles and not self.d.oracle.activated:
            idle_wire, idle = self.d.abandon_input()
            self._run(idle_wire, idle, "abandon of an agent that is not interrupted")
            return
        wire, inp = self.d.resume_input(list(self.d.last_resume))
        self._run(wire, inp, "the last accepted resume sent again")

    @precondition(lambda self: self._interrupted() and "abandon" in self.profiles)
    @rule(
        message=st.sampled_from([MISSING, "gave up", ""]),
        then_continue=st.booleans(),
    )
    def send_abandon(self, message: JSON, then_continue: bool) -> None:
        """Abandon the pending batch (ROC-ABANDON-001, -003..005). (Named to sort after the other
        rules: Hypothesis lists rules by name and its simplest examples pick the first, and an abandon first
        would end most batches before anything is decided.)"""
        wire, inp = self.d.abandon_input(message, then_continue=then_continue)
        self._run(wire, inp, f"abandon ({'continue' if then_continue else 'end'})")


VECTOR_MARKER = "# as a static vector (review the expectations, then save under conformance/vectors/v1/):"


def counterexample_vector(driver: Driver, found: list[Violation], profiles: frozenset[str]) -> dict[str, Any]:
    """The driver's run as a static vector naming the requirements ``found`` breaks."""
    ids = sorted({i for v in found for i in v.requirements})
    needed = ["core", *sorted(p for p in profiles if p != "core" and p != "portable-snapshot")]
    return driver_to_vector(driver, "counterexample", f"Counterexample for {', '.join(ids)}", ids, needed)


def counterexample_text(driver: Driver, vector: dict[str, Any]) -> str:
    """The readable RPC transcript, then the same run as a static vector (JSON)."""
    return f"{driver.transcript()}\n\n{VECTOR_MARKER}\n{json.dumps(vector, indent=2, ensure_ascii=False)}"


def vector_from_counterexample(text: str) -> dict[str, Any]:
    """The static vector embedded in a counterexample produced by this machine."""
    _, _, doc = text.partition(VECTOR_MARKER)
    vector: dict[str, Any] = json.loads(doc)
    return vector


def make_machine(
    factory: ImplementationFactory,
    profiles: frozenset[str] | set[str],
    settings: hsettings | None = None,
    name: str = "RocConformance",
    *,
    direct_calls: bool = True,
    tolerate: frozenset[str] = frozenset(),
    ledger: MachineLedger | None = None,
    inspect: bool = False,
) -> type[RocMachine]:
    """A machine class bound to one implementation factory and its declared profiles; ``tolerate`` names
    requirements already reported failing (their findings no longer stop a run), ``ledger`` collects what
    the examples exercised; with ``inspect`` (the adapter's capability) a refused resume is checked at once
    for answers it stored."""
    attrs: dict[str, Any] = {
        "factory": staticmethod(factory),
        "profiles": frozenset(profiles),
        "direct_calls": direct_calls,
        "tolerate": frozenset(tolerate),
        "ledger": ledger,
        "inspect": inspect,
    }
    base = (
        DecisionMachine if frozenset(profiles) & {"decisions", "abandon", "idempotent-resume"} else RocMachine
    )
    cls: type[RocMachine] = type(name, (base,), attrs)
    if settings is not None:
        cls.TestCase.settings = settings
    return cls
