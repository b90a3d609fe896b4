"""Move *Untestable:* lines out of the requirement blocks into the table of spec/conformance-testing.md.

For each block that carries an ``*Untestable:*`` paragraph:

- the table already has a row for the ID with the same reason (whitespace aside): the paragraph, and the
  blank ``>`` line before it, are removed from the block;
- the table has no row for the ID: a row is added (the table is then rewritten in spec order, existing rows
  kept verbatim) and the paragraph is removed;
- the table's row gives another reason: nothing changes for that requirement, and it is reported as a
  conflict for a person to settle.

The generated requirements.json is the same before and after: the reason only changes place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .parser import UNTESTABLE_RE, Chapter, load_chapters, paragraphs, requirements_of, split_untestable
from .untestable import UNTESTABLE_FILE, find_table, normalize, render_table


class MoveError(Exception):
    """The untestable file or its table is missing."""


@dataclass
class MoveResult:
    moved: list[str] = field(default_factory=list)  # IDs whose block paragraph was removed
    added: list[str] = field(default_factory=list)  # IDs that got a new table row
    conflicts: list[str] = field(default_factory=list)  # IDs whose block and row disagree
    files: dict[str, str] = field(default_factory=dict)  # file name -> new text, for changed files


def _paragraph_lines(chapter: Chapter, rid: str) -> list[int]:
    """The 1-based lines to delete for ``rid``: its untestable paragraph and the blank quote line before."""
    for block in chapter.blocks:
        if block.header is None or block.header.id != rid:
            continue
        body = dict(block.body)
        for paragraph in paragraphs(block.body):
            if UNTESTABLE_RE.match(paragraph[0][1]):
                lines = [line for line, _ in paragraph]
                before = lines[0] - 1
                if before in body and not body[before].strip():
                    lines.insert(0, before)
                return lines
    return []


def plan_move(chapters: list[Chapter]) -> MoveResult:
    """What ``move-untestable`` would write, computed without touching a file."""
    source = next((chapter for chapter in chapters if chapter.name == UNTESTABLE_FILE), None)
    table = find_table(source.text) if source is not None else None
    if source is None or table is None:
        raise MoveError(f"spec/{UNTESTABLE_FILE} has no table under its untestable heading")
    rows: dict[str, str] = {}
    row_text: dict[str, str] = {}
    lines = source.text.splitlines()
    for row in table.rows:
        if len(row.ids) == 1 and row.ids[0] not in rows:
            rows[row.ids[0]] = row.reason
            row_text[row.ids[0]] = lines[row.line - 1]
    result = MoveResult()
    deletions: dict[str, list[int]] = {}
    new_rows: dict[str, tuple[str, str]] = {}
    for chapter in chapters:
        if chapter.name == UNTESTABLE_FILE:
            continue
        for block in chapter.blocks:
            if block.header is None:
                continue
            _, reason = split_untestable(block.body)
            if not reason:
                continue
            rid = block.header.id
            if rid in rows and rows[rid] != normalize(reason):
                result.conflicts.append(rid)
                continue
            if rid not in rows:
                new_rows[rid] = (chapter.name, reason)
                result.added.append(rid)
            deletions.setdefault(chapter.name, []).extend(_paragraph_lines(chapter, rid))
            result.moved.append(rid)
    for chapter in chapters:
        doomed = set(deletions.get(chapter.name, ()))
        if doomed:
            kept = [
                line
                for number, line in enumerate(chapter.text.splitlines(keepends=True), 1)
                if number not in doomed
            ]
            result.files[chapter.name] = "".join(kept)
    if new_rows:
        ordered: list[str] = []
        for req in requirements_of(chapters):
            if req.id in row_text:
                ordered.append(row_text[req.id])
            elif req.id in new_rows:
                chapter_name, reason = new_rows[req.id]
                ordered.append(render_table([(req.id, chapter_name, reason)])[-1])
        listed = set(row_text) | set(new_rows)
        # Rows the spec does not define (the lint reports them) stay, after the others.
        ordered += [
            lines[row.line - 1] for row in table.rows if not (len(row.ids) == 1 and row.ids[0] in listed)
        ]
        body = lines[: table.first_line + 1] + ordered + lines[table.last_line :]
        result.files[UNTESTABLE_FILE] = "\n".join(body) + "\n"
    return result


def move_untestable(spec_dir: Path, *, write: bool = True) -> MoveResult:
    """Plan the move for the chapters in ``spec_dir`` and, with ``write``, apply it."""
    result = plan_move(load_chapters(spec_dir))
    if write:
        for name, text in result.files.items():
            (spec_dir / name).write_text(text, encoding="utf-8")
    return result
