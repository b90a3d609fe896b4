"""mkdocs hook: reference pages generated at build time from spec/requirements.json and proto/, and the
compatibility pages from the results `make compat` committed under compat/, and the performance page from the
results `make bench` committed in benchmarks/results.json.

One source of truth per fact: these pages are never committed, so they cannot drift from what they show.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


_LEVEL_ORDER = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")

# The filter bar of the requirements page. It is shown by this script only, so with JavaScript off the
# page is the complete list with no dead controls. A row shows when both its profile and its level are
# ticked; a chapter section with no row showing is hidden with its heading.
_REQUIREMENTS_FILTER_SCRIPT = """
(function () {
  var bar = document.getElementById("roc-reqs-filter");
  if (!bar) return;
  var rows = Array.prototype.slice.call(document.querySelectorAll(".roc-reqs__row"));
  var sections = Array.prototype.slice.call(document.querySelectorAll(".roc-reqs__chapter"));
  var count = document.getElementById("roc-reqs-filter-count");
  function ticked(name) {
    var on = {};
    bar.querySelectorAll('input[name="' + name + '"]').forEach(function (box) {
      if (box.checked) on[box.value] = true;
    });
    return on;
  }
  function apply() {
    var profiles = ticked("profile"), levels = ticked("level"), shown = 0;
    rows.forEach(function (row) {
      var show = profiles[row.dataset.profile] === true && levels[row.dataset.level] === true;
      row.hidden = !show;
      if (show) shown += 1;
    });
    sections.forEach(function (section) {
      section.hidden = !section.querySelector(".roc-reqs__row:not([hidden])");
    });
    count.textContent = shown + " of " + rows.length + " requirements shown.";
  }
  bar.addEventListener("change", apply);
  bar.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-set]");
    if (!button) return;
    event.preventDefault();
    bar.querySelectorAll('input[name="' + button.dataset.group + '"]').forEach(function (box) {
      box.checked = button.dataset.set === "all";
    });
    apply();
  });
  bar.hidden = false;
  apply();
})();
"""


def _chapter_title(chapter: str) -> str:
    """A chapter's title is its first `# ` heading: the chapter file is the one place it is written."""
    for line in (ROOT / "spec" / chapter).read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return chapter


def _filter_group(name: str, legend: str, values: list[str], counts: Counter[str]) -> list[str]:
    lines = [f'<fieldset class="roc-reqs-filter__group"><legend>{legend}</legend>']
    for value in values:
        lines.append(
            f'<label><input type="checkbox" name="{name}" value="{html.escape(value, quote=True)}" checked> '
            f"{html.escape(value)} <small>({counts[value]})</small></label>"
        )
    lines.append(
        f'<button type="button" data-group="{name}" data-set="all">all</button>'
        f'<button type="button" data-group="{name}" data-set="none">none</button>'
    )
    lines.append("</fieldset>")
    return lines


def _requirement_row(r: dict[str, Any]) -> list[str]:
    text = " ".join(str(r["text"]).split())
    text = re.sub(r"\]\(#", f"]({r['chapter']}#", text)  # same-chapter anchors
    text = re.sub(r"\]\((?!https?:)([^)]+)\)", r"](spec/\1)", text)  # chapter-relative links
    untestable = (
        ' <em class="roc-reqs__untestable">(untestable through the harness)</em>'
        if r.get("untestable")
        else ""
    )
    level, profile = str(r["level"]), str(r["profile"])
    modifier = level.lower().replace(" ", "-")
    # The row carries the classes of a requirement block so that its level badge takes the block's colours
    # (light and dark) from the shared stylesheet; the block's own frame is undone for rows in extra.css.
    return [
        f'<tr class="roc-req roc-req--{modifier} roc-reqs__row" data-level="{level}" data-profile="{profile}"'
        ' markdown="1">',
        f'<td class="roc-reqs__id" markdown="span">[{r["id"]}](spec/{r["chapter"]}#{r["id"]})</td>',
        '<td class="roc-reqs__badges">'
        f'<span class="roc-req__badge roc-req__level" title="Requirement level">{level}</span> '
        f'<span class="roc-req__badge roc-req__profile" title="Profile">{profile}</span></td>',
        f'<td class="roc-reqs__text" markdown="span">{text}{untestable}</td>',
        "</tr>",
    ]


def _requirements_page() -> str:
    path = ROOT / "spec" / "requirements.json"
    if not path.exists():
        return "# Requirements\n\n`spec/requirements.json` has not been generated yet.\n"
    document = json.loads(path.read_text(encoding="utf-8"))
    reqs: list[dict[str, Any]] = document["requirements"]
    by_level = Counter(str(r["level"]) for r in reqs)
    by_profile = Counter(str(r["profile"]) for r in reqs)
    levels = sorted(by_level, key=lambda lv: (_LEVEL_ORDER.index(lv) if lv in _LEVEL_ORDER else 99, lv))
    profiles = sorted(by_profile)
    chapters: dict[str, list[dict[str, Any]]] = {}
    for r in reqs:  # requirements.json lists the requirements in spec order: its chapters come in that order
        chapters.setdefault(str(r["chapter"]), []).append(r)
    lines = [
        "# Requirements",
        "",
        f"Every normative statement of RoC {document['specVersion']}, generated from",
        "`spec/requirements.json` (itself generated from the chapters). Follow an ID to its text in context,",
        "or type one into the [lookup box](r/index.md): `/r/<ID>/` leads to any requirement.",
        "",
        f"**{len(reqs)} requirements** — "
        + ", ".join(f"{level}: {by_level[level]}" for level in levels)
        + ". By profile: "
        + ", ".join(f"`{p}`: {by_profile[p]}" for p in profiles)
        + ".",
        "",
        '<form id="roc-reqs-filter" class="roc-reqs-filter" hidden>',
        *_filter_group("profile", "Profile", profiles, by_profile),
        *_filter_group("level", "Level", levels, by_level),
        '<p id="roc-reqs-filter-count" class="roc-reqs-filter__count" aria-live="polite"></p>',
        "</form>",
        "",
    ]
    for chapter, rows in chapters.items():
        lines += [
            f'<section class="roc-reqs__chapter" data-chapter="{chapter}" markdown="1">',
            "",
            f"## {_chapter_title(chapter)}",
            "",
            '<table class="roc-reqs" markdown="1">',
            "<thead><tr><th>ID</th><th>level · profile</th><th>requirement</th></tr></thead>",
            '<tbody markdown="1">',
        ]
        for r in rows:
            lines += _requirement_row(r)
        lines += ["</tbody>", "</table>", "", "</section>", ""]
    lines += [f"<script>{_REQUIREMENTS_FILTER_SCRIPT}</script>", ""]
    return "\n".join(lines)


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
    text = text.replace("](../docs/", "](")
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
    conformance = _conformance_page()
    pages = (
        ("requirements.md", _requirements_page()),
        ("performance.md", _performance_page()),
        ("proto.md", _proto_page()),
        ("conformance.md", conformance),
        *_compat_pages(),
    )
    for uri, content in pages:
        files.append(File.generated(config, uri, content=content))
    # Files of conformance/ that its README links to (schemas), published beside the page that links them.
    for target in re.findall(r"\]\((?!\.\./|https?:|#)([^)#]+)\)", conformance):
        source = ROOT / "conformance" / target
        if source.is_file():
            # The same file may already be published (two links to it, or a copy under docs/): replace it.
            if (existing := files.get_file_from_path(target)) is not None:
                files.remove(existing)
            files.append(File.generated(config, target, content=source.read_text(encoding="utf-8")))
    return files
