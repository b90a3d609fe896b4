"""A state machine over the whole RoC 1.1 input language against the reference runtime.

Inputs: prompts, answers, declines, cancels (partial or whole), bogus ids, re-sends of the last accepted
input, abandon (end, continue), snapshot + restore, and time moving past ``expiresAt`` on the injected clock.
Invariants: an interrupted agent always accepts an abandon and always accepts a decline of all its unanswered
interrupts (tried on restored copies, so the machine's own agent is untouched), an idle agent accepts a
prompt, every rejected input leaves the agent exactly as it was, and no tool body ever completes twice for one
tool use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from decisionkit import START, ask, decide
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from refsupport import answer, frozen
from roc_reference import (
    Agent,
    AgentResult,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    Message,
    ModelTurn,
    SequentialExecutor,
    TextBlock,
    Tool,
    ToolContext,
    tool,
)
from roc_reference.errors import ErrorCode, RocError


class BatchModel:
    """A prompt gets a batch of two tool uses with ids unique in the history; a tool result gets text.

    Pure in the history, so a restored agent with a fresh model goes on exactly as the original would.
    Every other batch carries expiring interrupts.
    """

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        batch = sum(1 for m in messages if m.role == "assistant")
        last = messages[-1]
        if last.role == "user" and any(isinstance(b, TextBlock) for b in last.content):
            uses = [
                {
                    "toolUse": {
                        "toolUseId": f"b{batch}-{n}",
                        "name": "act",
                        "input": {"n": n, "exp": batch % 2 == 0},
                    }
                }
                for n in (0, 1)
            ]
            return ModelTurn(Message.model_validate({"role": "assistant", "content": uses}), "tool_use")
        return ModelTurn(Message(role="assistant", content=[TextBlock(text="done")]), "end_turn")


class Units:
    """The tool and the hooks; ``layer`` says which unit raises the two interrupts of a batch."""

    def __init__(self, layer: str, clock: Any) -> None:
        self.layer = layer
        self.clock = clock
        self.completed: Counter[str] = Counter()

    @staticmethod
    def _ask(raise_: Any, name: str, n: int, expiring: bool) -> Any:
        return ask(raise_, name, {"n": n}, n, expiring=expiring)

    def tools(self) -> list[Tool]:
        @tool(name="act")
        def act(n: int, exp: bool, tool_context: ToolContext) -> str:
            if self.layer == "tool":
                self._ask(tool_context.interrupt, "ok", n, exp)
            self.completed[tool_context.tool_use.tool_use_id] += 1
            return "done"

        return [act]

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        if self.layer == "before_tool_call":

            def per_tool(event: BeforeToolCallEvent) -> None:
                tool_input = event.tool_use.input
                self._ask(event.interrupt, "ok", int(tool_input["n"]), bool(tool_input["exp"]))

            registry.add_callback(BeforeToolCallEvent, per_tool)
        if self.layer == "before_tools":
            for n, name in enumerate(("a", "b")):

                def per_batch(event: BeforeToolsEvent, name: str = name, n: int = n) -> None:
                    expiring = bool(event.message.tool_uses()[0].input["exp"])
                    self._ask(event.interrupt, name, n, expiring)

                registry.add_callback(BeforeToolsEvent, per_batch)


class DecisionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.now = START
        self.units = Units("tool", self.clock)
        self.executor = "sequential"
        self.agent = self._build(self.units)
        self.last_accepted: list[dict[str, Any]] | None = None

    def clock(self) -> datetime:
        return self.now

    def _build(self, units: Units, doc: dict[str, Any] | None = None) -> Agent:
        executor = SequentialExecutor() if self.executor == "sequential" else ConcurrentExecutor()
        if doc is None:
            return Agent(
                BatchModel(), tools=units.tools(), hooks=[units], executor=executor, clock=self.clock
            )
        return Agent.from_snapshot(
            doc, model=BatchModel(), tools=units.tools(), hooks=[units], executor=executor, clock=self.clock
        )

    def _copy(self) -> Agent:
        """A restored copy with units of its own: what it runs does not count against the machine's tools."""
        return self._build(Units(self.units.layer, self.clock), self.agent.take_snapshot())

    @initialize(
        layer=st.sampled_from(["tool", "before_tool_call", "before_tools"]),
        executor=st.sampled_from(["sequential", "concurrent"]),
    )
    def setup(self, layer: str, executor: str) -> None:
        self.executor = executor
        self.units = Units(layer, self.clock)
        self.agent = self._build(self.units)

    # --- helpers -------------------------------------------------------------------------------

    def _refused(self, blocks: Any, codes: set[ErrorCode]) -> RocError:
        before = frozen(self.agent)
        pending = self.agent.pending_interrupts()
        with pytest.raises(RocError) as info:
            self.agent(blocks)
        assert info.value.code in codes, (info.value.code, codes, blocks)
        assert frozen(self.agent) == before  # ROC-RESUME-010: nothing changed
        assert self.agent.pending_interrupts() == pending
        return info.value

    def _expired(self, interrupt_id: str) -> bool:
        for item in self.agent.pending_interrupts():
            if item["id"] == interrupt_id:
                expires_at = item.get("expiresAt")
                return expires_at is not None and datetime.fromisoformat(expires_at) <= self.now
        return False

    # --- rules ---------------------------------------------------------------------------------

    @rule(words=st.sampled_from(["go", "again", "more"]))
    def prompt(self, words: str) -> None:
        if self.agent.is_interrupted:
            error = self._refused(words, {ErrorCode.INTERRUPT_PENDING})
            assert error.details == {"pending": self.agent.pending_interrupts()}  # ROC-PENDING-005
            return
        result = self.agent(words)
        assert result.stop_reason == "interrupt"
        self.last_accepted = None

    @precondition(lambda self: self.agent.is_interrupted)
    @rule(data=st.data())
    def respond(self, data: st.DataObject) -> None:
        open_ids = [i.id for i in self.agent.interrupts]
        chosen = data.draw(st.lists(st.sampled_from(open_ids), min_size=1, unique=True), label="ids")
        kinds = st.sampled_from(["answer", "decline", "cancel"])
        messages = st.one_of(st.none(), st.sampled_from(["", "no", "later"]))
        blocks: list[dict[str, Any]] = []
        for interrupt_id in chosen:
            kind = data.draw(kinds, label="decision")
            if kind == "answer":
                blocks.append(answer(interrupt_id, data.draw(st.sampled_from(["y", 0, {"ok": True}]))))
            else:
                blocks.append(decide(interrupt_id, kind, data.draw(messages, label="message")))
        expired = [
            b["interruptResponse"]["interruptId"]
            for b in blocks
            if "decision" not in b["interruptResponse"]
            and self._expired(b["interruptResponse"]["interruptId"])
        ]
        if expired:  # ROC-EXPIRY-004; a decline or cancel of an expired one is fine (ROC-DECIDE-009)
            error = self._refused(blocks, {ErrorCode.EXPIRED})
            assert error.details == {"interruptId": expired[0]}
            return
        result = self.agent(blocks)
        assert result.stop_reason in ("interrupt", "end_turn")
        self.last_accepted = blocks

    @rule(interrupt_id=st.sampled_from(["bogus", "roc1:tool:0:x:body:ok", ""]))
    def bogus(self, interrupt_id: str) -> None:
        block = decide(interrupt_id, "decline") if interrupt_id else answer(interrupt_id, "y")
        if not self.agent.is_interrupted:
            self._refused([block], {ErrorCode.NOT_INTERRUPTED})
        elif interrupt_id:
            error = self._refused([block], {ErrorCode.UNKNOWN_INTERRUPT})
            assert "alreadyAnswered" not in (error.details or {})
        else:
            self._refused([block], {ErrorCode.INVALID_RESUME})

    @precondition(lambda self: self.last_accepted is not None)
    @rule()
    def resend(self) -> None:
        blocks = self.last_accepted
        assert blocks is not None
        # ROC-RESEND-001: the 1.0 code, and every block marked as already answered
        error = self._refused(blocks, {ErrorCode.UNKNOWN_INTERRUPT, ErrorCode.NOT_INTERRUPTED})
        ids = [b["interruptResponse"]["interruptId"] for b in blocks]
        assert (error.details or {}).get("alreadyAnswered") == ids

    @rule(message=st.one_of(st.none(), st.just("bye")), then=st.sampled_from(["end", "continue"]))
    def abandon(self, message: str | None, then: str) -> None:
        if not self.agent.is_interrupted:
            before = frozen(self.agent)
            with pytest.raises(RocError) as info:  # ROC-ABANDON-002
                self.agent.abandon(message, then=then)  # type: ignore[arg-type]
            assert info.value.code == ErrorCode.NOT_INTERRUPTED
            assert frozen(self.agent) == before
            return
        result = self.agent.abandon(message, then=then)  # type: ignore[arg-type]
        assert result.stop_reason == ("abandoned" if then == "end" else "end_turn")
        assert not self.agent.is_interrupted
        # the abandoned batch consumed what was stored; a re-send of it is still recognised
        if self.last_accepted is not None:
            self.resend()

    @rule()
    def snapshot_and_restore(self) -> None:
        listed = self.agent.pending_interrupts()
        doc = self.agent.take_snapshot()
        self.agent = self._build(self.units, doc)
        assert self.agent.pending_interrupts() == listed

    @rule()
    def time_passes(self) -> None:
        self.now = START + timedelta(days=2)

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def no_tool_completes_twice(self) -> None:
        assert all(n == 1 for n in self.units.completed.values()), self.units.completed

    @invariant()
    def unanswered_are_the_listed_ones_without_answer(self) -> None:
        listed = [p["id"] for p in self.agent.pending_interrupts() if "answer" not in p]
        assert sorted(listed) == sorted(i.id for i in self.agent.interrupts)

    @invariant()
    def always_a_way_to_an_end(self) -> None:
        if not self.agent.is_interrupted:
            assert self._copy()("hello").stop_reason in ("interrupt", "end_turn")
            return
        assert self._copy().abandon().stop_reason == "abandoned"  # ROC-ABANDON-001
        copy_ = self._copy()
        # ROC-DECIDE-001, ROC-DECIDE-009: a decline of every unanswered interrupt is accepted, expired or not
        result: AgentResult = copy_([decide(i.id, "decline") for i in copy_.interrupts])
        assert result.stop_reason in ("interrupt", "end_turn")


DecisionMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_decision_machine = DecisionMachine.TestCase
