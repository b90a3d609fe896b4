"""mkdocs hook: reference pages generated at build time from spec/requirements.json and proto/.

One source of truth per fact: these pages are never committed, so they cannot drift from what they show.
"""

from __future__ import annotations

import json
import re
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
        "Every normative statement of RoC 1.0, generated from `spec/requirements.json` (itself generated",
        "from the chapters). Follow an ID to its text in context.",
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
        text = re.sub(r"\]\(#", f"]({r['chapter']}#", text)  # same-chapter anchors
        text = re.sub(r"\]\((?!https?:)([^)]+)\)", r"](spec/\1)", text)  # chapter-relative links
        untestable = " *(untestable through the harness)*" if r.get("untestable") else ""
        lines.append(
            f"| [{r['id']}](spec/{r['anchor']}) | {r['level']} | `{r['profile']}` | {text}{untestable} |"
        )
    return "\n".join(lines) + "\n"


def _proto_page() -> str:
    lines = [
        "# Protobuf reference",
        "",
        "The protobuf files of the data model (`roc.v1`) and of the conformance harness",
        "(`roc.conformance.v1`), shown as they are in `proto/`.",
        "",
    ]
    for proto in sorted((ROOT / "proto").rglob("*.proto")):
        rel = proto.relative_to(ROOT / "proto")
        lines += [f"## `{rel}`", "", "```protobuf", proto.read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines)


def _conformance_page() -> str:
    """conformance/README.md with its repository-relative links pointed at the site's own pages."""
    text = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(\.\./spec/", "](spec/", text)
    return re.sub(r"\]\(\.\./proto/[^)]*\)", "](proto.md)", text)


def _results_page() -> str:
    """The implementations x requirements matrix of the reports under reports/ (measured results only)."""
    from roc_conformance.report import matrix

    reports = sorted((ROOT / "reports").glob("**/report.json"))
    head = [
        "# Conformance results",
        "",
        "Measured results only: each column is a `report.json` written by `roc-conformance run`",
        "(`make run` writes the reference runtime's). A self-declared feature list is not evidence",
        "and is never shown here.",
        "",
    ]
    if not reports:
        missing = "No report is present in this build: run `make run` before `make docs`."
        return "\n".join([*head, missing, ""])
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in reports]
    return "\n".join(head) + "\n" + matrix(docs)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    pages = (
        ("requirements.md", _requirements_page()),
        ("proto.md", _proto_page()),
        ("conformance.md", _conformance_page()),
        ("results.md", _results_page()),
    )
    for uri, content in pages:
        files.append(File.generated(config, uri, content=content))
    # Files of conformance/ that its README links to (schemas), published beside the page that links them.
    for target in re.findall(r"\]\((?!\.\./|https?:|#)([^)#]+)\)", _conformance_page()):
        source = ROOT / "conformance" / target
        if source.is_file():
            files.append(File.generated(config, target, content=source.read_text(encoding="utf-8")))
    return files
