"""Step programs: the bodies of scenario tools and hook callbacks (the AgentSpec scenario language).

A program runs from its first step every time its unit runs (that is what replay means), collecting the
answers its ``interrupt`` steps receive. Scenario semantics (conformance/README.md):

* ``interrupt{name, reason? | reasonFromState?, metadata?}``: ask, or, on replay, receive the stored answer;
  with ``reasonFromState`` the reason is ``state[key]`` at the raise (absent: no reason), so a replay after
  the state changed passes a different reason (ROC-STOP-011); a null reason is no reason (spec 2.1);
  ``metadata`` (harness protocol 3) goes to the raise API's ``metadata`` keyword as it is, and so do
  ``expiresAt`` and ``onExpiry`` (harness protocol 4) to its ``expires_at`` and ``on_expiry`` keywords;
  ``responseSchema`` (harness protocol 6) goes to its ``response_schema`` keyword as it is;
  with ``handleDecision`` (harness protocol 4) a decline or cancel the raise reports is handled: the
  program takes ``{"decision": d, "message"?: m}`` as the last answer and goes on; without it the decision
  propagates, so the runtime applies its default outcome;
* ``return{value?}`` (tool): success ``[{"json": {"answers": [...], "value": value}}]``;
* ``fail{message}`` (tool): error ``[{"text": message}]``;
* ``cancel{message}`` / ``cancelIf{answerNotIn, message}`` (hook): cancel the tool or the batch
  (``cancelIf`` cancels when the last answer, or no answer at all, is not in the list; ``cancel`` without
  a message cancels with ``True``, the runtime's default text);
* ``runAgent{agent, prompt}`` (tool, harness protocol 5, profile agent-as-tool): run the nested AgentSpec as
  this tool use's sub-agent through the runtime's sub-agent call; its final text is received like an answer
  (the adapter's ``run_agent`` callable does the runtime part; ``scenario.parse_scenario`` parses the nested
  spec, so the step's ``agent`` is a ``Scenario`` by the time a program runs);
* ``awaitStreamed{name, timeoutMs?}`` (tool, harness protocol 6, profile streaming): wait until the consumer
  of the invocation's stream has received an interrupt named ``name``, or ``timeoutMs`` (default 5000)
  passed, then go on; nothing is recorded and no answer is collected;
* ``ask{name, question}`` (tool and interruptible hook, harness protocol 6, profile questions): raise the
  question through the runtime's question API (spec 15) or, on replay, receive the stored answer, like an
  ``interrupt`` step without ``handleDecision``; the question goes to the runtime as it is (a malformed one
  on purpose too: refusing it is the runtime's job, ROC-ASK-002);
* ``skipIfState{key, equals}``: end the program when ``state[key]`` exists and equals the value;
* ``setState{key, fromAnswer | value}``: write state (``fromAnswer`` with no answer yet writes null).

A tool body runs its program and hands the outcome to ``tool_result_content``, which gives the success
content JSON or raises ``ToolFailure`` for a ``fail`` step: the runtime, not the adapter, must turn a failing
body into an error result (ROC-TOOL-008), so the body fails the way any tool body fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from roc_conformance.canonical import canonical_text

TOOL_OPS = frozenset(
    {"interrupt", "return", "fail", "skipIfState", "setState", "runAgent", "awaitStreamed", "ask"}
)
HOOK_OPS = frozenset({"interrupt", "cancel", "cancelIf", "skipIfState", "setState", "ask"})
PASSIVE_HOOK_OPS = frozenset({"skipIfState", "setState"})
DEFAULT_CANCEL = "cancelled"

_NO_ANSWER: Any = object()


class ScenarioError(ValueError):
    """The scenario cannot be built (an adapter-side refusal, reported as harness_error)."""


class ToolFailure(Exception):
    """Raised by a tool body whose program ended at a ``fail`` step; the message is the step's."""


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``; ``1`` and ``1.0`` are the same number."""
    return canonical_text(a) == canonical_text(b)


@dataclass(frozen=True)
class Step:
    op: str
    args: Mapping[str, Any]


def parse_steps(raw: Any, allowed: frozenset[str], where: str) -> tuple[Step, ...]:
    """Validate a step list against the ops allowed in its place."""
    if not isinstance(raw, list):
        raise ScenarioError(f"{where}: steps must be a list")
    steps: list[Step] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or len(item) != 1:
            raise ScenarioError(f"{where}[{i}]: a step is an object with exactly one member")
        ((op, args),) = item.items()
        if op not in allowed:
            raise ScenarioError(f"{where}[{i}]: step {op!r} is not allowed here")
        if not isinstance(args, dict):
            raise ScenarioError(f"{where}[{i}]: step arguments must be an object")
        if op == "interrupt" and not isinstance(args.get("name"), str):
            # An empty name is passed through: refusing it is the runtime's job (ROC-STOP-007).
            raise ScenarioError(f"{where}[{i}]: interrupt needs a name")
        if (
            op == "interrupt"
            and "reasonFromState" in args
            and ("reason" in args or not isinstance(args["reasonFromState"], str))
        ):
            raise ScenarioError(f"{where}[{i}]: interrupt takes a reason or a reasonFromState key, not both")
        if op == "interrupt" and "metadata" in args and not isinstance(args["metadata"], dict):
            raise ScenarioError(f"{where}[{i}]: interrupt metadata must be an object")
        if op == "interrupt":
            _check_decision_args(args, f"{where}[{i}]")
        if op == "runAgent" and not (
            isinstance(args.get("agent"), dict) and isinstance(args.get("prompt"), str)
        ):
            raise ScenarioError(f"{where}[{i}]: runAgent needs an agent (an AgentSpec) and a prompt")
        if op == "awaitStreamed" and not (
            isinstance(args.get("name"), str)
            and isinstance(args.get("timeoutMs", 0), int)
            and not isinstance(args.get("timeoutMs", 0), bool)
            and args.get("timeoutMs", 0) >= 0
        ):
            raise ScenarioError(f"{where}[{i}]: awaitStreamed needs a name and a timeoutMs >= 0, if any")
        if op == "ask" and not (isinstance(args.get("name"), str) and "question" in args):
            raise ScenarioError(f"{where}[{i}]: ask needs a name and a question")
        if op in ("skipIfState", "setState") and not isinstance(args.get("key"), str):
            raise ScenarioError(f"{where}[{i}]: {op} needs a key")
        steps.append(Step(op, dict(args)))
    return tuple(steps)


def _check_decision_args(args: Mapping[str, Any], where: str) -> None:
    """The harness shapes of an interrupt step's protocol 4 members; their values reach the raise as sent."""
    if "expiresAt" in args and not isinstance(args["expiresAt"], str):
        raise ScenarioError(f"{where}: interrupt expiresAt must be a string")
    on_expiry = args.get("onExpiry")
    if "onExpiry" in args and not (
        isinstance(on_expiry, dict)
        and isinstance(on_expiry.get("decision"), str)
        and isinstance(on_expiry.get("message", ""), str)
    ):
        raise ScenarioError(f"{where}: interrupt onExpiry must be {{decision: string, message?: string}}")
    if "handleDecision" in args and not isinstance(args["handleDecision"], bool):
        raise ScenarioError(f"{where}: interrupt handleDecision must be a boolean")
    if "responseSchema" in args and not isinstance(args["responseSchema"], dict):
        # An object outside the portable subset is passed through: refusing it is the runtime's job.
        raise ScenarioError(f"{where}: interrupt responseSchema must be an object")


RunAgent = Callable[[Any, str], Any]
"""The runtime's sub-agent call for a ``runAgent`` step: ``run_agent(scenario, prompt)`` builds the nested
scenario's agent, runs it as the tool use's sub-agent and returns its final text, or raises whatever the
runtime raises when the sub-agent stops with interrupts (its pause signal)."""

AwaitStreamed = Callable[[str, float], bool]
"""Waits for an ``awaitStreamed`` step: ``await_streamed(name, timeout_seconds)`` blocks until the consumer of
the invocation's stream has received an interrupt named ``name`` or the timeout ends (``Trace.await_streamed``
does it for the trace the service records streamed interrupts into)."""

DEFAULT_AWAIT_MS = 5000
"""An ``awaitStreamed`` step's wait when its ``timeoutMs`` is absent or 0."""

DecisionOf = Callable[[BaseException], Mapping[str, Any] | None]
"""Recognises the runtime's decision signal: the ``{"decision", "message"?}`` of a decline or cancel the raise
reported (ROC-DECIDE-003), or ``None`` for any other exception (a pause, a refusal)."""


def _raise_kwargs(args: Mapping[str, Any]) -> dict[str, Any]:
    """The raise API's keywords for the members a step has; none for a step without them, so a raise API
    that lacks a keyword still runs every scenario that does not use it."""
    extra: dict[str, Any] = {}
    if "metadata" in args:
        extra["metadata"] = args["metadata"]
    if "expiresAt" in args:
        extra["expires_at"] = args["expiresAt"]
    if "onExpiry" in args:
        extra["on_expiry"] = dict(args["onExpiry"])
    if "responseSchema" in args:  # harness protocol 6, profile response-schema (spec 14)
        extra["response_schema"] = args["responseSchema"]
    return extra


@dataclass(frozen=True)
class StateView:
    """What a program may do to the agent state."""

    get: Callable[[str], Any]
    has: Callable[[str], bool]
    put: Callable[[str, Any], None]


@dataclass
class ProgramRun:
    """The outcome of one run of a program that did not stop at an unanswered interrupt."""

    answers: list[Any] = field(default_factory=list)
    end: str = "none"  # none | return | fail | skipped
    value: Any = None
    fail_message: str = ""
    cancel: str | bool | None = None  # True: cancel without a message (the runtime's default text)


def _reason(args: Mapping[str, Any], state: StateView) -> Any:
    """The reason an interrupt step passes now: fixed, or read from the state at this raise."""
    key = args.get("reasonFromState")
    if key is None:
        return args.get("reason")
    return state.get(key) if state.has(key) else None


def run_program(
    steps: Sequence[Step],
    *,
    interrupt: Callable[..., Any] | None,
    state: StateView,
    decision_of: DecisionOf | None = None,
    run_agent: RunAgent | None = None,
    await_streamed: AwaitStreamed | None = None,
    ask: Callable[[str, Any], Any] | None = None,
) -> ProgramRun:
    """Run ``steps``; ``interrupt(name, reason)`` returns the answer or raises the runtime's pause signal.

    A step with ``metadata``, ``expiresAt`` or ``onExpiry`` passes them as the keywords ``metadata``,
    ``expires_at`` and ``on_expiry``; one without calls it with two arguments only. ``decision_of``
    recognises the runtime's decision signal; a step with ``handleDecision`` needs it (an adapter that
    cannot recognise decisions does not claim the profile ``decisions``). ``run_agent`` runs a ``runAgent``
    step (an adapter without it does not claim the profile ``agent-as-tool``). ``await_streamed`` runs an
    ``awaitStreamed`` step (``trace.await_streamed``; an adapter without it does not claim ``streaming``).
    ``ask(name, question)`` is the runtime's question API for an ``ask`` step (profile questions).
    """
    run = ProgramRun()
    last: Any = _NO_ANSWER
    for step in steps:
        args = step.args
        if step.op == "interrupt":
            if interrupt is None:
                raise ScenarioError("this program cannot interrupt")
            handle = bool(args.get("handleDecision", False))
            if handle and decision_of is None:
                raise ScenarioError("this adapter cannot hand a decision to the program (handleDecision)")
            try:
                answer = interrupt(args["name"], _reason(args, state), **_raise_kwargs(args))
            except Exception as exc:
                decided = decision_of(exc) if handle and decision_of is not None else None
                if decided is None:
                    raise
                answer = dict(decided)
            run.answers.append(answer)
            last = answer
        elif step.op == "ask":
            if ask is None:
                raise ScenarioError("this program cannot ask a question (ask)")
            answer = ask(args["name"], args["question"])  # a decision propagates: the default outcome
            run.answers.append(answer)
            last = answer
        elif step.op == "runAgent":
            if run_agent is None:
                raise ScenarioError("this adapter cannot run a sub-agent (runAgent)")
            answer = run_agent(args["agent"], str(args["prompt"]))
            run.answers.append(answer)
            last = answer
        elif step.op == "awaitStreamed":
            if await_streamed is None:
                raise ScenarioError("this adapter cannot wait for streamed interrupts (awaitStreamed)")
            # Whether the wait ran out is not an answer: the trace's order shows it (ROC-STREAM-005).
            await_streamed(str(args["name"]), (int(args.get("timeoutMs", 0)) or DEFAULT_AWAIT_MS) / 1000)
        elif step.op == "return":
            run.end, run.value = "return", args.get("value")
            return run
        elif step.op == "fail":
            run.end, run.fail_message = "fail", str(args.get("message", ""))
            return run
        elif step.op == "cancel":
            run.cancel = str(args["message"]) if "message" in args else True
        elif step.op == "cancelIf":
            allowed = args.get("answerNotIn", [])
            if last is _NO_ANSWER or not any(json_equal(last, x) for x in allowed):
                run.cancel = str(args.get("message", DEFAULT_CANCEL))
        elif step.op == "skipIfState":
            key = args["key"]
            if state.has(key) and json_equal(state.get(key), args.get("equals")):
                run.end = "skipped"
                return run
        elif step.op == "setState":
            if args.get("fromAnswer"):
                state.put(args["key"], None if last is _NO_ANSWER else last)
            else:
                state.put(args["key"], args.get("value"))
    return run


def tool_result_content(run: ProgramRun) -> list[dict[str, Any]]:
    """The success content of a finished tool program, ``[{"json": {"answers": [...], "value": v}}]``.

    Raises ``ToolFailure`` when the program ended at a ``fail`` step. A program that ran off its end (or was
    skipped) returns like ``return`` without a value.
    """
    if run.end == "fail":
        raise ToolFailure(run.fail_message)
    return [{"json": {"answers": list(run.answers), "value": run.value}}]
