"""Run settings: ``certify`` (comparable, derandomized, fixed counts) and ``explore`` (random, more examples).

The settings used are recorded in every report, so two certify reports of one suite version against two
implementations were produced by exactly the same example sequence.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any

from hypothesis import HealthCheck, Phase, settings


@dataclass(frozen=True)
class RunSettings:
    """How hard the Hypothesis-driven checks try."""

    name: str
    derandomize: bool
    max_examples: int
    stateful_step_count: int
    use_database: bool = False
    seed: int | None = None  # explore: the random examples come from this seed (None under derandomize)
    shrink_seconds: int = 15  # wall-clock budget for shrinking one failure (0: report failures unshrunk)

    def hypothesis(self) -> settings:
        """The Hypothesis settings object for a state machine or ``@given`` check."""
        from hypothesis.database import DirectoryBasedExampleDatabase

        database = DirectoryBasedExampleDatabase(".hypothesis/roc-explore") if self.use_database else None
        skip = () if self.shrink_seconds > 0 else (Phase.shrink, Phase.explain)
        return settings(
            phases=tuple(p for p in Phase if p not in skip),
            max_examples=self.max_examples,
            stateful_step_count=self.stateful_step_count,
            derandomize=self.derandomize,
            database=database,
            deadline=None,  # RPC latency is not a bug
            print_blob=False,
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
        )

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        return {
            "name": doc["name"],
            "derandomize": doc["derandomize"],
            "maxExamples": doc["max_examples"],
            "statefulStepCount": doc["stateful_step_count"],
            "database": doc["use_database"],
            "seed": doc["seed"],
            "shrinkSeconds": doc["shrink_seconds"],
        }


CERTIFY = RunSettings(name="certify", derandomize=True, max_examples=200, stateful_step_count=20)
"""Comparable runs: derandomized, no example database, fixed counts (sized for < 3 min on 2 cores)."""


@contextmanager
def shrink_budget(seconds: int) -> Iterator[None]:
    """Bound the time Hypothesis spends shrinking one failure.

    Hypothesis has no public setting for this; its engine reads a module constant, which is set for the
    duration of one check and restored afterwards. Without that constant (another Hypothesis version)
    shrinking is simply unbounded.
    """
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:  # pragma: no cover - layout of another Hypothesis version
        yield
        return
    old = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if old is None:
        yield
        return
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = old


EXPLORE = RunSettings(
    name="explore",
    derandomize=False,
    max_examples=400,
    stateful_step_count=25,
    use_database=True,
    shrink_seconds=120,
)
"""Bug hunting: random, remembers failing examples, more and longer runs."""


def new_seed() -> int:
    """A fresh seed for an explore run; below 2**53 so that it survives any JSON reader of the report."""
    return secrets.randbits(52)


def with_overrides(
    base: RunSettings, *, max_examples: int | None = None, steps: int | None = None, seed: int | None = None
) -> RunSettings:
    """``base`` with command-line overrides (the report records the result)."""
    out = base
    if max_examples is not None:
        out = replace(out, max_examples=max_examples)
    if steps is not None:
        out = replace(out, stateful_step_count=steps)
    if seed is not None:
        out = replace(out, seed=seed)
    return out
