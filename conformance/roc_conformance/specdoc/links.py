"""Internal link checking: relative targets must exist, and #fragments must name a heading or an anchor."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from .markdown import anchors, fenced_mask, mask_code_spans

_INLINE_LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_HREF_RE = re.compile(r"\shref\s*=\s*[\"']([^\"']*)[\"']")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class LinkChecker:
    """Checks links of files in one directory; anchors of target files are read once and cached."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self._anchors: dict[Path, set[str]] = {}

    def _anchors_of(self, path: Path) -> set[str]:
        resolved = path.resolve()
        if resolved not in self._anchors:
            self._anchors[resolved] = anchors(resolved.read_text(encoding="utf-8"))
        return self._anchors[resolved]

    def remember(self, name: str, text: str) -> None:
        """Use in-memory text for a file (lets fixtures be checked without writing them)."""
        self._anchors[(self.base_dir / name).resolve()] = anchors(text)

    def check(self, name: str, text: str) -> list[tuple[int, str]]:
        self.remember(name, text)
        lines = text.splitlines()
        fenced = fenced_mask(lines)
        problems: list[tuple[int, str]] = []
        for index, line in enumerate(lines):
            if fenced[index]:
                continue
            prose = mask_code_spans(line)
            targets = _INLINE_LINK_RE.findall(prose) + _HREF_RE.findall(prose)
            ref = _REF_DEF_RE.match(prose)
            if ref:
                targets.append(ref.group(1))
            for target in targets:
                problem = self._check_target(name, target)
                if problem:
                    problems.append((index + 1, problem))
        return problems

    def _check_target(self, name: str, target: str) -> str | None:
        if not target:
            return "empty link target"
        if _SCHEME_RE.match(target) or target.startswith("//"):
            return None  # external: not ours to check offline
        path_part, _, fragment = target.partition("#")
        if path_part.startswith("/"):
            return f"{target}: absolute path; internal links must be relative"
        source = self.base_dir / name
        path = (source.parent / unquote(path_part)).resolve() if path_part else source.resolve()
        if path_part and not path.exists():
            return f"{target}: no such file {path_part}"
        if not fragment or not path.is_file() or path.suffix != ".md":
            return None
        if unquote(fragment) not in self._anchors_of(path):
            where = path_part or "this file"
            return f"{target}: no heading or anchor #{fragment} in {where}"
        return None
