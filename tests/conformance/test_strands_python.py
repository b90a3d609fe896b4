"""The Strands Agents (Python) adapter (conformance/adapters/strands-python) passes ``roc-conformance smoke``.

The adapter runs in its own virtualenv with strands-agents 1.62.0 (``make strands-python``); CI never builds
it, so the test is skipped, with the reason, when that virtualenv is missing. Smoke judges the adapter, not
the SDK: known divergences of strands-agents show up as RUNTIME lines and still end in ADAPTER OK.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADAPTER_DIR = ROOT / "conformance" / "adapters" / "strands-python"
VENV_PYTHON = ADAPTER_DIR / ".venv" / "bin" / "python"
ADAPTER = ADAPTER_DIR / "strands_adapter.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not VENV_PYTHON.exists(),
        reason=f"no Strands adapter virtualenv at {VENV_PYTHON.parent.parent}: run `make strands-python`",
    ),
]


def test_smoke_says_adapter_ok() -> None:
    target = f"cmd:{VENV_PYTHON} {ADAPTER} --port 0"
    smoke = [sys.executable, "-m", "roc_conformance.cli", "smoke", "--target", target]
    try:
        done = subprocess.run(smoke, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"smoke did not finish in 300 s: {exc.stdout!r}\n{exc.stderr!r}")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "ADAPTER OK" in output, output
    assert "Describe: strands-agents 1.62.0" in output, output
