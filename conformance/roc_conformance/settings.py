"""Run settings: ``certify`` (comparable, derandomized, fixed counts) and ``explore`` (random, more examples).

The settings used are recorded in every report, so two certify reports of one suite version against two
implementations were produced by exactly the same example sequence.

Explore runs keep Hypothesis's example database in ``DEFAULT_DATABASE`` (or ``--database DIR``): one
subdirectory per database key (a state-machine check and its round, see ``RunSettings.hypothesis``), so the
failing example of one check is replayed first by that check's next explore run and by no other check.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings

DEFAULT_DATABASE = Path(".hypothesis") / "roc-explore"
"""Where explore runs keep failing examples unless told otherwise: relative to the working directory."""


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
    database_dir: str | None = None  # with use_database: the example database (None: DEFAULT_DATABASE)

    @property
    def database_path(self) -> Path | None:
        """The example database directory of this run, or None when it keeps none (certify)."""
        if not self.use_database:
            return None
        return Path(self.database_dir) if self.database_dir is not None else DEFAULT_DATABASE

    def hypothesis(self, database_key: str = "default") -> settings:
        """The Hypothesis settings object for a state machine or ``@given`` check.

        ``database_key`` names the subdirectory of the example database this test reads and writes.
        Hypothesis keys a state machine's examples by the source of its generic test function, the same for
        every machine; without a subdirectory of its own, one check would replay another's failing example
        and, when it does not fail there, delete it.
        """
        from hypothesis.database import DirectoryBasedExampleDatabase

        path = self.database_path
        database = DirectoryBasedExampleDatabase(path / _dirname(database_key)) if path is not None else None
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
        out = {
            "name": doc["name"],
            "derandomize": doc["derandomize"],
            "maxExamples": doc["max_examples"],
            "statefulStepCount": doc["stateful_step_count"],
            "database": doc["use_database"],
            "seed": doc["seed"],
            "shrinkSeconds": doc["shrink_seconds"],
        }
        if self.database_path is not None:
            out["databasePath"] = str(self.database_path)
        return out


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


def _dirname(key: str) -> str:
    """``machine:sequential/round-1`` -> ``machine-sequential/round-1``: a portable relative path."""
    parts = [re.sub(r"[^A-Za-z0-9._-]+", "-", part).strip("-.") for part in key.split("/")]
    return "/".join(part or "_" for part in parts)


def prepare_database(run: RunSettings) -> RunSettings:
    """``run`` with its example database as an absolute path, created now (None: it keeps none).

    Resolved once at the start, so what the run writes does not depend on a later change of directory, and
    created even when nothing fails, so the place the documentation names exists after every explore run.
    """
    path = run.database_path
    if path is None:
        return run
    path = path.resolve()
    path.mkdir(parents=True, exist_ok=True)
    return replace(run, database_dir=str(path))


def new_seed() -> int:
    """A fresh seed for an explore run; below 2**53 so that it survives any JSON reader of the report."""
    return secrets.randbits(52)


def with_overrides(
    base: RunSettings,
    *,
    max_examples: int | None = None,
    steps: int | None = None,
    seed: int | None = None,
    database: str | None = None,
) -> RunSettings:
    """``base`` with command-line overrides (the report records the result)."""
    out = base
    if database is not None:
        out = replace(out, database_dir=database)
    if max_examples is not None:
        out = replace(out, max_examples=max_examples)
    if steps is not None:
        out = replace(out, stateful_step_count=steps)
    if seed is not None:
        out = replace(out, seed=seed)
    return out
