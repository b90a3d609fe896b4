"""mkdocs hook: reference pages generated at build time from spec/requirements.json and proto/, and the
compatibility pages from the results `make compat` committed under compat/, and the performance page from the
results `make bench` committed in benchmarks/results.json.

One source of truth per fact: these pages are never committed, so they cannot drift from what they show.
"""

from __future__ import annotations

import json
import re
import sys
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
    document = json.loads(path.read_text(encoding="utf-8"))
    reqs: list[dict[str, Any]] = document["requirements"]
    by_level = Counter(r["level"] for r in reqs)
    by_profile = Counter(r["profile"] for r in reqs)
    lines = [
        "# Requirements",
        "",
        f"Every normative statement of RoC {document['specVersion']}, generated from",
        "`spec/requirements.json` (itself generated from the chapters). Follow an ID to its text in context,",
        "or type one into the [lookup box](r/index.md): `/r/<ID>/` leads to any requirement.",
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


def _compat_pages() -> list[tuple[str, str]]:
    """The compatibility matrix (results.md) and one known-deviations page per implementation
    (compat/<name>.md), rendered from the results `make compat` committed under compat/; nothing is run."""
    from roc_conformance.compat import IMPLEMENTATIONS, CompatError, build_matrix, read_results
    from roc_conformance.compat_pages import Links, deviations_page, matrix_page, placeholder_page
    from roc_conformance.registry import load_registry

    links = Links.site()
    runs, paths = read_results(ROOT / "compat") if (ROOT / "compat").is_dir() else ([], None)
    head = "# Compatibility matrix\n\n"
    if not runs:
        matrix = head + "No results are committed in `compat/` yet: run `make compat` and commit them.\n"
    else:
        try:
            built = build_matrix(runs, load_registry(), paths=paths)
        except CompatError as exc:
            # The site shows why it has no matrix rather than mixing runs of different suite commits.
            matrix = head + f"The committed results cannot be combined: {exc}.\n"
        else:
            matrix = matrix_page(built, runs, links)
    pages = [("results.md", matrix)]
    done = {run["implementation"] for run in runs}
    pages += [(f"compat/{run['implementation']}.md", deviations_page(run, links)) for run in runs]
    pages += [
        (f"compat/{impl.name}.md", placeholder_page(impl.title, impl.install or "make compat"))
        for impl in IMPLEMENTATIONS
        if impl.name not in done
    ]
    return pages


def _performance_page() -> str:
    if not (ROOT / "benchmarks" / "results.json").exists():
        return "# Performance\n\n`make bench` has not written `benchmarks/results.json` yet.\n"
    # benchmarks/ is a directory of the repository, not an installed package: render with its own code.
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import report
    finally:
        sys.path.remove(str(ROOT))
    return report.render_page(report.load())


def on_files(files: Files, config: MkDocsConfig) -> Files:
    pages = (
        ("requirements.md", _requirements_page()),
        ("performance.md", _performance_page()),
        ("proto.md", _proto_page()),
        ("conformance.md", _conformance_page()),
        *_compat_pages(),
    )
    for uri, content in pages:
        files.append(File.generated(config, uri, content=content))
    # Files of conformance/ that its README links to (schemas), published beside the page that links them.
    for target in re.findall(r"\]\((?!\.\./|https?:|#)([^)#]+)\)", _conformance_page()):
        source = ROOT / "conformance" / target
        if source.is_file():
            files.append(File.generated(config, target, content=source.read_text(encoding="utf-8")))
    return files
