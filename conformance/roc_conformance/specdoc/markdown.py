"""Just enough Markdown for the spec: fenced code, code spans, headings, mkdocs heading slugs, HTML ids."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ATTR_ID_RE = re.compile(r"\s*\{[^}]*#([A-Za-z0-9_:.-]+)[^}]*\}\s*$")
_HTML_ID_RE = re.compile(r"<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
_TAG_RE = re.compile(r"<[^>]+>")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_IDCOUNT_RE = re.compile(r"^(.*)_([0-9]+)$")


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str
    slug: str


def fenced_mask(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included)."""
    mask: list[bool] = []
    fence: str | None = None
    for line in lines:
        if fence is None:
            match = _FENCE_RE.match(line)
            if match:
                fence = match.group(1)
            mask.append(fence is not None)
            continue
        mask.append(True)
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and set(stripped) <= {fence[0]}:
            fence = None
    return mask


def mask_code_spans(text: str) -> str:
    """Blank out inline code spans, keeping columns, so quoted words are not read as prose."""
    return _CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), text)


def slugify(text: str) -> str:
    """The heading id Python-Markdown's toc extension (as configured by mkdocs) derives from heading text."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def _unique(slug: str, used: set[str]) -> str:
    while slug in used or not slug:
        match = _IDCOUNT_RE.match(slug)
        slug = f"{match.group(1)}_{int(match.group(2)) + 1}" if match else f"{slug}_1"
    used.add(slug)
    return slug


def heading_text(raw: str) -> str:
    """The visible text of a heading: code ticks, emphasis markers, link targets and tags removed."""
    text = _ATTR_ID_RE.sub("", raw)
    text = _LINK_RE.sub(lambda m: m.group(1), text)
    text = _TAG_RE.sub("", text)
    text = re.sub(r"`+", "", text)
    text = re.sub(r"\*+", "", text)
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    return " ".join(text.split())


def headings(lines: Sequence[str]) -> list[Heading]:
    """ATX headings outside code, with the ids mkdocs gives them (explicit {#id} wins, duplicates get _1)."""
    mask = fenced_mask(lines)
    found: list[tuple[int, int, str, str | None]] = []
    for index, line in enumerate(lines):
        if mask[index]:
            continue
        match = _HEADING_RE.match(line)
        if match is None:
            continue
        raw = match.group(2) or ""
        attr = _ATTR_ID_RE.search(raw)
        found.append((index + 1, len(match.group(1)), raw, attr.group(1) if attr else None))
    used = {given for *_, given in found if given}
    result: list[Heading] = []
    for line_no, level, raw, given in found:
        text = heading_text(raw)
        slug = given if given else _unique(slugify(text), used)
        result.append(Heading(line_no, level, text, slug))
    return result


def html_ids(lines: Sequence[str]) -> Iterator[str]:
    """Ids given by raw HTML elements (<a id="...">), outside code."""
    mask = fenced_mask(lines)
    for index, line in enumerate(lines):
        if not mask[index]:
            yield from _HTML_ID_RE.findall(mask_code_spans(line))


def anchors(text: str) -> set[str]:
    """Every fragment a link into this document can name."""
    lines = text.splitlines()
    return {h.slug for h in headings(lines)} | set(html_ids(lines))
