"""One source per fact: the profile list, the spec version and the Strands versions the project tests against.

- The profiles are defined by the table of section 1.3 (spec/01-conformance.md); the suite's vocabulary, the
  requirements, the registry of appendix B and the suite's list of RoC 1.1 profiles must name the same set,
  and no page may re-type the list (pages ask docs/_hooks/facts.py for it with ``<!-- roc:profiles -->``).
- The spec version shown on the site is requirements.json's ``specVersion``; no hook types one in.
- The Strands versions are the pins (Makefile and pyproject.toml for Python, the adapter's package.json for
  TypeScript); every version of a Strands SDK written in prose or comments must agree with them, so a pin
  bump fails here, naming each place whose facts need checking against the new version.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from hook_module import load_hook
from roc_conformance.client import SPEC_1_1_PROFILES
from roc_conformance.specdoc.vocabulary import PROFILES, RESERVED_PROFILES

ROOT = Path(__file__).resolve().parents[2]
# Trees that are generated, vendored or not part of the project's text.
SKIP_DIRS = {
    ".venv",
    ".venv-bench",
    "node_modules",
    "site",
    "build",
    ".git",
    ".hypothesis",
    "reports",
    "compat",
}


facts = load_hook("facts")


def project_files(*suffixes: str) -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT)
        if path.suffix in suffixes and path.is_file() and not SKIP_DIRS.intersection(relative.parts[:-1]):
            found.append(path)
    return sorted(found)


# --- profiles -------------------------------------------------------------------------------------------


def appendix_b_profiles() -> dict[str, str]:
    """value -> status of the table of B.5."""
    text = (ROOT / "spec" / "appendix-b-registries.md").read_text(encoding="utf-8")
    section = text.split("## B.5 Profiles", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([a-z-]+)` \| [^|]+ \| ([^|]+?) \|$", section, re.M))


def test_every_source_of_the_profile_list_names_the_same_set() -> None:
    defined = [profile.name for profile in facts.profiles()]
    assert len(defined) == len(set(defined)), defined
    assert set(defined) == set(PROFILES), "1.3's table and the suite's vocabulary differ"
    document = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert {req["profile"] for req in document["requirements"]} == set(defined), "a profile without rules"
    registry = appendix_b_profiles()
    assert {name for name, status in registry.items() if status != "reserved"} == set(defined)
    assert {name for name, status in registry.items() if status == "reserved"} == set(RESERVED_PROFILES)


def test_the_versions_profiles_were_added_in_agree() -> None:
    since = {profile.name: profile.since for profile in facts.profiles()}
    assert {name for name, version in since.items() if version == "1.1"} == set(SPEC_1_1_PROFILES)
    registry = appendix_b_profiles()
    for name, version in since.items():
        assert registry[name] == (version or "1.0"), (
            f"{name}: 1.3 says {version or '1.0'}, B.5 {registry[name]}"
        )


def test_the_home_page_lists_the_defined_profiles(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    section = page.split('<h2 id="profiles">', 1)[1]
    paragraph = section.split("</p>", 1)[0]
    listed = re.findall(r"<code>([a-z-]+)</code>", paragraph.split(" defines: ", 1)[1].split(". ", 1)[0])
    assert listed == [profile.name for profile in facts.profiles()]


PROFILE_NAME = re.compile(r"[`\"'](" + "|".join(map(re.escape, PROFILES)) + r")[`\"']")
# A paragraph, list item or table row naming more than half of the profiles is a copy of the list: the
# adapters' own claims (7 profiles for each Strands SDK) and the one-profile rows of 1.3 and B.5 stay under.
RETYPED = len(PROFILES) // 2 + 1


def retyped_lists(text: str) -> list[str]:
    blocks = re.split(r"\n\s*\n|\n(?=\s*[|-] )", text)
    return [block.strip() for block in blocks if len(set(PROFILE_NAME.findall(block))) >= RETYPED]


def test_the_detector_finds_a_retyped_list() -> None:
    assert retyped_lists("Profiles: " + facts.profiles_markdown() + ".")
    assert not retyped_lists("Claims `core`, `hooks` and `sequential-executor`.")


def test_no_page_retypes_the_profile_list() -> None:
    found = {
        str(path.relative_to(ROOT)): blocks
        for path in project_files(".md")
        if (blocks := retyped_lists(path.read_text(encoding="utf-8")))
    }
    assert not found, f"re-typed profile lists (use <!-- roc:profiles --> or link to spec 1.3): {found}"


# --- spec version ---------------------------------------------------------------------------------------

# "RoC 1.0", "spec version 1.1" or a string literal "1.1"; a section number ("spec 8.2") is not a version.
TYPED_VERSION = re.compile(r"\bRoC \d+\.\d+|spec(?:ification)? version \d+\.\d+|[\"']\d+\.\d+[\"']")


def test_no_hook_types_in_a_spec_version() -> None:
    typed = {
        path.name: TYPED_VERSION.findall(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "docs" / "_hooks").glob("*.py"))
    }
    assert not {name: hits for name, hits in typed.items() if hits}, typed


def test_the_site_shows_the_spec_version_of_requirements_json(site: Path) -> None:
    version = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["specVersion"]
    assert facts.spec_version() == version
    home = html.unescape(re.sub(r"<[^>]+>", "", (site / "index.html").read_text(encoding="utf-8")))
    assert f"RoC {version} defines:" in " ".join(home.split())
    requirements = (site / "requirements" / "index.html").read_text(encoding="utf-8")
    assert f"RoC {version}" in requirements


# --- Strands versions -----------------------------------------------------------------------------------

VERSION = r"v?(\d+\.\d+(?:\.\d+)?)"
# How prose names a Strands SDK's version. "Python 1.62" and "TypeScript 1.19" are read as Strands versions
# when the major version is not one of the language's own (Python 2 and 3, TypeScript 2 to 5).
PYTHON_FORMS = (
    re.compile(r"strands-agents[`\]\s=]*(?:\([^)\s]*\))?[\s*]*" + VERSION),
    re.compile(r"\bStrands(?: Agents)?(?: Python)? " + VERSION),
    re.compile(r"\bPython (?![23]\.)" + VERSION),
)
TYPESCRIPT_FORMS = (
    re.compile(r"@strands-agents/sdk[`\]\s]*(?:\([^)\s]*\))?[\s*]*" + VERSION),
    re.compile(r"\bStrands(?: Agents)? TypeScript " + VERSION),
    re.compile(r"\bTypeScript (?![2-5]\.)" + VERSION),
)


def agrees(written: str, pin: str) -> bool:
    """'1.62' and '1.62.0' both name the pin 1.62.0; '1.6' and '1.63' do not."""
    return pin == written or (pin.startswith(written + ".") and written.count(".") >= 1)


def strands_mentions(text: str) -> list[tuple[str, str]]:
    """(sdk, version) for each version of a Strands SDK the text names (once where two forms match it)."""
    found: dict[int, tuple[str, str]] = {}
    for sdk, forms in (("python", PYTHON_FORMS), ("typescript", TYPESCRIPT_FORMS)):
        for form in forms:
            for match in form.finditer(text):
                found.setdefault(match.start(1), (sdk, match.group(1)))
    return [found[at] for at in sorted(found)]


# Statements about earlier releases, which are history rather than what the project tests against.
HISTORY = {("spec/appendix-a-peers.md", "python", "1.15")}


def test_the_strands_pins_are_one_each() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"strands-agents=={facts.strands_python_version()}" in makefile
    assert re.fullmatch(r"\d+\.\d+\.\d+", facts.strands_python_version())
    assert re.fullmatch(r"\d+\.\d+\.\d+", facts.strands_typescript_version()), (
        "the TypeScript SDK is not pinned"
    )


def test_the_mention_finder_reads_every_form() -> None:
    text = (
        "strands-agents 1.62, `strands-agents` 1.62.0, strands-agents==1.62.0, Strands Python 1.62.0, "
        "[`strands-agents`](https://pypi.org/project/strands-agents/) **1.62.0**, "
        "(Python 1.62, TypeScript 1.19), @strands-agents/sdk 1.19, Strands TypeScript 1.19.0; "
        "not Python 3.11 nor TypeScript 5.4"
    )
    assert sorted(strands_mentions(text)) == sorted(
        [("python", "1.62")] * 2
        + [("python", "1.62.0")] * 4
        + [("typescript", "1.19")] * 2
        + [("typescript", "1.19.0")]
    )
    assert not agrees("1.63", "1.62.0")
    assert not agrees("1.6", "1.62.0")


@pytest.mark.parametrize("suffix", [".md", ".py", ".json", ".ts"])
def test_every_written_strands_version_is_the_pin(suffix: str) -> None:
    pins = {"python": facts.strands_python_version(), "typescript": facts.strands_typescript_version()}
    stale = []
    for path in project_files(suffix):
        if path.name == "package-lock.json" or path == Path(__file__):
            continue
        where = str(path.relative_to(ROOT))
        for sdk, written in strands_mentions(path.read_text(encoding="utf-8")):
            if not agrees(written, pins[sdk]) and (where, sdk, written) not in HISTORY:
                stale.append(f"{where}: {sdk} {written} (pin {pins[sdk]})")
    assert not stale, "Strands versions that are not the pins:\n" + "\n".join(stale)


def test_the_site_shows_the_pins(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert f"<code>strands-agents</code> {facts.strands_python_version()}" in home
    assert f"<code>@strands-agents/sdk</code> {facts.strands_typescript_version()}" in home


def test_the_table_of_what_exercises_each_profile_has_a_row_per_profile() -> None:
    """spec/conformance-testing.md says, per profile, what exercises it: a new profile needs its row."""
    text = (ROOT / "spec" / "conformance-testing.md").read_text(encoding="utf-8")
    table = text.split("| profile | exercised by | harness feature |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines()[2:]]
    named = [name for row in rows for name in re.findall(r"`([a-z-]+)`", row)]
    assert sorted(named) == sorted(profile.name for profile in facts.profiles())


def test_the_copies_in_code_name_the_defined_profiles() -> None:
    """Code that cannot read the chapter at run time keeps a copy: the reference runtime's claim (every
    profile) and the vector schema's enum. A profile added to 1.3 fails here until both know it."""
    from roc_reference import PROFILES as REFERENCE_PROFILES

    defined = {profile.name for profile in facts.profiles()}
    assert set(REFERENCE_PROFILES) == defined
    schema = json.loads((ROOT / "conformance" / "vectors" / "vector.schema.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]["profiles"]["items"]["enum"]) == defined


# --- the tutorial adapter's length ------------------------------------------------------------------------


def test_pages_give_the_tutorial_adapter_s_length_right() -> None:
    """The pages that send readers to the tutorial say "about N lines" of its adapter (the tutorial itself
    first, before it describes the toy runtime): N within a tenth of what the page's blocks build."""
    tutorial = (ROOT / "docs" / "adapters" / "tutorial.md").read_text(encoding="utf-8")
    blocks = re.findall(r'^```python title="toy_adapter\.py"\n(.*?)^```$', tutorial, re.S | re.M)
    actual = len("".join(blocks).splitlines())
    said = {}
    for page in ("README.md", "docs/index.md", "conformance/README.md", "docs/adapters/tutorial.md"):
        first = re.search(r"about (\d+) lines", (ROOT / page).read_text(encoding="utf-8"))
        assert first, f"{page} no longer says how long the tutorial's adapter is"
        said[page] = int(first.group(1))
    assert all(abs(n - actual) <= actual / 10 for n in said.values()), (actual, said)
