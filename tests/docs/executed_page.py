"""A documentation page read as a program: its code blocks in page order, each with the output shown under it.

A step is a fenced code block, followed (with nothing but blank lines between) by an optional ``text``
block holding exactly what the step prints. Blocks may sit inside content tabs (``=== "Python"``), indented
by the tab; the indent is removed. A block with a ``title="name.py"`` attribute is a file of the example,
not a step: the runner writes it to the working directory, where the steps import or start it.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

# A fenced block at any indent; its closing fence has the same indent (the body is dedented by it).
FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]+)(?P<attrs>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.M | re.S,
)
TITLE = re.compile(r'title="(?P<title>[^"]+)"')


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    title: str | None
    code: str
    end: int  # offset just after the closing fence


@dataclass(frozen=True)
class Step:
    line: int
    lang: str
    code: str
    output: str | None


def blocks(text: str) -> list[Block]:
    found = []
    for m in FENCE.finditer(text):
        pad = m["indent"]
        body = "".join(
            line.removeprefix(pad) if line.startswith(pad) else line.lstrip(" ")
            for line in m["body"].splitlines(keepends=True)
        )
        title = TITLE.search(m["attrs"])
        found.append(
            Block(
                text.count("\n", 0, m.start()) + 1,
                m["lang"],
                title["title"] if title else None,
                body,
                m.end(),
            )
        )
    return found


def read(page: Path) -> tuple[list[Step], dict[str, str]]:
    """The steps of ``page`` (code blocks of any language but ``text``) and its files (title -> text)."""
    text = page.read_text(encoding="utf-8")
    found = blocks(text)
    steps: list[Step] = []
    files: dict[str, str] = {}
    for index, block in enumerate(found):
        if block.lang == "text":
            continue
        if block.title is not None:
            files[block.title] = block.code
            continue
        after = found[index + 1] if index + 1 < len(found) else None
        between = text[block.end : text.find("```", block.end)] if after is not None else ""
        output = after.code if after is not None and after.lang == "text" and not between.strip() else None
        steps.append(Step(block.line, block.lang, block.code, output))
    return steps, files


def run_python(page: Path, steps: list[Step], namespace: dict[str, object]) -> None:
    """Run the Python ``steps`` of ``page`` in order in ``namespace``; fail at the first step that prints
    something other than the output the page shows under it (nothing, when it shows none)."""
    for step in steps:
        if step.lang != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(step.code, f"{page}:{step.line}", "exec"), namespace)
        expected = step.output if step.output is not None else ""
        if out.getvalue() != expected:
            raise AssertionError(
                f"the block at {page.name}:{step.line} prints\n{out.getvalue()}\n"
                f"but the page shows\n{expected}"
            )
