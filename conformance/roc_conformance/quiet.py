"""Keep Hypothesis' own console output out of the run's console and put what matters into the check result.

Hypothesis prints through its reporter (``print`` by default): the steps of a failing state machine run on
its final replay, advice such as "add @seed(...) to this test", and a few warnings through ``warnings``.
Printed in the middle of the progress display they are noise with no check named; the suite's transcript
already shows the failing run, and ``--seed`` (recorded in the report) replaces the ``@seed`` advice.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hypothesis.reporting import with_reporter

_MAX_NOTE = 2000
# Advice for decorated test functions, which the checks are not: the suite's --seed repeats a run.
_ADVICE = ("@seed(", "@reproduce_failure(", "PLEASE REPORT THIS")


@dataclass
class Captured:
    """What Hypothesis said during one check."""

    reports: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def notes(self, *, has_transcript: bool) -> list[str]:
        """Report lines for the check's result.

        Warnings are always kept. Hypothesis' replay of a failing run is kept only when the check has no
        transcript of its own, since otherwise it repeats the transcript in a less readable form.
        """
        out = [f"warning during the check: {text}"[:_MAX_NOTE] for text in dict.fromkeys(self.warnings)]
        if not has_transcript:
            kept = [r for r in self.reports if not any(a in r for a in _ADVICE)]
            if kept:
                out.append(("Hypothesis reported:\n" + "\n".join(kept))[:_MAX_NOTE])
        return out


@contextmanager
def captured_hypothesis_output() -> Iterator[Captured]:
    """Collect Hypothesis' reporter output and every warning raised while the block runs."""
    got = Captured()

    def report(value: object) -> None:
        got.reports.append(str(value))

    with warnings.catch_warnings(record=True) as caught, with_reporter(report):
        warnings.simplefilter("always")
        try:
            yield got
        finally:
            got.warnings.extend(f"{w.category.__name__}: {w.message}" for w in caught)
