"""mkdocs hook: facts that have one source in the repository, written into pages at build time.

A page writes a marker such as ``<!-- roc:profiles -->`` where the fact goes; this hook replaces it with the
fact read from its source, so no page re-types it and none can drift:

- ``roc:spec-version``: ``specVersion`` of spec/requirements.json (generated from the chapters).
- ``roc:profiles``: the profiles of the table in section 1.3 of spec/01-conformance.md, the normative list.
- ``roc:strands-python-version``: the ``strands-agents`` pin (Makefile target ``strands-python``, which the
  ``bench`` extra of pyproject.toml must repeat exactly).
- ``roc:strands-typescript-version``: the ``@strands-agents/sdk`` pin of the Strands TypeScript adapter's
  package.json.

Other hooks own other ``roc:`` markers (the state diagram, the versions table), so this one leaves names it
does not know; once every hook has run, a marker still in a page's HTML fails the build, so a typo cannot
publish an empty sentence.

The conformance page is conformance/README.md, which is read on GitHub too; its links to the guides under
docs/ are repository-relative (``../docs/adapters/tutorial.md``) and are pointed at the site's pages here.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE_CHAPTER = ROOT / "spec" / "01-conformance.md"
MARKER = re.compile(r"<!-- roc:([a-z0-9-]+) -->")
# A version of the spec a profile was added in, as the 1.3 table writes it in its "covers" column.
SINCE = re.compile(r";\s*since (\d+\.\d+)\s*$")


@dataclass(frozen=True)
class Profile:
    name: str
    covers: str
    needs: str
    since: str | None  # None: part of the first spec version


def spec_version() -> str:
    document = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    return str(document["specVersion"])


def profiles() -> list[Profile]:
    """The rows of the profile table of section 1.3, in the chapter's order."""
    text = CONFORMANCE_CHAPTER.read_text(encoding="utf-8")
    section = re.search(r"^## 1\.3 Profiles\n(.*?)^## ", text, re.S | re.M)
    if section is None:
        raise ValueError(f"{CONFORMANCE_CHAPTER.name} has no section 1.3 Profiles")
    rows: list[Profile] = []
    lines = section.group(1).splitlines()
    start = lines.index("| profile | covers | needs |")
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        name, covers, needs = (cell.strip() for cell in line.strip("|").split("|"))
        since = SINCE.search(covers)
        rows.append(
            Profile(
                name=name.strip("`"),
                covers=SINCE.sub("", covers),
                needs=needs,
                since=since.group(1) if since else None,
            )
        )
    if not rows:
        raise ValueError(f"the profile table of {CONFORMANCE_CHAPTER.name} has no rows")
    return rows


def strands_python_version() -> str:
    """The strands-agents version the adapter's virtualenv installs; the bench extra must pin the same."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    pins = set(re.findall(r"strands-agents==([0-9][0-9A-Za-z.]*)", makefile))
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in extras["optional-dependencies"].get("bench", []):
        if requirement.startswith("strands-agents=="):
            pins.add(requirement.split("==", 1)[1])
    if len(pins) != 1:
        found = sorted(pins) or "nothing"
        raise ValueError(f"strands-agents is pinned to {found} (Makefile, pyproject.toml): one pin, please")
    return str(pins.pop())


def strands_typescript_version() -> str:
    package = ROOT / "conformance" / "adapters" / "strands-typescript" / "package.json"
    return str(json.loads(package.read_text(encoding="utf-8"))["dependencies"]["@strands-agents/sdk"])


def profiles_markdown() -> str:
    """The profile names, first those of the first spec version, then those added by each later one."""
    by_version: dict[str | None, list[str]] = {}
    for profile in profiles():
        by_version.setdefault(profile.since, []).append(f"`{profile.name}`")
    parts = [", ".join(by_version.pop(None, []))]
    parts += [f"since RoC {version}: " + ", ".join(names) for version, names in by_version.items()]
    return "; ".join(part for part in parts if part)


FACTS = {
    "spec-version": spec_version,
    "profiles": profiles_markdown,
    "strands-python-version": strands_python_version,
    "strands-typescript-version": strands_typescript_version,
}


def render(markdown: str) -> str:
    def fact(match: re.Match[str]) -> str:
        name = match.group(1)
        return FACTS[name]() if name in FACTS else match.group(0)

    return MARKER.sub(fact, markdown)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return render(markdown)


def on_page_content(html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    left = sorted(set(MARKER.findall(html_text)))
    if left:
        raise PluginError(
            f"{page.file.src_uri}: no hook replaced the marker(s) {', '.join(left)}"
            f" (this hook's facts: {', '.join(FACTS)})"
        )
    return html_text
