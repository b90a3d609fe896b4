"""The compatibility matrix page of the built site (results.md): every FAIL or ERROR cell links to an entry
that exists on its implementation's known-deviations page, every requirement ID to an anchor of its spec
chapter, and the profile filter is there as a script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNS = [
    json.loads(p.read_text(encoding="utf-8"))
    for p in sorted((ROOT / "compat").glob("*.json"))
    if p.name not in ("matrix.json", "snapshot-paths.json")
]

pytestmark = pytest.mark.skipif(not RUNS, reason="no results committed under compat/ yet")


def ids_of(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def test_each_failure_cell_links_to_an_entry_of_the_deviations_page(site: Path) -> None:
    html = (site / "results" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="\.\./compat/([a-z0-9-]+)/#([^"]+)"[^>]*>([^<]*)</a>', html)
    expected = {
        (run["implementation"], rid.lower())
        for run in RUNS
        for rid, req in run["requirements"].items()
        if req["status"] in ("FAIL", "ERROR")
    }
    assert {(name, target) for name, target, _ in links} == expected
    for name, target, text in links:
        assert "FAIL" in text or "ERROR" in text
        assert target in ids_of(site / "compat" / name / "index.html"), (name, target)


def test_each_requirement_id_links_to_its_spec_anchor(site: Path) -> None:
    html = (site / "results" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="\.\./spec/([a-z0-9-]+)/#([^"]+)">(ROC-[A-Z]+-\d+)</a>', html)
    requirements = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert sorted(rid for _, _, rid in links) == sorted(r["id"] for r in requirements["requirements"])
    pages: dict[str, set[str]] = {}
    for chapter, target, rid in links:
        found = pages.setdefault(chapter, ids_of(site / "spec" / chapter / "index.html"))
        assert target in found, (rid, chapter, target)


def test_the_profile_filter_is_a_script_over_the_profile_sections(site: Path) -> None:
    html = (site / "results" / "index.html").read_text(encoding="utf-8")
    assert '<div id="roc-profile-filter"></div>' in html
    assert 'document.addEventListener("DOMContentLoaded"' in html
    sections = re.findall(r'<h2 id="profile-([a-z-]+)"', html)
    requirements = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert sections == list(dict.fromkeys(r["profile"] for r in requirements["requirements"]))
    # The repository's copy is read where scripts are stripped: it has none.
    assert "<script>" not in (ROOT / "compat" / "matrix.md").read_text(encoding="utf-8")
