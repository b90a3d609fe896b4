"""The table of requirements the harness cannot observe, in spec/conformance-testing.md.

This table is the only source of a requirement's untestable reason: a requirement block carries no
``*Untestable:*`` line (the lint refuses one). The table lives under the heading
"Requirements the harness cannot observe"; the first Markdown table after that heading holds one row per
requirement, the ID (usually linked) in the first cell and the reason in the second:

    | requirement | reason |
    |---|---|
    | [ROC-ERR-007](07-errors.md#roc-err-007) | the harness reply carries exactly one outcome ... |
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .markdown import fenced_mask, headings

UNTESTABLE_FILE: Final = "conformance-testing.md"
UNTESTABLE_HEADING: Final = "Requirements the harness cannot observe"

_ID_RE = re.compile(r"\bROC-[A-Z]+-\d{3}\b")
_CELL_SPLIT_RE = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")


@dataclass(frozen=True)
class TableRow:
    """One body row of the table: the IDs its first cell names and the reason in its second cell."""

    line: int  # 1-based
    ids: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Table:
    """Where the table is (1-based lines, header and separator included) and its body rows."""

    first_line: int
    last_line: int
    rows: tuple[TableRow, ...]


def normalize(reason: str) -> str:
    """A reason with its whitespace collapsed, so a cell's spacing never reaches requirements.json."""
    return " ".join(reason.split())


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip() for cell in _CELL_SPLIT_RE.split(body)]


def find_table(text: str) -> Table | None:
    """The table under the heading, or None when the heading or its table is absent."""
    lines = text.splitlines()
    mask = fenced_mask(lines)
    found = headings(lines)
    start = next((h for h in found if h.text == UNTESTABLE_HEADING), None)
    if start is None:
        return None
    end = next((h.line for h in found if h.line > start.line), len(lines) + 1)
    index = start.line  # 0-based index of the line after the heading
    while index < end - 1 and (mask[index] or not lines[index].lstrip().startswith("|")):
        index += 1
    if index >= end - 1:
        return None
    first = index
    while index < end - 1 and not mask[index] and lines[index].lstrip().startswith("|"):
        index += 1
    table_lines = list(range(first, index))
    rows: list[TableRow] = []
    for position, number in enumerate(table_lines):
        cells = _cells(lines[number])
        if position == 0 or (position == 1 and all(_SEPARATOR_CELL_RE.match(c) for c in cells)):
            continue
        ids = tuple(_ID_RE.findall(cells[0]))
        reason = normalize(cells[1].replace("\\|", "|")) if len(cells) > 1 else ""
        rows.append(TableRow(number + 1, ids, reason))
    return Table(first + 1, index, tuple(rows))


def table_reasons(files: Iterable[tuple[str, str]]) -> dict[str, str]:
    """ID -> reason from the table of the untestable file among (file name, text) pairs.

    Rows that name no ID or several are ignored here (the lint reports them); the first row of an ID wins.
    """
    reasons: dict[str, str] = {}
    for name, text in files:
        if name != UNTESTABLE_FILE:
            continue
        table = find_table(text)
        for row in table.rows if table is not None else ():
            if len(row.ids) == 1 and row.reason:
                reasons.setdefault(row.ids[0], row.reason)
    return reasons
