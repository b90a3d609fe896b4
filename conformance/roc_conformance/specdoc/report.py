"""Plain-text summaries for the CLI: coverage of the spec and the traceability matrix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .parser import Requirement
from .trace import TraceMatrix
from .vocabulary import LEVELS, MUST_LEVELS, PROFILES, SPEC_VERSION


def _ordered(counts: Counter[str], order: Iterable[str]) -> str:
    known = [key for key in order if counts[key]]
    rest = sorted(key for key in counts if key not in known)
    return ", ".join(f"{key} {counts[key]}" for key in [*known, *rest]) or "none"


def coverage_text(requirements: Sequence[Requirement]) -> str:
    chapters = Counter(req.chapter for req in requirements)
    musts = [req for req in requirements if req.level in MUST_LEVELS]
    untestable = [req for req in musts if req.untestable]
    lines = [
        f"RoC spec {SPEC_VERSION}: {len(requirements)} requirements in {len(chapters)} chapters",
        f"  by level:   {_ordered(Counter(req.level for req in requirements), LEVELS)}",
        f"  by profile: {_ordered(Counter(req.profile for req in requirements), PROFILES)}",
        f"  by chapter: {_ordered(chapters, sorted(chapters))}",
        f"  MUST/MUST NOT: {len(musts)}, of which marked untestable: {len(untestable)}",
    ]
    lines += [f"    {req.id} ({req.level}): {req.untestable}" for req in untestable]
    return "\n".join(lines) + "\n"


def _users(users: Sequence[str]) -> str:
    """Tests grouped by file (parametrized cases make long lists), checks by name."""
    files: dict[str, int] = {}
    for user in users:
        where = user if user.startswith("check:") else user.split("::", 1)[0]
        files[where] = files.get(where, 0) + 1
    return ", ".join(where if n == 1 else f"{where} ({n} tests)" for where, n in files.items())


def trace_text(matrix: TraceMatrix, notes: Sequence[str] = ()) -> str:
    counts = matrix.counts()
    width = max((len(e.requirement.id) for e in matrix.entries), default=12)
    lines = [f"{'requirement':<{width}}  {'level':<10}  {'profile':<19}  status    evidence"]
    for entry in matrix.entries:
        req = entry.requirement
        if entry.status == "tested":
            evidence = f"{len(entry.tests)} tests, {len(entry.checks)} checks"
        elif entry.status == "excluded":
            evidence = f"untestable: {req.untestable}"
        else:
            evidence = "-"
        lines.append(f"{req.id:<{width}}  {req.level:<10}  {req.profile:<19}  {entry.status:<8}  {evidence}")
    musts = [e for e in matrix.entries if e.requirement.level in MUST_LEVELS]
    lines += [
        "",
        f"{len(matrix.entries)} requirements: tested {counts['tested']}, excluded {counts['excluded']}, "
        f"untraced {counts['untraced']}",
        f"MUST/MUST NOT: {len(musts)}, untraced {len(matrix.untraced_musts())}",
        f"tests without a requirement marker: {matrix.untagged_tests}",
        *notes,
    ]
    for entry in matrix.entries:
        if entry.status == "tested" and entry.requirement.untestable:
            # Either the reason is stale or the tags point at the wrong rule (e.g. after a renumbering).
            users = [*entry.tests, *(f"check:{name}" for name in entry.checks)]
            lines.append(
                f"warning: {entry.requirement.id} is marked untestable but traced by {_users(users)}"
            )
    for rid, users in matrix.unknown.items():
        lines.append(f"error: unknown requirement ID {rid} used by {_users(users)}")
    return "\n".join(lines) + "\n"
