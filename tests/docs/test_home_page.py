"""The home page: its pitch and quick start are README.md's own text, every command it shows exists, and a
newcomer finds the way from it to a conformance run against their own adapter.

The shared parts are written once, in README.md between ``--8<--`` markers, and included by docs/index.md;
these tests read both the sources and the built site (the ``site`` fixture of conftest.py).
"""

from __future__ import annotations

import html
import json
import re
import shlex
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from roc_conformance.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
INDEX = ROOT / "docs" / "index.md"
SECTIONS = ("pitch", "quickstart")
FENCE = re.compile(r"^```sh\n(.*?)^```$", re.S | re.M)


def readme_section(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(
        rf"^<!-- --8<-- \[start:{name}\] -->\n(.*?)^<!-- --8<-- \[end:{name}\] -->$", text, re.S | re.M
    )
    assert match, f"README.md has no section {name!r} between --8<-- markers"
    return match.group(1)


def words(markdown_or_html: str) -> str:
    """Text with markup, code fences and spacing taken out, so the source and the rendering compare."""
    text = re.sub(r"<[^>]+>", " ", markdown_or_html)
    text = html.unescape(text).replace("```sh", " ").replace("```", " ")
    text = text.replace("**", "").replace("`", "")
    return " ".join(text.split())


def article(site: Path, page: str) -> str:
    built = (site / page).read_text(encoding="utf-8")
    match = re.search(r"<article[^>]*>(.*?)</article>", built, re.S)
    assert match, f"{page} has no article"
    return match.group(1)


def shell_lines(markdown: str) -> list[str]:
    """The commands of the ``sh`` blocks, one per line and per ``&&``, comments removed."""
    commands = []
    for block in FENCE.findall(markdown):
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            commands += [part.strip() for part in line.split("&&") if part.strip()]
    return commands


def makefile_targets() -> set[str]:
    return set(re.findall(r"^([a-zA-Z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_home_page_includes_the_readme_parts_instead_of_a_copy() -> None:
    index = INDEX.read_text(encoding="utf-8")
    for name in SECTIONS:
        assert f'--8<-- "README.md:{name}"' in index, f"docs/index.md does not include README.md:{name}"
        # A re-typed copy would drift again: no line of a shared part may be written into the page itself.
        for line in readme_section(name).splitlines():
            if len(line) > 30:
                assert line not in index, f"docs/index.md re-types README.md:{name}: {line!r}"


def test_the_shared_parts_render_identically_on_the_site(site: Path) -> None:
    page = words(article(site, "index.html"))
    for name in SECTIONS:
        assert words(readme_section(name)) in page, f"README.md:{name} is not on the home page as written"


def test_the_shared_parts_hold_no_links() -> None:
    # README's links are relative to the repository, the site's to docs/: one link cannot be right in both.
    for name in SECTIONS:
        assert not re.search(r"\]\(", readme_section(name)), f"README.md:{name} has a link"


def check_command(command: str) -> None:
    argv = shlex.split(command)
    head, args = argv[0], argv[1:]
    if head == "make":
        assert args, command
        assert set(args) <= makefile_targets(), f"{command!r}: not a Makefile target"
    elif head == "git":
        assert args[:2] == ["clone", repo_url()], f"{command!r}: not a clone of the site's repo_url"
    elif head == "cd":
        assert args == [repo_url().rsplit("/", 1)[1]], f"{command!r}: not the directory git clone makes"
    elif head == "python":
        assert args[:4] == ["-m", "pip", "install", "-e"], f"{command!r}: not an editable install"
        assert len(args) == 5, f"{command!r}: not one path to install"
    elif head in ("roc-conformance", "roc-reference"):
        scripts = pyproject()["project"]["scripts"]  # type: ignore[index]
        assert head in scripts, f"{command!r}: {head} is not a console script of pyproject.toml"
        if head == "roc-conformance":
            try:
                build_parser().parse_args(args)
            except SystemExit:
                pytest.fail(f"{command!r}: roc-conformance refuses these arguments")
        else:
            script = Path(sys.executable).with_name(head)
            done = subprocess.run([script, *args, "--help"], capture_output=True)
            assert done.returncode == 0, f"{command!r}: {done.stderr.decode()}"
    else:
        pytest.fail(f"{command!r}: the test does not know how to check {head!r}; teach it")


def repo_url() -> str:
    match = re.search(r"^repo_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert match, "mkdocs.yml has no repo_url"
    return match.group(1).rstrip("/")


@pytest.mark.parametrize("source", ["README.md", "docs/index.md"])
def test_every_command_shown_exists(source: str) -> None:
    text = (ROOT / source).read_text(encoding="utf-8")
    if source == "docs/index.md":
        text += "".join(readme_section(name) for name in SECTIONS)
    commands = shell_lines(text)
    assert len(commands) >= 5, commands
    for command in commands:
        check_command(command)


def test_the_quick_start_names_the_package_pyproject_builds() -> None:
    name = pyproject()["project"]["name"]  # type: ignore[index]
    quickstart = readme_section("quickstart")
    assert f"`{name}`" in quickstart
    for script in pyproject()["project"]["scripts"]:  # type: ignore[index]
        assert script in quickstart, f"the quick start does not say that the package installs {script}"


def test_the_documented_editable_install_runs_outside_the_clone(tmp_path: Path) -> None:
    """The quick start installs the package editable and runs the smoke test wherever the reader is. The
    project's .venv is exactly such an install (make does ``pip install -e``), so its console script is run
    from a directory outside the repository."""
    # The installed distribution, read from the environment's site-packages: from the repository root, the
    # search also finds the roc_protocol.egg-info that pip's editable build leaves there, which has no record
    # of how it was installed.
    site_packages = sysconfig.get_paths()["purelib"]
    (installed,) = metadata.distributions(name="roc-protocol", path=[site_packages])
    direct = json.loads(installed.read_text("direct_url.json") or "{}")
    assert direct.get("dir_info", {}).get("editable") is True, "the tests do not run from an editable install"
    command = shell_lines(readme_section("quickstart"))[-1]
    assert command.startswith("roc-conformance smoke"), command
    argv = shlex.split(command)
    done = subprocess.run(
        [str(Path(sys.executable).with_name(argv[0])), *argv[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ADAPTER OK" in done.stdout


def links(fragment: str) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', fragment))


def section(page_html: str, anchor: str) -> str:
    match = re.search(rf'<h2 id="{anchor}">(.*?)(?=<h2 |$)', page_html, re.S)
    assert match, f"no section #{anchor}"
    return match.group(1)


def test_a_newcomer_reaches_a_run_against_their_own_adapter(site: Path) -> None:
    home = article(site, "index.html")
    # One click from the top of the home page.
    assert "#check-your-own-runtime" in links(home.split('<h2 id="quick-start"')[0])
    own = section(home, "check-your-own-runtime")
    assert {"adapters/tutorial/", "conformance/", "adapters/typescript-kit/"} <= links(own), links(own)
    assert "roc-conformance smoke --target" in words(own)
    assert "roc-conformance run --target" in words(own)
    # The contract page and the tutorial lead on to each other, and the tutorial ends in a run.
    assert "../adapters/tutorial/" in links(article(site, "conformance/index.html"))
    tutorial = words(article(site, "adapters/tutorial/index.html"))
    assert "pip install -e" in tutorial, "the tutorial does not say how to get the kit outside the clone"
    assert 'roc-conformance run --target "cmd:python toy_adapter.py"' in tutorial


def test_the_conformance_sentence_is_the_spec_s_own() -> None:
    """The home page states what makes a profile conformant in the words of section 1.4, not its own."""
    index = " ".join(INDEX.read_text(encoding="utf-8").split())
    spec = " ".join((ROOT / "spec" / "01-conformance.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"A profile is conformant [^.]*\.", index)
    assert sentence, "the home page does not say what makes a profile conformant"
    assert sentence.group(0) in spec, sentence.group(0)


@pytest.mark.parametrize("guide", ["tutorial", "python-kit", "typescript-kit", "other-languages"])
def test_each_adapter_guide_links_the_contract_and_the_install(site: Path, guide: str) -> None:
    """A reader who lands on any guide first finds the contract and how to get roc-conformance."""
    found = links(article(site, f"adapters/{guide}/index.html"))
    assert any(link.startswith("../../conformance/") for link in found), found
    assert "../../#quick-start" in found, found
