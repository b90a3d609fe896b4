"""The CLI: gen writes, check catches staleness, lint reports file:line, coverage and trace report counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from roc_conformance.specdoc.cli import main
from specdoc_fixtures import block, chapter, mini_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "03-lifecycle.md").write_text(
        chapter(block(), block("ROC-STOP-002", "MAY", "hooks", "It **MAY** log.")), encoding="utf-8"
    )
    return tmp_path


def test_gen_then_check(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "check"]) == 1  # missing
    assert main(["--root", str(project), "gen"]) == 0
    doc = json.loads((project / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in doc["requirements"]] == ["ROC-STOP-001", "ROC-STOP-002"]
    assert main(["--root", str(project), "check"]) == 0
    chapter_file = project / "spec" / "03-lifecycle.md"
    chapter_file.write_text(chapter_file.read_text(encoding="utf-8").replace("log", "warn"), encoding="utf-8")
    assert main(["--root", str(project), "check"]) == 1
    assert "stale" in capsys.readouterr().out


def test_lint_prints_violations_with_file_and_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "lint"]) == 0
    assert "spec lint: clean" in capsys.readouterr().out
    (project / "spec" / "04-hooks.md").write_text(chapter("Hooks MUST run.\n"), encoding="utf-8")
    assert main(["--root", str(project), "lint"]) == 1
    out = capsys.readouterr().out
    assert "spec/04-hooks.md:5: [keyword-outside-block]" in out
    assert "1 violations" in out


def test_coverage_prints_counts(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "coverage"]) == 0
    out = capsys.readouterr().out
    assert "2 requirements in 1 chapters" in out
    assert "by profile: core 1, hooks 1" in out


def test_trace_reports_and_fails_on_unknown_ids(tmp_path: Path) -> None:
    root = mini_project(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "roc_conformance.specdoc", "--root", str(root), "trace"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "ROC-STOP-001" in proc.stdout
    assert "1 requirements: tested 1, excluded 0, untraced 0" in proc.stdout
    assert "error: unknown requirement ID ROC-STOP-999 used by tests/test_mini.py" in proc.stdout
    assert "error: unknown requirement ID ROC-SEC-001 used by tests/test_mini.py" in proc.stdout
