"""The approval pattern page runs as written and prints what it shows.

docs/patterns/approval.md is one program told in steps: its Python blocks run in page order in one
namespace, and the ``text`` block that follows a Python block is exactly what that block prints. So the
page cannot drift from the reference runtime: a changed decision text, stop reason or pending list fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from executed_page import Step, read, run_python

PAGE = Path(__file__).resolve().parents[2] / "docs" / "patterns" / "approval.md"


def steps() -> list[Step]:
    return read(PAGE)[0]


def test_the_page_shows_what_each_step_prints() -> None:
    found = steps()
    assert len(found) >= 8
    assert {step.lang for step in found} == {"python"}
    # Every step but the definitions shows its output, so a reader sees what the model is given.
    assert sum(step.output is not None for step in found) >= len(found) - 1


def test_the_page_runs_in_order_and_prints_what_it_shows() -> None:
    run_python(PAGE, steps(), {"__name__": "approval_page"})


@pytest.mark.parametrize(
    "needle",
    [
        "InterruptDeclined",
        "abandon(",
        'then="continue"',
        "expires_at=",
        "pending_interrupts_of(",
        "alreadyAnswered",
        'decision="decline"',
        'decision="cancel"',
        "The request expired without an answer.",
    ],
)
def test_the_page_covers_each_way_to_end_a_pause(needle: str) -> None:
    assert needle in "".join(step.code + (step.output or "") for step in steps())
