"""Static vectors (conformance/vectors/v1/*.json) as checks: one check per vector, named ``vector:<id>``.

Running a vector, and comparing what it observed with the oracle and the vector's own expectations, is the
oracle's job (``roc_conformance.oracle.vectors.run_vector``); this module only wraps it as a Check, the same
one for the suite's vectors and for a file replayed with ``roc-conformance replay``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roc_conformance.checks.base import Check, CheckContext, Finding
from roc_conformance.errors import ConformanceViolation


def derive_profiles(vector: dict[str, Any]) -> tuple[str, ...]:
    """The profiles a vector needs: its own list, else what its scenario uses."""
    if vector.get("profiles"):
        return tuple(dict.fromkeys(str(p) for p in vector["profiles"]))
    agent = vector.get("agent", {})
    profiles = ["core"]
    if agent.get("hooks"):
        profiles.append("hooks")
    profiles.append(f"{agent.get('executor', 'sequential')}-executor")
    if any("restore" in step for step in vector.get("steps", [])):
        profiles.append("sessions")
    if any("directToolCall" in (step.get("invoke") or {}) for step in vector.get("steps", [])):
        profiles.append("direct-tool-call")
    return tuple(profiles)


def _runner(vector: dict[str, Any], on_transcript: Callable[[str], None] | None = None) -> Any:
    def run(ctx: CheckContext) -> None:
        from roc_conformance.oracle.check import merge
        from roc_conformance.oracle.driver import IN_SYNC
        from roc_conformance.oracle.vectors import run_vector

        violations, driver = run_vector(
            vector,
            ctx.client,
            hook_events="hooks" in ctx.description.profiles,
            inspect="inspect" in ctx.description.capabilities,
        )
        # SHOULD-level findings fail their (unscored) requirement too; the profile verdict ignores them.
        found = [*violations, *getattr(driver, "warnings", [])]
        transcript = driver.transcript()
        if on_transcript is not None:
            on_transcript(transcript)
        if found:
            merged = merge(list(found), f"vector {vector['id']}: {vector.get('title', '')}")
            ctx.evidence.fail(Finding(merged.requirements, merged.message, counterexample=transcript))
        for finding, after in driver.consequences:
            ctx.evidence.consequences.append(Finding(finding.requirements, finding.message, after=after))
        if driver.sync != IN_SYNC:
            # As for the state machines: a requirement the oracle judged on a step before the divergence (or
            # after a resync) was judged on unspoiled evidence; only the others were cut short by it.
            ctx.evidence.block(
                [r for r in vector.get("requirements", []) if r not in driver.exercised_in_sync],
                f"the scenario {driver.sync} at {driver.diverged_at} (a failure of "
                f"{', '.join(driver.diverged_by)})",
            )

    return run


def vector_check(vector: dict[str, Any], on_transcript: Callable[[str], None] | None = None) -> Check:
    """The check of one vector; ``on_transcript`` receives its RPC transcript, whether it passes or not.

    Raises ValueError for a vector that names no requirement (a check must verify something).
    """
    reqs = tuple(dict.fromkeys(str(r) for r in vector.get("requirements", [])))
    return Check(
        name=f"vector:{vector['id']}",
        requirements=reqs,
        run=_runner(vector, on_transcript),
        profiles=derive_profiles(vector),
        kind="vector",
        description=str(vector.get("title", "")),
    )


def vector_checks() -> list[Check]:
    """One check per static vector (none when the oracle or the vectors are not there)."""
    try:
        from roc_conformance.oracle.vectors import load_vectors
    except ImportError:
        return []
    return [vector_check(vector) for vector in load_vectors() if vector.get("requirements")]


__all__ = ["ConformanceViolation", "derive_profiles", "vector_check", "vector_checks"]
