"""mkdocs hook: a "What changed" page per spec version (changes/<version>/), generated at build time and
listed in the Specification section of the navigation right after the changelog, newest first.

Each page shows the version's status (candidate or final, from its heading in spec/CHANGELOG.md), its section
of the changelog (read from spec/CHANGELOG.md at build time, the one place that prose is written), and the
requirements added, removed and changed (text, level or profile) since the version before, each ID linking to
its block in the chapters.

The requirement set of the current version is spec/requirements.json; that of an earlier version is
spec/history/requirements-<version>.json, a byte-for-byte copy of spec/requirements.json at the last commit
of that version (spec/history/README.md). The versions are the changelog's version headings: a version
without a requirement set, or a frozen set without a changelog section, stops the build.

The page docs/versions.md carries a marker this hook replaces with the table of versions.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"
HISTORY_DIR = SPEC_DIR / "history"
CHANGELOG = SPEC_DIR / "CHANGELOG.md"
# The pages live in changes/, one directory below the site root where spec/ is published.
SPEC_URL = "../spec"
CHANGELOG_ENTRY = "spec/CHANGELOG.md"
VERSIONS_PAGE = "versions.md"
VERSIONS_MARKER = "<!-- roc:versions-table -->"
# Set by mike for the build it deploys (mike.mkdocs_utils.docs_version_var).
MIKE_VERSION_VAR = "MIKE_DOCS_VERSION"
# What makes a requirement "changed" between two versions (its section or chapter may move freely).
FIELDS = ("text", "level", "profile")
STATUSES = ("candidate", "final")
ID_CLASS = "roc-change__id"

HEADING = re.compile(r"^## (?P<version>\d+(?:\.\d+)+)\b(?P<rest>.*)$", re.MULTILINE)
LINK = re.compile(r"\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")
STATUS_LINE = re.compile(
    r"Spec version (?P<version>\d+(?:\.\d+)+), (?P<status>[a-z]+), dated (?P<date>[\d-]+)"
)

log = logging.getLogger("mkdocs.hooks.changes_pages")


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class Section:
    """One version's section of the changelog."""

    version: str
    status: str
    body: str  # the Markdown under the heading, links as the changelog writes them


@cache
def changelog() -> dict[str, Section]:
    """Version -> its changelog section, oldest first."""
    text = CHANGELOG.read_text(encoding="utf-8")
    sections: dict[str, Section] = {}
    for match in HEADING.finditer(text):
        status = re.search(r"\b(" + "|".join(STATUSES) + r")\b", match["rest"])
        if status is None:
            raise PluginError(
                f"spec/CHANGELOG.md: the heading of {match['version']} names no status "
                f"({' or '.join(STATUSES)})"
            )
        # A section runs to the next second-level heading, version or not (the change process follows them).
        following = re.compile(r"^## ", re.MULTILINE).search(text, match.end())
        body = text[match.end() : following.start() if following else len(text)].strip()
        sections[match["version"]] = Section(match["version"], status[1], body)
    return dict(sorted(sections.items(), key=lambda item: version_key(item[0])))


def _load(path: Path) -> tuple[str, list[dict[str, Any]]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return str(doc["specVersion"]), list(doc["requirements"])


@cache
def current_version() -> str:
    return _load(SPEC_DIR / "requirements.json")[0]


@cache
def requirement_sets() -> dict[str, list[dict[str, Any]]]:
    """Version -> its requirements, for every version of the changelog, oldest first."""
    sets: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(HISTORY_DIR.glob("requirements-*.json")):
        version, reqs = _load(path)
        if path.name != f"requirements-{version}.json":
            raise PluginError(f"spec/history/{path.name} holds the requirements of spec version {version}")
        sets[version] = reqs
    # The current version is always read live; a frozen copy of it would only go stale.
    version, reqs = _load(SPEC_DIR / "requirements.json")
    sets[version] = reqs
    versions = changelog()
    if missing := sorted(set(versions) - set(sets), key=version_key):
        raise PluginError(
            f"no requirement set for spec version(s) {', '.join(missing)}: freeze each as "
            "spec/history/requirements-<version>.json (spec/history/README.md says how)"
        )
    if unknown := sorted(set(sets) - set(versions), key=version_key):
        raise PluginError(f"spec version(s) {', '.join(unknown)} have no section in spec/CHANGELOG.md")
    return {v: sets[v] for v in versions}


def previous(version: str) -> str | None:
    versions = list(changelog())
    at = versions.index(version)
    return versions[at - 1] if at else None


@dataclass(frozen=True)
class Changes:
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    changed: list[tuple[dict[str, Any], dict[str, Any], tuple[str, ...]]]  # (before, now, fields that differ)


def changes(version: str) -> Changes:
    new = requirement_sets()[version]
    before = previous(version)
    old = requirement_sets()[before] if before else []
    old_by_id = {str(r["id"]): r for r in old}
    new_ids = {str(r["id"]) for r in new}
    changed = []
    for req in new:
        was = old_by_id.get(str(req["id"]))
        if was is not None and (fields := tuple(f for f in FIELDS if was.get(f) != req.get(f))):
            changed.append((was, req, fields))
    return Changes(
        added=[r for r in new if str(r["id"]) not in old_by_id],
        removed=[r for r in old if str(r["id"]) not in new_ids],
        changed=changed,
    )


# --- rendering ----------------------------------------------------------------------------------------


def relink(markdown: str, chapter: str) -> str:
    """Links written relative to spec/<chapter> made relative to a page under changes/. A link to a file that
    is not in spec/ any more (an old requirement's text) keeps its words and loses the link."""

    def one(match: re.Match[str]) -> str:
        target = match["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return match[0]
        path, _, fragment = target.partition("#")
        path = path or chapter
        if not (SPEC_DIR / path).exists():
            return match["text"]
        return f"[{match['text']}]({SPEC_URL}/{path}{'#' + fragment if fragment else ''})"

    return LINK.sub(one, markdown)


def _id_link(req: dict[str, Any], current: dict[str, dict[str, Any]]) -> str:
    rid = str(req["id"])
    now = current.get(rid)
    if now is None:
        # Not in the chapters any more, so there is no block to link to (the change process forbids this;
        # tests/docs/test_changes_pages.py holds it).
        return f"**{rid}** (no longer in the specification)"
    return f"[{rid}]({SPEC_URL}/{now['chapter']}#{rid}){{ .{ID_CLASS} }}"


def _item(req: dict[str, Any], current: dict[str, dict[str, Any]]) -> str:
    text = relink(str(req["text"]), str(req["chapter"]))
    return f"- {_id_link(req, current)} · {req['level']} · `{req['profile']}`: {text}"


def _block(kind: str, items: list[str]) -> list[str]:
    # md_in_html keeps the Markdown inside; data-change is what the tests read the lists by.
    body = items or ["None."]
    return [f'<div class="roc-changes" data-change="{kind}" markdown>', "", *body, "", "</div>", ""]


def status_line() -> tuple[str, str, str] | None:
    """(version, status, date) from the status section of spec/README.md."""
    match = STATUS_LINE.search((SPEC_DIR / "README.md").read_text(encoding="utf-8"))
    return (match["version"], match["status"], match["date"]) if match else None


def change_page(version: str) -> str:
    section = changelog()[version]
    reqs = requirement_sets()[version]
    current = {str(r["id"]): r for r in requirement_sets()[current_version()]}
    before = previous(version)
    diff = changes(version)
    stated = status_line()
    dated = f", dated {stated[2]}" if stated and stated[0] == version else ""
    lines = [f"# What changed in RoC {version}", ""]
    if version == current_version():
        standing = "The current version."
    else:
        standing = f"Superseded by [RoC {_later(version)}]({_later(version)}.md)."
    lines += [f"**Status:** {section.status}{dated}. {standing}", ""]
    if before:
        lines.append(
            f"{len(reqs)} requirements: {len(diff.added)} added, {len(diff.removed)} removed and "
            f"{len(diff.changed)} changed (text, level or profile) since [RoC {before}]({before}.md)."
        )
    else:
        lines.append(f"RoC {version} is the first version: each of its {len(reqs)} requirements is new.")
    lines += [
        "",
        "Each ID links to its requirement as the current specification states it; how to read the text of an",
        "earlier version is on [Versions](../versions.md).",
        "",
        "## From the changelog",
        "",
        f"The section of RoC {version} in the [changelog]({SPEC_URL}/CHANGELOG.md):",
        "",
        relink(section.body, "CHANGELOG.md"),
        "",
        f"## Requirements added ({len(diff.added)})",
        "",
        *_block("added", [_item(r, current) for r in diff.added]),
        f"## Requirements removed ({len(diff.removed)})",
        "",
        *_block("removed", [_item(r, current) for r in diff.removed]),
        f"## Requirements changed ({len(diff.changed)})",
        "",
    ]
    items: list[str] = []
    for was, now, fields in diff.changed:
        items.append(f"- {_id_link(now, current)}: {', '.join(fields)} changed")
        for field in fields:
            if field == "text":
                items.append(f"    - in {before}: {relink(str(was['text']), str(was['chapter']))}")
                items.append(f"    - in {version}: {relink(str(now['text']), str(now['chapter']))}")
            else:
                items.append(f"    - {field}: `{was[field]}` in {before}, `{now[field]}` in {version}")
    lines += _block("changed", items)
    return "\n".join(lines)


def _later(version: str) -> str:
    versions = list(changelog())
    return versions[versions.index(version) + 1]


def versions_table() -> str:
    lines = ["| version | status | requirements | what changed |", "|---|---|---|---|"]
    for version, section in reversed(changelog().items()):
        mark = " (current)" if version == current_version() else ""
        lines.append(
            f"| {version}{mark} | {section.status} | {len(requirement_sets()[version])} "
            f"| [What changed in {version}](changes/{version}.md) |"
        )
    return "\n".join(lines)


# --- mkdocs events ------------------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    for cached in (changelog, current_version, requirement_sets):
        cached.cache_clear()  # mkdocs serve rebuilds in the same process
    if not os.environ.get(MIKE_VERSION_VAR):
        # Only a site that mike deploys has ../versions.json beside it; in any other build (make docs, the
        # tests, mkdocs serve) the theme's version selector would only request a file that is not there.
        config.extra.pop("version", None)
    stated = status_line()
    if stated and stated[0] in changelog() and changelog()[stated[0]].status != stated[1]:
        log.warning(
            f"spec/README.md gives {stated[0]} the status {stated[1]!r}, its changelog heading "
            f"{changelog()[stated[0]].status!r}"
        )
    # The pages exist only once on_files has run, but the nav is resolved after that, so it can name them.
    section = next(
        (
            item["Specification"]
            for item in config.nav or []
            if isinstance(item, dict) and "Specification" in item
        ),
        None,
    )
    if section is None:
        return config
    entries = [{f"What changed in {v}": f"changes/{v}.md"} for v in reversed(changelog())]
    if any(entry in section for entry in entries):
        return config
    at = next(
        (
            i + 1
            for i, item in enumerate(section)
            if item == CHANGELOG_ENTRY or (isinstance(item, dict) and CHANGELOG_ENTRY in item.values())
        ),
        len(section),
    )
    section[at:at] = entries
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for version in changelog():
        files.append(File.generated(config, f"changes/{version}.md", content=change_page(version)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri == VERSIONS_PAGE:
        if VERSIONS_MARKER not in markdown:
            log.warning(f"{VERSIONS_PAGE} has lost the marker {VERSIONS_MARKER} of the versions table")
        return markdown.replace(VERSIONS_MARKER, versions_table())
    return markdown
