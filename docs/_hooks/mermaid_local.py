"""mkdocs hook: the site serves its own copy of Mermaid instead of the theme's CDN.

mkdocs-material draws ``pre.mermaid`` blocks with a global ``mermaid`` and, when none is defined, loads
``mermaid@11`` from unpkg.com at run time. This hook takes the official ``mermaid`` npm package at a pinned
version, checks the tarball against a pinned SHA-512, keeps ``dist/mermaid.min.js`` (and the package's
licence) in ``.cache/mermaid/<version>/`` outside git, publishes both under ``assets/javascripts/`` and adds
the script to the pages that have a diagram (only those: the file is 3.5 MB, most pages have none).

Where npm is not installed (a machine with Python alone), or it cannot fetch the package, the build still
passes: an INFO line says so and the pages fall back to the theme's CDN. The browser test
(tests/docs/test_browser.py) blocks every request off the site, so it fails on such a fallback.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parents[2]
# The major version must match the one the theme would load from its CDN (mermaid@11 for mkdocs-material 9).
VERSION = "11.17.2"
# `npm pack mermaid@11.17.2 --json` reports it; checked here too, so a changed tarball fails the build.
INTEGRITY = "sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg=="
CACHE = ROOT / ".cache" / "mermaid" / VERSION
MEMBERS = {"package/dist/mermaid.min.js": "mermaid.min.js", "package/LICENSE": "LICENSE"}
SCRIPT_URI = f"assets/javascripts/mermaid-{VERSION}.min.js"
LICENSE_URI = f"assets/javascripts/mermaid-{VERSION}.LICENSE.txt"
NPM_TIMEOUT_S = 300

MERMAID_BLOCK = re.compile(r'<pre class="mermaid"')
# The theme's own script: Mermaid has to be defined before it looks for one.
BUNDLE_TAG = re.compile(r'<script src="[^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js"></script>')

log = logging.getLogger("mkdocs.hooks.mermaid_local")

_available = False


def _check_integrity(tarball: Path) -> None:
    algorithm, _, expected = INTEGRITY.partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if digest != expected:
        raise PluginError(
            f"mermaid_local: {tarball.name} does not match the pinned integrity {INTEGRITY} "
            f"(got {algorithm}-{digest}); refusing to publish it"
        )


def _fetch(npm: str) -> str | None:
    """Fill the cache from the npm registry; return why it could not, or None."""
    with tempfile.TemporaryDirectory(prefix="roc-mermaid-") as tmp:
        try:
            done = subprocess.run(
                [
                    npm,
                    "pack",
                    f"mermaid@{VERSION}",
                    "--pack-destination",
                    tmp,
                    "--ignore-scripts",
                    "--silent",
                ],
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"npm pack mermaid@{VERSION} failed: {error}"
        tarball = Path(tmp) / f"mermaid-{VERSION}.tgz"
        if done.returncode != 0 or not tarball.is_file():
            reason = (done.stderr.strip().splitlines() or ["no tarball"])[-1]
            return f"npm pack mermaid@{VERSION} failed: {reason}"
        _check_integrity(tarball)
        staging = Path(tempfile.mkdtemp(prefix=f"{VERSION}.", dir=_make_parent()))
        staging.chmod(0o755)  # mkdtemp makes it private; the cache is an ordinary directory
        try:
            with tarfile.open(tarball, "r:gz") as archive:
                for member, name in MEMBERS.items():
                    source = archive.extractfile(member)
                    if source is None:
                        raise PluginError(f"mermaid_local: {member} is not a file in mermaid@{VERSION}")
                    with source, open(staging / name, "wb") as target:
                        shutil.copyfileobj(source, target)
            # A whole directory appears at once, so a concurrent build never reads half a file.
            try:
                os.rename(staging, CACHE)
            except OSError:
                if not _cached():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return None


def _make_parent() -> Path:
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    return CACHE.parent


def _cached() -> bool:
    return all((CACHE / name).is_file() for name in MEMBERS.values())


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _available
    _available = _cached()
    if not _available:
        npm = shutil.which("npm")
        reason = f"npm not found, so mermaid@{VERSION} cannot be fetched" if npm is None else _fetch(npm)
        _available = reason is None and _cached()
        if not _available:
            log.info(f"mermaid_local: {reason}; pages with diagrams load Mermaid from the theme's CDN")
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if _available:
        files.append(File.generated(config, SCRIPT_URI, abs_src_path=str(CACHE / "mermaid.min.js")))
        files.append(File.generated(config, LICENSE_URI, abs_src_path=str(CACHE / "LICENSE")))
    return files


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if not _available or not MERMAID_BLOCK.search(output):
        return output
    found = BUNDLE_TAG.search(output)
    if found is None:
        raise PluginError(
            f"mermaid_local: {page.file.src_uri} has no theme bundle script to put Mermaid before"
        )
    tag = f'<script src="{get_relative_url(SCRIPT_URI, page.url)}"></script>\n'
    return output[: found.start()] + tag + output[found.start() :]
