"""Publishing the versioned site: `make docs-deploy` in a fresh clone of the repository (HEAD) commits the
site of the current spec version to the local gh-pages branch with mike, under the version, aliased and
defaulted to `latest`, keeps the versions published before and pushes nothing.

The clone runs the Makefile's own target; only BIN (this checkout's .venv/bin, where mike and mkdocs are
installed) and STAMP (a file newer than the clone's pyproject.toml, so the target does not install a .venv of
its own) are overridden. What lands on the branch is read back with git, not with mike.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"
BRANCH = "gh-pages"


# A version published before, as mike would have left it: the deploy must keep it and take `latest` from it.
EARLIER = "0.9"
EARLIER_PAGE = "<!doctype html><title>RoC 0.9</title>\n"
# A committer identity of its own: the machine running the tests may have none configured.
IDENTITY = {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (("NAME", "RoC docs test"), ("EMAIL", "docs-test@roc-protocol.invalid"))
}


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **IDENTITY},
    ).stdout


def ref(repo: Path, name: str) -> str | None:
    found = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"refs/heads/{name}"],
        capture_output=True,
        text=True,
    )
    return found.stdout.strip() or None


def publish_earlier(clone: Path) -> None:
    """A gh-pages branch holding EARLIER aliased `latest` and the default, written with git plumbing."""

    def blob(text: str) -> str:
        return git(clone, "hash-object", "-w", "--stdin", stdin=text).strip()

    versions = json.dumps([{"version": EARLIER, "title": EARLIER, "aliases": ["latest"]}])
    redirect = '<meta http-equiv="refresh" content="0; url=latest/">\n'
    earlier = git(clone, "mktree", stdin=f"100644 blob {blob(EARLIER_PAGE)}\tindex.html\n").strip()
    root = git(
        clone,
        "mktree",
        stdin=(
            f"040000 tree {earlier}\t{EARLIER}\n"
            f"100644 blob {blob(redirect)}\tindex.html\n"
            f"120000 blob {blob(EARLIER)}\tlatest\n"
            f"100644 blob {blob(versions)}\tversions.json\n"
        ),
    ).strip()
    commit = git(clone, "commit-tree", root, "-m", f"Deployed {EARLIER}").strip()
    git(clone, "update-ref", f"refs/heads/{BRANCH}", commit)


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("deploy")
    clone = tmp / "roc"
    subprocess.run(["git", "clone", "--quiet", "--single-branch", str(ROOT), str(clone)], check=True)
    stamp = tmp / "installed"
    stamp.touch()
    # -o: never remake the stamp, so the clone's make can never reinstall the package into this .venv
    make = ["make", "-C", str(clone), f"BIN={BIN}", f"STAMP={stamp}", "-o", str(stamp)]
    if subprocess.run([*make, "-n", "docs-deploy"], capture_output=True).returncode != 0:
        pytest.fail("the Makefile has no docs-deploy target (docs/versions.md describes it)")
    publish_earlier(clone)
    done = subprocess.run(
        [*make, "docs-deploy"], capture_output=True, text=True, env={**os.environ, **IDENTITY}
    )
    if done.returncode != 0:
        pytest.fail(f"make docs-deploy failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    spec = json.loads((clone / "spec" / "requirements.json").read_text(encoding="utf-8"))
    version = str(spec["specVersion"])
    assert version != EARLIER
    return clone, version


def test_the_version_is_committed_to_the_branch(deployed: tuple[Path, str]) -> None:
    clone, version = deployed
    files = set(git(clone, "ls-tree", "-r", "--name-only", BRANCH).split())
    assert f"{version}/index.html" in files
    assert f"{version}/spec/index.html" in files
    assert f"{version}/changes/{version}/index.html" in files
    # Built by mike (its plugin puts the version into the canonical URL) with the theme's version selector on.
    page = git(clone, "show", f"{BRANCH}:{version}/index.html")
    assert re.search(rf'<link rel="canonical" href="https?://[^"]+/{re.escape(version)}/">', page)
    assert '"version": {"provider": "mike"}' in page
    # Nothing else of the repository is on the branch.
    top = {f.split("/", 1)[0] for f in files}
    assert top <= {version, EARLIER, "latest", "versions.json", "index.html", ".nojekyll"}


def test_the_earlier_version_is_kept(deployed: tuple[Path, str]) -> None:
    clone, _ = deployed
    assert git(clone, "show", f"{BRANCH}:{EARLIER}/index.html") == EARLIER_PAGE


def test_versions_json_moves_latest_to_the_version(deployed: tuple[Path, str]) -> None:
    clone, version = deployed
    versions = json.loads(git(clone, "show", f"{BRANCH}:versions.json"))
    assert versions == [
        {"version": version, "title": version, "aliases": ["latest"]},
        {"version": EARLIER, "title": EARLIER, "aliases": []},
    ]
    # The alias is a symbolic link to the version's directory.
    mode, kind, blob = git(clone, "ls-tree", BRANCH, "latest").split("\t")[0].split()
    assert (mode, kind) == ("120000", "blob")
    assert git(clone, "cat-file", "blob", blob) == version


def test_the_root_redirects_to_latest(deployed: tuple[Path, str]) -> None:
    clone, _ = deployed
    root = git(clone, "show", f"{BRANCH}:index.html")
    assert 'http-equiv="refresh" content="1; url=latest/"' in root
    assert '"latest/" + window.location.search' in root


def test_nothing_is_pushed(deployed: tuple[Path, str]) -> None:
    clone, _ = deployed
    # The clone's origin is this repository: a push would have created or moved its gh-pages branch.
    assert ref(ROOT, BRANCH) is None or ref(ROOT, BRANCH) != ref(clone, BRANCH)
    # Two commits on top of the earlier one: the deploy and the default.
    assert git(clone, "rev-list", "--count", BRANCH).strip() == "3"
    assert git(clone, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_build_without_mike_has_no_version_selector(site: Path) -> None:
    """The selector reads ../versions.json, which only a site deployed by mike has beside it: a plain build
    (make docs) leaves it out rather than request a missing file on every page."""
    page = (site / "index.html").read_text(encoding="utf-8")
    config = json.loads(
        page.split('<script id="__config" type="application/json">', 1)[1].split("</script>")[0]
    )
    assert config["version"] is None
    assert "versions.json" not in page
