"""The adapter tutorial works as written: the adapter extracted from the page makes the toy CONFORMANT.

The blocks of docs/adapters/tutorial.md titled ``toy_adapter.py`` are concatenated in page order into one
file beside a copy of the toy runtime, and the real CLI runs the whole suite against it through a ``cmd:``
target, as a reader would. So the page cannot drift from the kit, the toy or the suite.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adapters" / "tutorial.md"
TOY = ROOT / "conformance" / "examples" / "toy_runtime" / "toy.py"
PROFILES = ("core", "hooks", "sequential-executor")
MAX_LINES = 150  # the kit's promise: a tutorial adapter under 150 lines, blank lines and comments included
BLOCK = re.compile(r'^```python title="toy_adapter\.py"\n(.*?)^```$', re.S | re.M)


def adapter_source() -> str:
    """The adapter as the page builds it: its titled blocks, in order."""
    return "".join(BLOCK.findall(PAGE.read_text(encoding="utf-8")))


def cli() -> list[str]:
    """The ``roc-conformance`` of the interpreter running the tests (the venv's console script)."""
    script = Path(sys.executable).with_name("roc-conformance")
    return [str(script)] if script.exists() else [sys.executable, "-m", "roc_conformance.cli"]


def test_the_page_builds_one_adapter_in_steps() -> None:
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 5, "the adapter is built step by step"
    source = adapter_source()
    compile(source, "toy_adapter.py", "exec")  # the concatenation is one valid module
    assert "class ToyAdapter(RuntimeAdapter" in source
    assert 'if __name__ == "__main__":' in source


def test_the_adapter_is_under_150_lines() -> None:
    lines = adapter_source().splitlines()
    assert len(lines) < MAX_LINES, f"the tutorial adapter has {len(lines)} lines"


def test_the_toy_runtime_stands_alone() -> None:
    source = TOY.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+roc_(reference|conformance)\b", source, re.M)


def extract(tmp_path: Path) -> str:
    """The reader's working directory: a copy of the toy and the page's adapter; the ``cmd:`` target."""
    work = tmp_path / "toy-adapter"
    work.mkdir()
    shutil.copy(TOY, work / "toy.py")
    adapter = work / "toy_adapter.py"
    adapter.write_text(adapter_source(), encoding="utf-8")
    return f"cmd:{sys.executable} {adapter}"


@pytest.mark.slow
def test_the_smoke_test_finds_the_adapter_working(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*cli(), "smoke", "--target", extract(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ADAPTER OK: run the full suite next" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_the_tutorial_adapter_makes_the_toy_conformant(tmp_path: Path) -> None:
    target = extract(tmp_path)
    reports = tmp_path / "reports"
    profiles = [arg for profile in PROFILES for arg in ("--profile", profile)]
    proc = subprocess.run(
        [*cli(), "run", "--target", target, *profiles, "--report-dir", str(reports), "--quiet"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    summary = reports / "summary.md"
    detail = summary.read_text(encoding="utf-8") if summary.exists() else proc.stderr
    assert proc.returncode == 0, detail[-6000:]
    report = json.loads((reports / "report.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "CONFORMANT"
    assert report["implementation"]["name"] == "toy"
    for profile in PROFILES:
        assert report["profiles"][profile]["status"] == "CONFORMANT", (profile, report["profiles"][profile])
