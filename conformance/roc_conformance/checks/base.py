"""What a check is, what it may use while it runs, and what it produced.

A check names the requirement IDs it verifies and the profiles it needs. It runs against a live adapter
through ``CheckContext.client``. It reports a wrong observation either by raising ``ConformanceViolation``
(the check stops there) or, to go on judging the rest, by recording the evidence in ``CheckContext.evidence``:
a *failure* (a first divergence: FAIL of the requirements it names), a *consequence* (a divergence seen only
after another one in the same scenario, listed under that one and never a FAIL of its own) and *blocked*
requirements (ones the check meant to judge but could not, because a failure ended or spoiled the scenario).
Any ``HarnessFault`` makes the check ERROR. Returning normally with no failure is PASS.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from roc_conformance.client import Description, HarnessClient
from roc_conformance.settings import RunSettings

_REQ_RE = re.compile(r"^ROC-([A-Z]+)-\d{3}$")


class Status(StrEnum):
    """Per check and per requirement."""

    PASS = "PASS"
    FAIL = "FAIL"
    SKIPPED = "SKIPPED"
    ERROR = "ERROR"
    NOT_TESTED = "NOT_TESTED"


def area_of(requirement: str) -> str:
    """``ROC-STOP-001`` -> ``STOP``."""
    match = _REQ_RE.match(requirement)
    return match.group(1) if match else "OTHER"


@dataclass
class Finding:
    """One divergence: the requirement(s) it breaks, what was seen, and how to reproduce it."""

    requirements: tuple[str, ...]
    message: str
    counterexample: str | None = None
    vector: dict[str, Any] | None = None  # the state machine's shrunk run as a static vector
    after: tuple[str, ...] = ()  # a consequence: the requirement(s) of the failure it follows

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"requirements": list(self.requirements), "message": self.message}
        if self.after:
            doc["after"] = list(self.after)
        if self.counterexample:
            doc["counterexample"] = self.counterexample
        return doc


@dataclass
class Evidence:
    """What a check found, requirement by requirement (see the module docstring)."""

    failures: list[Finding] = field(default_factory=list)
    consequences: list[Finding] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)  # requirement -> why it was not judged

    def fail(self, finding: Finding) -> None:
        self.failures.append(finding)

    def block(self, requirements: Iterable[str], why: str) -> None:
        for rid in requirements:
            self.blocked.setdefault(rid, why)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r for f in self.failures for r in f.requirements))


@dataclass
class CheckContext:
    """What a running check can use."""

    client: HarnessClient
    description: Description
    settings: RunSettings
    notes: list[str] = field(default_factory=list)
    peer: HarnessClient | None = None  # a second implementation's adapter (--peer), for portability checks
    evidence: Evidence = field(default_factory=Evidence)

    @property
    def profiles(self) -> frozenset[str]:
        return self.description.profiles

    def note(self, text: str) -> None:
        """Keep a line for the report (shown with the check's result)."""
        self.notes.append(text)


CheckFn = Callable[[CheckContext], None]


@dataclass(frozen=True)
class Check:
    """One runnable check."""

    name: str
    requirements: tuple[str, ...]
    run: CheckFn
    profiles: tuple[str, ...] = ("core",)
    kind: str = "explicit"
    description: str = ""
    capabilities: tuple[str, ...] = ()
    group: str = ""  # progress-line area; default: the area of the first requirement

    def __post_init__(self) -> None:
        if not self.requirements:
            raise ValueError(f"check {self.name!r} names no requirement")

    @property
    def area(self) -> str:
        return self.group or area_of(self.requirements[0])

    def missing_profiles(self, declared: Iterable[str]) -> list[str]:
        have = set(declared)
        return [p for p in self.profiles if p not in have]


@dataclass
class CheckResult:
    """The outcome of one check."""

    name: str
    kind: str
    requirements: tuple[str, ...]
    profiles: tuple[str, ...]
    status: Status
    message: str = ""
    failed_requirements: tuple[str, ...] = ()
    counterexample: str | None = None
    duration: float = 0.0
    notes: list[str] = field(default_factory=list)
    fault_kind: str | None = None  # for ERROR from a HarnessFault: its kind (timeout, unavailable, ...)
    vector: dict[str, Any] | None = None  # a FAIL of the state machine: the shrunk run as a static vector
    counterexample_file: str | None = None  # where --save-counterexamples wrote ``vector``
    failures: list[Finding] = field(default_factory=list)  # first divergences (FAIL of their requirements)
    consequences: list[Finding] = field(default_factory=list)  # divergences that follow a failure
    blocked: dict[str, str] = field(default_factory=dict)  # declared requirements this check could not judge

    @property
    def vouched(self) -> tuple[str, ...]:
        """The requirements this check's evidence shows held: declared, and neither failed, seen only after a
        failure, nor cut short by one."""
        if self.status not in (Status.PASS, Status.FAIL):
            return ()
        spoiled = set(self.failed_requirements) | set(self.blocked)
        spoiled |= {r for c in self.consequences for r in c.requirements}
        return tuple(r for r in self.requirements if r not in spoiled)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "requirements": list(self.requirements),
            "profiles": list(self.profiles),
            "status": self.status.value,
            "durationSeconds": round(self.duration, 3),
        }
        if self.message:
            doc["message"] = self.message
        if self.failed_requirements:
            doc["failedRequirements"] = list(self.failed_requirements)
        if self.counterexample:
            doc["counterexample"] = self.counterexample
        if self.counterexample_file:
            doc["counterexampleFile"] = self.counterexample_file
        if self.consequences:
            doc["consequences"] = [c.to_json() for c in self.consequences]
        if self.blocked:
            doc["blocked"] = dict(sorted(self.blocked.items()))
        if self.notes:
            doc["notes"] = list(self.notes)
        return doc


ExplicitSpec = tuple[str, tuple[str, ...], Callable[["CheckContext"], None], tuple[str, ...], str]
"""An explicit check as a row: name, requirements, function, profiles, description."""


def explicit_checks_of(specs: Iterable[ExplicitSpec]) -> list[Check]:
    """The explicit checks of a table of rows."""
    return [
        Check(name=name, requirements=reqs, run=fn, profiles=profiles, kind="explicit", description=desc)
        for name, reqs, fn, profiles, desc in specs
    ]

