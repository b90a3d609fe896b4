"""Every Python block of the docs' runtime guide runs as written (so the guide cannot drift from the code)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "reference-runtime.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


def test_the_guide_has_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("source", BLOCKS, ids=[f"block-{i}" for i in range(len(BLOCKS))])
def test_guide_block_runs(source: str) -> None:
    exec(compile(source, str(GUIDE), "exec"), {"__name__": "docs_example"})
