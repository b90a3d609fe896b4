"""Small Markdown builders for the specdoc tests (fixture chapters written in the tests, not on disk)."""

from __future__ import annotations

import shutil
from pathlib import Path

from roc_conformance.specdoc.links import LinkChecker
from roc_conformance.specdoc.lint import Violation, lint_chapters
from roc_conformance.specdoc.parser import parse_chapter

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def block(
    rid: str = "ROC-STOP-001",
    level: str = "MUST",
    profile: str = "core",
    text: str = 'The invocation **MUST** end with `stopReason` `"interrupt"`.',
    untestable: str | None = None,
    anchor: str | None = None,
) -> str:
    """A requirement block; ``untestable`` appends an old-style ``*Untestable:*`` paragraph, which the spec
    refuses (reasons live only in the table of conformance-testing.md)."""
    lines = [
        f'<a id="{rid.lower() if anchor is None else anchor}"></a>',
        f"> **{rid}** · {level} · {profile}",
        ">",
        *(f"> {line}" for line in text.splitlines()),
    ]
    if untestable is not None:
        lines += [">", f"> *Untestable:* {untestable}"]
    return "\n".join(lines) + "\n"


def chapter(*parts: str, title: str = "Lifecycle") -> str:
    return f"# {title}\n\nSome informative prose.\n\n" + "\n".join(parts)


def lint_texts(files: dict[str, str], tmp_path: Path | None = None) -> list[Violation]:
    """Lint in-memory chapters; with tmp_path they are also written there so links can be resolved."""
    if tmp_path is not None:
        for name, text in files.items():
            (tmp_path / name).write_text(text, encoding="utf-8")
    chapters = [parse_chapter(name, files[name]) for name in sorted(files)]
    return lint_chapters(chapters, LinkChecker(tmp_path) if tmp_path is not None else None)


def rules(violations: list[Violation]) -> list[str]:
    return [v.rule for v in violations]


def mini_project(tmp_path: Path) -> Path:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "03-lifecycle.md").write_text(chapter(block()), encoding="utf-8")
    (tmp_path / "tests").mkdir()
    shutil.copy(CONFTEST, tmp_path / "tests" / "conftest.py")
    ini = "[pytest]\nmarkers =\n    req(*ids): requirement IDs\n"
    (tmp_path / "pytest.ini").write_text(ini, encoding="utf-8")
    (tmp_path / "tests" / "test_mini.py").write_text(
        "import pytest\n\n"
        "pytestmark = pytest.mark.req('ROC-STOP-001')\n\n"
        "def test_module_marker():\n    assert True\n\n"
        "@pytest.mark.req('ROC-STOP-999')\n"
        "def test_unknown_id():\n    assert True\n\n"
        "@pytest.mark.req('ROC-SEC-001')\n"
        "def test_area_not_drafted_yet():\n    assert True\n\n"
        "class TestNone:\n    def test_plain(self):\n        assert True\n",
        encoding="utf-8",
    )
    return tmp_path
