"""Traceability: which requirement is tested by which test or conformance check, generated on demand."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .markers import TRACE_ENV, unknown_ids
from .parser import Requirement
from .vocabulary import MUST_LEVELS


class TraceError(Exception):
    """The test suite could not be collected into a trace."""


@dataclass(frozen=True)
class Collection:
    markers: dict[str, list[str]]
    returncode: int
    output: str

    @property
    def complete(self) -> bool:
        # 0: collected; 5: nothing to collect. Anything else means some modules failed to import.
        return self.returncode in (0, 5)


def collect_markers(root: Path, tests: str = "tests", timeout: float = 600.0) -> Collection:
    """Run ``pytest --collect-only`` in a subprocess; tests/conftest.py writes {nodeid: [ids]} to a file."""
    with tempfile.TemporaryDirectory(prefix="roc-trace-") as tmp:
        out = Path(tmp) / "trace.json"
        env = {**os.environ, TRACE_ENV: str(out)}
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", tests],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        output = proc.stdout + proc.stderr
        if not out.exists():
            tail = output[-2000:]
            raise TraceError(f"pytest --collect-only wrote no trace (exit {proc.returncode}):\n{tail}")
        raw = json.loads(out.read_text(encoding="utf-8"))
    markers = {str(nodeid): [str(rid) for rid in ids] for nodeid, ids in raw.items()}
    return Collection(markers, proc.returncode, output)


@dataclass(frozen=True)
class Registry:
    checks: dict[str, list[str]]
    available: bool
    note: str


def load_registry() -> Registry:
    """The conformance suite's checks per requirement, if that part of the project exists yet."""
    try:
        module = importlib.import_module("roc_conformance.registry")
        # The registry imports its checks lazily, so a missing piece can surface on the call too.
        result: Any = module.checked_requirements()
    except (ImportError, AttributeError) as exc:
        return Registry({}, False, f"conformance check registry not available ({exc})")
    if not isinstance(result, Mapping):
        raise TraceError(f"checked_requirements() returned {type(result).__name__}, not a mapping")
    checks = {str(rid): [str(name) for name in names] for rid, names in result.items()}
    return Registry(checks, True, f"conformance check registry: {len(checks)} requirements with checks")


@dataclass(frozen=True)
class TraceEntry:
    requirement: Requirement
    tests: tuple[str, ...]
    checks: tuple[str, ...]

    @property
    def status(self) -> str:
        if self.tests or self.checks:
            return "tested"
        return "excluded" if self.requirement.untestable else "untraced"


@dataclass(frozen=True)
class TraceMatrix:
    entries: tuple[TraceEntry, ...]
    # unknown requirement ID -> the tests ("nodeid") and checks ("check:name") that use it
    unknown: dict[str, list[str]]
    untagged_tests: int

    def counts(self) -> Counter[str]:
        return Counter(entry.status for entry in self.entries)

    def untraced_musts(self) -> list[TraceEntry]:
        return [e for e in self.entries if e.status == "untraced" and e.requirement.level in MUST_LEVELS]

    def to_json(self) -> dict[str, Any]:
        return {
            "requirements": [
                {
                    "id": e.requirement.id,
                    "level": e.requirement.level,
                    "profile": e.requirement.profile,
                    "status": e.status,
                    "tests": list(e.tests),
                    "checks": list(e.checks),
                    "untestable": e.requirement.untestable,
                }
                for e in self.entries
            ],
            "unknownIds": self.unknown,
            "untaggedTests": self.untagged_tests,
        }


def build_matrix(
    requirements: Sequence[Requirement],
    markers: Mapping[str, Sequence[str]],
    checks: Mapping[str, Sequence[str]],
) -> TraceMatrix:
    by_req: dict[str, list[str]] = {}
    for nodeid, ids in markers.items():
        for rid in ids:
            by_req.setdefault(rid, []).append(nodeid)
    known = [req.id for req in requirements]
    unknown = unknown_ids(markers, known)
    known_set = set(known)
    for rid, names in checks.items():
        if rid not in known_set:
            unknown.setdefault(rid, []).extend(f"check:{name}" for name in names)
    entries = tuple(
        TraceEntry(req, tuple(sorted(by_req.get(req.id, []))), tuple(sorted(checks.get(req.id, []))))
        for req in requirements
    )
    untagged = sum(1 for ids in markers.values() if not ids)
    return TraceMatrix(entries, dict(sorted(unknown.items())), untagged)
