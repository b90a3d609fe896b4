"""Every check the suite runs: explicit checks, static vectors, and the state machine.

``all_checks()`` is static (no adapter needed), so the registry can list which check verifies which
requirement without running anything.
"""

from __future__ import annotations

from roc_conformance.checks.base import Check, CheckContext, CheckResult, Status


def all_checks() -> list[Check]:
    """Explicit checks first, then vectors, then the machines (cheap to expensive)."""
    from roc_conformance.checks.agents import agent_checks
    from roc_conformance.checks.explicit import explicit_checks
    from roc_conformance.checks.orchestration import orchestration_checks
    from roc_conformance.checks.stateful import machine_checks
    from roc_conformance.checks.vectors import vector_checks

    checks = [
        *explicit_checks(),
        *agent_checks(),
        *orchestration_checks(),
        *vector_checks(),
        *machine_checks(),
    ]
    names = [c.name for c in checks]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate check names: {duplicates}")
    return checks


__all__ = ["Check", "CheckContext", "CheckResult", "Status", "all_checks"]
