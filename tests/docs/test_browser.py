"""The built site in a real browser: headless Chromium (Debian's ``chromium``) driven through Playwright.

The site is served on 127.0.0.1 the way mike publishes it (under /<specVersion>/, with /versions.json and a
redirect from /), every request off the site is blocked, and one browser session gathers the evidence that
the tests below judge, each on its own part:

- every page loads with no console error, page error, failed request or request off the site;
- every Mermaid block is drawn (an SVG in the theme's shadow root, no syntax error) from the site's own copy;
- typing an ID into the theme's search box lists that requirement first;
- for every requirement, <chapter>/#<ID> and /r/<ID>/ scroll its block to the top of the viewport, below the
  header.

Screenshots of the home page, one requirement block and the compatibility matrix go to reports/docs/.
Without Chromium (or the playwright package) the tests skip, unless ROC_REQUIRE_BROWSER=1 (CI sets it).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import pytest

try:
    from playwright.async_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the tests skip (or fail under ROC_REQUIRE_BROWSER=1); see _unavailable
    PlaywrightTimeout = TimeoutError  # type: ignore[misc,assignment]

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, ConsoleMessage, Page, Request, Route

ROOT = Path(__file__).resolve().parents[2]
SPEC: dict[str, Any] = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
VERSION: str = SPEC["specVersion"]
REQS: list[dict[str, Any]] = SPEC["requirements"]
REPORTS = ROOT / "reports" / "docs"
REQUIRE_BROWSER = os.environ.get("ROC_REQUIRE_BROWSER") == "1"

# Playwright sets the headless and automation flags; these keep a headless Chromium on a machine without
# internet from trying to reach Google's services at all (each attempt is a refused connection).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
PARALLEL_PAGES = 3  # browser tabs working at once: loads spend most of their time waiting, not computing

# mkdocs-material asks GitHub's API for the repository's stars and latest release (repo_url in mkdocs.yml)
# and shows them in the header when it gets an answer: a progressive enhancement, the page is complete
# without it. It is the one request allowed off the site; it is blocked like every other, without failing.
REPO = re.search(r"^repo_url:\s*https://github\.com/(\S+?)/?$", (ROOT / "mkdocs.yml").read_text(), re.M)
ALLOWED_OFFSITE = f"https://api.github.com/repos/{REPO[1]}" if REPO else None

SCREENSHOT_REQUIREMENT = "ROC-HOOK-016"
# tests/docs/test_requirement_site.py runs the theme's own search on every ID (in both cases) and reads every
# /r/<ID>/ stub's target; here the real UI is judged on a spread of them, which keeps this test near a minute.
SEARCH_SAMPLE = 40  # IDs typed into the search box, spread across the areas
SEARCH_LOWERCASE_SAMPLE = 12  # of those, also typed in lowercase


def _unavailable() -> str | None:
    if shutil.which("chromium") is None:
        return "chromium is not installed (Debian package chromium)"
    if PlaywrightTimeout is TimeoutError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


def _chapter(req: dict[str, Any]) -> str:
    """Site path of a requirement's chapter page (the site builds with directory URLs)."""
    return "spec/" + str(req["chapter"]).removesuffix(".md") + "/"


def _site_pages(site: Path) -> list[str]:
    """Every page of the build as a path under the version root, except the /r/<ID>/ redirect stubs (checked
    in the scroll test) and the 404 page (it is only ever shown for a missing URL)."""
    paths = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        if rel == "404.html" or re.fullmatch(r"r/ROC-[A-Z]+-\d+/index\.html", rel):
            continue
        paths.append(rel.removesuffix("index.html"))
    return paths


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        # Let the browser reuse the theme's scripts and styles across page loads, as a published site does.
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A page navigated away from closes its connections mid-response; that is no fault of the site.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def served(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site published as mike lays it out; yields the URL of the version root."""
    root = tmp_path_factory.mktemp("served")
    (root / VERSION).symlink_to(site, target_is_directory=True)
    versions = [{"version": VERSION, "title": VERSION, "aliases": ["latest"]}]
    (root / "versions.json").write_text(json.dumps(versions), encoding="utf-8")
    (root / "index.html").write_text(
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={VERSION}/">'
        f'<script>location.replace("{VERSION}/")</script>',
        encoding="utf-8",
    )
    server = _Server(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{VERSION}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class Findings:
    """What the browser saw; each test judges one part."""

    pages: list[str] = field(default_factory=list)
    page_problems: dict[str, list[str]] = field(default_factory=dict)
    offsite: set[str] = field(default_factory=set)
    mermaid_expected: int = 0
    mermaid_drawn: int = 0
    mermaid_problems: list[str] = field(default_factory=list)
    searched: int = 0
    search_problems: list[str] = field(default_factory=list)
    scrolled: int = 0
    scroll_problems: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


# True once the page is done: loaded, and its Mermaid blocks all replaced by drawings.
SETTLED_JS = """expected => document.readyState === "complete"
  && document.querySelectorAll("pre.mermaid").length === 0
  && document.querySelectorAll("div.mermaid").length === expected"""
# True once the theme's search worker has built its index and the search box answers.
SEARCH_READY_JS = """() => document.readyState === "complete"
  && !/Initializing/.test((document.querySelector(".md-search-result__meta") || {}).textContent || "")"""

# Where the element with this id is, against the sticky header; null when there is no such element.
POSITION_JS = """id => {
  const el = document.getElementById(id);
  if (!el) return null;
  const header = document.querySelector(".md-header");
  const top = el.getBoundingClientRect().top;
  const below = header ? header.getBoundingClientRect().bottom : 0;
  const atEnd = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
  return {top, below, atEnd, innerHeight, url: location.href};
}"""

# Near the top: not under the header, and within a line or two below it (or as high as the page lets it go
# when the block is among the last of its page).
NEAR_TOP_JS = f"""id => {{
  const p = ({POSITION_JS})(id);
  return !!p && p.top >= p.below - 1 && (p.top <= p.below + 96 || (p.atEnd && p.top < p.innerHeight - 48));
}}"""

# The theme draws each diagram into a closed shadow root, which page scripts cannot see into; the DevTools
# protocol can (DOM.describeNode with pierce), and this runs on that root.
DRAWING_JS = """function () {
  const svg = this.querySelector("svg");
  const box = svg ? svg.getBoundingClientRect() : null;
  return {svg: !!svg, width: box ? box.width : 0, height: box ? box.height : 0, text: this.textContent};
}"""


# The first result as the theme lists it: a group per page, headed by a link to the page, then the page's
# sections best first. Gives [page URL, fragment of its first section in lowercase], or null.
FIRST_RESULT_JS = """() => {
  const item = document.querySelector(".md-search-result__list > li");
  if (!item) return null;
  const links = [...item.querySelectorAll(":scope > a")].map(a => a.href);
  if (!links.length) return null;
  const section = links.find(href => href.includes("#"));
  return [links[0].split("#")[0], section ? section.split("#")[1].toLowerCase() : null];
}"""

FIRST_RESULT_IS_JS = f"""want => {{
  const got = ({FIRST_RESULT_JS})();
  return !!got && got[0] === want[0] && got[1] === want[1];
}}"""


class _Watch:
    """A page's console errors, page errors and failed requests, attributed to the page being checked."""

    def __init__(self, page: Page, findings: Findings) -> None:
        self.current = ""
        self.inflight = 0
        self.findings = findings
        page.on("console", self._console)
        page.on("pageerror", lambda error: self._add(f"page error: {error}"))
        page.on("request", self._request)
        page.on("requestfinished", self._finished)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    def _add(self, problem: str) -> None:
        self.findings.page_problems.setdefault(self.current, []).append(problem)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        source = message.location.get("url", "")
        if ALLOWED_OFFSITE and source.startswith(ALLOWED_OFFSITE):
            return  # the blocked call for the repository's facts (see ALLOWED_OFFSITE)
        self._add(f"console error: {message.text} ({source})")

    def _request(self, request: Request) -> None:
        self.inflight += 1

    def _finished(self, request: Request) -> None:
        self.inflight -= 1

    def _failed(self, request: Request) -> None:
        self.inflight -= 1
        if urlsplit(request.url).hostname == "127.0.0.1":
            self._add(f"request failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self._add(f"HTTP {response.status}: {response.url}")

    async def quiet(self, page: Page) -> None:
        """Until no request has been open for 100 ms (at most 10 s)."""
        calm = 0
        for _ in range(200):
            calm = calm + 1 if self.inflight <= 0 else 0
            if calm >= 2:
                return
            await page.wait_for_timeout(50)
        self._add(f"{self.inflight} requests still open after 10 s")


async def _route(route: Route, findings: Findings) -> None:
    url = route.request.url
    if urlsplit(url).hostname == "127.0.0.1":
        await route.continue_()
        return
    if not (ALLOWED_OFFSITE and url.startswith(ALLOWED_OFFSITE)):
        findings.offsite.add(url)
    await route.abort()


async def _check_drawings(context: BrowserContext, page: Page, label: str, findings: Findings) -> None:
    cdp = await context.new_cdp_session(page)
    try:
        count = await page.evaluate("document.querySelectorAll('div.mermaid').length")
        for i in range(count):
            handle = await cdp.send(
                "Runtime.evaluate", {"expression": f"document.querySelectorAll('div.mermaid')[{i}]"}
            )
            node = await cdp.send(
                "DOM.describeNode", {"objectId": handle["result"]["objectId"], "pierce": True, "depth": 1}
            )
            roots = node["node"].get("shadowRoots", [])
            if not roots:
                findings.mermaid_problems.append(f"{label}: diagram {i + 1} has no drawing")
                continue
            root = await cdp.send("DOM.resolveNode", {"backendNodeId": roots[0]["backendNodeId"]})
            drawn = await cdp.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": root["object"]["objectId"],
                    "functionDeclaration": DRAWING_JS,
                    "returnByValue": True,
                },
            )
            seen = drawn["result"]["value"]
            if not seen["svg"] or seen["width"] < 50 or seen["height"] < 50:
                findings.mermaid_problems.append(
                    f"{label}: diagram {i + 1} is not an SVG of some size: {seen}"
                )
            elif "Syntax error" in seen["text"]:
                findings.mermaid_problems.append(f"{label}: diagram {i + 1} shows a Mermaid syntax error")
            else:
                findings.mermaid_drawn += 1
        if "Syntax error in text" in await page.evaluate("document.body.textContent"):
            findings.mermaid_problems.append(f"{label}: Mermaid left a syntax error on the page")
    finally:
        await cdp.detach()


async def _load_pages(context: BrowserContext, base: str, site: Path, findings: Findings) -> None:
    findings.pages = _site_pages(site)
    queue: asyncio.Queue[str] = asyncio.Queue()
    for path in findings.pages:
        queue.put_nowait(path)

    # Every page load has the theme's search worker build its index from the whole site's text, which is most
    # of a load's cost; here the worker gets the real index's settings and no documents (search itself is
    # judged on the real index in _search), so the loads judge the pages, not the index build.
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    empty_index = json.dumps({**index, "docs": []})

    async def worker() -> None:
        page = await context.new_page()
        await page.route(
            "**/search/search_index.json",
            lambda route: route.fulfill(body=empty_index, content_type="application/json"),
        )
        watch = _Watch(page, findings)
        while not queue.empty():
            path = queue.get_nowait()
            html = (site / (path or ".") / ("" if path.endswith(".html") else "index.html")).read_text(
                "utf-8"
            )
            expected = len(re.findall(r'<pre class="mermaid"', html))
            findings.mermaid_expected += expected
            watch.current = path or "(home)"
            await page.goto(base + path)
            try:
                await page.wait_for_function(SETTLED_JS, arg=expected, timeout=15_000)
            except PlaywrightTimeout:
                state = await page.evaluate(
                    "[document.readyState, document.querySelectorAll('pre.mermaid').length,"
                    " document.querySelectorAll('div.mermaid').length]"
                )
                watch._add(f"did not settle in 15 s (readyState, pre.mermaid, div.mermaid = {state})")
                if expected:
                    findings.mermaid_problems.append(f"{watch.current}: {expected} diagrams, state {state}")
            await watch.quiet(page)
            if expected:
                await _check_drawings(context, page, watch.current, findings)
        # The published root redirects to the version, as mike's does.
        watch.current = "/"
        await page.goto(urljoin(base, "../"))
        await page.wait_for_url(base, timeout=10_000)
        await page.close()

    await asyncio.gather(*(worker() for _ in range(PARALLEL_PAGES)))


async def _search(context: BrowserContext, base: str, findings: Findings) -> None:
    page = await context.new_page()
    await page.goto(base)
    await page.wait_for_function(SEARCH_READY_JS, timeout=15_000)
    box = page.locator("input.md-search__input")
    await box.click()
    sample = REQS[:: max(1, len(REQS) // SEARCH_SAMPLE)]
    lower = sample[:: max(1, len(sample) // SEARCH_LOWERCASE_SAMPLE)]
    queries = [(r["id"], r) for r in sample] + [(r["id"].lower(), r) for r in lower]
    for query, req in queries:
        want = [base + _chapter(req), req["id"].lower()]
        await box.fill(query)
        await box.press("End")  # the theme reads the query on keyup
        findings.searched += 1
        try:
            await page.wait_for_function(FIRST_RESULT_IS_JS, arg=want, timeout=3_000)
        except PlaywrightTimeout:
            got = await page.evaluate(FIRST_RESULT_JS)
            findings.search_problems.append(f"{query!r}: first result {got}, wanted {want[0]}#{req['id']}")
    await page.close()


async def _scroll(context: BrowserContext, base: str, findings: Findings) -> None:
    """Every requirement by its chapter URL with the uppercase ID, as reports link it (a fresh load for the
    first ID of a chapter, then in-page jumps); and the first requirement of each chapter by its /r/<ID>/ stub
    (a fresh load; every stub's target is read from the build in tests/docs/test_requirement_site.py)."""
    queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    for req in REQS:
        queue.put_nowait(("chapter", req))
    for req in {str(r["chapter"]): r for r in reversed(REQS)}.values():
        queue.put_nowait(("stub", req))

    async def judge(page: Page, how: str, rid: str) -> None:
        findings.scrolled += 1
        try:
            await page.wait_for_function(NEAR_TOP_JS, arg=rid, timeout=5_000)
        except PlaywrightTimeout:
            where = await page.evaluate(POSITION_JS, rid)
            findings.scroll_problems.append(f"{rid} by {how}: not near the top of the viewport: {where}")

    async def worker() -> None:
        page = await context.new_page()
        # Every page load would have the search worker build its index again, the heaviest part of a load;
        # the search box plays no part in where a page scrolls to.
        await page.route("**/search/search_index.json", lambda route: route.abort())
        while not queue.empty():
            how, req = queue.get_nowait()
            rid = req["id"]
            target = f"{base}{_chapter(req)}#{rid}"
            if how == "chapter":
                await page.goto(target, wait_until="commit")
                await judge(page, f"opening {_chapter(req)}#{rid}", rid)
            else:
                await page.goto(f"{base}r/{rid}/", wait_until="commit")
                try:
                    await page.wait_for_url(target, wait_until="commit", timeout=5_000)
                except PlaywrightTimeout:
                    findings.scroll_problems.append(f"/r/{rid}/ led to {page.url}, not {target}")
                    continue
                await judge(page, f"/r/{rid}/", rid)
        await page.close()

    await asyncio.gather(*(worker() for _ in range(PARALLEL_PAGES)))


async def _screenshots(context: BrowserContext, base: str, findings: Findings) -> None:
    REPORTS.mkdir(parents=True, exist_ok=True)
    page = await context.new_page()
    await page.goto(base)
    await page.wait_for_function(SEARCH_READY_JS, timeout=15_000)
    await page.screenshot(path=REPORTS / "home.png")
    req = next(r for r in REQS if r["id"] == SCREENSHOT_REQUIREMENT)
    await page.goto(f"{base}{_chapter(req)}#{req['id']}")
    await page.locator(f"[id='{req['id']}']").screenshot(path=REPORTS / f"{req['id']}.png")
    await page.goto(f"{base}results/")
    await page.screenshot(path=REPORTS / "matrix.png", full_page=True)
    findings.screenshots = [REPORTS / "home.png", REPORTS / f"{req['id']}.png", REPORTS / "matrix.png"]
    await page.close()


async def _browse(base: str, site: Path, profile: Path) -> Findings:
    from playwright.async_api import async_playwright

    findings = Findings()
    async with async_playwright() as playwright:
        # A persistent context gives Chromium the fresh --user-data-dir of its own that it is started with.
        context = await playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=shutil.which("chromium"),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport=VIEWPORT,  # type: ignore[arg-type]
        )
        await context.route("**/*", lambda route: _route(route, findings))
        for name, step in (
            ("pages", _load_pages(context, base, site, findings)),
            ("search", _search(context, base, findings)),
            ("scroll", _scroll(context, base, findings)),
            ("screenshots", _screenshots(context, base, findings)),
        ):
            start = time.perf_counter()
            await step
            findings.seconds[name] = round(time.perf_counter() - start, 1)
        await context.close()
    return findings


@pytest.fixture(scope="module")
def findings(served: str, site: Path, tmp_path_factory: pytest.TempPathFactory) -> Findings:
    reason = _unavailable()
    if reason is not None:
        if REQUIRE_BROWSER:
            pytest.fail(f"ROC_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    found = asyncio.run(_browse(served, site, tmp_path_factory.mktemp("chromium-profile")))
    print(f"browser checks took {found.seconds} s")
    return found


def test_every_page_loads_cleanly(findings: Findings) -> None:
    assert len(findings.pages) > 30, findings.pages
    assert "r/" in findings.pages
    assert "" in findings.pages
    assert findings.page_problems == {}


def test_no_request_leaves_the_site(findings: Findings) -> None:
    assert sorted(findings.offsite) == []


def test_every_mermaid_block_is_drawn_from_the_sites_own_copy(findings: Findings) -> None:
    assert findings.mermaid_expected > 0, "the build has no Mermaid block (concepts/ has diagrams)"
    assert findings.mermaid_problems == []
    assert findings.mermaid_drawn == findings.mermaid_expected
    # Drawn with no request off the site: Mermaid came from the site (the theme's CDN fallback is blocked).
    assert not [u for u in findings.offsite if "mermaid" in u], "Mermaid was loaded from a CDN, not the site"


def test_searching_an_id_lists_its_requirement_first(findings: Findings) -> None:
    assert findings.searched >= SEARCH_SAMPLE
    assert findings.search_problems == [], f"{len(findings.search_problems)} of {findings.searched} searches"


def test_every_requirement_link_scrolls_to_its_block(findings: Findings) -> None:
    assert findings.scrolled == len(REQS) + len({r["chapter"] for r in REQS})
    assert findings.scroll_problems == [], f"{len(findings.scroll_problems)} of {findings.scrolled} links"


def test_screenshots_are_written(findings: Findings) -> None:
    for path in findings.screenshots:
        assert path.stat().st_size > 5_000, path
    assert len(findings.screenshots) == 3
