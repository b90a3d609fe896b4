"""What a check is, what it may use while it runs, and what it produced.

A check names the requirement IDs it verifies and the profiles it needs. It runs against a live adapter
through ``CheckContext.client`` and signals a wrong observation by raising ``ConformanceViolation`` naming
the requirement(s) broken. Any ``HarnessFault`` makes the check ERROR. Returning normally is PASS.
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
class CheckContext:
    """What a running check can use."""

    client: HarnessClient
    description: Description
    settings: RunSettings
    notes: list[str] = field(default_factory=list)
    peer: HarnessClient | None = None  # a second implementation's adapter (--peer), for portability checks

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
        if self.notes:
            doc["notes"] = list(self.notes)
        return doc
