"""The runner: handshake, run every check the declaration allows, judge each requirement and profile.

It survives a misbehaving implementation: every RPC has a deadline (a hang becomes ERROR for that check),
a dead managed adapter is restarted before the next check, and whatever happens a report is produced.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from roc_conformance import SPEC_VERSION
from roc_conformance.applicability import cannot_arise
from roc_conformance.checks.base import Check, CheckContext, CheckResult, Evidence, Finding, Status, area_of
from roc_conformance.client import HARNESS_PROTOCOL_VERSION, Description, HarnessClient, Timeouts
from roc_conformance.counterexamples import save_counterexamples as save_vectors
from roc_conformance.errors import (
    CheckSkipped,
    ConformanceViolation,
    HarnessFault,
    find_fault,
    find_violations,
)
from roc_conformance.parallel import run_side_by_side
from roc_conformance.progress import Progress, make_progress
from roc_conformance.quiet import Captured, captured_hypothesis_output
from roc_conformance.registry import Registry, Requirement
from roc_conformance.settings import RunSettings
from roc_conformance.specdoc.vocabulary import PROFILES as DEFINED_PROFILES
from roc_conformance.target import Target

SUITE_NAME = "roc-conformance"
SUITE_VERSION = "0.1.0"
REPORT_SCHEMA_VERSION = "1.3"


class ProfileVerdict:
    CONFORMANT = "CONFORMANT"
    NOT_CONFORMANT = "NOT_CONFORMANT"
    INCOMPLETE = "INCOMPLETE"  # a scored requirement errored or could not be tested
    NOT_CLAIMED = "NOT_CLAIMED"
    NOT_SELECTED = "NOT_SELECTED"
    UNDEFINED = "UNDEFINED"  # claimed, but RoC 1.0 defines no such profile (ROC-CONF-005): never conformant


class RunVerdict:
    """The one-word answer of a run (console, summary.md, report.json ``verdict``, the CLI's exit code)."""

    CONFORMANT = "CONFORMANT"  # every judged profile is CONFORMANT
    NOT_CONFORMANT = "NOT CONFORMANT"  # a MUST failed, or the claim itself is wrong (no core, undefined)
    INCOMPLETE = "INCOMPLETE"  # nothing failed, but something a verdict needs was not judged
    NOTHING_JUDGED = "NOTHING JUDGED"  # no requirement of a judged profile passed or failed on evidence


# A harness fault in an RPC that only one profile uses is that profile's problem (an adapter that cannot
# snapshot says nothing about hooks): see _charge_fault. RPC -> the profile it exists for.
_PROFILE_OF_RPC = {"TakeSnapshot": "sessions", "RestoreAgent": "sessions"}
# Profiles that can only be claimed with sessions (ROC-CONF-004, ROC-CONF-006, ROC-CONF-010): a fault
# charged to the base profile is charged to them as well.
_BUILT_ON = {
    "portable-snapshot": "sessions",
    "session-store": "sessions",
    "snapshot-integrity": "sessions",
    "audit": "sessions",
}


def charged_profiles(rpc: str) -> frozenset[str]:
    """The profiles a harness fault in ``rpc`` is charged to; empty for RPCs every profile uses."""
    base = _PROFILE_OF_RPC.get(rpc)
    if base is None:
        return frozenset()
    return frozenset({base, *(p for p, b in _BUILT_ON.items() if b == base)})


@dataclass
class RequirementResult:
    requirement: Requirement
    status: Status
    reason: str = ""
    checks: list[str] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)  # NOT_TESTED: the failures that kept it from judging
    cannot_arise: bool = False  # SKIPPED because the claim makes its situation impossible (applicability.py)

    def to_json(self) -> dict[str, Any]:
        doc = self.requirement.to_json()
        doc["status"] = self.status.value
        if self.reason:
            doc["reason"] = self.reason
        if self.blocked_by:
            doc["blockedBy"] = list(self.blocked_by)
        doc["checks"] = list(self.checks)
        if self.failures:
            doc["failures"] = list(self.failures)
        return doc


@dataclass
class RunResult:
    """Everything a report is made of."""

    target: str
    settings: RunSettings
    timeouts: Timeouts
    started: datetime
    finished: datetime
    description: Description | None
    selected_profiles: list[str] | None
    checks: list[CheckResult]
    requirements: list[RequirementResult]
    profiles: dict[str, dict[str, Any]]
    fatal: str | None = None
    restarts: int = 0
    rpc_count: int = 0
    peer: str | None = None
    complete: bool = True  # false in a partial report (written while the run goes on) or a stopped run
    stopped: str | None = None  # why checks were left unrun (the run deadline, an interrupt)

    @property
    def conformant(self) -> bool:
        return self.verdict == RunVerdict.CONFORMANT

    @property
    def verdict(self) -> str:
        """CONFORMANT, NOT CONFORMANT, INCOMPLETE or NOTHING JUDGED (RunVerdict), in that order of rules:

        a fatal run judged nothing; a failing or undefined profile, or a claim without ``core``, is NOT
        CONFORMANT; a run in which no requirement of a judged profile passed or failed (every check errored
        or was skipped, or ``--only`` matched nothing) judged nothing; an incomplete profile or a stopped run
        is INCOMPLETE; otherwise every judged profile is CONFORMANT.
        """
        if self.fatal is not None or self.description is None:
            return RunVerdict.NOTHING_JUDGED
        judged = {
            name: v
            for name, v in self.profiles.items()
            if v["status"] not in (ProfileVerdict.NOT_CLAIMED, ProfileVerdict.NOT_SELECTED)
        }
        bad = (ProfileVerdict.NOT_CONFORMANT, ProfileVerdict.UNDEFINED)
        if any(v["status"] in bad for v in judged.values()) or self.claim_problems():
            return RunVerdict.NOT_CONFORMANT
        evidence = any(
            r.status in (Status.PASS, Status.FAIL)
            for r in self.requirements
            if r.requirement.profile in judged
        )
        if not evidence:
            return RunVerdict.NOTHING_JUDGED
        if not self.complete or any(v["status"] != ProfileVerdict.CONFORMANT for v in judged.values()):
            return RunVerdict.INCOMPLETE
        return RunVerdict.CONFORMANT

    def claim_problems(self) -> list[str]:
        """What is wrong with the claim itself, whatever the checks found: these make the run NOT CONFORMANT.

        A claim without ``core`` leaves core (and with it ROC-CONF-002, the rule it breaks) NOT_CLAIMED, so no
        requirement verdict would show it; an undefined profile is its own UNDEFINED profile verdict.
        """
        if self.description is None:
            return []
        problems: list[str] = []
        if "core" not in self.description.profiles:
            problems.append(
                "the claim does not include 'core', which every implementation must claim (ROC-CONF-002); "
                "no profile can be conformant without it"
            )
        undefined = sorted(self.description.profiles - set(DEFINED_PROFILES))
        if undefined:
            problems.append(
                f"the claim names profile(s) RoC {SPEC_VERSION} does not define: {', '.join(undefined)} "
                "(ROC-CONF-005)"
            )
        return problems

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {s.value: 0 for s in Status}
        for req in self.requirements:
            counts[req.status.value] += 1
        blocked = sum(1 for req in self.requirements if req.blocked_by)
        check_counts: dict[str, int] = {s.value: 0 for s in Status if s is not Status.NOT_TESTED}
        for chk in self.checks:
            check_counts[chk.status.value] = check_counts.get(chk.status.value, 0) + 1
        desc = self.description
        return {
            "schemaVersion": REPORT_SCHEMA_VERSION,
            "suite": {
                "name": SUITE_NAME,
                "version": SUITE_VERSION,
                "specVersion": SPEC_VERSION,
                "harnessProtocolVersion": HARNESS_PROTOCOL_VERSION,
            },
            "target": self.target,
            "peer": self.peer,
            "implementation": desc.implementation if desc else None,
            "declaration": None
            if desc is None
            else {
                "profiles": sorted(desc.profiles),
                "specVersions": list(desc.spec_versions),
                "notApplicable": dict(desc.not_applicable),
                "capabilities": sorted(desc.capabilities),
                "harnessProtocolVersion": desc.harness_protocol_version,
            },
            "selectedProfiles": self.selected_profiles,
            "settings": {**self.settings.to_json(), "timeouts": dict(vars(self.timeouts))},
            "startedAt": rfc3339(self.started),
            "finishedAt": rfc3339(self.finished),
            "durationSeconds": round((self.finished - self.started).total_seconds(), 3),
            "conformant": self.conformant,
            "verdict": self.verdict,
            **({"claimProblems": self.claim_problems()} if self.claim_problems() else {}),
            "complete": self.complete,
            **({"stopped": self.stopped} if self.stopped else {}),
            "fatal": self.fatal,
            "adapterRestarts": self.restarts,
            "rpcCount": self.rpc_count,
            "summary": {"requirements": counts, "checks": check_counts, "blockedByEarlierFailure": blocked},
            "profiles": self.profiles,
            "requirements": [r.to_json() for r in self.requirements],
            "checks": [check_json(c) for c in self.checks],
            "unregisteredRequirements": self.unregistered(),
        }

    def unregistered(self) -> dict[str, list[str]]:
        """Requirement IDs named by checks but absent from the registry (a suite bug), with the checks."""
        known = {r.requirement.id for r in self.requirements}
        out: dict[str, list[str]] = {}
        for chk in self.checks:
            for rid in chk.requirements:
                if rid not in known:
                    out.setdefault(rid, []).append(chk.name)
        return {rid: out[rid] for rid in sorted(out)}


def check_json(res: CheckResult) -> dict[str, Any]:
    """A check's entry in report.json and results.jsonl: everything a report is judged from again.

    Beside ``CheckResult.to_json`` it carries each failure (with the vector file written for it) and the
    harness fault's kind, so that a report rendered from the result log judges exactly as the run did.
    """
    doc = res.to_json()
    if res.failures:
        failures = []
        for finding in res.failures:
            entry = finding.to_json()
            if finding.vector is not None and res.counterexample_file:
                entry["counterexampleFile"] = res.counterexample_file
            failures.append(entry)
        doc["failures"] = failures
    if res.fault_kind:
        doc["faultKind"] = res.fault_kind
    return doc


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


# ---------------------------------------------------------------------------------------------
# Running checks


def skip_reason(
    check: Check, description: Description, selected: set[str] | None, registry: Registry
) -> str | None:
    """Why ``check`` does not run in this run, or None: the one rule of the CLI and the pytest plugin.

    A check runs when the implementation claims every profile the check needs and, when profiles are
    selected (``--profile`` / ``--roc-profile``), it declares a requirement of a selected profile.
    Selection narrows what is judged, not which claimed profiles a check may use: a core check that needs an
    executor runs under ``--profile core`` when an executor is claimed (the executor's own requirements are
    then SKIPPED as not selected). Without that, no core check could run and core could never pass.
    """
    for profile in check.profiles:
        if profile not in description.profiles:
            na = description.not_applicable.get(profile)
            return f"profile '{profile}' not declared by the implementation" + (f": {na}" if na else "")
    if selected is not None:
        profile_of = {r.id: r.profile for r in registry.requirements}
        if not any(profile_of.get(rid) in selected for rid in check.requirements):
            return "not selected for this run (--profile): it judges no requirement of " + ", ".join(
                f"'{p}'" for p in sorted(selected)
            )
    for capability in check.capabilities:
        if capability not in description.capabilities:
            return f"capability '{capability}' not offered by the adapter"
    return None


def run_check(check: Check, ctx: CheckContext) -> CheckResult:
    """Run one check and classify what happened (never raises for the check's own failures).

    A check's failures come from ``ctx.evidence`` (checks that go on after a divergence) and from a raised
    ``ConformanceViolation`` (checks that stop at the first one: what they had still to judge is blocked).
    """
    return _attempt(check, ctx)[0]


def _attempt(check: Check, ctx: CheckContext) -> tuple[CheckResult, HarnessFault | None]:
    """``run_check``, plus the harness fault that made it ERROR (its RPC decides which profile it is charged
    to, see ``_charge_fault``)."""
    client = ctx.client
    found_fault: HarnessFault | None = None
    client.reset_latch()
    mark = client.mark()
    start = time.monotonic()
    result = CheckResult(check.name, check.kind, check.requirements, check.profiles, Status.PASS)
    evidence = ctx.evidence = Evidence()
    hypothesis_said = Captured()
    try:
        with captured_hypothesis_output() as hypothesis_said:
            check.run(ctx)
    except CheckSkipped as exc:
        result.status = Status.SKIPPED
        result.message = str(exc)
    except Exception as exc:  # classify: violation (FAIL), fault (ERROR), or a bug in the check (ERROR)
        fault = find_fault(exc)
        violations = find_violations(exc)
        if fault is not None:
            found_fault = fault
            result.status = Status.ERROR
            result.fault_kind = fault.kind
            result.message = f"harness fault ({fault.kind}): {fault}"
            if fault.details:
                result.counterexample = fault.details[-4000:]
        elif violations:
            first = violations[0]
            notes = getattr(exc, "__notes__", None) or getattr(first, "__notes__", None) or []
            transcript = first.counterexample or "\n".join(str(n) for n in notes)
            if not transcript:
                transcript = client.transcript_text(since=mark)[-8000:]
            evidence.fail(
                Finding(
                    tuple(dict.fromkeys(r for v in violations for r in v.requirements)),
                    "; ".join(v.message for v in violations)[:4000],
                    counterexample=transcript or None,
                    vector=next((v.vector for v in violations if v.vector is not None), None),
                )
            )
            if not all(v.exhaustive for v in violations):
                evidence.block(
                    (r for r in check.requirements if r not in evidence.failed),
                    "the check stopped at a failure of " + ", ".join(evidence.failed),
                )
        else:
            result.status = Status.ERROR
            result.message = f"check raised {type(exc).__name__}: {exc}"[:2000]
            result.counterexample = traceback.format_exc()[-4000:]
    finally:
        result.duration = time.monotonic() - start
        result.notes = list(ctx.notes)
        ctx.notes.clear()
        _cleanup(client)
        if ctx.peer is not None:
            _cleanup(ctx.peer)
    if result.status is Status.PASS and evidence.failures:
        result.status = Status.FAIL
        result.failures = list(evidence.failures)
        result.failed_requirements = evidence.failed
        result.message = "; ".join(f.message for f in evidence.failures)[:4000]
        result.counterexample = next((f.counterexample for f in evidence.failures if f.counterexample), None)
        result.vector = next((f.vector for f in evidence.failures if f.vector is not None), None)
    result.notes += hypothesis_said.notes(has_transcript=bool(result.counterexample))
    if result.status in (Status.PASS, Status.FAIL):
        result.consequences = list(evidence.consequences)
        failed = set(result.failed_requirements)
        result.blocked = {r: why for r, why in evidence.blocked.items() if r not in failed}
    return result, found_fault


def _charge_fault(
    result: CheckResult, fault: HarnessFault | None, check: Check, registry: Registry
) -> frozenset[str]:
    """Charge an ERROR to the profile whose RPC faulted; returns those profiles (empty: charged to all).

    An adapter that claims ``sessions`` but cannot snapshot makes every check that snapshots ERROR, the
    state machines included, and they also judge core, hooks and the executors. The fault says nothing
    about those: its ERROR counts only against the requirements of the charged profiles, and the check's
    other requirements go into ``blocked`` (an ERROR's ``blocked`` requirements are not decided by it).
    """
    if result.status is not Status.ERROR or fault is None or fault.kind == "run-deadline":
        return frozenset()
    charged = charged_profiles(fault.rpc)
    if not charged:
        return charged
    profile_of = {r.id: r.profile for r in registry.requirements}
    names = ", ".join(f"'{p}'" for p in sorted(charged))
    for rid in check.requirements:
        if profile_of.get(rid) not in charged:
            result.blocked[rid] = (
                f"not decided by this ERROR: its harness fault in {fault.rpc} is charged to {names}"
            )
    return charged


def _cleanup(client: HarnessClient) -> None:
    """Dispose agents a check left behind; a fault here does not change the check's result."""
    client.reset_latch()
    for agent in sorted(client.live_agents):
        try:
            client.dispose_agent(agent)
        except HarnessFault:
            client.reset_latch()
            client.live_agents.discard(agent)
            break
    client.live_agents.clear()
    client.transcript.clear()


def _area_order(checks: Sequence[Check], registry: Registry) -> list[str]:
    order: dict[str, None] = {}
    for req in registry.requirements:
        order.setdefault(req.area, None)
    for chk in checks:
        order.setdefault(chk.area, None)
    return list(order)


ClientFactory = Callable[[str], HarnessClient]


def run_suite(
    target: Target,
    checks: Sequence[Check],
    registry: Registry,
    settings: RunSettings,
    *,
    selected_profiles: Sequence[str] | None = None,
    timeouts: Timeouts | None = None,
    progress: TextIO | None = None,
    client_factory: ClientFactory | None = None,
    peer: Target | None = None,
    save_counterexamples: Path | None = None,
    max_run_seconds: float | None = None,
    on_check: Callable[[RunResult], None] | None = None,
    on_start: Callable[[RunResult], None] | None = None,
) -> RunResult:
    """Run ``checks`` against ``target`` and judge every requirement of ``registry``.

    ``peer`` is a second adapter (another implementation, or at least another process) that portability
    checks hand snapshots to. With ``save_counterexamples``, every failed check that found a shrunk
    counterexample writes it there as a static vector file, and its result names the file.

    The run is bounded: after ``max_run_seconds`` no RPC is sent any more, and every check not finished by
    then is ERROR ("not run"), as is every check after a KeyboardInterrupt. ``on_check`` receives a partial
    result (``complete`` false) after each check, so a killed run still leaves a usable report; ``on_start``
    receives one (with no checks) after the handshake, or after it failed (then ``fatal`` says why).
    """
    timeouts = timeouts or Timeouts()
    factory = client_factory or (lambda address: HarnessClient.connect(address, timeouts=timeouts))
    run = _Run(
        target=target,
        registry=registry,
        settings=settings,
        timeouts=timeouts,
        selected=set(selected_profiles) if selected_profiles else None,
        factory=factory,
        peer=peer,
        deadline=None if max_run_seconds is None else time.monotonic() + max_run_seconds,
        on_check=on_check,
        save_to=save_counterexamples,
    )
    out = make_progress(progress)
    client = run.connect(target.address)
    peer_client = run.connect(peer.address) if peer is not None else None
    try:
        try:
            run.description = client.describe()
        except HarnessFault as exc:
            run.fatal = f"Describe failed: {exc}"
        if on_start is not None:
            on_start(run.result(complete=False))
        if run.description is not None:
            impl = run.description.implementation
            out.line(
                f"roc-conformance {SUITE_VERSION}: {impl.get('name', '?')} {impl.get('version', '')} "
                f"at {target.label}; profiles: {', '.join(sorted(run.description.profiles)) or '(none)'}; "
                f"settings: {settings.name}"
            )
            if "1.0" not in run.description.spec_versions:  # 1.1 adds optional profiles to 1.0 (ROC-VER-001)
                out.line(
                    "  note: implementation does not claim spec 1.0 "
                    f"(claims {list(run.description.spec_versions)})"
                )
            client = _run_all(run, checks, client, out, peer_client)
    finally:
        out.close()
        run.rpc_total += client.rpc_count
        run.live_rpcs = 0
        client.close()
        if peer_client is not None:
            peer_client.close()
    return run.result()


@dataclass
class _Run:
    """The state of one run, from which a (partial or final) RunResult is made at any point."""

    target: Target
    registry: Registry
    settings: RunSettings
    timeouts: Timeouts
    selected: set[str] | None
    factory: ClientFactory
    peer: Target | None
    deadline: float | None
    on_check: Callable[[RunResult], None] | None
    save_to: Path | None = None  # --save-counterexamples
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    description: Description | None = None
    fatal: str | None = None
    stopped: str | None = None  # why the checks after some point were not run (deadline, interrupt)
    results: list[CheckResult] = field(default_factory=list)
    rpc_total: int = 0
    live_rpcs: int = 0  # RPCs of the client in use, not yet in rpc_total: counted in partial results

    def connect(self, address: str) -> HarnessClient:
        client = self.factory(address)
        client.deadline = self.deadline
        return client

    def result(self, *, complete: bool = True) -> RunResult:
        return judged_result(
            self.registry,
            list(self.results),
            description=self.description,
            selected=self.selected,
            fatal=self.fatal,
            target=self.target.label,
            settings=self.settings,
            timeouts=self.timeouts,
            started=self.started,
            finished=datetime.now(UTC),
            restarts=self.target.restarts,
            rpc_count=self.rpc_total + self.live_rpcs,
            peer=self.peer.label if self.peer is not None else None,
            complete=complete and self.stopped is None,
            stopped=self.stopped,
        )

    def add(self, res: CheckResult) -> None:
        """Record a finished check; its counterexample is saved now, so that its result (which the result
        log writes at once) names the file."""
        if self.save_to is not None:
            save_vectors([res], self.save_to)
        self.results.append(res)

    def checked(self) -> None:
        if self.on_check is not None:
            self.on_check(self.result(complete=False))


def _run_all(
    run: _Run,
    checks: Sequence[Check],
    client: HarnessClient,
    out: Progress,
    peer_client: HarnessClient | None = None,
) -> HarnessClient:
    """Run every check into ``run.results``; returns the client in use at the end (restarts replace it)."""
    from roc_conformance.checks.wire_schema import SchemaObserver

    assert run.description is not None
    description = run.description
    observer = SchemaObserver()
    client.observers.append(observer)
    by_area: dict[str, list[Check]] = {}
    for chk in checks:
        by_area.setdefault(chk.area, []).append(chk)

    def restart() -> HarnessClient:
        run.rpc_total += client.rpc_count
        run.live_rpcs = 0
        client.close()
        run.target.restart()
        fresh = run.connect(run.target.address)
        fresh.observers.append(observer)
        return fresh

    for area in _area_order(checks, run.registry):
        area_checks = by_area.get(area, [])
        if not area_checks:
            continue
        area_start = time.monotonic()
        area_results: list[CheckResult] = []
        # State machines of one area run side by side (roc_conformance.parallel); the loop takes the results.
        runnable = [c for c in area_checks if skip_reason(c, description, run.selected, run.registry) is None]
        if len(runnable) > 1 and all(c.kind == "machine" for c in runnable):
            # They may run at once (parallel.py), before the loop below shows each: show them all now.
            out.update(area, 0, len(area_checks), " + ".join(c.name for c in runnable))
        ready = run_side_by_side(run, runnable, client, observer, peer_client)
        run.rpc_total += ready.rpc_count
        for index, chk in enumerate(area_checks):
            out.update(area, index, len(area_checks), chk.name)
            reason = skip_reason(chk, description, run.selected, run.registry)
            again: CheckResult | None = None
            if run.stopped is None and run.deadline is not None and time.monotonic() >= run.deadline:
                run.stopped = "the run's time budget (--max-run-seconds) was spent"
            if reason is not None:
                res = CheckResult(chk.name, chk.kind, chk.requirements, chk.profiles, Status.SKIPPED, reason)
            elif run.stopped is not None:
                why = f"not run: {run.stopped}"
                res = CheckResult(chk.name, chk.kind, chk.requirements, chk.profiles, Status.ERROR, why)
            else:
                if run.target.managed and not run.target.alive():
                    client = restart()
                ctx = CheckContext(
                    client=client, description=description, settings=run.settings, peer=peer_client
                )
                fault: HarnessFault | None = None
                try:
                    res, fault = ready.take(chk.name) or _attempt(chk, ctx)
                except KeyboardInterrupt:
                    run.stopped = "the run was interrupted"
                    res = CheckResult(
                        chk.name, chk.kind, chk.requirements, chk.profiles, Status.ERROR, "interrupted"
                    )
                client = _after_error(run, res, client, restart)
                charged = _charge_fault(res, fault, chk, run.registry)
                if charged & description.profiles and not charged & set(chk.profiles) and run.stopped is None:
                    again = _without(run, chk, res, charged, description, client, peer_client)
                    if again is not None:
                        client = _after_error(run, again, client, restart)
            for done in (res,) if again is None else (res, again):
                area_results.append(done)
                run.add(done)
            run.live_rpcs = client.rpc_count
            run.checked()
        out.area_done(area, area_results, time.monotonic() - area_start)
    if any(r.status is not Status.SKIPPED for r in run.results):
        wire = observer.result()
        run.add(wire)
        out.area_done("WIRE", [wire], 0.0)
    return client


def _after_error(
    run: _Run, res: CheckResult, client: HarnessClient, restart: Callable[[], HarnessClient]
) -> HarnessClient:
    """Stop the run at its deadline; restart a managed adapter that died or hung; returns the client."""
    if res.fault_kind == "run-deadline":
        run.stopped = "the run's time budget (--max-run-seconds) was spent"
    elif (
        res.status is Status.ERROR
        and run.target.managed
        and (not run.target.alive() or res.fault_kind in ("unavailable", "timeout"))
    ):
        client = restart()
        res.notes.append("adapter restarted after this check")
    return client


def _without(
    run: _Run,
    chk: Check,
    first: CheckResult,
    charged: frozenset[str],
    description: Description,
    client: HarnessClient,
    peer_client: HarnessClient | None,
) -> CheckResult | None:
    """Run ``chk`` again as if ``charged`` were not claimed, to judge what its first run's fault left open.

    The check does not need those profiles; it used them because they were claimed (the state machines
    snapshot whenever ``sessions`` is). The second run, named ``<check> (without <profile>)``, declares only
    the requirements outside the charged profiles, so it never vouches for what it did not exercise; the
    first run's ERROR stays the verdict of the charged profiles' requirements.
    """
    profile_of = {r.id: r.profile for r in run.registry.requirements}
    rest = tuple(rid for rid in chk.requirements if profile_of.get(rid) not in charged)
    if not rest:
        return None
    names = ", ".join(sorted(charged & description.profiles))
    narrowed = dataclasses.replace(description, profiles=description.profiles - charged)
    second = dataclasses.replace(chk, name=f"{chk.name} (without {names})", requirements=rest)
    ctx = CheckContext(client=client, description=narrowed, settings=run.settings, peer=peer_client)
    try:
        again, _ = _attempt(second, ctx)
    except KeyboardInterrupt:
        run.stopped = "the run was interrupted"
        return None
    again.notes.append(
        f"run again with {names} taken out of the claim it sees: its first run ({chk.name}) ended in a "
        f"harness fault charged to {names}; this run judges the requirements of the other profiles"
    )
    for rid in rest:
        first.blocked[rid] = (
            f"not decided by this ERROR: judged by '{second.name}' (its fault is charged to {names})"
        )
    return again


# ---------------------------------------------------------------------------------------------
# Judging


def _named(res: CheckResult) -> list[str]:
    """Every requirement a check result speaks about: declared, failed, or seen only as a consequence."""
    named = [*res.requirements, *res.failed_requirements]
    named += [r for c in res.consequences for r in c.requirements]
    return list(dict.fromkeys(named))


def _failure_entries(rid: str, failed: Sequence[CheckResult]) -> list[dict[str, Any]]:
    """The failures of ``rid``, each with the consequences seen after it in the same check."""
    entries: list[dict[str, Any]] = []
    for res in failed:
        for finding in res.failures or [Finding(res.failed_requirements, res.message, res.counterexample)]:
            if rid not in finding.requirements:
                continue
            after = [c for c in res.consequences if set(c.after) & set(finding.requirements)]
            entry: dict[str, Any] = {"check": res.name, "message": finding.message}
            if finding.counterexample:
                entry["counterexample"] = finding.counterexample
            if res.counterexample_file and finding.vector is not None:
                entry["counterexampleFile"] = res.counterexample_file
            if after:
                entry["consequences"] = [c.to_json() for c in after]
            entries.append(entry)
    return entries


def _blocked_by(rid: str, mine: Sequence[CheckResult]) -> tuple[list[str], list[str]]:
    """The failures that kept ``rid`` from being judged (their requirement IDs), and one line per check."""
    primaries: list[str] = []
    lines: list[str] = []
    for res in mine:
        for c in res.consequences:
            if rid in c.requirements:
                primaries += c.after
                lines.append(f"{res.name}: seen only after {', '.join(c.after)} failed: {c.message[:300]}")
        if rid in res.blocked:
            primaries += list(res.failed_requirements)
            lines.append(f"{res.name}: {res.blocked[rid]}")
    return sorted(set(primaries)), list(dict.fromkeys(lines))


def judged_result(
    registry: Registry,
    checks: list[CheckResult],
    *,
    description: Description | None,
    selected: set[str] | None,
    fatal: str | None,
    **run: Any,
) -> RunResult:
    """The run's result with its requirements and profiles judged from ``checks`` (a live run's or a
    result log's): the one place a ``RunResult`` gets its verdicts. ``run`` holds the other fields."""
    reqs = judge_requirements(registry, checks, description, selected, fatal)
    return RunResult(
        description=description,
        selected_profiles=sorted(selected) if selected else None,
        checks=checks,
        requirements=reqs,
        profiles=judge_profiles(registry, reqs, description, selected, fatal),
        fatal=fatal,
        **run,
    )


def judge_requirements(
    registry: Registry,
    results: Sequence[CheckResult],
    description: Description | None,
    selected: set[str] | None,
    fatal: str | None,
) -> list[RequirementResult]:
    """One verdict per requirement, each on its own evidence.

    A requirement FAILs only on a first divergence that names it, whichever check saw it (attribution does
    not depend on what the check declared). It PASSes when some check vouches for it: judged it on evidence
    no failure spoiled. A requirement whose only failures follow another requirement's failure in the same
    scenario, or whose checks were cut short by one, is NOT_TESTED and says which failure blocked it.
    """
    by_req: dict[str, list[CheckResult]] = {}
    for res in results:
        for rid in _named(res):
            by_req.setdefault(rid, []).append(res)
    judged: list[RequirementResult] = []
    for req in registry.requirements:
        mine = by_req.get(req.id, [])
        out = RequirementResult(req, Status.NOT_TESTED, checks=[r.name for r in mine])
        judged.append(out)
        if fatal is not None or description is None:
            out.status, out.reason = Status.ERROR, fatal or "no handshake"
            continue
        if req.profile not in description.profiles:
            out.status = Status.SKIPPED
            na = description.not_applicable.get(req.profile)
            out.reason = f"profile '{req.profile}' not declared by the implementation" + (
                f": {na}" if na else ""
            )
            continue
        if selected is not None and req.profile not in selected:
            out.status, out.reason = Status.SKIPPED, f"profile '{req.profile}' not selected for this run"
            continue
        failed = [r for r in mine if r.status is Status.FAIL and req.id in r.failed_requirements]
        # An ERROR decides only what it is charged with: its ``blocked`` requirements are left to other
        # evidence (see _charge_fault).
        errored = [
            r
            for r in mine
            if r.status is Status.ERROR and req.id in r.requirements and req.id not in r.blocked
        ]
        passed = [r for r in mine if req.id in r.vouched]
        skipped = [r for r in mine if r.status is Status.SKIPPED and req.id in r.requirements]
        if failed:
            out.status = Status.FAIL
            out.failures = _failure_entries(req.id, failed)
            out.reason = out.failures[0]["message"] if out.failures else failed[0].message
        elif errored:
            out.status, out.reason = Status.ERROR, errored[0].message
        elif passed:
            out.status = Status.PASS
        elif (why := cannot_arise(req.id, description.profiles)) is not None:
            # Before a skipped check: a check that needs the profile making the situation possible (hooks
            # for a callback's default outcome) is skipped exactly when the situation cannot arise.
            out.status, out.reason, out.cannot_arise = (
                Status.SKIPPED,
                f"cannot arise under this claim: {why}",
                True,
            )
        elif skipped:
            out.status, out.reason = Status.SKIPPED, skipped[0].message
        elif req.untestable:
            out.reason = f"untestable: {req.untestable}"
        else:
            primaries, lines = _blocked_by(req.id, mine)
            if primaries:
                out.blocked_by = primaries
                out.reason = f"blocked by an earlier failure of {', '.join(primaries)}: " + " | ".join(lines)
            elif lines:
                out.reason = "its checks did not judge it: " + " | ".join(lines)
            elif mine:
                out.reason = "its checks did not reach it: " + ", ".join(r.name for r in mine)
            else:
                out.reason = "no check verifies this requirement yet"
    return judged


def judge_profiles(
    registry: Registry,
    reqs: Sequence[RequirementResult],
    description: Description | None,
    selected: set[str] | None,
    fatal: str | None,
) -> dict[str, dict[str, Any]]:
    names: dict[str, None] = {}
    for req in registry.requirements:
        names.setdefault(req.profile, None)
    if description is not None:
        for profile in sorted(description.profiles):
            names.setdefault(profile, None)
    verdicts: dict[str, dict[str, Any]] = {}
    for profile in names:
        mine = [r for r in reqs if r.requirement.profile == profile]
        counts: dict[str, int] = {}
        for r in mine:
            counts[r.status.value] = counts.get(r.status.value, 0) + 1
        entry: dict[str, Any] = {"requirements": len(mine), "counts": counts}
        if description is None or fatal is not None:
            entry["status"] = ProfileVerdict.INCOMPLETE
            entry["reason"] = fatal or "no handshake"
        elif profile not in description.profiles:
            entry["status"] = ProfileVerdict.NOT_CLAIMED
            if profile == "core":
                # The reason has to show beside the verdict: ROC-CONF-002, the rule a claim without core
                # breaks, is itself a core requirement and so SKIPPED with the rest of core.
                entry["reason"] = "not claimed, but every implementation must claim 'core' (ROC-CONF-002)"
        elif profile not in DEFINED_PROFILES:
            # Not a profile of this spec version: there is nothing to pass, so it is never CONFORMANT; the
            # claim breaks ROC-CONF-005 (reported by explicit:handshake).
            entry["status"] = ProfileVerdict.UNDEFINED
            entry["reason"] = f"RoC {SPEC_VERSION} defines no profile '{profile}' (ROC-CONF-005)"
        elif selected is not None and profile not in selected:
            entry["status"] = ProfileVerdict.NOT_SELECTED
        else:
            scored = [r for r in mine if r.requirement.scored]
            failing = [r.requirement.id for r in scored if r.status is Status.FAIL]
            blocking = [
                r.requirement.id
                for r in scored
                if r.status is Status.ERROR
                or (r.status is Status.SKIPPED and not r.cannot_arise)
                or (r.status is Status.NOT_TESTED and not r.requirement.untestable)
            ]
            if failing:
                entry["status"] = ProfileVerdict.NOT_CONFORMANT
                entry["failing"] = failing
            elif blocking:
                entry["status"] = ProfileVerdict.INCOMPLETE
                entry["unresolved"] = blocking
            else:
                entry["status"] = ProfileVerdict.CONFORMANT
                if not mine:
                    entry["reason"] = "the spec has no requirements in this profile yet"
        verdicts[profile] = entry
    return verdicts


def check_area(check: Check) -> str:
    return area_of(check.requirements[0])


__all__ = ["ConformanceViolation", "ProfileVerdict", "RunResult", "run_check", "run_suite"]
