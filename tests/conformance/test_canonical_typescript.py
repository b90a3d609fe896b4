"""The TypeScript kit (conformance/adapters/kit-typescript) checks the cross-language canonical JSON vectors
(spec/examples/canonical/vectors.json) with the npm package ``canonicalize``: ``npm test`` must pass.

Skipped, with the reason, when Node.js or npm is not installed. ``npm ci`` runs only when node_modules is
missing or older than package-lock.json, so a warm checkout costs one ``npm test``.
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


def _run(command: list[str], timeout: int) -> None:
    try:
        done = subprocess.run(command, cwd=KIT, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(command)} did not finish in {timeout} s: {exc.stdout}\n{exc.stderr}")
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")


@pytest.mark.req("ROC-SNAP-008", "ROC-SNAP-015")
def test_the_typescript_kit_reproduces_every_canonical_vector() -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the TypeScript kit's vector test; they are not on PATH")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.skip(f"the TypeScript kit needs Node.js 20 or later, found {version}")
    if not INSTALLED.is_file() or INSTALLED.stat().st_mtime < LOCK.stat().st_mtime:
        _run([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
    _run([npm, "test"], timeout=300)
