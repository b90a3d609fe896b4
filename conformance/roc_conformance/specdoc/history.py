"""IDs are never renumbered nor reused: every ID of the last committed requirements.json must still exist.

The committed file is the memory of which IDs were ever published; an ID that vanishes from the chapters is
either a renumbering (tests and checks tagged with it now point at a different rule) or a deletion that
frees the number for reuse. Both are reported.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .parser import Requirement


def committed_requirements_text(root: Path, rev: str = "HEAD") -> str | None:
    """spec/requirements.json as committed at ``rev``, or None (no git, no commit, file not committed)."""
    try:
        proc = subprocess.run(
            ["git", "show", f"{rev}:spec/requirements.json"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def removed_ids(previous_json: str, current: Sequence[Requirement]) -> list[tuple[str, str]]:
    """(id, chapter it lived in) for each previously published ID the spec no longer defines."""
    previous = json.loads(previous_json).get("requirements", [])
    now = {req.id for req in current}
    return [(str(item["id"]), str(item.get("chapter", ""))) for item in previous if item["id"] not in now]
