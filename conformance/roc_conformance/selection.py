"""``--req``: run the checks that verify chosen requirements, and judge only those requirements.

Choosing checks by name (``--only``) narrows what runs; choosing requirements narrows the verdict as well.
The run judges against a registry of the chosen requirements alone, each chosen check declares only the
chosen requirements it verifies, and the profiles judged are those the chosen requirements belong to. So a
run whose chosen requirements pass is CONFORMANT for what it was asked, and every report, rendered from
the same registry, says so. ``wire:schema`` validates every reply of every run: the requirements it judges
(``OBSERVED``) are always judged with the chosen ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from roc_conformance.checks.base import Check
from roc_conformance.registry import Registry


def observed_requirements() -> tuple[str, ...]:
    """What the run judges on every reply, whichever checks run (``wire:schema``)."""
    from roc_conformance.checks.wire_schema import SCHEMA_REQUIREMENTS

    return tuple(SCHEMA_REQUIREMENTS)


@dataclass(frozen=True)
class RequirementPlan:
    """What ``--req`` asked for and how the run is narrowed to it."""

    ids: tuple[str, ...]  # as asked, normalised (upper case, no duplicates)
    unknown: tuple[str, ...]  # not requirements of this spec version: a usage error
    unverified: dict[str, str]  # requirement -> why no check judges it in this run
    registry: Registry  # the chosen requirements (and the observed ones): what the run judges
    profiles: tuple[str, ...]  # the profiles the judged requirements belong to, within --profile if given

    def notes(self) -> list[str]:
        """One line per requested requirement the run will not judge."""
        return [f"{rid}: {why}" for rid, why in self.unverified.items()]

    def narrow(self, checks: Iterable[Check]) -> list[Check]:
        """The checks that verify a judged requirement, each declaring only the judged ones it verifies.

        A check declaring a requirement outside the registry would make it look like a suite bug (a
        requirement the registry lacks); the check still runs in full, and what it finds of other
        requirements stays in its own entry of the report.
        """
        judged = {r.id for r in self.registry.requirements}
        asked = set(self.ids)
        out: list[Check] = []
        for check in checks:
            if not asked & set(check.requirements):
                continue
            mine = tuple(r for r in check.requirements if r in judged)
            out.append(dataclasses.replace(check, requirements=mine))
        return out


def plan_requirements(
    ids: Iterable[str],
    checks: Sequence[Check],
    registry: Registry,
    selected_profiles: Iterable[str] | None = None,
) -> RequirementPlan:
    """Resolve ``--req`` IDs against ``registry`` and the suite's ``checks``."""
    wanted = tuple(dict.fromkeys(i.strip().upper() for i in ids))
    known = registry.by_id()
    unknown = tuple(i for i in wanted if i not in known)
    chosen = [i for i in wanted if i in known]
    covered = {r for c in checks if set(chosen) & set(c.requirements) for r in c.requirements}
    observed = [r for r in observed_requirements() if r in known]
    unverified: dict[str, str] = {}
    for rid in chosen:
        if rid in covered:
            continue
        req = known[rid]
        if req.untestable:
            unverified[rid] = f"no check verifies it: untestable ({req.untestable})"
        elif rid in observed:
            unverified[rid] = (
                "judged by wire:schema on the replies of the checks that run; choose some with another "
                "--req or with --only"
            )
        else:
            unverified[rid] = "no check verifies it yet"
    judged = set(chosen) | set(observed)
    narrowed = dataclasses.replace(
        registry, requirements=tuple(r for r in registry.requirements if r.id in judged)
    )
    profiles = {known[rid].profile for rid in chosen}
    if selected_profiles:
        profiles &= set(selected_profiles)
    return RequirementPlan(wanted, unknown, unverified, narrowed, tuple(sorted(profiles)))
