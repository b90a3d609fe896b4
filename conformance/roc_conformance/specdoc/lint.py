"""Spec lint: requirement blocks, normative keywords, IDs, anchors and internal links.

Each rule has a short name so tests and readers can refer to it; every violation carries file:line.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .history import removed_ids
from .links import LinkChecker
from .markdown import fenced_mask, mask_code_spans
from .parser import Chapter, RawBlock, load_chapters, requirements_of, split_body
from .untestable import UNTESTABLE_FILE, UNTESTABLE_HEADING, find_table
from .vocabulary import (
    AREAS,
    BOLD_KEYWORD_RE,
    ID_RE,
    KEYWORD_LEVEL,
    LOWER_KEYWORD_RE,
    PROFILES,
    RESERVED_PROFILES,
    SPLIT_NEGATION_RE,
    STRENGTH,
    UPPER_KEYWORD_RE,
    chapter_kind,
)


@dataclass(frozen=True, order=True)
class Violation:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class KeywordHit:
    line: int
    phrase: str
    bold: bool


def _blank(match: re.Match[str]) -> str:
    # Keep newlines so offsets still map to the right line.
    return re.sub(r"[^\n]", " ", match.group(0))


def _keyword_hits(lines: Sequence[tuple[int, str]]) -> tuple[list[KeywordHit], list[tuple[int, str]]]:
    """Uppercase keywords (bold or not) in block prose, and the non-uppercase normative words, with lines.

    The lines are scanned as one text because a bold phrase may wrap ("**MUST" / "NOT**").
    """
    numbers = [number for number, _ in lines]
    text = mask_code_spans("\n".join(content for _, content in lines))
    starts = [0]
    for content in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(content) + 1)

    def line_of(offset: int) -> int:
        return numbers[bisect.bisect_right(starts, offset) - 1]

    hits: list[KeywordHit] = []
    for match in SPLIT_NEGATION_RE.finditer(text):
        hits.append(KeywordHit(line_of(match.start()), f"{match.group(1)} NOT", bold=False))
    text = SPLIT_NEGATION_RE.sub(_blank, text)
    for match in BOLD_KEYWORD_RE.finditer(text):
        hits.append(KeywordHit(line_of(match.start()), " ".join(match.group(1).split()), bold=True))
    rest = BOLD_KEYWORD_RE.sub(_blank, text)
    for match in UPPER_KEYWORD_RE.finditer(rest):
        hits.append(KeywordHit(line_of(match.start()), " ".join(match.group(1).split()), bold=False))
    lower = [
        (line_of(m.start()), m.group(0)) for m in LOWER_KEYWORD_RE.finditer(rest) if not m.group(0).isupper()
    ]
    return sorted(hits, key=lambda hit: hit.line), lower


def _lint_header(block: RawBlock) -> Iterable[Violation]:
    file, line = block.chapter, block.line
    if block.header is None:
        shown = block.header_text or "(no header line after the anchor)"
        yield Violation(
            file,
            line,
            "malformed-header",
            f"requirement header must read '> **ROC-AREA-NNN** · LEVEL · profile', got {shown!r}",
        )
        return
    header = block.header
    area = ID_RE.match(header.id)
    if area is None or area.group(1) not in AREAS:
        known = ", ".join(AREAS)
        yield Violation(file, line, "malformed-header", f"{header.id}: unknown area (known: {known})")
    if header.profile in RESERVED_PROFILES:
        yield Violation(
            file, line, "unknown-profile", f"{header.id}: profile {header.profile!r} is reserved for later"
        )
    elif header.profile not in PROFILES:
        yield Violation(
            file,
            line,
            "unknown-profile",
            f"{header.id}: unknown profile {header.profile!r} (known: {', '.join(PROFILES)})",
        )


def _lint_shape(block: RawBlock) -> Iterable[Violation]:
    """The blank quote line after the header (else Markdown runs header and text together)."""
    if block.header is None:
        return
    if not block.body or block.body[0][1].strip():
        line = block.body[0][0] if block.body else block.line
        yield Violation(block.chapter, line, "malformed-header", "a blank '>' line must follow the header")


def _lint_untestable_in_block(block: RawBlock) -> Iterable[Violation]:
    """An untestable marker inside a block, exact or loose: the parser leaves it out of the requirement
    (neither reason nor text), so without this rule the reason would silently be lost."""
    _, markers = split_body(block.body)
    name = f"{block.header.id}: " if block.header is not None else ""
    for line, _ in markers:
        yield Violation(
            block.chapter,
            line,
            "untestable-in-block",
            f"{name}a requirement block carries no *Untestable* line: the reason goes in a row of the table "
            f'"{UNTESTABLE_HEADING}" in {UNTESTABLE_FILE}; remove it here, to the end of its paragraph',
        )


def _lint_anchor(block: RawBlock) -> Iterable[Violation]:
    if block.header is None:
        return
    expected = block.header.id.lower()
    if block.anchor is None:
        yield Violation(
            block.chapter,
            block.line,
            "anchor",
            f'{block.header.id}: missing anchor line <a id="{expected}"></a> right before the header',
        )
    elif block.anchor != expected:
        yield Violation(
            block.chapter,
            block.anchor_line or block.line,
            "anchor",
            f"{block.header.id}: anchor {block.anchor!r} does not match the ID "
            f'(want <a id="{expected}"></a>)',
        )


def _lint_block_keywords(block: RawBlock) -> Iterable[Violation]:
    # A stray untestable paragraph is reported once, by its own rule, not again for the words in it.
    normative, _ = split_body(block.body)
    hits, lower = _keyword_hits(normative)
    for line, word in lower:
        yield Violation(
            block.chapter,
            line,
            "lowercase-keyword",
            f"{word!r} inside a requirement block: use a bold uppercase keyword or rephrase (e.g. 'can')",
        )
    for hit in hits:
        if not hit.bold:
            message = f"{hit.phrase} inside a block must be **{hit.phrase}**"
            yield Violation(block.chapter, hit.line, "unbolded-keyword", message)
    if block.header is None:
        return
    phrases = [hit.phrase for hit in hits]
    if not phrases:
        message = f"{block.header.id}: no BCP 14 keyword in the text"
        yield Violation(block.chapter, block.line, "no-keyword", message)
        return
    levels = {KEYWORD_LEVEL[phrase] for phrase in phrases}
    strongest = max(STRENGTH[level] for level in levels)
    allowed = sorted(level for level in levels if STRENGTH[level] == strongest)
    if block.header.level not in allowed:
        yield Violation(
            block.chapter,
            block.line,
            "level-mismatch",
            f"{block.header.id}: header says {block.header.level} but the strongest keyword in the text is "
            + " / ".join(allowed),
        )


def _lint_outside_blocks(chapter: Chapter) -> Iterable[Violation]:
    kind = chapter_kind(chapter.name)
    if kind == "informative":
        return
    lines = chapter.lines
    inside = chapter.block_lines()
    fenced = fenced_mask(lines)
    for index, text in enumerate(lines):
        number = index + 1
        if number in inside or fenced[index]:
            continue
        # Only the conformance-language chapter may quote the keywords, and only as code.
        prose = mask_code_spans(text) if kind == "conformance" else text
        seen = [" ".join(m.group(1).split()) for m in UPPER_KEYWORD_RE.finditer(prose)]
        for phrase in seen:
            yield Violation(
                chapter.name,
                number,
                "keyword-outside-block",
                f"{phrase} outside a requirement block in a normative chapter",
            )


_ID_MENTION_RE = re.compile(r"\bROC-[A-Z]+-\d{3}\b")


def _lint_references(chapter: Chapter, defined: set[str], skip: set[int]) -> Iterable[Violation]:
    """Every requirement ID the text mentions, linked or not, must be defined somewhere in the spec."""
    headers = {block.line for block in chapter.blocks}  # a malformed header is reported once, as such
    for index, text in enumerate(chapter.lines):
        if index + 1 in headers or index + 1 in skip:
            continue
        for rid in _ID_MENTION_RE.findall(text):
            if rid not in defined:
                yield Violation(
                    chapter.name, index + 1, "unknown-id-reference", f"{rid} is not defined in the spec"
                )


def _lint_untestable_table(
    chapters: Sequence[Chapter], defined: set[str]
) -> tuple[list[Violation], set[int]]:
    """The rows of the untestable table: one defined requirement ID and a reason each, one row per ID.

    Returns the violations and the table's row lines (their unknown IDs are reported here, once).
    """
    source = next((chapter for chapter in chapters if chapter.name == UNTESTABLE_FILE), None)
    table = find_table(source.text) if source is not None else None
    if source is None or table is None:
        return [], set()
    violations: list[Violation] = []
    rows: dict[str, int] = {}  # ID -> line of its first row
    for row in table.rows:
        problems: list[str] = []
        if len(row.ids) != 1:
            problems.append(f"a row must name exactly one requirement ID, found {len(row.ids)}")
        elif row.ids[0] not in defined:
            problems.append(f"{row.ids[0]} is not defined in the spec")
        elif row.ids[0] in rows:
            problems.append(f"{row.ids[0]} already has a row at line {rows[row.ids[0]]}")
        else:
            rows[row.ids[0]] = row.line
        if not row.reason:
            problems.append("the row gives no reason")
        violations.extend(Violation(UNTESTABLE_FILE, row.line, "untestable-table", text) for text in problems)
    return violations, {row.line for row in table.rows}


def lint_chapters(chapters: Sequence[Chapter], links: LinkChecker | None = None) -> list[Violation]:
    violations: list[Violation] = []
    first_seen: dict[str, RawBlock] = {}
    defined = {block.header.id for chapter in chapters for block in chapter.blocks if block.header}
    if links is not None:
        for chapter in chapters:
            links.remember(chapter.name, chapter.text)
    table_violations, table_lines = _lint_untestable_table(chapters, defined)
    violations.extend(table_violations)
    for chapter in chapters:
        informative = chapter_kind(chapter.name) == "informative"
        for block in chapter.blocks:
            if informative:
                violations.append(
                    Violation(
                        chapter.name,
                        block.line,
                        "block-in-informative",
                        "informative files (README, appendices) carry no requirement blocks",
                    )
                )
            violations.extend(_lint_header(block))
            violations.extend(_lint_anchor(block))
            violations.extend(_lint_shape(block))
            violations.extend(_lint_untestable_in_block(block))
            violations.extend(_lint_block_keywords(block))
            if block.header is not None:
                earlier = first_seen.setdefault(block.header.id, block)
                if earlier is not block:
                    violations.append(
                        Violation(
                            chapter.name,
                            block.line,
                            "duplicate-id",
                            f"{block.header.id} already defined at {earlier.chapter}:{earlier.line}",
                        )
                    )
        violations.extend(_lint_outside_blocks(chapter))
        skip = table_lines if chapter.name == UNTESTABLE_FILE else set()
        violations.extend(_lint_references(chapter, defined, skip))
        if links is not None:
            violations.extend(
                Violation(chapter.name, line, "broken-link", message)
                for line, message in links.check(chapter.name, chapter.text)
            )
    return sorted(violations)


def removed_id_violations(previous_json: str | None, chapters: Sequence[Chapter]) -> list[Violation]:
    """IDs published in the committed requirements.json that the chapters no longer define."""
    if previous_json is None:
        return []
    return [
        Violation(
            chapter or "requirements.json",
            1,
            "removed-id",
            f"{rid} was published (committed spec/requirements.json) and is gone: IDs are never renumbered, "
            "removed or reused",
        )
        for rid, chapter in removed_ids(previous_json, requirements_of(chapters))
    ]


def lint_spec(spec_dir: Path, previous_json: str | None = None) -> list[Violation]:
    """The whole lint; ``previous_json`` is the committed requirements.json, when there is one."""
    chapters = load_chapters(spec_dir)
    return sorted(
        lint_chapters(chapters, LinkChecker(spec_dir)) + removed_id_violations(previous_json, chapters)
    )
