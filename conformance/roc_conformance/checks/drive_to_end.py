"""The drive-to-end property (spec chapter 11, opening): whatever inputs came before, an interrupted agent
accepts an abandon (ROC-ABANDON-001) and a decline of each of its unanswered interrupts (ROC-DECIDE-001,
-009), and an idle agent accepts a prompt.

Hypothesis draws short sequences over the whole input language of the claimed profiles (prompts, resumes
that answer, decline, cancel or skip each unanswered interrupt, bogus ids, abandons that end or continue)
against a scenario with tool-body interrupts, one that handles decisions, one long expired (with
``expiry``) and a BeforeToolCall interrupt (with ``hooks``). After every step the probe runs on a copy, never
on the agent itself: a restored copy of its snapshot with ``sessions``, else a fresh agent driven by the same
inputs (interrupt ids are addressed by their position in the last result, so the copy's own ids are used).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext
from roc_conformance.checks.decision_support import (
    ABANDON_ACCEPTED,
    ABANDON_THEN,
    DECIDE_ACCEPTED,
    DECIDE_EXPIRED,
    PAST,
    abandon,
    ask,
    decide,
    interrupts,
    resume,
    shown,
)
from roc_conformance.checks.snapshot_support import error_code
from roc_conformance.errors import ConformanceViolation
from roc_conformance.settings import shrink_budget

Input = tuple[Any, ...]  # ("prompt",) | ("resume", ((position, kind), ...), bogus) | ("abandon", then)
_STEPS = 6


def _scenario(ctx: CheckContext) -> dict[str, Any]:
    """Turns that alternate a batch of interrupting tools with a closing text, long enough for any run."""
    expiry = "expiry" in ctx.profiles
    tools = [
        sc.tool("ask", ask("q"), sc.returns("asked")),
        sc.tool("handle", ask("r", handle=True), ask("s"), sc.returns("handled")),
        sc.tool("late", ask("e", expires_at=PAST) if expiry else ask("e"), sc.returns("late")),
        sc.tool("plain", sc.returns("plain")),
    ]
    turns = []
    for n in range(8):
        turns.append(
            sc.turn(
                sc.text(f"batch {n}"),
                sc.tool_use(f"h{n}", "handle"),
                sc.tool_use(f"l{n}", "late"),
                sc.tool_use(f"a{n}", "ask"),
                sc.tool_use(f"p{n}", "plain"),
            )
        )
        turns.append(sc.turn(sc.text(f"done {n}")))
    hooks = [sc.hook("BeforeToolCall", ask("gate"), tool_name="plain")] if "hooks" in ctx.profiles else []
    # The concurrent executor pauses a batch with all its interrupts at once: more states in fewer steps.
    executor = "concurrent" if "concurrent-executor" in ctx.profiles else "sequential"
    return sc.agent_spec("drive-to-end", executor=executor, turns=turns, tools=tools, hooks=hooks)


@dataclass
class _Run:
    """One agent driven by symbolic inputs: its handle, the ids it waits on, and the model calls so far."""

    agent: str
    pending: list[str] = field(default_factory=list)
    model_calls: int = 0

    def send(self, ctx: CheckContext, inp: Input) -> dict[str, Any]:
        out = ctx.client.invoke(self.agent, concrete(inp, self.pending))
        self.model_calls += sum(1 for e in out.get("trace") or [] if e.get("kind") == "model_call")
        if "result" in out:
            self.pending = [str(i.get("id")) for i in interrupts(out)]
        return out


def concrete(inp: Input, pending: list[str]) -> dict[str, Any]:
    """The Invoke input of a symbolic one, against the ids the agent waits on."""
    if inp[0] == "prompt":
        return {"prompt": "go on"}
    if inp[0] == "abandon":
        return abandon(then=inp[1])
    bodies: list[dict[str, Any]] = []
    for position, kind in inp[1]:
        if position >= len(pending):
            continue
        iid = pending[position]
        bodies.append({"interruptId": iid, "response": "yes"} if kind == "answer" else decide(iid, kind))
    if inp[2]:
        bodies.append({"interruptId": "no-such-id", "response": "yes"})
    return resume(*bodies)


def _inputs(ctx: CheckContext) -> st.SearchStrategy[Input]:
    kinds = ["answer", "decline", "cancel"] if "decisions" in ctx.profiles else ["answer"]
    # One choice per position of the last result's interrupts: skip it, answer it, or decide it.
    choices = st.lists(st.sampled_from(["skip", *kinds]), min_size=4, max_size=4)
    blocks = choices.map(lambda picked: tuple((n, k) for n, k in enumerate(picked) if k != "skip"))
    options: list[st.SearchStrategy[Input]] = [
        st.just(("prompt",)),
        st.tuples(st.just("resume"), blocks, st.booleans()),
    ]
    if "abandon" in ctx.profiles:
        options.append(st.tuples(st.just("abandon"), st.sampled_from(["end", "continue"])))
    return st.one_of(*options)


def _copy(ctx: CheckContext, spec: dict[str, Any], run: _Run, history: list[Input]) -> _Run:
    """A copy of ``run``'s agent to probe: restored from its snapshot, or driven afresh by ``history``."""
    if "sessions" in ctx.profiles:
        snap = ctx.client.take_snapshot(run.agent)
        if isinstance(snap.get("snapshot"), dict):
            restored = ctx.client.restore_agent(snap["snapshot"], spec, model_turn_offset=run.model_calls)
            if "agent" in restored:
                return _Run(restored["agent"], list(run.pending), run.model_calls)
    fresh = _Run(ctx.client.create_agent(spec))
    for inp in history:
        fresh.send(ctx, inp)
    return fresh


def _drive(ctx: CheckContext, probe: str, inputs: list[Input]) -> None:
    spec = _scenario(ctx)
    run = _Run(ctx.client.create_agent(spec))
    history: list[Input] = []
    last_accepted: Input | None = None
    for inp in inputs:
        out = run.send(ctx, inp)
        history.append(inp)
        if "result" in out:
            last_accepted = inp
        copy = _copy(ctx, spec, run, history)
        trail = f"after {history}"
        if copy.pending:
            every = tuple((n, "decline") for n in range(len(copy.pending)))
            probe_input: Input = ("abandon", "end") if probe == "abandon" else ("resume", every, False)
            got = ctx.client.invoke(copy.agent, concrete(probe_input, copy.pending))
            if "result" not in got:
                req = ABANDON_ACCEPTED if probe == "abandon" else DECIDE_ACCEPTED
                if probe == "decline" and error_code(got) == "EXPIRED":
                    req = DECIDE_EXPIRED  # the decline was refused because an interrupt had expired
                what = "an abandon" if probe == "abandon" else f"a decline of each of {copy.pending}"
                raise ConformanceViolation(req, f"{trail}: {what} gave {shown(got)}")
        else:
            got = ctx.client.invoke(copy.agent, {"prompt": "hello"})
            if "result" not in got:
                ended = last_accepted == ("abandon", "end")
                req = ABANDON_THEN if ended else (ABANDON_ACCEPTED if probe == "abandon" else DECIDE_ACCEPTED)
                raise ConformanceViolation(req, f"{trail}: the agent is idle, yet a prompt gave {shown(got)}")
        ctx.client.dispose_agent(copy.agent)


def _check(probe: str) -> Any:
    def run(ctx: CheckContext) -> None:
        examples = max(5, ctx.settings.max_examples // 20)
        base = ctx.settings.hypothesis(f"drive-to-end-{probe}")

        @hyp_settings(base, max_examples=examples)
        @given(st.lists(_inputs(ctx), min_size=1, max_size=_STEPS))
        def prop(inputs: list[Input]) -> None:
            _drive(ctx, probe, inputs)

        with shrink_budget(ctx.settings.shrink_seconds):
            prop()

    return run


def drive_to_end_checks() -> list[Check]:
    return [
        Check(
            name="explicit:drive-to-end-abandon",
            requirements=(ABANDON_ACCEPTED,),
            run=_check("abandon"),
            profiles=("core", "abandon"),
            kind="explicit",
            description="after any sequence of inputs, an interrupted agent accepts an abandon, an idle one "
            "a prompt",
        ),
        Check(
            name="explicit:drive-to-end-decline",
            requirements=(DECIDE_ACCEPTED,),
            run=_check("decline"),
            profiles=("core", "decisions"),
            kind="explicit",
            description="after any sequence of inputs, an interrupted agent accepts a decline of every "
            "unanswered interrupt, an idle one a prompt",
        ),
    ]
