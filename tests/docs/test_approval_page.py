"""The approval pattern page runs as written and prints what it shows.

docs/patterns/approval.md is one program told in steps: its Python blocks run in page order in one
namespace, and the ``text`` block that follows a Python block is exactly what that block prints. So the
page cannot drift from the reference runtime: a changed decision text, stop reason or pending list fails here.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "patterns" / "approval.md"
# A Python block, then (after optional prose-free whitespace) the text block holding its output, if any.
BLOCK = re.compile(r"```python\n(?P<code>.*?)```\n(?:\s*```text\n(?P<out>.*?)```)?", re.S)


@dataclass(frozen=True)
class Step:
    line: int
    code: str
    output: str | None


def steps() -> list[Step]:
    text = PAGE.read_text(encoding="utf-8")
    return [Step(text.count("\n", 0, m.start()) + 1, m["code"], m["out"]) for m in BLOCK.finditer(text)]


def test_the_page_shows_what_each_step_prints() -> None:
    found = steps()
    assert len(found) >= 8
    # Every step but the definitions shows its output, so a reader sees what the model is given.
    assert sum(step.output is not None for step in found) >= len(found) - 1


def test_the_page_runs_in_order_and_prints_what_it_shows() -> None:
    namespace: dict[str, object] = {"__name__": "approval_page"}
    for step in steps():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(step.code, f"{PAGE}:{step.line}", "exec"), namespace)
        if step.output is None:
            assert out.getvalue() == "", f"the block at line {step.line} prints output the page does not show"
        else:
            assert out.getvalue() == step.output, f"the block at line {step.line} prints something else"


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
