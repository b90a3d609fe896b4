"""mkdocs hook: one reference page per data type, generated at build time from spec/schema/v1 (the JSON
Schemas), spec/examples (the valid and invalid documents and their manifests) and proto/ (the protobuf
binding), plus an index of the types, all under a "Data types" section of the navigation.

Nothing on these pages is written by hand: the fields tables are read from the schemas, and what rejects an
invalid example is what the validator (jsonschema, Draft 2020-12, the schemas registered by their $id as the
schema tests do) or the strict parser reports when the site is built. The rule each example breaks is the
manifest's (spec/examples/<Type>/README.md), shown beside it.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "spec" / "schema" / "v1"
EXAMPLES_DIR = ROOT / "spec" / "examples"
PROTO_DIRS = (ROOT / "proto" / "roc" / "v1", ROOT / "proto" / "roc" / "conformance" / "v1")
# Where the site publishes spec/ (docs/spec is a symlink to it), seen from a page under types/.
SPEC_URL = "../spec"
SECTION = "Data types"
KINDS = ("valid", "invalid")
# Examples shown inline per kind; the others are listed with a link to the file (snapshots are long).
INLINE = 3
# A validator message quotes the offending instance, which for a snapshot can run to kilobytes.
MESSAGE_LIMIT = 400


# --- reading the sources ----------------------------------------------------------------------------


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """Schema file name -> document."""
    docs = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMA_DIR.glob("*.schema.json")}
    # In the order of their titles, which is how the index and the navigation list the pages.
    return dict(sorted(docs.items(), key=lambda item: str(item[1]["title"])))


def page_name(schema_file: str) -> str:
    """The page of a schema is named by its title (types/<Title>.md)."""
    return str(schemas()[schema_file]["title"])


@cache
def _registry() -> Registry:
    # Every schema under its $id and nothing else: a $ref to anything unknown fails instead of fetching.
    return Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in schemas().values()
    )


def validator(schema_file: str) -> Draft202012Validator:
    return Draft202012Validator(schemas()[schema_file], registry=_registry())


@cache
def example_types() -> dict[str, str]:
    """Schema file name -> its example directory, as each directory's README names its schema."""
    found: dict[str, str] = {}
    for readme in sorted(EXAMPLES_DIR.glob("*/README.md")):
        match = re.search(r"Schema:\s*\[`([a-z0-9-]+\.schema\.json)`\]", readme.read_text(encoding="utf-8"))
        if match:
            found[match[1]] = readme.parent.name
    return found


@dataclass(frozen=True)
class ManifestRow:
    rule: str
    rejected_by: str  # "schema", "parser", or "runtime (`rule`)" as the manifest writes it
    at: str
    code: str | None


def manifest(example_type: str) -> dict[str, ManifestRow]:
    """The invalid-example table of spec/examples/<Type>/README.md, by file name."""
    text = (EXAMPLES_DIR / example_type / "README.md").read_text(encoding="utf-8")
    if "## Invalid" not in text:
        return {}
    lines = text.split("## Invalid", 1)[1].strip().splitlines()
    header = [c.strip() for c in lines[0].strip().strip("|").split(" | ")]
    rows: dict[str, ManifestRow] = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, [c.strip() for c in line.strip().strip("|").split(" | ")], strict=True))
        rows[cells["file"].strip("`")] = ManifestRow(
            cells["rule broken"], cells["rejected by"], cells["at"].strip("`"), cells.get("code")
        )
    return rows


@dataclass(frozen=True)
class Verdict:
    """What a build-time check says about one invalid example: who rejects it, with which message, where."""

    by: str  # "schema", "parser" or "none" (schema-valid: only a runtime rule rejects it)
    message: str
    path: str


def judge(schema_file: str, path: Path) -> Verdict:
    from roc_conformance.canonical import NotCanonicalJson, parse_strict

    text = path.read_text(encoding="utf-8")
    try:
        # The strict parser first: a document that repeats a member name is not RoC JSON text (spec 8.2),
        # and json.loads would silently keep the last value and hand the schema another document.
        doc = parse_strict(text)
    except NotCanonicalJson as exc:
        return Verdict("parser", str(exc), "$")
    error = best_match(validator(schema_file).iter_errors(doc))
    if error is None:
        return Verdict("none", "", "")
    return Verdict("schema", error.message, error.json_path)


def shown_message(message: str) -> str:
    """The validator's message as the page prints it (cut where it only goes on quoting the instance)."""
    one_line = " ".join(message.split())
    return one_line if len(one_line) <= MESSAGE_LIMIT else one_line[:MESSAGE_LIMIT] + " …"


@cache
def _proto_texts() -> list[tuple[str, str]]:
    """(path under proto/, text) of every proto file, the data model's before the harness's."""
    return [
        (p.relative_to(ROOT / "proto").as_posix(), p.read_text(encoding="utf-8"))
        for d in PROTO_DIRS
        for p in sorted(d.glob("*.proto"))
    ]


def proto_definition(name: str) -> tuple[str, str] | None:
    """The top-level `message <name>` or `enum <name>` with its leading comment, from the data model's
    proto files first and then the harness's (where the harness-only types live)."""
    for file, text in _proto_texts():
        match = re.search(rf"^(?:message|enum) {re.escape(name)} \{{", text, flags=re.MULTILINE)
        if not match:
            continue
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        lines = text[: match.start()].splitlines()
        comment: list[str] = []
        while lines and lines[-1].startswith("//"):
            comment.insert(0, lines.pop())
        return file, "\n".join([*comment, text[match.start() : end + 1]])
    return None


# --- rendering a schema -----------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _code(text: str) -> str:
    # An HTML code element with pipes and backslashes as entities: Markdown still reads backslash escapes
    # inside inline HTML (a pattern's `\\.` would lose a backslash) and a pipe would end the table cell.
    escaped = html.escape(text).replace("|", "&#124;").replace("\\", "&#92;")
    return f"<code>{escaped}</code>"


def _def_anchor(key: str) -> str:
    return f"def-{key}"


def _split_ref(ref: str, schema_file: str) -> tuple[str, str]:
    """A $ref -> (schema file name, JSON pointer fragment)."""
    target, _, fragment = ref.partition("#")
    return (target.rsplit("/", 1)[-1] if target else schema_file), fragment


def _resolve(ref: str, schema_file: str) -> tuple[str, dict[str, Any]]:
    target, fragment = _split_ref(ref, schema_file)
    node: Any = schemas()[target]
    for part in (p for p in fragment.split("/") if p):
        node = node[part]
    return target, node


def _ref_link(ref: str, schema_file: str, page: str) -> str:
    """A link to what a $ref in ``schema_file`` names, from the page of ``page`` (a schema file)."""
    target, fragment = _split_ref(ref, schema_file)
    key = fragment.rsplit("/", 1)[-1] if fragment.startswith("/$defs/") else None
    node = _resolve(ref, schema_file)[1]
    label = str(node.get("title") or key or page_name(target))
    anchor = f"#{_def_anchor(key)}" if key else ""
    other = "" if target == page else f"{page_name(target)}.md"
    return f"[{label}]({other}{anchor or ('' if other else '#')})"


def _constraints(node: dict[str, Any]) -> list[str]:
    out = []
    if "minLength" in node:
        out.append(f"at least {node['minLength']} character{'s' if node['minLength'] != 1 else ''}")
    if "pattern" in node:
        out.append("matching " + _code(node["pattern"]))
    if "minimum" in node:
        out.append(f"≥ {node['minimum']}")
    if "maximum" in node:
        out.append(f"≤ {node['maximum']}")
    if "minItems" in node:
        out.append(f"at least {node['minItems']} item{'s' if node['minItems'] != 1 else ''}")
    if "maxItems" in node:
        out.append(f"at most {node['maxItems']} items")
    if node.get("uniqueItems"):
        out.append("no two equal items")
    return out


def describe_type(node: Any, schema_file: str, page: str | None = None) -> str:
    """A readable one-line type for a schema node: refs become links, enums list their values."""
    if node is True:
        # `member: true` in a variant admits a member the enclosing schema constrains (a trace event's kind).
        return "as in the enclosing type"
    if not isinstance(node, dict):
        return "nothing (never valid)"
    page = page or schema_file
    parts: list[str] = []
    if "$ref" in node:
        parts.append(_ref_link(node["$ref"], schema_file, page))
    if "const" in node:
        parts.append("exactly " + _code(json.dumps(node["const"])))
    if "enum" in node:
        parts.append("one of " + ", ".join(_code(json.dumps(v)) for v in node["enum"]))
    for key in ("oneOf", "anyOf"):
        if key in node:
            parts.append("one of: " + "; ".join(describe_type(arm, schema_file, page) for arm in node[key]))
    kind = node.get("type")
    if isinstance(kind, list):
        parts.append(" or ".join(kind))
    elif kind == "array":
        items = describe_type(node["items"], schema_file, page) if "items" in node else "any JSON value"
        parts.append(f"array of {items}")
    elif kind == "object" and "properties" in node and "$ref" not in node:
        parts.append("object (members below)")
    elif kind == "object":
        parts.append("JSON object")
    elif kind is not None and not parts:
        parts.append(str(kind))
    if node.get("not") == {"type": "null"}:
        parts.append("any JSON value except null")
    if not parts:
        parts.append("any JSON value")
    return ", ".join(parts + _constraints(node))


def object_members(node: dict[str, Any], schema_file: str) -> tuple[dict[str, tuple[Any, str]], set[str]]:
    """The members of an object schema and the required ones, following a $ref the object extends (an
    Interrupt's shared fields, a pending interrupt built on them)."""
    properties: dict[str, tuple[Any, str]] = {}
    required: set[str] = set()
    if "$ref" in node:
        target, base = _resolve(node["$ref"], schema_file)
        if "properties" in base or "$ref" in base:
            # A member of the extended object keeps its own file, so its links resolve from there.
            properties, required = object_members(base, target)
    for name, sub in node.get("properties", {}).items():
        properties[name] = (sub, schema_file)
    required |= set(node.get("required", []))
    return properties, required


def fields_table(node: dict[str, Any], schema_file: str, title: str, depth: int, page: str) -> list[str]:
    members, required = object_members(node, schema_file)
    lines = ["| field | type | required | description |", "|---|---|---|---|"]
    nested: list[tuple[str, dict[str, Any], str]] = []
    for name, (sub, owner) in members.items():
        description = sub.get("description", "") if isinstance(sub, dict) else ""
        if not description and isinstance(sub, dict) and "$ref" in sub:
            description = str(_resolve(sub["$ref"], owner)[1].get("description", ""))
        lines.append(
            f"| `{name}` | {describe_type(sub, owner, page)} | {'yes' if name in required else 'no'} "
            f"| {_cell(description)} |"
        )
        if (
            isinstance(sub, dict)
            and sub.get("type") == "object"
            and "properties" in sub
            and "$ref" not in sub
        ):
            nested.append((name, sub, owner))
    for name, sub, owner in nested:
        lines += ["", f"{'#' * min(depth + 1, 6)} `{title}.{name}`", ""]
        lines += fields_table(sub, owner, f"{title}.{name}", depth + 1, page)
    return lines


def _shape(node: dict[str, Any], schema_file: str, title: str, depth: int) -> list[str]:
    """A fields table for an object, else the one-line type (arrays, enums, unions)."""
    if "properties" in node or ("$ref" in node and object_members(node, schema_file)[0]):
        return fields_table(node, schema_file, title, depth, schema_file)
    return [f"**Type:** {describe_type(node, schema_file)}"]


def _fenced(lang: str, text: str, indent: str = "") -> list[str]:
    return [indent + line if line else line for line in [f"```{lang}", *text.rstrip().splitlines(), "```"]]


def _example_url(example_type: str, kind: str, name: str) -> str:
    return f"{SPEC_URL}/examples/{example_type}/{kind}/{name}"


def _verdict_text(verdict: Verdict, row: ManifestRow | None) -> str:
    if verdict.by == "schema":
        return f"the schema rejects it at `{verdict.path}`: {_code(shown_message(verdict.message))}"
    if verdict.by == "parser":
        return f"the strict parser rejects it (not RoC JSON text): {_code(shown_message(verdict.message))}"
    # Schema-valid: the manifest names the cross-member rule a runtime checks (`runtime (`name`)`).
    match = re.fullmatch(r"runtime \(`([^`]+)`\)", row.rejected_by) if row else None
    rule = f"the runtime check `{match[1]}`" if match else "a runtime check"
    at = f" at `{row.at}`" if row else ""
    code = f" (error `{row.code.strip('`')}`)" if row and row.code else ""
    return f"the schema accepts it; {rule} rejects it{at}{code}"


def examples_section(schema_file: str, example_type: str) -> list[str]:
    folder = EXAMPLES_DIR / example_type
    rows = manifest(example_type)
    lines = ["## Examples", ""]
    valid = sorted((folder / "valid").glob("*.json"))
    lines += [f"### Valid examples ({len(valid)})", ""]
    for path in valid[:INLINE]:
        lines += [f"**[`{path.name}`]({_example_url(example_type, 'valid', path.name)})**", ""]
        lines += [*_fenced("json", path.read_text(encoding="utf-8")), ""]
    if valid[INLINE:]:
        lines += ["More:", ""]
        lines += [f"- [`{p.name}`]({_example_url(example_type, 'valid', p.name)})" for p in valid[INLINE:]]
        lines.append("")
    invalid = sorted((folder / "invalid").glob("*.json"))
    lines += [
        f"### Invalid examples ({len(invalid)})",
        "",
        "Each breaks one rule. *Rule broken* is the manifest's; *rejected by* is what the schema validator or"
        " the strict parser reported for the file when this site was built.",
        "",
        "| file | rule broken | rejected by |",
        "|---|---|---|",
    ]
    verdicts = {p.name: judge(schema_file, p) for p in invalid}
    for path in invalid:
        row = rows.get(path.name)
        lines.append(
            f"| [`{path.name}`]({_example_url(example_type, 'invalid', path.name)}) "
            f"| {row.rule if row else ''} | {_verdict_text(verdicts[path.name], row)} |"
        )
    lines.append("")
    for path in invalid[:INLINE]:
        row = rows.get(path.name)
        lines += [f"**[`{path.name}`]({_example_url(example_type, 'invalid', path.name)})**", ""]
        lines += [*_fenced("json", path.read_text(encoding="utf-8")), ""]
        lines += [f"Rejected: {_verdict_text(verdicts[path.name], row)}.", ""]
    lines += [
        f"The manifest of these files: [{example_type} examples]"
        f"({SPEC_URL}/examples/{example_type}/README.md).",
        "",
    ]
    return lines


def _proto_names(doc: dict[str, Any]) -> list[str]:
    names = [str(doc["title"])]
    names += [str(d["title"]) for d in doc.get("$defs", {}).values() if "title" in d]
    return names


def type_page(schema_file: str) -> str:
    doc = schemas()[schema_file]
    title = str(doc["title"])
    schema_url = f"{SPEC_URL}/schema/v1/{schema_file}"
    lines = [f"# {title}", "", _cell(str(doc.get("description", ""))), ""]
    downloads = [f"[`{schema_file}`]({schema_url})"]
    example_type = example_types().get(schema_file)
    if example_type:
        downloads.append(f"[examples and their manifest]({SPEC_URL}/examples/{example_type}/README.md)")
    shape = _shape(doc, schema_file, title, 2)
    heading = "## Fields" if shape[0].startswith("|") else "## Type"
    lines += ["**Download:** " + " · ".join(downloads), "", heading, "", *shape]
    if any(k in doc for k in ("if", "allOf")) or '"if":' in json.dumps(doc.get("$defs", {})):
        lines += ["", "Rules between members (`if`/`then`, `allOf`) are in the JSON Schema below."]
    lines.append("")
    defs = doc.get("$defs", {})
    if defs:
        lines += ["## Definitions", ""]
        for key, node in defs.items():
            name = str(node.get("title") or key)
            lines += [f"### {name} {{#{_def_anchor(key)}}}", ""]
            lines += [
                f"`#/$defs/{key}`" + (f": {_cell(node['description'])}" if "description" in node else ""),
                "",
            ]
            lines += _shape(node, schema_file, f"{title}.{key}", 3)
            lines.append("")
    if example_type:
        lines += examples_section(schema_file, example_type)
    lines += ["## JSON Schema and protobuf", "", '=== "JSON Schema"', ""]
    lines += _fenced("json", (SCHEMA_DIR / schema_file).read_text(encoding="utf-8"), "    ")
    lines += ["", '=== "Protobuf"', ""]
    found = [(n, d) for n in _proto_names(doc) if (d := proto_definition(n)) is not None]
    if found:
        files = sorted({f for _, (f, _) in found})
        lines += ["    From " + ", ".join(f"`proto/{f}`" for f in files) + ":", ""]
        lines += _fenced("protobuf", "\n\n".join(d for _, (_, d) in found), "    ")
    else:
        lines.append(f"    The protobuf files in `proto/` define no message or enum named `{title}`.")
    lines += ["", "The protobuf binding of every message: [Protobuf reference](../proto.md).", ""]
    return "\n".join(lines)


def index_page() -> str:
    lines = [
        "# Data types",
        "",
        "One page per JSON Schema of `spec/schema/v1` (draft 2020-12): its fields, its valid and invalid",
        "examples with what rejects each, and the schema beside its protobuf message.",
        "The design decisions the schemas share: [the schemas' README](../spec/schema/README.md).",
        "",
        "| type | schema | examples | description |",
        "|---|---|---|---|",
    ]
    for schema_file, doc in schemas().items():
        description = str(doc.get("description", "")).split(". ", 1)[0].rstrip(".") + "."
        example_type = example_types().get(schema_file)
        count = (
            ", ".join(f"{len(list((EXAMPLES_DIR / example_type / k).glob('*.json')))} {k}" for k in KINDS)
            if example_type
            else "none"
        )
        lines.append(
            f"| [{doc['title']}]({doc['title']}.md) | [`{schema_file}`]({SPEC_URL}/schema/v1/{schema_file}) "
            f"| {count} | {_cell(description)} |"
        )
    return "\n".join(lines) + "\n"


# --- mkdocs events -----------------------------------------------------------------------------------


def nav_section() -> dict[str, list[Any]]:
    return {
        SECTION: [
            "types/index.md",
            *(f"types/{page_name(f)}.md" for f in schemas()),
            {"Schema design decisions": "spec/schema/README.md"},
            {
                "Example manifests": [
                    "spec/examples/README.md",
                    *(f"spec/examples/{t}/README.md" for t in sorted(example_types().values())),
                    "spec/examples/canonical/README.md",
                    "spec/examples/response-schema/README.md",
                ]
            },
        ]
    }


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # The pages exist only once on_files has run, but the nav is resolved after that, so the section can
    # name them here; it goes right after the specification it documents.
    nav = config.nav
    if nav is None:
        return config
    at = next(
        (i + 1 for i, item in enumerate(nav) if isinstance(item, dict) and "Specification" in item), len(nav)
    )
    if not any(isinstance(item, dict) and SECTION in item for item in nav):
        nav.insert(at, nav_section())
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, "types/index.md", content=index_page()))
    for schema_file in schemas():
        files.append(
            File.generated(config, f"types/{page_name(schema_file)}.md", content=type_page(schema_file))
        )
    return files
