"""mkdocs hook: a reader arriving with a requirement ID lands on the rule in one step.

- Each requirement of the spec chapters (written as ``<a id="roc-hook-016"></a>`` and a blockquote opening
  ``**ROC-HOOK-016** · MUST · hooks``) is rendered as a block whose element id is the ID itself, with its
  level and profile as badges and a permalink. The lowercase anchor stays: links throughout the spec use it.
- Search: every requirement is its own search entry, titled with its ID alone (a heading the search plugin
  sections on), and weighted above pages that only mention the ID, so searching ``ROC-HOOK-016`` lists the
  rule first.
- ``/r/<ID>/`` redirects to the requirement in its chapter for every ID of spec/requirements.json, and ``/r/``
  is a lookup box, so a failing report can print one link per requirement.

The search separator is left at the theme's default, which splits IDs at their hyphens: the search engine
splits a typed query at hyphens whatever the separator is, so an index that kept ``roc-hook-016`` whole
would never match the query's ``roc``, ``hook`` and ``016`` (tests/docs/test_requirement_site.py runs the
site's own search on every ID to hold this).

The chapters are the only source of the level and profile shown; spec/requirements.json (generated from the
same chapters) only says which IDs exist and in which chapter each is.
"""

from __future__ import annotations

import html
import json
import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger("mkdocs.hooks.requirement_blocks")

# The HTML Python-Markdown renders for one requirement: the anchor paragraph, then a blockquote whose first
# paragraph is the header. The chapters never nest anything in a requirement's blockquote.
BLOCK = re.compile(
    r'<p><a id="(?P<anchor>roc-[a-z]+-\d+)"></a></p>\s*<blockquote>\s*'
    r"<p><strong>(?P<id>ROC-[A-Z]+-\d+)</strong> · (?P<level>MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)"
    r" · (?P<profile>[a-z][a-z-]*)</p>(?P<body>.*?)</blockquote>",
    re.S,
)
HEADING = re.compile(r"<h([1-6])[\s>]")

# How much more a requirement's own entry weighs than an ordinary section. Measured with the site's search
# over every ID: at 1 the known-deviations pages (a section per failed ID, which quotes the ID again) win for
# about a fifth of the IDs; from 1.5 every requirement comes first. 2 leaves a margin.
SEARCH_BOOST = 2.0
# Search locations of the requirement entries of this build (page URL + "#" + anchor), from on_page_content.
_entries: set[str] = set()


def requirements() -> list[dict[str, Any]]:
    path = ROOT / "spec" / "requirements.json"
    if not path.exists():
        return []
    reqs: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["requirements"]
    return reqs


def _block(match: re.Match[str], level: int) -> str:
    rid, req_level, profile = match["id"], match["level"], match["profile"]
    if match["anchor"] != rid.lower():
        log.warning(f"requirement {rid} is preceded by the anchor {match['anchor']!r}")
    modifier = req_level.lower().replace(" ", "-")
    # The heading is what makes the requirement its own search entry; its id is the lowercase anchor the
    # spec's links already use, the block around it carries the ID as written. The permalink's class is
    # exactly "headerlink" so that search leaves its pilcrow out of the entry's title, and the badges are
    # left out of it too: a profile such as idempotent-resume in the title would outrank ROC-RESUME-001.
    return (
        f'<div class="roc-req roc-req--{modifier}" id="{rid}" data-level="{req_level}" '
        f'data-profile="{profile}">\n'
        f'<h{level} class="roc-req__head" id="{match["anchor"]}">'
        f'<span class="roc-req__id">{rid}</span> '
        f'<span class="roc-req__badge roc-req__level" title="Requirement level" data-search-exclude="true">'
        f"{req_level}</span> "
        f'<span class="roc-req__badge roc-req__profile" title="Profile" data-search-exclude="true">'
        f"{profile}</span> "
        f'<a class="headerlink" href="#{rid}" title="Link to {rid}" aria-label="Link to {rid}">¶</a>'
        f"</h{level}>\n"
        f'<div class="roc-req__body">{match["body"].strip()}</div>\n'
        "</div>"
    )


def on_pre_build(config: MkDocsConfig) -> None:
    _entries.clear()  # mkdocs serve rebuilds in the same process


def on_page_content(html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    parts: list[str] = []
    done = 0
    for match in BLOCK.finditer(html_text):
        # One level below the section the requirement is in, so the page's outline stays well formed.
        headings = HEADING.findall(html_text, 0, match.start())
        level = min(int(headings[-1]) + 1, 6) if headings else 2
        parts += [html_text[done : match.start()], _block(match, level)]
        done = match.end()
        _entries.add(f"{page.url}#{match['anchor']}")
        if page.present_anchor_ids is not None:
            # Other pages may link to chapter.md#ROC-HOOK-016; mkdocs checks anchors against this set.
            page.present_anchor_ids.add(match["id"])
    return "".join(parts) + html_text[done:]


@event_priority(-50)  # after the search plugin has written its index
def on_post_build(config: MkDocsConfig) -> None:
    path = Path(config.site_dir) / "search" / "search_index.json"
    if not path.exists():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        if doc["location"] in _entries:
            doc["boost"] = doc.get("boost", 1) * SEARCH_BOOST
    path.write_text(json.dumps(index, separators=(",", ":")), encoding="utf-8")
    # A chapter whose requirement header changed shape would silently lose its blocks (and its /r/ targets).
    rendered = {location.rsplit("#", 1)[1] for location in _entries}
    missing = sorted(str(r["id"]) for r in requirements() if str(r["id"]).lower() not in rendered)
    if missing:
        log.warning(f"requirements not rendered as blocks: {', '.join(missing)}")


def _redirect_page(rid: str, target: str) -> str:
    safe = html.escape(target, quote=True)
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{rid}</title>\n"
        f'<meta http-equiv="refresh" content="0; url={safe}">\n'
        f'<link rel="canonical" href="{safe}">\n'
        f"<script>location.replace({json.dumps(target)});</script>\n"
        "</head>\n<body>\n"
        f'<p>{rid} is at <a href="{safe}">{safe}</a>.</p>\n'
        "</body>\n</html>\n"
    )


_LOOKUP_SCRIPT = """
(function () {
  var index = JSON.parse(document.getElementById("roc-req-index").textContent);
  var form = document.getElementById("roc-req-lookup");
  var input = form.querySelector("input");
  var out = document.getElementById("roc-req-lookup-result");
  function normal(value) { return value.trim().toUpperCase().replace(/\\s+/g, ""); }
  function show(value) {
    var id = normal(value);
    out.textContent = "";
    if (!id) return;
    var ids = Object.keys(index).filter(function (k) { return k.indexOf(id) === 0; }).slice(0, 20);
    if (!ids.length) { out.textContent = "No requirement ID starts with " + id + "."; return; }
    ids.forEach(function (k) {
      var a = document.createElement("a");
      a.href = index[k];
      a.textContent = k;
      out.appendChild(a);
      out.appendChild(document.createTextNode(" "));
    });
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var id = normal(input.value);
    if (index[id]) location.href = index[id]; else show(input.value);
  });
  input.addEventListener("input", function () { show(input.value); });
  // /r/#ROC-HOOK-016 and /r/?id=roc-hook-016 go straight to the requirement, in any case.
  var asked = normal(decodeURIComponent(location.hash.slice(1)) ||
                     new URLSearchParams(location.search).get("id") || "");
  if (index[asked]) location.replace(index[asked]);
  else if (asked) { input.value = asked; show(asked); }
})();
"""


def _lookup_page(targets: dict[str, str]) -> str:
    # The index is JSON inside a script element; "</" is escaped so no ID text can close the element.
    data = json.dumps(targets, separators=(",", ":")).replace("</", "<\\/")
    return "\n".join(
        [
            "# Find a requirement by ID",
            "",
            "Type a requirement ID such as `ROC-HOOK-016` (any case) and press Enter to go to its text in",
            "the specification. Each requirement also has a short link of its own, `r/<ID>/` (for example",
            "`r/ROC-HOOK-016/`), that leads to the same place.",
            "",
            '<form id="roc-req-lookup" class="roc-req-lookup" role="search">',
            '<label for="roc-req-lookup-id">Requirement ID</label>',
            '<input id="roc-req-lookup-id" name="id" type="text" placeholder="ROC-HOOK-016"'
            ' autocomplete="off" spellcheck="false" autocapitalize="characters">',
            '<button type="submit" class="md-button md-button--primary">Go</button>',
            "</form>",
            "",
            '<p id="roc-req-lookup-result" class="roc-req-lookup__result" aria-live="polite"></p>',
            "",
            f'<script type="application/json" id="roc-req-index">{data}</script>',
            f"<script>{_LOOKUP_SCRIPT}</script>",
            "",
        ]
    )


def _relative(url: str, from_dir: str) -> str:
    """A site URL (relative to the site root) as seen from the directory ``from_dir``: relative links keep
    working wherever the site is served (a sub-path, one directory per version)."""
    rel = posixpath.relpath(url or ".", from_dir)
    return rel + "/" if url.endswith("/") else rel


def on_files(files: Files, config: MkDocsConfig) -> Files:
    lookup: dict[str, str] = {}
    for req in requirements():
        rid = str(req["id"])
        chapter = files.get_file_from_path(f"spec/{req['chapter']}")
        if chapter is None:
            log.warning(f"{rid}: its chapter spec/{req['chapter']} is not part of the site")
            continue
        target = f"{_relative(chapter.url, f'r/{rid}')}#{rid}"
        files.append(File.generated(config, f"r/{rid}/index.html", content=_redirect_page(rid, target)))
        # r/index.md is served as r/ (or r/index.html): either way one directory below the root.
        lookup[rid] = f"{_relative(chapter.url, 'r')}#{rid}"
    if lookup:
        files.append(File.generated(config, "r/index.md", content=_lookup_page(lookup)))
    return files
