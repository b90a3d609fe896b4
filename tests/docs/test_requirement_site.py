"""A reader with a requirement ID lands on the rule in one step (docs/_hooks/requirement_blocks.py).

The site is built once into a temporary directory and its HTML and search index are read back: every ID of
spec/requirements.json has a block with that element id on its chapter page, badges that say what
requirements.json says, a permalink, a /r/<ID>/ redirect and a lookup entry; and the site's own search engine
(the theme's search worker, run under Node when Node is installed) lists the requirement first for its ID.
"""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import subprocess
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQS: list[dict[str, Any]] = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))[
    "requirements"
]


def chapter_dir(req: dict[str, Any]) -> str:
    """Site directory of a requirement's chapter page (the site builds with directory URLs)."""
    return "spec/" + str(req["chapter"]).removesuffix(".md")


class Block:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.hrefs: list[str] = []
        self.badges: dict[str, str] = {}


class Page(HTMLParser):
    """Every element id of a page, and for each requirement block (div.roc-req) its links and badges."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: dict[str, tuple[str, dict[str, str]]] = {}
        self.blocks: dict[str, Block] = {}
        self.quoted_ids: list[str] = []  # requirement headers still rendered as a blockquote
        self._stack: list[tuple[str, Block | None, str | None]] = []
        self._quote = 0
        self.feed(text)

    def _block(self) -> Block | None:
        return next((b for _, b, _ in reversed(self._stack) if b is not None), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids[a["id"]] = (tag, a)
        block = self._block()
        new = None
        if tag == "div" and "roc-req" in a.get("class", "").split():
            new = self.blocks[a["id"]] = Block(tag, a)
        if block is not None and tag == "a" and "href" in a:
            block.hrefs.append(a["href"])
        badge = next((c for c in ("roc-req__level", "roc-req__profile") if c in a.get("class", "")), None)
        if tag == "blockquote":
            self._quote += 1
        if tag not in ("br", "img", "input", "hr", "meta", "link"):
            self._stack.append((tag, new, badge))

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            if self._stack.pop()[0] == tag:
                break
        if tag == "blockquote":
            self._quote -= 1

    def handle_data(self, data: str) -> None:
        if self._quote and re.fullmatch(r"ROC-[A-Z]+-\d+", data.strip()):
            self.quoted_ids.append(data.strip())
        badge = self._stack[-1][2] if self._stack else None
        block = self._block()
        if badge and block is not None:
            block.badges[badge] = block.badges.get(badge, "") + data


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, Page]:
    return {
        d: Page((site / d / "index.html").read_text(encoding="utf-8")) for d in {chapter_dir(r) for r in REQS}
    }


@pytest.fixture(scope="module")
def search_index(site: Path) -> dict[str, Any]:
    index: dict[str, Any] = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    return index


def test_requirements_json_lists_unique_ids() -> None:
    assert len(REQS) > 100
    assert len({r["id"] for r in REQS}) == len(REQS)


@pytest.mark.parametrize("req", REQS, ids=[r["id"] for r in REQS])
def test_every_requirement_is_a_block_with_its_id_badges_and_permalink(
    req: dict[str, Any], pages: dict[str, Page]
) -> None:
    page = pages[chapter_dir(req)]
    rid = req["id"]
    assert rid in page.ids, f"no element with id={rid} on {chapter_dir(req)}"
    tag, attrs = page.ids[rid]
    assert tag == "div"
    assert "roc-req" in attrs["class"].split()
    # The lowercase anchor the chapters' own links use keeps working, inside the block.
    assert rid.lower() in page.ids
    block = page.blocks[rid]
    assert f"#{rid}" in block.hrefs, "the block has no permalink to itself"
    assert block.badges == {"roc-req__level": req["level"], "roc-req__profile": req["profile"]}
    assert (attrs["data-level"], attrs["data-profile"]) == (req["level"], req["profile"])
    modifier = "roc-req--" + req["level"].lower().replace(" ", "-")
    assert modifier in attrs["class"].split()


def test_no_requirement_is_left_as_a_blockquote(pages: dict[str, Page]) -> None:
    assert [i for p in pages.values() for i in p.quoted_ids] == []
    per_page: dict[str, set[str]] = defaultdict(set)
    for r in REQS:
        per_page[chapter_dir(r)].add(r["id"])
    for d, ids in per_page.items():
        assert set(pages[d].blocks) == ids, d


REFRESH = re.compile(r'<meta http-equiv="refresh" content="0; url=([^"]+)">')
SCRIPT = re.compile(r"<script>location\.replace\((\"[^\"]+\")\);</script>")
LINK = re.compile(r'<a href="([^"]+)">')


@pytest.mark.parametrize("req", REQS, ids=[r["id"] for r in REQS])
def test_every_id_has_a_redirect_to_its_block(
    req: dict[str, Any], site: Path, pages: dict[str, Page]
) -> None:
    rid = req["id"]
    text = (site / "r" / rid / "index.html").read_text(encoding="utf-8")
    refresh, script, link = REFRESH.search(text), SCRIPT.search(text), LINK.search(text)
    assert refresh, f"/r/{rid}/ has no meta refresh"
    assert script, f"/r/{rid}/ has no script redirect"
    assert link, f"/r/{rid}/ has no plain link"
    targets = {refresh[1], json.loads(script[1]), link[1]}
    assert len(targets) == 1, f"the refresh, script and link of /r/{rid}/ disagree: {targets}"
    (target,) = targets
    path, _, fragment = target.partition("#")
    assert fragment == rid
    assert posixpath.normpath(posixpath.join("r", rid, path)) == chapter_dir(req)
    assert path.endswith("/"), "a directory URL without its slash costs the reader a second redirect"
    assert rid in pages[chapter_dir(req)].ids


def test_the_lookup_page_knows_every_id(site: Path) -> None:
    text = (site / "r" / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="roc-req-index">(.*?)</script>', text, re.S)
    assert found
    lookup = json.loads(found[1])
    assert set(lookup) == {r["id"] for r in REQS}
    for req in REQS:
        path, _, fragment = lookup[req["id"]].partition("#")
        assert fragment == req["id"]
        assert posixpath.normpath(posixpath.join("r", path)) == chapter_dir(req)
    assert 'id="roc-req-lookup"' in text
    assert "<input" in text


# What the search engine does with a typed query before any separator applies: it splits at whitespace and
# hyphens (the theme's query lexer), so "ROC-HOOK-016" is looked up as "roc", "hook" and "016".
QUERY_SPLIT = re.compile(r"[\s\-]+")


def test_the_index_splits_ids_as_the_query_does(search_index: dict[str, Any]) -> None:
    """An index separator that kept ROC-HOOK-016 whole would make every ID unfindable: the query still
    arrives as roc/hook/016, and none of them equals the indexed roc-hook-016. So the separator must cut an ID
    exactly where the query is cut (and still split ordinary words and hyphenated prose)."""
    separator = re.compile(search_index["config"]["separator"])

    def tokens(text: str) -> list[str]:
        return [t for t in separator.split(text) if t]

    for req in REQS:
        assert tokens(req["id"]) == [t for t in QUERY_SPLIT.split(req["id"]) if t], req["id"]
    assert tokens("human-in-the-loop") == ["human", "in", "the", "loop"]
    assert tokens("resume  the run") == ["resume", "the", "run"]


def test_each_requirement_is_its_own_search_entry(
    search_index: dict[str, Any], pages: dict[str, Page]
) -> None:
    docs = {d["location"]: d for d in search_index["docs"]}
    for req in REQS:
        location = f"{chapter_dir(req)}/#{req['id'].lower()}"
        assert location in docs, f"{req['id']} has no search entry of its own"
        entry = docs[location]
        # The title is the ID alone: badges in it would match other IDs' words (idempotent-resume).
        assert entry["title"] == req["id"]
        assert entry.get("boost", 1) > 1
        assert entry["text"], f"{req['id']}'s entry has no text"
        assert req["id"].lower() in pages[chapter_dir(req)].ids


# Runs the theme's own search worker (the file the browser loads) on the built index, the way the search box
# does: one setup message, then one query message per ID. Prints {query: location of the first result}.
SEARCH_JS = r"""
const fs = require("fs"), vm = require("vm"), path = require("path");
const [site, queriesFile] = process.argv.slice(2);
const dir = path.join(site, "assets/javascripts/workers");
const worker = fs.readdirSync(dir).find(f => /^search\..*\.js$/.test(f));
let handler = null;
const posted = [];
const context = { console, setTimeout, addEventListener: (type, fn) => { handler = fn; },
                  postMessage: message => posted.push(message) };
context.self = context;
vm.createContext(context);
vm.runInContext(fs.readFileSync(path.join(dir, worker), "utf8"), context);
const index = JSON.parse(fs.readFileSync(path.join(site, "search/search_index.json"), "utf8"));
(async () => {
  await handler({ data: { type: 0, data: { ...index, options: { suggest: false } } } });
  if (posted.pop().type !== 1) throw new Error("the search worker did not get ready");
  const first = {};
  for (const query of JSON.parse(fs.readFileSync(queriesFile, "utf8"))) {
    await handler({ data: { type: 2, data: query } });
    const items = posted.pop().data.items;
    first[query] = items.length ? items[0][0].location : null;
  }
  console.log(JSON.stringify(first));
})().catch(error => { console.error(error); process.exit(1); });
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the site's search worker; not installed")
def test_searching_an_id_lists_its_requirement_first(site: Path, tmp_path: Path) -> None:
    script, queries = tmp_path / "search.js", tmp_path / "queries.json"
    script.write_text(SEARCH_JS, encoding="utf-8")
    wanted = {}
    for req in REQS:
        location = f"{chapter_dir(req)}/#{req['id'].lower()}"
        wanted[req["id"]] = wanted[req["id"].lower()] = location
    queries.write_text(json.dumps(sorted(wanted)), encoding="utf-8")
    run = subprocess.run(
        ["node", str(script), str(site), str(queries)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    first = json.loads(run.stdout)
    wrong = {q: first.get(q) for q, location in wanted.items() if first.get(q) != location}
    assert wrong == {}, f"{len(wrong)} of {len(wanted)} ID searches list something else first"


# The lookup page's own script, run against a minimal stand-in for the page it is in: what a reader types
# (any case, surrounding spaces) or puts in /r/#<ID> or /r/?id=<ID> leads to the requirement's URL.
LOOKUP_JS = r"""
const fs = require("fs"), vm = require("vm");
const [page, typed, hash, search] = process.argv.slice(2);
const html = fs.readFileSync(page, "utf8");
const data = html.match(/<script type="application\/json" id="roc-req-index">([\s\S]*?)<\/script>/)[1];
const code = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(m => m[1])
  .find(c => c.includes("roc-req-index"));
const handlers = {};
const element = () => ({ children: [], textContent: "",
  appendChild(child) { this.children.push(child); },
  addEventListener(type, fn) { handlers[type] = fn; } });
const input = element();
input.value = "";
const form = element();
form.querySelector = () => input;
const out = element();
const location = { hash, search, href: null, replaced: null, replace(url) { this.replaced = url; } };
const document = {
  getElementById: id => ({ "roc-req-index": { textContent: data }, "roc-req-lookup": form,
                           "roc-req-lookup-result": out })[id],
  createElement: () => element(), createTextNode: text => ({ text }),
};
vm.runInNewContext(code, { document, location, URLSearchParams, decodeURIComponent });
if (typed) {
  input.value = typed;
  handlers.input();
  const listed = out.children.filter(c => c.href).map(c => c.textContent);
  handlers.submit({ preventDefault() {} });
  console.log(JSON.stringify({ href: location.href, listed, message: out.textContent }));
} else {
  console.log(JSON.stringify({ replaced: location.replaced }));
}
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the lookup page's script; not installed")
def test_the_lookup_box_goes_to_the_requirement(site: Path, tmp_path: Path) -> None:
    script = tmp_path / "lookup.js"
    script.write_text(LOOKUP_JS, encoding="utf-8")
    page = str(site / "r" / "index.html")

    def run(typed: str, hash_: str = "", search: str = "") -> dict[str, Any]:
        done = subprocess.run(
            ["node", str(script), page, typed, hash_, search], capture_output=True, text=True, check=True
        )
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    req = next(r for r in REQS if r["chapter"] == "04-hooks.md")
    target = f"../{chapter_dir(req)}/#{req['id']}"
    assert run(f"  {req['id'].lower()} ")["href"] == target
    prefix = run(req["id"][:-1].lower())  # ROC-HOOK-01: not an ID, so the box lists the IDs it starts
    assert prefix["href"] is None
    assert req["id"][:-1] in prefix["listed"][0]
    assert all(i.startswith(req["id"][:-1]) for i in prefix["listed"])
    assert run("ROC-NOPE-1")["message"] == "No requirement ID starts with ROC-NOPE-1."
    assert run("", hash_=f"#{req['id'].lower()}")["replaced"] == target
    assert run("", search=f"?id={req['id']}")["replaced"] == target
