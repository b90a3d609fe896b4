"""``benchmarks/results.json``: what one ``make bench`` measured, and the Markdown page rendered from it.

The docs site renders the page at build time from the committed file (docs/_hooks/generated_pages.py), so
the numbers a reader sees are exactly the ones the last full run wrote, with the machine and versions
they were measured on.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.common import Section, section_from_json

RESULTS_SCHEMA = 1
RESULTS_PATH = Path(__file__).resolve().parent / "results.json"
_PACKAGES = ("roc-protocol", "strands-agents", "grpcio", "protobuf", "pydantic", "rfc8785", "hypothesis")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def machine() -> dict[str, Any]:
    """Where the numbers come from; the load average says how busy the machine was."""
    return {
        "cpus": os.cpu_count(),
        "cpu": _cpu_model(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "loadAverage": list(os.getloadavg()),
    }


def results_document(
    sections: list[Section], scale: str, started: datetime, load_before: list[float]
) -> dict[str, Any]:
    info = machine()
    info["loadAverageBefore"] = load_before
    return {
        "schema": RESULTS_SCHEMA,
        "scale": scale,
        "startedAt": started.isoformat(timespec="seconds"),
        "finishedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": info,
        "versions": {name: _version(name) for name in _PACKAGES},
        "sections": [s.to_json() for s in sections],
    }


def write(document: Mapping[str, Any], path: Path) -> None:
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _cell(value: Any, fmt: str) -> str:
    if value is None:
        return "–"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def _met(met: bool | None) -> str:
    return {True: "met", False: "**missed**", None: "not judged"}[met]


def render_page(document: Mapping[str, Any]) -> str:
    """The docs page: a summary of every target, then each benchmark's method, tables and notes."""
    sections = [section_from_json(s) for s in document["sections"]]
    info = document["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in document["versions"].items() if v is not None)
    load = " / ".join(f"{x:.2f}" for x in info["loadAverageBefore"])
    lines = [
        "# Performance",
        "",
        f"Measured by `make bench` ({document['scale']} scale) on {document['startedAt']}"
        + (f" at commit `{document['commit']}`" if document.get("commit") else "")
        + f": {info['cpus']} × {info['cpu']}, {info['system']}, Python {info['python']}; load average "
        f"before the run {load} (1, 5, 15 min). Versions: {versions}.",
        "",
        "Every comparison runs both sides in the same process or command, interleaved A B A B, and reports "
        "the median with the minimum and maximum. No test asserts a time; the tests only run the benchmarks "
        "at a tiny scale to keep them working. The raw numbers are in `benchmarks/results.json`.",
        "",
        "## Targets",
        "",
        "| benchmark | goal | measured | |",
        "|---|---|---|---|",
    ]
    for section in sections:
        for target in section.targets:
            lines.append(f"| {section.title} | {target.goal} | {target.measured} | {_met(target.met)} |")
    for section in sections:
        lines += ["", f"## {section.title}", "", section.method.strip()]
        for table in section.tables:
            lines += ["", f"**{table.title}**", ""]
            lines.append("| " + " | ".join(c.header for c in table.columns) + " |")
            lines.append("|" + "|".join("---:" for _ in table.columns) + "|")
            for row in table.rows:
                lines.append("| " + " | ".join(_cell(row.get(c.key), c.fmt) for c in table.columns) + " |")
        if section.notes:
            lines.append("")
            lines += [f"- {note}" for note in section.notes]
    return "\n".join(lines) + "\n"


def load(path: Path = RESULTS_PATH) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if document.get("schema") != RESULTS_SCHEMA:
        raise ValueError(f"{path}: results schema {document.get('schema')!r}, expected {RESULTS_SCHEMA}")
    return document
