"""The typed questions and answers page runs as written and prints what it shows.

docs/patterns/typed-answers.md is one program told in steps (see executed_page): a changed derived schema,
an error path, an edit that runs the proposed input, a missing edit text or a question held until the
sibling tool ends fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from executed_page import Step, read, run_python

PAGE = Path(__file__).resolve().parents[2] / "docs" / "patterns" / "typed-answers.md"


def steps() -> list[Step]:
    return read(PAGE)[0]


def test_the_page_shows_what_each_step_prints() -> None:
    found = steps()
    assert len(found) == 6
    assert {step.lang for step in found} == {"python"}
    assert all(step.output is not None for step in found)


@pytest.mark.req("ROC-ASK-001", "ROC-SCHEMA-004", "ROC-APPROVE-008", "ROC-STREAM-005")
def test_the_page_runs_in_order_and_prints_what_it_shows() -> None:
    run_python(PAGE, steps(), {"__name__": "typed_answers_page"})


@pytest.mark.parametrize(
    "needle",
    [
        "tool_context.ask(",
        "ask_user",
        "ApprovalHook(",
        '"decision": "edit"',
        "input_schema=",
        "agent.stream(",
    ],
)
def test_the_page_shows_each_feature(needle: str) -> None:
    assert needle in "".join(step.code for step in steps())
