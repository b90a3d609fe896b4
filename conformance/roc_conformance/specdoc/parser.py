"""Requirement blocks out of the spec chapters, and spec/requirements.json out of those blocks.

A block has exactly this shape (TEAM conventions); anything that starts like a block but deviates is kept as a
RawBlock with ``header`` set to None so the lint can point at it, and is left out of the requirements:

    <a id="roc-stop-001"></a>
    > **ROC-STOP-001** · MUST · core
    >
    > Text with **MUST** ...

A requirement's untestable reason comes only from the table of spec/conformance-testing.md (``untestable``).
A block line that opens like the old ``> *Untestable:* reason`` marker, exactly or loosely, is kept out of the
requirement's text (its words are no rule) and refused by the lint, so a reason written in the wrong place
never passes unnoticed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .markdown import fenced_mask, headings
from .untestable import table_reasons
from .vocabulary import LEVELS, SPEC_VERSION

_LEVEL_ALT = "|".join(re.escape(level) for level in sorted(LEVELS, key=len, reverse=True))
HEADER_RE = re.compile(rf"^> \*\*(ROC-[A-Z]+-\d{{3}})\*\* · ({_LEVEL_ALT}) · ([a-z0-9]+(?:-[a-z0-9]+)*)$")
ANCHOR_RE = re.compile(r'^<a id="([^"]*)"></a>\s*$')
# Loose recognisers: something meant as a requirement block, well-formed or not.
_LOOSE_HEADER_RE = re.compile(r"^\s*>\s*\**\s*ROC-", re.IGNORECASE)
_LOOSE_ANCHOR_RE = re.compile(r"^\s*<a\s+(?:id|name)\s*=\s*[\"']roc-", re.IGNORECASE)
_ANY_ANCHOR_RE = re.compile(r"^\s*<a\s+(?:id|name)\s*=\s*[\"']([^\"']*)[\"']")
# A body line that opens with the word "untestable", emphasised or not: the old in-block marker or a variant.
UNTESTABLE_LINE_RE = re.compile(r"^[*_\s]*untestable\b", re.IGNORECASE)


@dataclass(frozen=True)
class Header:
    id: str
    level: str
    profile: str


@dataclass(frozen=True)
class RawBlock:
    """A requirement block as written, with line numbers (1-based) for diagnostics."""

    chapter: str
    line: int  # the header line
    header_text: str
    header: Header | None
    anchor: str | None
    anchor_line: int | None
    body: tuple[tuple[int, str], ...]  # (line, text after the "> " marker), header excluded
    section: str


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str
    profile: str
    text: str
    section: str
    chapter: str
    anchor: str
    untestable: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "profile": self.profile,
            "text": self.text,
            "section": self.section,
            "chapter": self.chapter,
            "anchor": self.anchor,
            "untestable": self.untestable,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Requirement:
        return cls(
            id=doc["id"],
            level=doc["level"],
            profile=doc["profile"],
            text=doc["text"],
            section=doc["section"],
            chapter=doc["chapter"],
            anchor=doc["anchor"],
            untestable=doc.get("untestable"),
        )


@dataclass(frozen=True)
class Chapter:
    name: str
    text: str
    blocks: tuple[RawBlock, ...]

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def block_lines(self) -> set[int]:
        """Line numbers (1-based) covered by requirement blocks, anchors included."""
        covered: set[int] = set()
        for block in self.blocks:
            covered.add(block.line)
            covered.update(line for line, _ in block.body)
            if block.anchor_line is not None:
                covered.add(block.anchor_line)
        return covered


def _quote_content(line: str) -> str:
    stripped = line.lstrip()[1:]
    return stripped[1:] if stripped.startswith(" ") else stripped


def parse_chapter(name: str, text: str) -> Chapter:
    lines = text.splitlines()
    mask = fenced_mask(lines)
    section_at: dict[int, str] = {}
    current = ""
    heads = {h.line: h.text for h in headings(lines)}
    for number in range(1, len(lines) + 1):
        current = heads.get(number, current)
        section_at[number] = current

    blocks: list[RawBlock] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if mask[index]:
            index += 1
            continue
        anchor: str | None = None
        anchor_line: int | None = None
        start = index
        if _LOOSE_ANCHOR_RE.match(line):
            match = ANCHOR_RE.match(line.strip())
            anchor = match.group(1) if match else line.strip()
            anchor_line = index + 1
            start = index + 1
            if start >= len(lines) or not lines[start].lstrip().startswith(">"):
                # A dangling anchor: reported by the lint as a malformed block without a header.
                blocks.append(
                    RawBlock(name, index + 1, "", None, anchor, anchor_line, (), section_at[index + 1])
                )
                index += 1
                continue
        elif not _LOOSE_HEADER_RE.match(line):
            index += 1
            continue
        elif index > 0 and (found := _ANY_ANCHOR_RE.match(lines[index - 1])):
            # An anchor whose id does not look like a requirement's: still this block's anchor.
            anchor = found.group(1)
            anchor_line = index
        end = start
        while end < len(lines) and lines[end].lstrip().startswith(">") and not mask[end]:
            end += 1
        header_text = lines[start].rstrip()
        match = HEADER_RE.match(header_text)
        header = Header(*match.groups()) if match else None
        body = tuple((number + 1, _quote_content(lines[number])) for number in range(start + 1, end))
        blocks.append(
            RawBlock(name, start + 1, header_text, header, anchor, anchor_line, body, section_at[start + 1])
        )
        index = end
    return Chapter(name, text, tuple(blocks))


def paragraphs(body: Sequence[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """The body split at blank quote lines."""
    result: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for line, content in body:
        if content.strip():
            current.append((line, content.strip()))
        elif current:
            result.append(current)
            current = []
    if current:
        result.append(current)
    return result


def split_body(
    body: Sequence[tuple[int, str]],
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The normative lines of a body, and the lines that open with an untestable marker.

    Normative lines come stripped, with a ``(line, "")`` separator between paragraphs. A marker line starts
    a stray part that runs to the end of its paragraph (a reason may wrap onto several lines), even when
    no blank quote line sets it apart from the text before it. Only the marker lines themselves are
    returned, for the lint to point at.
    """
    normative: list[tuple[int, str]] = []
    markers: list[tuple[int, str]] = []
    for paragraph in paragraphs(body):
        kept = 0
        while kept < len(paragraph) and not UNTESTABLE_LINE_RE.match(paragraph[kept][1]):
            kept += 1
        if kept < len(paragraph):
            markers.append(paragraph[kept])
        if kept == 0:
            continue
        if normative:
            normative.append((paragraph[0][0], ""))
        normative.extend(paragraph[:kept])
    return normative, markers


def block_requirement(block: RawBlock, reasons: Mapping[str, str]) -> Requirement | None:
    """The requirement a well-formed block states; ``reasons`` maps IDs to the untestable table's reasons."""
    if block.header is None:
        return None
    normative, _ = split_body(block.body)
    chunks: list[list[str]] = [[]]
    for _, content in normative:
        if content:
            chunks[-1].append(content)
        else:
            chunks.append([])
    text = "\n\n".join(" ".join(chunk) for chunk in chunks if chunk)
    return Requirement(
        id=block.header.id,
        level=block.header.level,
        profile=block.header.profile,
        text=text,
        section=block.section,
        chapter=block.chapter,
        anchor=f"{block.chapter}#{block.header.id.lower()}",
        untestable=reasons.get(block.header.id),
    )


def chapter_paths(spec_dir: Path) -> list[Path]:
    return sorted(spec_dir.glob("*.md"), key=lambda path: path.name)


def load_chapters(spec_dir: Path) -> list[Chapter]:
    return [parse_chapter(path.name, path.read_text(encoding="utf-8")) for path in chapter_paths(spec_dir)]


def requirements_of(chapters: Sequence[Chapter]) -> list[Requirement]:
    """Every well-formed requirement, chapters in file-name order and blocks in document order.

    A requirement's untestable reason is the one the untestable table gives it, if a row names it.
    """
    reasons = table_reasons((chapter.name, chapter.text) for chapter in chapters)
    found = (block_requirement(block, reasons) for chapter in chapters for block in chapter.blocks)
    return [req for req in found if req is not None]


def parse_spec(spec_dir: Path) -> list[Requirement]:
    return requirements_of(load_chapters(spec_dir))


def render_requirements(requirements: Sequence[Requirement]) -> str:
    """The exact text of spec/requirements.json."""
    doc = {"specVersion": SPEC_VERSION, "requirements": [req.to_json() for req in requirements]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def load_requirements(path: Path) -> list[Requirement]:
    """Read a generated requirements.json back into records."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [Requirement.from_json(item) for item in doc["requirements"]]
