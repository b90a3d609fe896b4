"""Streaming checks (profile streaming, spec chapter 17): an Invoke sent with ``stream`` (harness protocol 6)
runs through the runtime's streaming API; the adapter records each interrupt event as a ``streamed_interrupt``
trace event when its consumer receives it, and the final event is the reply's outcome.

Each check runs a scenario twice, on two agents built from one spec: the *twin* gets every input through
``invoke``, the *streamed* agent through the streaming API. What streaming may not change (the outcome, the
history, the state, the units that ran) is judged against the twin; what it adds (the interrupt events) is
judged against the streamed result. Interrupt ids are compared by their place in the result, so a runtime that
mints random ids is judged as fairly as one that derives them. One check per requirement; each finds its own
evidence. A stream that breaks the shape of 17.1 (no final event, events after it) shows as the kit's crash
``StreamBroken``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_text
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.snapshot_support import fail_if
from roc_conformance.errors import ConformanceViolation

STREAM_FINAL = "ROC-STREAM-001"
STREAM_ONCE = "ROC-STREAM-002"
STREAM_ONLY = "ROC-STREAM-003"
STREAM_SAME = "ROC-STREAM-004"
STREAM_EARLY = "ROC-STREAM-005"

PROFILE = "streaming"
STREAMED = "streamed_interrupt"
WAIT_MS = 5000
"""An ``awaitStreamed`` step's timeout: a conforming runtime never lets it run out."""


def await_streamed(name: str, timeout_ms: int = WAIT_MS) -> dict[str, Any]:
    """A tool step (harness protocol 6): wait until the stream's consumer received the interrupt ``name``."""
    return {"awaitStreamed": {"name": name, "timeoutMs": timeout_ms}}


# --- scenarios ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A spec and the inputs to give it: ``answer`` makes the resume input for the previous reply (``None``:
    the prompt ``go``)."""

    label: str
    spec: dict[str, Any]
    inputs: tuple[Callable[[dict[str, Any]], dict[str, Any]] | None, ...]


def _answer_all(previous: dict[str, Any]) -> dict[str, Any]:
    return sc.resume(*(sc.answer(str(i.get("id")), "yes") for i in interrupts(previous)))


def _answer_first(previous: dict[str, Any]) -> dict[str, Any]:
    first = interrupts(previous)[:1]
    return sc.resume(*(sc.answer(str(i.get("id")), "yes") for i in first))


def _prompt_again(previous: dict[str, Any]) -> dict[str, Any]:
    return {"prompt": "again"}  # to an interrupted agent: refused (ROC-RESUME-001), the stream's error


def scenarios(ctx: CheckContext) -> list[Scenario]:
    """The scenarios the claim allows: one question; a refused input; two questions of one batch answered one
    at a time (concurrent executor); a BeforeTools question, which stops the cycle before any tool (hooks)."""
    executor = sc.executor_for(ctx.profiles)
    ask = [sc.turn(sc.text("asking"), sc.tool_use("t1", "ask")), sc.turn(sc.text("done"))]
    one = sc.agent_spec("stream-one", executor=executor, turns=ask, tools=[sc.tool("ask", sc.interrupt("q"))])
    found = [
        Scenario("one question", one, (None, _answer_all)),
        Scenario("a refused input", one, (None, _prompt_again)),
    ]
    if "concurrent-executor" in ctx.profiles:
        turns = [sc.turn(sc.tool_use("t1", "a"), sc.tool_use("t2", "b")), sc.turn(sc.text("done"))]
        tools = [sc.tool("a", sc.interrupt("qa")), sc.tool("b", sc.interrupt("qb"))]
        two = sc.agent_spec("stream-two", executor="concurrent", turns=turns, tools=tools)
        found.append(
            Scenario("two questions answered one at a time", two, (None, _answer_first, _answer_all))
        )
    if "hooks" in ctx.profiles:
        hooks = [sc.hook("BeforeTools", sc.interrupt("batch"))]
        tools = [sc.tool("ask", sc.returns("ran"))]
        batch = sc.agent_spec("stream-batch", executor=executor, turns=ask, tools=tools, hooks=hooks)
        found.append(Scenario("a BeforeTools question", batch, (None, _answer_all)))
    return found


# --- readers -----------------------------------------------------------------------------------------


def interrupts(out: dict[str, Any]) -> list[dict[str, Any]]:
    result = out.get("result") or {}
    return [i for i in result.get("interrupts") or [] if isinstance(i, dict)]


def streamed(out: dict[str, Any]) -> list[dict[str, Any]]:
    """The interrupts the top agent's stream delivered, in the order the consumer received them."""
    return [
        e.get("interrupt") or {}
        for e in out.get("trace", [])
        if e.get("kind") == STREAMED and not e.get("agentPath")
    ]


def shown(out: dict[str, Any]) -> str:
    if "crash" in out:
        crash = out["crash"]
        return f"a crash {crash.get('type')}: {crash.get('message')}"
    if "error" in out:
        return f"error {out['error'].get('code')}"
    result = out.get("result") or {}
    return f"stopReason {result.get('stopReason')!r} with {len(interrupts(out))} interrupts"


def _ids(replies: list[dict[str, Any]]) -> dict[str, str]:
    """Each interrupt id the results of ``replies`` (one agent's, in order) hold -> its place in the order
    they first appear (``#0``, ``#1``, ...): the twins meet the same interrupts in the same order."""
    ids: dict[str, str] = {}
    for out in replies:
        for i in interrupts(out):
            ids.setdefault(str(i.get("id")), f"#{len(ids)}")
    return ids


def _renamed(doc: Any, ids: dict[str, str]) -> Any:
    """``doc`` with every string that is an interrupt id of ``ids`` replaced by its place."""
    if isinstance(doc, str):
        return ids.get(doc, doc)
    if isinstance(doc, list):
        return [_renamed(x, ids) for x in doc]
    if isinstance(doc, dict):
        return {k: _renamed(v, ids) for k, v in doc.items()}
    return doc


def _outcome(out: dict[str, Any], ids: dict[str, str]) -> Any:
    """The final event's content as invoke would give it, ids by place; the crash's type for a crash."""
    for key in ("result", "error"):
        if key in out:
            return {key: _renamed(out[key], ids)}
    return {"crash": (out.get("crash") or {}).get("type")}


def _units(out: dict[str, Any], ordered: bool) -> list[str]:
    """The trace without the stream's events (and without the kit's invocation markers), as text; sorted
    unless ``ordered`` (the concurrent executor's order is its own each run)."""
    kept = [canonical_text(e) for e in out.get("trace", []) if e.get("kind") != STREAMED]
    return kept if ordered else sorted(kept)


@dataclass
class Run:
    """One scenario run twice: each step's replies, the twin's (invoke) and the streamed agent's."""

    scenario: Scenario
    plain: list[dict[str, Any]]
    stream: list[dict[str, Any]]


def run_twins(ctx: CheckContext, scenario: Scenario) -> Run:
    plain_agent = ctx.client.create_agent(scenario.spec)
    stream_agent = ctx.client.create_agent(scenario.spec)
    run = Run(scenario, [], [])
    for make in scenario.inputs:
        plain_in = {"prompt": "go"} if make is None else make(run.plain[-1])
        stream_in = {"prompt": "go"} if make is None else make(run.stream[-1])
        run.plain.append(ctx.client.invoke(plain_agent, plain_in))
        run.stream.append(ctx.client.invoke(stream_agent, stream_in, stream=True))
        if "result" not in run.plain[-1] and "error" not in run.plain[-1]:
            break  # the twin crashed: nothing further to compare
    return run


def _where(run: Run, step: int) -> str:
    return f"{run.scenario.label}, input {step + 1}"


# --- checks ------------------------------------------------------------------------------------------


def check_final_event(ctx: CheckContext) -> None:
    """The stream ends with exactly one result or error, JSON-equal to what invoke gives."""
    wrong: list[str] = []
    for scenario in scenarios(ctx):
        run = run_twins(ctx, scenario)
        for step, (plain, stream) in enumerate(zip(run.plain, run.stream, strict=False)):
            ids_p, ids_s = _ids(run.plain[: step + 1]), _ids(run.stream[: step + 1])
            if "crash" in stream:
                wrong.append(f"{_where(run, step)}: the stream gave {shown(stream)}")
            elif _outcome(stream, ids_s) != _outcome(plain, ids_p):
                wrong.append(f"{_where(run, step)}: streamed {shown(stream)}, invoke gave {shown(plain)}")
    fail_if({STREAM_FINAL: wrong})


def _stream_shape(ctx: CheckContext, judge: Callable[[Run, int, dict[str, Any]], list[str]]) -> list[str]:
    wrong: list[str] = []
    for scenario in scenarios(ctx):
        run = run_twins(ctx, scenario)
        for step, stream in enumerate(run.stream):
            if "result" in stream:
                wrong += judge(run, step, stream)
    return wrong


def _once(run: Run, step: int, out: dict[str, Any]) -> list[str]:
    got = streamed(out)
    wrong: list[str] = []
    for entry in interrupts(out):
        same_id = [i for i in got if i.get("id") == entry.get("id")]
        if len(same_id) != 1:
            wrong.append(
                f"{_where(run, step)}: interrupt {entry.get('name')!r} streamed {len(same_id)} times"
            )
        elif canonical_text(same_id[0]) != canonical_text(entry):
            wrong.append(f"{_where(run, step)}: the event of {entry.get('name')!r} differs from the result's")
    return wrong


def check_streamed_once(ctx: CheckContext) -> None:
    """Each interrupt of an interrupt result was streamed exactly once before it, JSON-equal."""
    fail_if({STREAM_ONCE: _stream_shape(ctx, _once)})


def _only(run: Run, step: int, out: dict[str, Any]) -> list[str]:
    reported = {i.get("id") for i in interrupts(out)}
    return [
        f"{_where(run, step)}: interrupt {i.get('name')!r} ({i.get('id')}) streamed but not in the result"
        for i in streamed(out)
        if i.get("id") not in reported
    ]


def check_streamed_only_reported(ctx: CheckContext) -> None:
    """No interrupt event for an interrupt the result does not hold."""
    fail_if({STREAM_ONLY: _stream_shape(ctx, _only)})


def check_same_as_invoke(ctx: CheckContext) -> None:
    """Streaming leaves the agent as invoke does: the same history, state and units run, input after input."""
    wrong: list[str] = []
    ordered = "concurrent-executor" not in ctx.profiles
    for scenario in scenarios(ctx):
        run = run_twins(ctx, scenario)
        for step, (plain, stream) in enumerate(zip(run.plain, run.stream, strict=False)):
            ids_p, ids_s = _ids(run.plain[: step + 1]), _ids(run.stream[: step + 1])
            where = _where(run, step)
            if _renamed(plain.get("messages"), ids_p) != _renamed(stream.get("messages"), ids_s):
                wrong.append(f"{where}: the history differs from invoke's")
            if canonical_text(plain.get("state")) != canonical_text(stream.get("state")):
                wrong.append(f"{where}: the agent state differs from invoke's")
            if _units(_renamed(plain, ids_p), ordered) != _units(_renamed(stream, ids_s), ordered):
                wrong.append(f"{where}: the trace (without streamed_interrupt) differs from invoke's")
    fail_if({STREAM_SAME: wrong})


def check_early_event(ctx: CheckContext) -> None:
    """Concurrent executor: a sibling that waits for a tool use's streamed question can end (its wait does
    not run out), and the event comes before that sibling's tool_end."""
    turns = [sc.turn(sc.tool_use("t1", "ask"), sc.tool_use("t2", "waits")), sc.turn(sc.text("done"))]
    tools = [sc.tool("ask", sc.interrupt("q")), sc.tool("waits", await_streamed("q"), sc.returns("waited"))]
    spec = sc.agent_spec("stream-early", executor="concurrent", turns=turns, tools=tools)
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"}, stream=True)
    if "result" not in out:
        raise ConformanceViolation(STREAM_FINAL, f"the streamed invocation gave {shown(out)}")
    kinds = [
        (e.get("kind"), e.get("toolUseId"), (e.get("interrupt") or {}).get("name"))
        for e in out.get("trace", [])
        if not e.get("agentPath")
    ]
    event = next((n for n, k in enumerate(kinds) if k[0] == STREAMED and k[2] == "q"), None)
    ended = next((n for n, k in enumerate(kinds) if k[:2] == ("tool_end", "t2")), None)
    if event is None:
        raise ConformanceViolation(STREAM_ONCE, "the interrupt q was never streamed")
    if ended is None:
        raise ConformanceViolation("ROC-EXEC-008", "the sibling t2 never ended")
    if ended < event:
        raise ConformanceViolation(
            STREAM_EARLY,
            "the interrupt q of t1 was streamed only after its sibling t2 ended, and t2 waited for it: the "
            "event was held until the siblings ended",
        )


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        "explicit:ROC-STREAM-001",
        (STREAM_FINAL,),
        check_final_event,
        ("core", PROFILE),
        "a stream ends with one result or error event, JSON-equal to what invoke gives",
    ),
    (
        "explicit:ROC-STREAM-002",
        (STREAM_ONCE,),
        check_streamed_once,
        ("core", PROFILE),
        "each interrupt of an interrupt result is streamed exactly once before it, JSON-equal",
    ),
    (
        "explicit:ROC-STREAM-003",
        (STREAM_ONLY,),
        check_streamed_only_reported,
        ("core", PROFILE),
        "no interrupt event for an interrupt the result does not hold",
    ),
    (
        "explicit:ROC-STREAM-004",
        (STREAM_SAME,),
        check_same_as_invoke,
        ("core", PROFILE),
        "streaming leaves the history, the state and the units run as invoke does",
    ),
    (
        "explicit:ROC-STREAM-005",
        (STREAM_EARLY,),
        check_early_event,
        ("core", PROFILE, "concurrent-executor"),
        "with the concurrent executor a question is streamed before the invocation waits for its siblings",
    ),
)


def streaming_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
