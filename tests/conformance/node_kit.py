"""The TypeScript kit (conformance/adapters/kit-typescript) for the tests that need Node.js: where it is,
and a ready ``node`` with the kit's locked dependencies installed, or a skip saying what is missing.

``npm ci`` runs only when node_modules is missing or older than package-lock.json, so a warm checkout costs
nothing here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[2] / "conformance" / "adapters" / "kit-typescript"
LOCK = KIT / "package-lock.json"
# npm writes this file at the end of every install; its age says when node_modules was last brought in line.
INSTALLED = KIT / "node_modules" / ".package-lock.json"


def run(
    command: list[str], timeout: int, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in the kit's directory; a timeout fails the test with what was printed."""
    try:
        return subprocess.run(
            command, cwd=KIT, capture_output=True, text=True, timeout=timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(command)} did not finish in {timeout} s: {exc.stdout!r}\n{exc.stderr!r}")


def checked(command: list[str], timeout: int) -> None:
    """Run ``command`` in the kit's directory; a non-zero exit fails the test with its output."""
    done = run(command, timeout)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")


def ready_node() -> str:
    """The node binary (20 or later), with the kit's dependencies installed; skips when there is none."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the TypeScript kit's tests; they are not on PATH")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.skip(f"the TypeScript kit needs Node.js 20 or later, found {version}")
    if not INSTALLED.is_file() or INSTALLED.stat().st_mtime < LOCK.stat().st_mtime:
        checked([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
    return node
