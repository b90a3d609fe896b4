"""The data type pages: one page per JSON Schema of spec/schema/v1, in the navigation, with the schema's
fields, its examples and what rejects each invalid one.

The site is built once for the module into a temporary directory and the tests read the built HTML. What a
page should say is worked out here from the sources on their own (the schemas, a validator built as
tests/schema builds it, the strict parser), not with the hook's code, so a hook that drops a member, marks the
wrong one required, prints another message than the validator's or links a file that is not published fails.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from roc_conformance.canonical import NotCanonicalJson, parse_strict

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "spec" / "schema" / "v1"
EXAMPLES_DIR = ROOT / "spec" / "examples"
SCHEMA_FILES = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json"))


@cache
def schemas() -> dict[str, dict[str, Any]]:
    return {name: json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8")) for name in SCHEMA_FILES}


@cache
def registry() -> Registry:
    return Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in schemas().values()
    )


def title(schema_file: str) -> str:
    return str(schemas()[schema_file]["title"])


def example_dir(schema_file: str) -> Path | None:
    """The example directory whose README names this schema (e.g. InterruptResponse for
    interrupt-response.schema.json, whose title is InterruptResponseContent)."""
    for readme in EXAMPLES_DIR.glob("*/README.md"):
        if f"Schema: [`{schema_file}`]" in " ".join(readme.read_text(encoding="utf-8").split()):
            return readme.parent
    return None


def expected_members(schema: dict[str, Any], base_uri: str) -> dict[str, bool]:
    """Member name -> required, for an object schema: its own properties plus those of the object its
    top-level $ref extends (an Interrupt's shared fields, which a pending interrupt extends too)."""
    members: dict[str, bool] = {}
    if "$ref" in schema:
        target = urljoin(base_uri, schema["$ref"])
        resolved = registry().resolver(base_uri).lookup(schema["$ref"])
        members = expected_members(resolved.contents, urldefrag(target).url)
    required = set(schema.get("required", []))
    for name in schema.get("properties", {}):
        members[name] = name in required
    return {name: req or name in required for name, req in members.items()}


# --- reading the built HTML ----------------------------------------------------------------------------


class Tables(HTMLParser):
    """Every table of a page fragment: rows of (cell text, hrefs in the cell)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[tuple[str, list[str]]]]] = []
        self._cell: list[str] | None = None
        self._hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell, self._hrefs = [], []
        elif tag == "a" and self._cell is not None:
            self._hrefs += [v for k, v in attrs if k == "href" and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append((" ".join("".join(self._cell).split()), self._hrefs))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(fragment: str) -> list[list[list[tuple[str, list[str]]]]]:
    parser = Tables()
    parser.feed(fragment)
    return parser.tables


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def section(page: str, heading_id: str) -> str:
    """The HTML from the h2 with this id up to the next h2."""
    start = page.index(f'<h2 id="{heading_id}"')
    end = page.find("<h2", start + 1)
    return page[start : end if end != -1 else len(page)]


def primary_nav(site: Path) -> str:
    """The site navigation as the home page renders it (the sidebar, not the page's own links)."""
    home = (site / "index.html").read_text(encoding="utf-8")
    start = home.index('class="md-nav md-nav--primary"')
    return home[start : home.index('class="md-content"', start)]


def page(site: Path, schema_file: str) -> str:
    return (site / "types" / title(schema_file) / "index.html").read_text(encoding="utf-8")


# --- the tests -----------------------------------------------------------------------------------------


def test_every_schema_has_a_page_listed_in_the_index_and_the_navigation(site: Path) -> None:
    nav = primary_nav(site)
    index = (site / "types" / "index.html").read_text(encoding="utf-8")
    assert 'href="types/"' in nav
    for schema_file in SCHEMA_FILES:
        assert (site / "types" / title(schema_file) / "index.html").is_file(), schema_file
        assert f'href="types/{title(schema_file)}/"' in nav, f"{schema_file}: not in the navigation"
        assert f'href="{title(schema_file)}/"' in index, f"{schema_file}: not in the index"


def test_the_example_manifests_and_schema_readme_are_no_longer_orphaned(site: Path) -> None:
    nav = primary_nav(site)
    for readme in [
        EXAMPLES_DIR / "README.md",
        *EXAMPLES_DIR.glob("*/README.md"),
        SCHEMA_DIR.parent / "README.md",
    ]:
        url = readme.parent.relative_to(ROOT).as_posix()
        assert f'href="{url}/"' in nav, f"{url}: not in the navigation"


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_fields_table_lists_exactly_the_schemas_members_and_which_are_required(
    site: Path, schema_file: str
) -> None:
    schema = schemas()[schema_file]
    members = expected_members(schema, schema["$id"])
    built = page(site, schema_file)
    if not members:
        # An array, an enum or a union: no fields table, the one-line type instead.
        assert '<h2 id="fields"' not in built
        assert '<h2 id="type"' in built
        return
    table = tables(section(built, "fields"))[0]
    assert [cell for cell, _ in table[0]] == ["field", "type", "required", "description"]
    shown = {row[0][0]: row[2][0] for row in table[1:]}
    assert shown == {name: "yes" if req else "no" for name, req in members.items()}


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_definitions_have_their_own_tables_and_refs_link_to_them(site: Path, schema_file: str) -> None:
    built = page(site, schema_file)
    for key, node in schemas()[schema_file].get("$defs", {}).items():
        assert f'id="def-{key}"' in built, f"{schema_file}: no section for $defs/{key}"
        if "properties" in node and "$ref" not in node:
            block = built[built.index(f'id="def-{key}"') :]
            rows = tables(block[: block.find("<h3", 1)] if "<h3" in block[1:] else block)[0]
            assert {row[0][0] for row in rows[1:]} == set(node["properties"]), key
    # Every in-page link of a page lands on an anchor of that page.
    for anchor in re.findall(r'href="#([^"]+)"', built):
        assert f'id="{anchor}"' in built, f"{schema_file}: dangling #{anchor}"


def _verdict(schema_file: str, path: Path) -> tuple[str, str]:
    """(who rejects the file, the message it gives), computed here as the schema tests do."""
    try:
        doc = parse_strict(path.read_text(encoding="utf-8"))
    except NotCanonicalJson as exc:
        return "parser", str(exc)
    validator = Draft202012Validator(schemas()[schema_file], registry=registry())
    error = best_match(validator.iter_errors(doc))
    return ("schema", f"{error.json_path}: {error.message}") if error else ("none", "")


def _matches(shown: str, message: str) -> bool:
    # Long messages (they quote the instance) are cut and end in an ellipsis on the page.
    message = " ".join(message.split())
    return message in shown or (shown.endswith("…") and shown.rstrip(" …").split(": ", 1)[-1] in message)


EXAMPLE_SCHEMAS = [f for f in SCHEMA_FILES if example_dir(f) is not None]


def test_every_example_directory_is_shown_on_a_page() -> None:
    vectors = {"canonical", "response-schema"}  # cross-language test vectors, not examples of one schema
    dirs = {p.parent.name for p in EXAMPLES_DIR.glob("*/README.md")} - vectors
    assert {d.name for f in EXAMPLE_SCHEMAS if (d := example_dir(f))} == dirs


@pytest.mark.parametrize("schema_file", EXAMPLE_SCHEMAS)
def test_each_invalid_example_is_shown_with_the_validators_message(site: Path, schema_file: str) -> None:
    folder = example_dir(schema_file)
    assert folder is not None
    built = page(site, schema_file)
    table = next(t for t in tables(built) if [c for c, _ in t[0]] == ["file", "rule broken", "rejected by"])
    rows = {row[0][0]: row[2][0] for row in table[1:]}
    invalid = sorted((folder / "invalid").glob("*.json"))
    assert set(rows) == {p.name for p in invalid}
    for path in invalid:
        by, message = _verdict(schema_file, path)
        cell = rows[path.name]
        if by == "schema":
            at, msg = message.split(": ", 1)
            assert f"the schema rejects it at {at}:" in cell, path.name
            assert _matches(cell.split(f"{at}: ", 1)[1], msg), f"{path.name}: {cell!r} is not {msg!r}"
        elif by == "parser":
            assert cell.startswith("the strict parser rejects it"), path.name
            assert message in cell, path.name
        else:
            assert cell.startswith("the schema accepts it; the runtime check"), path.name
    # The examples shown inline: the JSON of the file, then what rejects it, the same as in the table.
    shown = re.findall(
        r'<p><strong><a href="[^"]*/invalid/([^"]+)">.*?</p>\s*(.*?)<p>Rejected: (.*?)</p>', built, re.S
    )
    assert shown, "no invalid example is shown inline"
    for name, code, rejected in shown:
        assert json.loads(text(code)) == json.loads((folder / "invalid" / name).read_text(encoding="utf-8"))
        assert text(rejected).rstrip(".") == rows[name], name


@pytest.mark.parametrize("schema_file", EXAMPLE_SCHEMAS)
def test_valid_examples_are_shown_and_the_validator_accepts_them(site: Path, schema_file: str) -> None:
    folder = example_dir(schema_file)
    assert folder is not None
    built = page(site, schema_file)
    linked = set(re.findall(r'href="[^"]*/valid/([^"]+\.json)"', built))
    assert linked == {p.name for p in (folder / "valid").glob("*.json")}
    for name in linked:
        assert _verdict(schema_file, folder / "valid" / name) == ("none", "")


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_download_and_example_links_resolve_to_the_files_in_the_site(site: Path, schema_file: str) -> None:
    built = page(site, schema_file)
    base = site / "types" / title(schema_file)
    schema_links = [h for h in re.findall(r'href="([^"]+\.schema\.json)"', built) if "://" not in h]
    assert schema_links, "no download link to the schema"
    assert (base / schema_links[0]).resolve().read_bytes() == (SCHEMA_DIR / schema_file).read_bytes()
    for href in re.findall(r'href="([^"#]+\.json)"', built):
        if "://" in href:
            continue
        published = (base / href).resolve()
        assert published.is_file(), f"{schema_file}: {href} is not in the site"
        source = ROOT / "spec" / published.relative_to(site / "spec")
        assert published.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("schema_file", SCHEMA_FILES)
def test_json_schema_and_protobuf_are_side_by_side_in_tabs(site: Path, schema_file: str) -> None:
    built = page(site, schema_file)
    block = section(built, "json-schema-and-protobuf")
    assert 'class="tabbed-set' in block
    labels = [text(lab) for lab in re.findall(r"<label[^>]*>(.*?)</label>", block, re.S)]
    assert labels == ["JSON Schema", "Protobuf"]
    panels = re.findall(
        r'<div class="tabbed-block">(.*?)</div>\s*(?=<div class="tabbed-block">|</div>)', block, re.S
    )
    assert json.loads(text(panels[0])) == schemas()[schema_file]
    name = title(schema_file)
    protos = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "proto").rglob("*.proto"))
    defined = re.search(rf"^(message|enum) {name} \{{", protos, re.M)
    if defined:
        assert f"{defined[1]} {name} {{" in text(panels[1])
    else:
        assert f"define no message or enum named {name}" in text(panels[1])
