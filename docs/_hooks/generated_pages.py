"""mkdocs hook: reference pages generated at build time from spec/requirements.json and proto/.

One source of truth per fact: these pages are never committed, so they cannot drift from what they show.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


def _requirements_page() -> str:
    path = ROOT / "spec" / "requirements.json"
    if not path.exists():
        return "# Requirements\n\n`spec/requirements.json` has not been generated yet.\n"
    reqs: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["requirements"]
    by_level = Counter(r["level"] for r in reqs)
    by_profile = Counter(r["profile"] for r in reqs)
    lines = [
        "# Requirements",
        "",
        "Every normative statement of RoC 1.0, generated from `spec/requirements.json` (itself generated from the",
        "chapters). Follow an ID to its text in context.",
        "",
        f"**{len(reqs)} requirements** — "
        + ", ".join(f"{level}: {n}" for level, n in sorted(by_level.items()))
        + ". By profile: "
        + ", ".join(f"`{p}`: {n}" for p, n in sorted(by_profile.items()))
        + ".",
        "",
        "| ID | level | profile | requirement |",
        "|---|---|---|---|",
    ]
    for r in reqs:
        text = " ".join(str(r["text"]).split()).replace("|", "\\|")
        untestable = " *(untestable through the harness)*" if r.get("untestable") else ""
        lines.append(
            f"| [{r['id']}](spec/{r['anchor']}) | {r['level']} | `{r['profile']}` | {text}{untestable} |"
        )
    return "\n".join(lines) + "\n"


def _proto_page() -> str:
    lines = [
        "# Protobuf reference",
        "",
        "The protobuf files of the data model (`roc.v1`) and of the conformance harness (`roc.conformance.v1`),",
        "shown as they are in `proto/`.",
        "",
    ]
    for proto in sorted((ROOT / "proto").rglob("*.proto")):
        rel = proto.relative_to(ROOT / "proto")
        lines += [f"## `{rel}`", "", "```protobuf", proto.read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for uri, content in (("requirements.md", _requirements_page()), ("proto.md", _proto_page())):
        files.append(File.generated(config, uri, content=content))
    return files
