"""``pytest --roc-target``: conformance checks as pytest items whose names carry requirement IDs."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_plugin(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest --roc-target reference ARGS`` in ``tmp_path`` (no test files of its own)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--roc-target",
            "reference",
            *args,
            "-p",
            "no:cacheprovider",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
        env=dict(os.environ),
    )


def test_entry_point_is_named_after_its_module():
    # pytest registers an entry-point plugin under the entry point's name and a `-p MODULE` plugin under
    # the module's name; one module under two names is refused ("Plugin already registered under a
    # different name"), so the documented `-p roc_conformance.pytest_plugin` only works when they agree.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    plugins = project["project"]["entry-points"]["pytest11"]
    assert plugins == {"roc_conformance.pytest_plugin": "roc_conformance.pytest_plugin"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "load",
    [
        pytest.param([], id="entry-point"),
        pytest.param(["-p", "roc_conformance.pytest_plugin"], id="documented-p-option"),
    ],
)
def test_plugin_runs_checks_against_the_reference(tmp_path, load):
    junit = tmp_path / "junit.xml"
    # the plugin loads through its pytest11 entry point; `-p` as documented must not clash with it
    proc = run_plugin(tmp_path, *load, "-k", "error-shape", f"--junitxml={junit}", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    assert any(n.startswith("explicit:error-shape[ROC-ERR-003") for n in names), names
    assert "passed" in proc.stdout


@pytest.mark.slow
def test_roc_profile_core_runs_core_checks_that_need_the_claimed_executor(tmp_path):
    # vector:unknown-tool needs core and sequential-executor; --roc-profile core used to skip it ("profile
    # 'sequential-executor' not selected"), so no core check could run. It judges core, so it runs.
    proc = run_plugin(
        tmp_path,
        "-p",
        "roc_conformance.pytest_plugin",
        "--roc-profile",
        "core",
        "-k",
        "unknown-tool or session-round-trip",
        "-rs",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # explicit:session-round-trip judges sessions requirements only: not selected, so skipped
    assert "1 passed, 1 skipped" in proc.stdout, proc.stdout
    assert "judges no requirement of 'core'" in proc.stdout, proc.stdout
