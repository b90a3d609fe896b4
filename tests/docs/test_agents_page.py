"""The sub-agents and orchestrators page runs as written and prints what it shows.

docs/patterns/agents.md is one program told in steps (see executed_page): a changed propagated source, a
sub-agent prompted again, a completed node run again or a different result order fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from executed_page import Step, read, run_python

PAGE = Path(__file__).resolve().parents[2] / "docs" / "patterns" / "agents.md"


def steps() -> list[Step]:
    return read(PAGE)[0]


def test_the_page_shows_what_each_step_prints() -> None:
    found = steps()
    assert len(found) == 6
    assert {step.lang for step in found} == {"python"}
    assert sum(step.output is not None for step in found) == 5  # every step but the definitions


def test_the_page_runs_in_order_and_prints_what_it_shows() -> None:
    run_python(PAGE, steps(), {"__name__": "agents_page"})


@pytest.mark.parametrize(
    "needle",
    ['as_tool("clean_up")', '"inner"', '"children"', "Graph(", "BeforeNodeCallEvent", "Swarm(", "handoff_to"],
)
def test_the_page_shows_each_way_across_agents(needle: str) -> None:
    assert needle in "".join(step.code + (step.output or "") for step in steps())
