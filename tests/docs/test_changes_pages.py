"""The "What changed" pages (changes/<version>/, docs/_hooks/changes_pages.py) and the requirement sets of the
spec versions (spec/history/).

The tests read the built site. What a page should list is worked out here from the JSON files on their own
(spec/history/requirements-<version>.json for an earlier version, spec/requirements.json for the current one)
and from spec/CHANGELOG.md, not with the hook's code: a page that drops, invents or misfiles a requirement, a
link that does not reach its block, or a changelog section cut at the wrong place fails.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
HISTORY = SPEC / "history"
FIELDS = ("text", "level", "profile")
KINDS = ("added", "removed", "changed")
ID = re.compile(r"ROC-[A-Z]+-\d+")


def key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


@cache
def changelog() -> dict[str, tuple[str, str]]:
    """Version -> (status, section text) from spec/CHANGELOG.md, oldest first."""
    text = (SPEC / "CHANGELOG.md").read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    found = {}
    for part in parts:
        heading, _, body = part.partition("\n")
        match = re.match(r"(\d+\.\d+)\b.*\b(candidate|final)\b", heading)
        if match:
            found[match[1]] = (match[2], body.strip())
    return dict(sorted(found.items(), key=lambda item: key(item[0])))


def load(path: Path) -> tuple[str, list[dict[str, Any]]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc["specVersion"], doc["requirements"]


@cache
def current() -> str:
    return load(SPEC / "requirements.json")[0]


@cache
def sets() -> dict[str, list[dict[str, Any]]]:
    """Every version's requirement set, oldest first: the frozen ones and the current one."""
    found = dict(load(p) for p in HISTORY.glob("requirements-*.json"))
    found[current()] = load(SPEC / "requirements.json")[1]
    return dict(sorted(found.items(), key=lambda item: key(item[0])))


def before(version: str) -> str | None:
    versions = list(sets())
    at = versions.index(version)
    return versions[at - 1] if at else None


def expected(version: str) -> dict[str, list[str]]:
    """The IDs added, removed and changed (text, level or profile) since the version before."""
    new = {r["id"]: r for r in sets()[version]}
    prev = before(version)
    old = {r["id"]: r for r in sets()[prev]} if prev else {}
    return {
        "added": [i for i in new if i not in old],
        "removed": [i for i in old if i not in new],
        "changed": [i for i in new if i in old and any(old[i][f] != new[i][f] for f in FIELDS)],
    }


class ChangeLists(HTMLParser):
    """Per div[data-change]: the ID each top-level item opens with, the href of its ID link, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.kind: str | None = None
        self.div_depth = 0
        self.list_depth = 0
        self.items: dict[str, list[dict[str, str]]] = {}
        self.in_id_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        kind = a.get("data-change")
        if tag == "div" and kind:
            self.kind, self.div_depth = kind, 1
            self.items[kind] = []
            return
        if self.kind is None:
            return
        if tag == "div":
            self.div_depth += 1
        elif tag == "ul":
            self.list_depth += 1
        elif tag == "li" and self.list_depth == 1:
            self.items[self.kind].append({"id": "", "href": "", "text": ""})
        elif tag == "a" and "roc-change__id" in (a.get("class") or "").split() and self.list_depth == 1:
            self.in_id_link = True
            self.items[self.kind][-1]["href"] = a.get("href") or ""

    def handle_endtag(self, tag: str) -> None:
        if self.kind is None:
            return
        if tag == "a":
            self.in_id_link = False
        elif tag == "ul":
            self.list_depth -= 1
        elif tag == "div":
            self.div_depth -= 1
            if self.div_depth == 0:
                self.kind = None

    def handle_data(self, data: str) -> None:
        if self.kind is None or not self.items[self.kind] or self.list_depth == 0:
            return
        item = self.items[self.kind][-1]
        if self.in_id_link:
            item["id"] += data
        item["text"] += data


def page_path(site: Path, url: str) -> Path:
    return site / url / "index.html" if url.endswith("/") or not url else site / url


@cache
def _lists(path: Path) -> dict[str, list[dict[str, str]]]:
    parser = ChangeLists()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.items


def article_text(path: Path) -> str:
    page = path.read_text(encoding="utf-8")
    body = page.split("<article", 1)[1].split(">", 1)[1].split("</article>", 1)[0]
    # Block elements separate words, inline ones (links, code) do not.
    body = re.sub(r"</?(?:p|li|ul|ol|h[1-6]|div|table|tr|td|th|pre|br)\b[^>]*>", " ", body)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def plain(markdown: str) -> str:
    """The words a reader sees of a piece of the changelog's Markdown."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("**", "").replace("`", "")
    return " ".join(text.split())


def blocks(markdown: str) -> list[str]:
    """The paragraphs and list items of a changelog section."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", markdown):
        out += [b for b in re.split(r"^- ", para, flags=re.MULTILINE) if b.strip()]
    return out


VERSIONS = list(changelog())


# --- the requirement sets -----------------------------------------------------------------------------


def test_every_changelog_version_has_a_requirement_set() -> None:
    assert VERSIONS, "spec/CHANGELOG.md has no version sections"
    assert list(sets()) == VERSIONS
    assert current() == VERSIONS[-1]
    for path in HISTORY.glob("requirements-*.json"):
        assert path.name == f"requirements-{load(path)[0]}.json"


@pytest.mark.parametrize("version", VERSIONS[1:])
def test_ids_are_never_removed(version: str) -> None:
    """IDs are never renumbered or reused: each ID of a version is in the next one (a rule that no longer
    holds stays in its chapter, marked withdrawn)."""
    prev = before(version)
    assert prev is not None
    old = [r["id"] for r in sets()[prev]]
    new = {r["id"] for r in sets()[version]}
    assert [i for i in old if i not in new] == []


@pytest.mark.parametrize("version", VERSIONS)
def test_ids_are_unique_within_a_version(version: str) -> None:
    ids = [r["id"] for r in sets()[version]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("version", VERSIONS[1:])
def test_each_changed_requirement_is_named_in_the_changelog(version: str) -> None:
    """A requirement keeps its ID when its wording, level or profile changes, and the change is listed in the
    changelog (the change process): an ID reused for another rule would show up here as an unlisted change."""
    section = changelog()[version][1]
    assert [i for i in expected(version)["changed"] if i not in section] == []


def test_frozen_sets_are_the_committed_files_of_their_commits() -> None:
    """Each frozen set is the spec/requirements.json of the commit spec/history/README.md names for it."""
    rows = re.findall(
        r"^\| `(requirements-[\d.]+\.json)` \| commit `([0-9a-f]{7,40})`",
        (HISTORY / "README.md").read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert sorted(name for name, _ in rows) == sorted(p.name for p in HISTORY.glob("requirements-*.json"))
    for name, commit in rows:
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:spec/requirements.json"], capture_output=True
        )
        if shown.returncode != 0:
            pytest.skip(f"commit {commit} is not in this clone's history (a shallow clone)")
        assert (HISTORY / name).read_bytes() == shown.stdout, name


# --- the pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_a_page_per_version_with_its_status(site: Path, version: str) -> None:
    path = site / "changes" / version / "index.html"
    text = article_text(path)
    assert text.startswith(f"What changed in RoC {version}")
    status = changelog()[version][0]
    assert re.search(rf"Status: {status}\b", text)
    assert ("The current version." in text) == (version == current())


@pytest.mark.parametrize("version", VERSIONS)
def test_the_page_holds_its_changelog_section_and_no_other(site: Path, version: str) -> None:
    text = article_text(site / "changes" / version / "index.html")
    for block in blocks(changelog()[version][1]):
        assert plain(block) in text
    for other, (_, section) in changelog().items():
        if other != version:
            assert plain(blocks(section)[0]) not in text


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_the_lists_are_exactly_the_diff(site: Path, version: str, kind: str) -> None:
    items = _lists(site / "changes" / version / "index.html")[kind]
    assert [item["id"] for item in items] == expected(version)[kind]
    heading = f"Requirements {kind} ({len(expected(version)[kind])})"
    assert heading in article_text(site / "changes" / version / "index.html")


@pytest.mark.parametrize("version", VERSIONS[1:])
def test_changed_items_say_what_changed(site: Path, version: str) -> None:
    prev = before(version)
    assert prev is not None
    old = {r["id"]: r for r in sets()[prev]}
    new = {r["id"]: r for r in sets()[version]}
    for item in _lists(site / "changes" / version / "index.html")["changed"]:
        rid = item["id"]
        fields = [f for f in FIELDS if old[rid][f] != new[rid][f]]
        assert f"{', '.join(fields)} changed" in item["text"]
        if "text" in fields:
            assert f"in {prev}:" in item["text"]
            assert f"in {version}:" in item["text"]
        for field in set(fields) - {"text"}:
            assert f"{old[rid][field]} in {prev}, {new[rid][field]} in {version}" in item["text"]


@pytest.mark.parametrize("version", VERSIONS)
def test_each_id_links_to_its_block(site: Path, version: str) -> None:
    chapters = {r["id"]: r["chapter"] for r in sets()[current()]}
    page_url = f"changes/{version}/"
    checked = 0
    for kind, items in _lists(site / "changes" / version / "index.html").items():
        for item in items:
            url, fragment = urldefrag(urljoin(page_url, item["href"]))
            assert fragment == item["id"], (kind, item)
            assert url == f"spec/{chapters[item['id']].removesuffix('.md')}/"
            assert f'id="{fragment}"' in page_path(site, url).read_text(encoding="utf-8")
            checked += 1
    assert checked == sum(len(ids) for ids in expected(version).values())


def test_the_pages_follow_the_changelog_in_the_navigation(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    nav = page.split('class="md-nav md-nav--primary"', 1)[1]
    hrefs = re.findall(r'<a href="([^"]+)" class="md-nav__link', nav)
    at = hrefs.index("spec/CHANGELOG/")
    assert hrefs[at + 1 : at + 1 + len(VERSIONS)] == [f"changes/{v}/" for v in reversed(VERSIONS)]


def test_the_versions_page_lists_every_version(site: Path) -> None:
    page = (site / "versions" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr>\s*<td>([\d.]+)(?: \(current\))?</td>\s*<td>(\w+)</td>\s*<td>(\d+)</td>", page)
    assert rows == [(v, changelog()[v][0], str(len(sets()[v]))) for v in reversed(VERSIONS)]
    for v in VERSIONS:
        assert f'href="../changes/{v}/"' in page
    assert "roc:versions-table" not in page
