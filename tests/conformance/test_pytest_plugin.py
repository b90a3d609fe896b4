"""``pytest --roc-target``: conformance checks as pytest items whose names carry requirement IDs."""

from __future__ import annotations

import os
import subprocess
import sys
from xml.etree import ElementTree as ET

import pytest


@pytest.mark.slow
def test_plugin_runs_checks_against_the_reference(tmp_path):
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",  # the plugin loads through its pytest11 entry point
            "--roc-target",
            "reference",
            "-k",
            "error-shape",
            f"--junitxml={junit}",
            "-q",
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
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    assert any(n.startswith("explicit:error-shape[ROC-ERR-003") for n in names), names
    assert "passed" in proc.stdout
