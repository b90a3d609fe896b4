"""``roc-conformance smoke``: does the adapter work? A few seconds of probes before a full run.

A full run judges the runtime; it assumes the adapter keeps the harness contract. When the adapter does not
(no ``invocation_start``, a reply with no outcome, a handler that raises), the run shows a long list of
ERRORs and failures that read like runtime bugs. The smoke test sends a handful of RPCs and checks each reply
against the harness contract (conformance/README.md), so it can say which side is broken:

- ``ok``: the probe's replies keep the contract;
- ``ADAPTER FAULT``: the adapter broke the contract (or did not answer), with what exactly and how to fix it;
- ``RUNTIME``: the replies are well formed but the runtime answered differently than RoC requires. That is
  not the adapter's fault: run the full suite for the verdict.

The probes: Describe (harness protocol, profiles and capabilities, ``core`` claimed); CreateAgent of a
minimal scenario; Invoke with a prompt whose tool returns; Invoke with a prompt whose tool raises an
interrupt, then a resume; with ``sessions`` claimed, TakeSnapshot + RestoreAgent while paused, then a
resume of the restored agent; DisposeAgent (a disposed handle is unknown afterwards); Invoke with a handle
the adapter never minted (``harness_error`` expected). The runtime's answers are judged by the suite's oracle
(``oracle.Driver``), the replies' values by the spec's schemas (``checks.wire_schema``); the trace rules are
checked here.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import CheckContext
from roc_conformance.checks.explicit import check_handshake
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.client import (
    CAPABILITIES,
    FORMER_CAPABILITIES,
    HARNESS_PROTOCOL_VERSION,
    AgentRefused,
    Description,
    HarnessClient,
    Timeouts,
)
from roc_conformance.errors import (
    AdapterError,
    ConformanceViolation,
    HarnessFault,
    HarnessTimeout,
    HarnessUnavailable,
    ProtocolMismatch,
)
from roc_conformance.oracle import Driver, Prompt, Violation
from roc_conformance.settings import CERTIFY
from roc_conformance.target import Target

OK = "ok"
ADAPTER = "ADAPTER FAULT"
RUNTIME = "RUNTIME"
NOT_RUN = "not run"

UNKNOWN_HANDLE = "roc-smoke-no-such-agent"
"""A handle no adapter mints: Invoke with it must be answered with ``harness_error``."""

TRACE_DOC = "the trace table: spec/conformance-testing.md, 'What the harness observes'"


@dataclass(frozen=True)
class Problem:
    """One broken rule of the harness contract, with how to fix it."""

    message: str
    hint: str


@dataclass
class Finding:
    """The result of one probe."""

    probe: str
    status: str  # OK, ADAPTER, RUNTIME or NOT_RUN
    detail: str = ""
    hints: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        head = f"  {self.status:<14} {self.probe}"
        first, *rest = self.detail.splitlines() or [""]
        out = [f"{head}: {first}" if first else head]
        out += [f"  {'':<14}   {line.strip()}" for line in rest]
        out += [f"  {'':<14} hint: {hint}" for hint in dict.fromkeys(self.hints)]
        return out


@dataclass
class SmokeReport:
    """Every probe's finding and the verdict on the adapter."""

    target: str
    findings: list[Finding] = field(default_factory=list)
    description: Description | None = None

    @property
    def adapter_faults(self) -> list[Finding]:
        return [f for f in self.findings if f.status == ADAPTER]

    @property
    def runtime_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.status == RUNTIME]

    @property
    def adapter_ok(self) -> bool:
        return not self.adapter_faults

    @property
    def full_run(self) -> str:
        return f"roc-conformance run --target {shlex.quote(self.target)}"

    def verdict(self) -> str:
        if not self.adapter_ok:
            probes = ", ".join(f.probe for f in self.adapter_faults)
            return (
                f"ADAPTER BROKEN: {len(self.adapter_faults)} probe(s) found adapter faults ({probes}); "
                "fix the adapter first: a full run would report these as ERRORs, not as the runtime's verdict"
            )
        if self.runtime_findings:
            return (
                f"ADAPTER OK; the runtime is not conformant in {len(self.runtime_findings)} probe(s): not "
                f"the adapter's fault, run the full suite ({self.full_run})"
            )
        return f"ADAPTER OK: run the full suite next ({self.full_run})"

    def text(self) -> str:
        lines = [f"roc-conformance smoke {self.target}"]
        for finding in self.findings:
            lines += finding.lines()
        lines.append(self.verdict())
        return "\n".join(lines)


class ContractBroken(AdapterError):
    """A reply broke the harness contract in ways the client does not check itself (the trace rules)."""

    def __init__(self, rpc: str, problems: list[Problem]) -> None:
        super().__init__(rpc, "; ".join(p.message for p in problems))
        self.problems = problems


# ---------------------------------------------------------------------------------------------------------
# The trace rules


def _kind(event: Any) -> Any:
    return event.get("kind") if isinstance(event, dict) else None


def trace_problems(reply: dict[str, Any], first_turn: int) -> list[Problem]:
    """What breaks the trace rules in one Invoke reply. ``first_turn``: the agent's model calls so far."""
    trace = reply.get("trace")
    if not isinstance(trace, list):
        return [Problem("the reply's trace is not a list", "send the events as the repeated field trace")]
    problems: list[Problem] = []
    kinds = [_kind(e) for e in trace]
    if not kinds:
        problems.append(
            Problem(
                "the trace is empty; its first event must be invocation_start",
                "record invocation_start when the adapter hands the input to the runtime, before anything "
                f"else and also for input the runtime rejects ({TRACE_DOC})",
            )
        )
    elif kinds[0] != "invocation_start":
        where = f"at trace[{kinds.index('invocation_start')}]" if "invocation_start" in kinds else "missing"
        problems.append(
            Problem(
                f"the trace starts with {kinds[0]}, not invocation_start (invocation_start is {where})",
                "record invocation_start in the adapter, around the runtime call, as the first event of "
                f"every Invoke ({TRACE_DOC})",
            )
        )
    if kinds.count("invocation_start") > 1:
        problems.append(
            Problem(
                f"invocation_start {kinds.count('invocation_start')} times in one reply",
                "record invocation_start once per Invoke, and clear the recorded events between Invokes",
            )
        )
    problems += _end_problems(reply, trace, kinds)
    problems += _turn_problems(trace, first_turn)
    problems += _pairing_problems(trace)
    return problems


def _end_problems(reply: dict[str, Any], trace: list[Any], kinds: list[Any]) -> list[Problem]:
    ends = kinds.count("invocation_end")
    if "result" not in reply:
        if not ends:
            return []
        outcome = next((k for k in ("error", "toolResult", "crash") if k in reply), "no result")
        return [
            Problem(
                f"invocation_end in a reply whose outcome is {outcome}",
                "record invocation_end only when the runtime returned an AgentResult",
            )
        ]
    result = reply["result"]
    stop = result.get("stopReason") if isinstance(result, dict) else None
    if not kinds or kinds[-1] != "invocation_end":
        return [
            Problem(
                f"a result (stopReason {stop!r}) whose trace does not end with invocation_end",
                "record invocation_end{stopReason} after the runtime returned its AgentResult, as the last "
                f"event ({TRACE_DOC})",
            )
        ]
    problems = []
    if ends > 1:
        problems.append(Problem(f"invocation_end {ends} times in one reply", "record it once, last"))
    recorded = trace[-1].get("stopReason")
    if recorded != stop:
        problems.append(
            Problem(
                f"invocation_end says stopReason {recorded!r}, the result says {stop!r}",
                "copy the stop reason of the AgentResult into invocation_end",
            )
        )
    return problems


def _turn_problems(trace: list[Any], first_turn: int) -> list[Problem]:
    turns = [e.get("turn") for e in trace if _kind(e) == "model_call"]
    expected = list(range(first_turn, first_turn + len(turns)))
    if turns == expected:
        return []
    return [
        Problem(
            f"model_call turns {turns}, expected {expected} (the agent made {first_turn} model call(s) "
            "before)",
            "turn is the index of the scripted turn answered: count the agent's model calls from 0 (from "
            "model_turn_offset after RestoreAgent) and never reset the count between Invokes",
        )
    ]


def _pairing_problems(trace: list[Any]) -> list[Problem]:
    open_uses: dict[Any, int] = {}
    problems: list[Problem] = []
    for index, event in enumerate(trace):
        kind = _kind(event)
        if kind == "tool_start":
            use = event.get("toolUseId")
            open_uses[use] = open_uses.get(use, 0) + 1
        elif kind == "tool_end":
            use = event.get("toolUseId")
            if open_uses.get(use, 0) == 0:
                problems.append(
                    Problem(
                        f"trace[{index}] tool_end {use!r} without a tool_start before it",
                        "record tool_start{toolUseId, name} when the tool body starts",
                    )
                )
            else:
                open_uses[use] -= 1
    for use, count in open_uses.items():
        if count:
            problems.append(
                Problem(
                    f"tool_start {use!r} without its tool_end",
                    "record tool_end{toolUseId, outcome} whenever a tool body ends: returned, failed, or "
                    "interrupted (when it stops at an interrupt, record tool_end, then re-raise)",
                )
            )
    return problems


# ---------------------------------------------------------------------------------------------------------
# Faults explained

_RPC_TIMEOUT = {
    "Describe": "describe",
    "CreateAgent": "create_agent",
    "Invoke": "invoke",
    "TakeSnapshot": "take_snapshot",
    "RestoreAgent": "restore_agent",
    "DisposeAgent": "dispose_agent",
    "InspectAgent": "inspect_agent",
}
_NO_KIND = re.compile(r"trace\[(\d+)\]: exactly one of .* must be set")


def explain(fault: HarnessFault, timeouts: Timeouts) -> list[Problem]:
    """What a fault the client raised means for an adapter author, and how to fix it."""
    if isinstance(fault, ContractBroken):
        return fault.problems
    rpc = fault.rpc
    if isinstance(fault, HarnessTimeout):
        seconds = getattr(timeouts, _RPC_TIMEOUT.get(rpc, "invoke"))
        return [
            Problem(
                f"the adapter did not answer {rpc} within {seconds:g}s",
                "every RPC must answer before its deadline; if the runtime is only slow, try "
                "--timeout-scale, otherwise look for a handler that blocks (a lock, a tool waiting forever)",
            )
        ]
    if isinstance(fault, HarnessUnavailable):
        return [
            Problem(
                f"the adapter is unreachable or closed the connection during {rpc}: {fault.message}",
                "is it listening at that address? did its process die (read its stderr)?",
            )
        ]
    if isinstance(fault, ProtocolMismatch):
        return [Problem(fault.message, "answer Describe with the harness protocol version of this suite")]
    message = fault.message
    if message.startswith("harness_error:"):
        detail = (fault.details or "").strip().splitlines()
        tail = f" ({detail[-1].strip()})" if detail else ""
        return [
            Problem(
                f"the adapter answered {rpc} with harness_error: {message[len('harness_error:') :].strip()}"
                f"{tail}",
                "harness_error means the adapter itself failed; a minimal scenario must always build and run",
            )
        ]
    if "gRPC status UNKNOWN" in message:
        return [
            Problem(
                f"an exception escaped the adapter's {rpc} handler ({message})",
                "catch what the runtime raises: an error of the closed set becomes `error`, any other "
                "exception `crash`, a failure of the adapter itself `harness_error`; never let it escape",
            )
        ]
    if "outcomes, expected 1" in message or "neither" in message or "no agent handle" in message:
        return [
            Problem(
                f"{rpc}: {message}",
                "set exactly one member of the reply's outcome oneof (harness.proto)",
            )
        ]
    no_kind = _NO_KIND.search(message)
    if no_kind is not None:
        return [
            Problem(
                f"trace[{no_kind.group(1)}] has no kind harness protocol {HARNESS_PROTOCOL_VERSION} knows "
                "(an empty TraceEvent, or a kind this protocol does not define)",
                f"record only the kinds of the trace table ({TRACE_DOC}), each with its own fields",
            )
        ]
    if "no JSON form" in message:
        return [
            Problem(
                f"{rpc}: {message}",
                "each JSON field of the reply must map to JSON as spec 2.7 says (a Struct for objects, no "
                "null where the mapping has none)",
            )
        ]
    return [Problem(f"{rpc}: {message}", "see the adapter contract in conformance/README.md")]


# ---------------------------------------------------------------------------------------------------------
# The client, checked


class CheckedClient:
    """``HarnessClient`` for the oracle's driver, with the trace rules and the schemas checked per reply.

    A broken reply raises ``ContractBroken`` (an adapter fault); a value that breaks the spec's schemas is
    the runtime's and is noted in ``notes``. Model calls are counted per handle for the turn rule.
    """

    def __init__(self, client: HarnessClient, description: Description) -> None:
        self.client = client
        self.description = description
        self.schema = SchemaObserver(limit=1000)
        self.turns: dict[str, int] = {}
        self.notes: list[str] = []  # the runtime findings of the probe running now (the smoke resets it)

    def describe(self) -> Description:
        return self.description

    def create_agent(self, spec: dict[str, Any]) -> str:
        handle = self.client.create_agent(spec)
        self.turns[handle] = 0
        return handle

    def _schema(self, rpc: str, reply: dict[str, Any]) -> list[Problem]:
        """Check ``reply`` against the schemas: trace events are the adapter's, the rest the runtime's."""
        s = self.schema
        marks = (len(s.trace_problems), len(s.problems), len(s.stop_reason_problems))
        s(rpc, reply)
        self.notes += [*s.problems[marks[1] :], *s.stop_reason_problems[marks[2] :]]
        return [
            Problem(p, f"each trace event has exactly the fields of its kind ({TRACE_DOC})")
            for p in s.trace_problems[marks[0] :]
        ]

    def invoke(self, agent: str, inp: dict[str, Any], *, stream: bool = False) -> dict[str, Any]:
        reply = self.client.invoke(agent, inp, stream=stream)
        first = self.turns.get(agent, 0)
        problems = trace_problems(reply, first) + self._schema("Invoke", reply)
        self.turns[agent] = first + sum(1 for e in reply["trace"] if _kind(e) == "model_call")
        if problems:
            raise ContractBroken("Invoke", problems)
        return reply

    def take_snapshot(self, agent: str) -> dict[str, Any]:
        out = self.client.take_snapshot(agent)
        if "decodeError" in out:
            text = out.get("snapshotJson", "")
            try:
                json.loads(text)
            except ValueError as exc:
                # Not JSON at all: the adapter's serialization, not a document the runtime wrote badly.
                problem = Problem(
                    f"TakeSnapshot: snapshot_json is not JSON ({exc}): {text[:80]!r}",
                    "put the runtime's snapshot document, serialized as JSON text, in snapshot_json",
                )
                raise ContractBroken("TakeSnapshot", [problem]) from exc
            self.notes.append(f"the snapshot is JSON that RoC refuses to read: {out['decodeError']}")
            return {"snapshotJson": text}  # no "snapshot": the driver reports the failed round trip
        return out

    def restore_agent(
        self, snapshot: dict[str, Any] | str, spec: dict[str, Any], *, model_turn_offset: int = 0
    ) -> dict[str, Any]:
        out = self.client.restore_agent(snapshot, spec, model_turn_offset=model_turn_offset)
        problems = self._schema("RestoreAgent", out) if "agent" in out else []
        if problems:
            raise ContractBroken("RestoreAgent", problems)
        if "agent" in out:
            self.turns[str(out["agent"])] = model_turn_offset
        return out

    def dispose_agent(self, agent: str) -> None:
        self.client.dispose_agent(agent)


# ---------------------------------------------------------------------------------------------------------
# The probes


def _tool_scenario(executor: str) -> dict[str, Any]:
    return sc.agent_spec(
        "smoke-tool",
        executor=executor,
        turns=[
            sc.turn(sc.text("calling"), sc.tool_use("t1", "echo", {"x": 1})),
            sc.turn(sc.text("done")),
        ],
        tools=[sc.tool("echo", sc.returns("echoed"))],
    )


def _violations(found: Iterable[ConformanceViolation]) -> str:
    return "; ".join(f"[{', '.join(v.requirements)}] {v.message}" for v in found)


def _cut(text: str, limit: int = 600) -> str:
    """A runtime finding can quote a whole history; the line keeps its start (the full suite has the rest)."""
    return text if len(text) <= limit else text[:limit] + "…"


class _Stop(Exception):
    """The adapter cannot be reached any more: the remaining probes are not run."""


@dataclass
class Smoke:
    """Runs the probes against one adapter, one finding per probe."""

    client: HarnessClient
    report: SmokeReport
    checked: CheckedClient | None = None
    drivers: list[Driver] = field(default_factory=list)
    create_failed: str = ""
    exit_code: Callable[[], int | None] | None = None  # a started adapter process: its exit code, if it ended

    def probe(self, name: str, body: Callable[[], str]) -> None:
        """Run one probe; ``body`` returns a short note for an ok line or raises."""
        if self.checked is not None:
            self.checked.notes = []
        self.client.reset_latch()
        timeouts = self.client.timeouts
        try:
            note = body()
        except HarnessFault as fault:
            # A reply, even a broken one, came from a live process: only a lost call may be its death.
            lost = isinstance(fault, HarnessTimeout | HarnessUnavailable) or "gRPC status" in fault.message
            code = self.exit_code() if self.exit_code is not None and lost else None
            problems = explain(fault, timeouts) if code is None else [_exited(fault.rpc, code)]
            detail = "; ".join(p.message for p in problems)
            self.report.findings.append(Finding(name, ADAPTER, detail, [p.hint for p in problems]))
            if code is not None or isinstance(fault, HarnessTimeout | HarnessUnavailable):
                raise _Stop from fault
            return
        except AgentRefused as refused:
            self.create_failed = name
            self.report.findings.append(
                Finding(name, RUNTIME, f"the runtime refused to build a minimal scenario: {refused}")
            )
            return
        except ConformanceViolation as violation:
            # The message already names the requirements of each finding ("[ROC-...] ..."); a schema note
            # comes first, since it explains what the oracle saw go wrong after it.
            notes = self.checked.notes if self.checked is not None else []
            self.report.findings.append(Finding(name, RUNTIME, _cut("; ".join([*notes, violation.message]))))
            return
        notes = self.checked.notes if self.checked is not None else []
        if notes:
            self.report.findings.append(Finding(name, RUNTIME, _cut("; ".join(notes))))
        else:
            self.report.findings.append(Finding(name, OK, note))

    def not_run(self, name: str, why: str) -> None:
        self.report.findings.append(Finding(name, NOT_RUN, why))

    # -- probes -------------------------------------------------------------------------------------

    def describe(self) -> str:
        desc = self.client.describe()
        self.report.description = desc
        problems = []
        unknown = sorted(desc.capabilities - CAPABILITIES)
        former = [c for c in unknown if c in FORMER_CAPABILITIES]
        if former:
            problems.append(
                Problem(
                    f"capabilities {former} are profiles since harness protocol 3",
                    "declare them in DescribeResponse.profiles",
                )
            )
        other = [c for c in unknown if c not in FORMER_CAPABILITIES]
        if other:
            problems.append(
                Problem(
                    f"capabilities {other} are not defined by harness protocol {HARNESS_PROTOCOL_VERSION}",
                    f"declare only {sorted(CAPABILITIES)} (or none)",
                )
            )
        if problems:
            raise ContractBroken("Describe", problems)
        check_handshake(CheckContext(self.client, desc, CERTIFY))  # the claim: ROC-CONF-*, ROC-VER-001
        impl = desc.implementation
        return (
            f"{impl.get('name')} {impl.get('version')}, harness protocol {desc.harness_protocol_version}, "
            f"profiles {', '.join(sorted(desc.profiles))}"
        )

    def _driver(self, spec: dict[str, Any]) -> Driver:
        assert self.checked is not None
        hooks = "hooks" in self.checked.description.profiles
        driver = Driver(self.checked, spec, hook_events=hooks)
        self.drivers.append(driver)
        return driver

    @staticmethod
    def _expect(found: list[Violation]) -> None:
        if found:
            raise ConformanceViolation(
                tuple(dict.fromkeys(r for v in found for r in v.requirements)), _violations(found)
            )

    def create(self) -> str:
        self._driver(_tool_scenario(self._executor()))
        return "a scenario of one tool that returns"

    def _executor(self) -> str:
        assert self.checked is not None
        return sc.executor_for(self.checked.description.profiles)

    def tool_returns(self) -> str:
        driver = self.drivers[0]
        self._expect(driver.invoke({"prompt": "go"}, Prompt([{"text": "go"}])))
        return "prompt -> model -> tool returns -> model -> end_turn"

    def interrupt_resume(self) -> str:
        driver = self._driver(sc.one_question("smoke-ask", executor=self._executor()))
        self._expect(driver.invoke({"prompt": "go"}, Prompt([{"text": "go"}])))
        wire, inp = driver.resume_input([(key, "yes") for key in driver.pending()])
        self._expect(driver.invoke(wire, inp))
        return "prompt -> interrupt; resume -> tool returns -> end_turn"

    def snapshot_restore(self) -> str:
        driver = self._driver(sc.one_question("smoke-session", executor=self._executor()))
        self._expect(driver.invoke({"prompt": "go"}, Prompt([{"text": "go"}])))
        self._expect(driver.restore())
        wire, inp = driver.resume_input([(key, "yes") for key in driver.pending()])
        self._expect(driver.invoke(wire, inp))
        return "paused agent snapshotted, restored, resumed"

    def dispose(self) -> str:
        handles = []
        for driver in self.drivers:
            if not driver.disposed:
                handles.append(driver.handle)
                driver.dispose()
        if not handles:
            return "nothing to dispose"
        self._expect_harness_error(handles[0], "a disposed handle")
        return f"{len(handles)} agent(s) disposed; a disposed handle is unknown afterwards"

    def unknown_handle(self) -> str:
        self._expect_harness_error(UNKNOWN_HANDLE, "an unknown handle")
        return "answered with harness_error"

    def _expect_harness_error(self, handle: str, what: str) -> None:
        try:
            reply = self.client.invoke(handle, {"prompt": "go"})
        except AdapterError as fault:
            last = self.client.transcript[-1]["response"] if self.client.transcript else {}
            if isinstance(last, dict) and "harnessError" in last:
                self.client.reset_latch()
                return
            raise fault
        outcome = next((k for k in ("result", "error", "toolResult", "crash") if k in reply), "?")
        raise ContractBroken(
            "Invoke",
            [
                Problem(
                    f"Invoke with {what} ({handle!r}) answered {outcome}, not harness_error",
                    "look the handle up first and answer harness_error for one this adapter does not hold "
                    "(never create an agent on the fly, never keep disposed ones)",
                )
            ],
        )

    # -- the whole run ----------------------------------------------------------------------------

    def run(self) -> SmokeReport:
        steps: list[tuple[str, Callable[[], str], bool]] = [
            ("CreateAgent", self.create, False),
            ("Invoke: a tool that returns", self.tool_returns, True),
            ("Invoke: an interrupt, then a resume", self.interrupt_resume, False),
            ("TakeSnapshot + RestoreAgent", self.snapshot_restore, False),
            ("DisposeAgent", self.dispose, False),
            ("Invoke: an unknown handle", self.unknown_handle, False),
        ]
        try:
            self.probe("Describe", self.describe)
            desc = self.report.description
            if desc is None:
                for name, _, _ in steps:
                    self.not_run(name, "Describe failed")
                return self.report
            self.checked = CheckedClient(self.client, desc)
            for name, body, needs_create in steps:
                if name.startswith("TakeSnapshot") and "sessions" not in desc.profiles:
                    self.not_run(name, "'sessions' is not claimed")
                elif needs_create and (self.create_failed or not self.drivers):
                    self.not_run(name, "CreateAgent failed")
                else:
                    if name == "CreateAgent":
                        before = len(self.report.findings)
                        self.probe(name, body)
                        if self.report.findings[before].status != OK:
                            self.create_failed = name
                    else:
                        self.probe(name, body)
        except _Stop:
            done = {f.probe for f in self.report.findings}
            for name, _, _ in steps:
                if name not in done:
                    self.not_run(name, "the adapter stopped answering")
        return self.report


def _exited(rpc: str, code: int) -> Problem:
    return Problem(
        f"the adapter process exited with code {code} during {rpc}",
        "read the adapter's stderr above; the process must survive anything a runtime does",
    )


def process_exit(target: Target) -> Callable[[], int | None] | None:
    """For a target this run started: a function giving the process's exit code once it has ended."""
    if target.process is None:
        return None
    proc = target.process

    def exit_code() -> int | None:
        try:
            # Asked only after a fault: a process dying right now needs a moment to be reaped.
            return proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return None

    return exit_code


def smoke(
    client: HarnessClient, target: str, *, exit_code: Callable[[], int | None] | None = None
) -> SmokeReport:
    """Run every probe against the adapter behind ``client``; ``target`` names it in the report.

    ``exit_code`` (see ``process_exit``): the adapter is a process this run started, so a fault is first
    checked against its death.
    """
    return Smoke(client, SmokeReport(target), exit_code=exit_code).run()
