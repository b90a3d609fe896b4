"""The oracle's Hypothesis state machine as checks (``machine:*``), run with the certify or explore settings.

The machine (``roc_conformance.machine``) drives random scenarios, answers, snapshots and restores through
the client and checks every observation against the oracle. A failure is shrunk by Hypothesis; the shrunk
``ConformanceViolation`` names the broken requirements and its notes carry the RPC transcript.
"""

from __future__ import annotations

import importlib
from typing import Any

from roc_conformance.checks.base import Check, CheckContext, Finding
from roc_conformance.settings import shrink_budget

# The machine runs once per executor the implementation declares, so both executors are exercised
# without one implementation's choice hiding the other's bugs.
_VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("machine:sequential", ("core", "sequential-executor")),
    ("machine:concurrent", ("core", "concurrent-executor")),
)


def _module(name: str) -> Any | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def machine_requirements() -> tuple[str, ...]:
    """Every requirement the machine can fail: its own list, else every ID the oracle's checks name."""
    machine = _module("roc_conformance.machine")
    if machine is None:
        return ()
    declared = getattr(machine, "MACHINE_REQUIREMENTS", None)
    if declared is None:
        reqs = _module("roc_conformance.oracle.reqs")
        declared = list(getattr(reqs, "ALL", {}).values()) if reqs is not None else []
    return tuple(dict.fromkeys(str(r) for r in declared))


def run_machine(cls: Any, settings: Any, seed: int | None) -> None:
    """Run a state machine class as a test; with ``seed``, its random examples come from that seed."""
    from hypothesis import seed as fixed_seed
    from hypothesis.stateful import get_state_machine_test, run_state_machine_as_test

    if seed is None:
        run_state_machine_as_test(cls, settings=settings)
        return
    # run_state_machine_as_test takes no seed; the test it builds does, like any @given test.
    test: Any = fixed_seed(seed)(get_state_machine_test(cls, settings=settings))
    # @seed also switches the example database off (Hypothesis means it for reproducing one run). An explore
    # run has a seed and a database: it replays its stored failures first, then draws from the seed. The
    # attribute is the one @seed itself replaced; the test reads it when called.
    if getattr(test, "_hypothesis_internal_use_settings", None) is not None:
        test._hypothesis_internal_use_settings = settings
    test()


MAX_ROUNDS = 6
"""Distinct failures one machine check reports before it stops looking (each costs a search and a shrink)."""


def _runner(name: str, executor_profile: str) -> Any:
    def run(ctx: CheckContext) -> None:
        machine = _module("roc_conformance.machine")
        if machine is None:
            raise RuntimeError("roc_conformance.machine is not available")
        # Offer the machine exactly this executor, plus every non-executor profile declared.
        profiles = frozenset(p for p in ctx.profiles if not p.endswith("-executor")) | {executor_profile}
        client = ctx.client
        run_rounds(
            ctx,
            lambda tolerate, ledger: machine.make_machine(
                lambda: client,
                profiles,
                name=name.replace(":", "_"),
                # Direct calls are one input among many: without the profile the machine leaves them out
                # rather than skipping every other rule it judges.
                direct_calls="direct-tool-call" in profiles,
                tolerate=tolerate,
                ledger=ledger,
                inspect="inspect" in ctx.description.capabilities,
            ),
            machine.MachineLedger(),
            database_key=name,
        )

    return run


def run_rounds(ctx: CheckContext, build: Any, ledger: Any, *, database_key: str = "machine") -> None:
    """Run the machine until it passes, each round tolerating the failures found before.

    Round 1 is the ordinary run. When it fails, Hypothesis has shrunk the failure: that is a primary finding.
    The next round runs the same (derandomized) examples again, but a finding that names only requirements
    already failed no longer stops it: the driver re-synchronises or ends that scenario, and the examples go
    on judging every other requirement. So one divergence hides nothing but what it really spoils.
    """
    from roc_conformance.errors import find_fault, find_violations

    tolerate: frozenset[str] = frozenset()
    finished = False
    for round_no in range(1, MAX_ROUNDS + 1):
        # Each round keeps its own examples: a later round tolerates the failures of the earlier ones, so it
        # would find their stored examples passing and delete them before the next explore run replays them.
        hypothesis = ctx.settings.hypothesis(f"{database_key}/round-{round_no}")
        try:
            with shrink_budget(ctx.settings.shrink_seconds):
                run_machine(build(tolerate, ledger), hypothesis, ctx.settings.seed)
        except Exception as exc:
            violations = find_violations(exc)
            if find_fault(exc) is not None or not violations:
                raise
            first = violations[0]
            notes = getattr(exc, "__notes__", None) or getattr(first, "__notes__", None) or []
            ids = tuple(dict.fromkeys(r for v in violations for r in v.requirements))
            finding = Finding(
                ids,
                "; ".join(v.message for v in violations)[:4000],
                counterexample=first.counterexample or "\n".join(str(n) for n in notes) or None,
                vector=next((v.vector for v in violations if v.vector is not None), None),
            )
            if ctx.settings.shrink_seconds > 0:
                finding = shorter(finding, ctx, tolerate)
            ctx.evidence.fail(finding)
            if set(ids) <= tolerate:  # nothing new: the run cannot make progress past it
                break
            tolerate |= set(ids)
            continue
        finished = True
        break
    failed = set(ctx.evidence.failed)
    if not finished:
        ctx.evidence.block(
            (r for r in machine_requirements() if r not in failed),
            f"the state machine stopped after {MAX_ROUNDS} distinct failures",
        )
        return
    # What only diverging steps exercised was not judged on unspoiled evidence.
    unjudged = ledger.exercised_any - ledger.exercised_in_sync - failed
    ctx.evidence.block(
        sorted(unjudged),
        f"every scenario that reached it had already diverged (a failure of {', '.join(sorted(failed))})",
    )
    if ledger.tolerated:
        ctx.note(f"{ledger.tolerated} findings of already-failed requirements were re-synchronised past")


def shorter(finding: Finding, ctx: CheckContext, tolerate: frozenset[str]) -> Finding:
    """``finding`` with the shortest counterexample ``minimize`` finds for the same requirements (as is when
    there is none, or a harness fault interrupts the replays)."""
    from roc_conformance.errors import HarnessFault
    from roc_conformance.machine import counterexample_text, counterexample_vector
    from roc_conformance.minimize import minimize
    from roc_conformance.oracle.check import merge

    vector = finding.vector
    if vector is None:
        return finding
    profiles = frozenset(vector.get("profiles") or ())
    try:
        best = minimize(
            vector["agent"], vector["steps"], ctx.client, hook_events="hooks" in profiles, tolerate=tolerate
        )
    except HarnessFault:
        ctx.client.reset_latch()  # the finding stands; a dead adapter shows again in the next round
        return finding
    if best is None:
        return finding
    ids = tuple(dict.fromkeys(r for v in best.found for r in v.requirements))
    if set(ids) != set(finding.requirements):
        return finding
    vector = counterexample_vector(best.driver, best.found, profiles)
    merged = merge(best.found, f"at step {best.step} (a minimized run)")
    return Finding(
        ids, merged.message[:4000], counterexample=counterexample_text(best.driver, vector), vector=vector
    )


def machine_checks() -> list[Check]:
    machine = _module("roc_conformance.machine")
    if machine is None or not (hasattr(machine, "make_machine") or hasattr(machine, "build_machine")):
        return []
    reqs = machine_requirements()
    if not reqs:
        return []
    return [
        Check(
            name=name,
            requirements=reqs,
            run=_runner(name, profiles[1]),
            profiles=profiles,
            kind="machine",
            description=f"random interrupt lifecycles ({profiles[1]})",
            group="STATEFUL",
        )
        for name, profiles in _VARIANTS
    ]
