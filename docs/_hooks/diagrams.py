"""mkdocs hook: the state diagram of an agent (idle / interrupted), drawn at build time from the table of
inputs and outcomes in section 3.1 of spec/03-lifecycle.md.

The table is the one source: a page asks for the diagram with the marker ``<!-- roc:state-diagram -->`` and
gets a Mermaid ``stateDiagram-v2`` block with one arrow per outcome of each row (a row whose input either
ends idle or ends interrupted gives two arrows; a rejected input is a self-loop labelled with its error
code). An outcome this module cannot read fails the build, so a reworded table never draws a wrong diagram.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from markdown.extensions.toc import slugify
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
LIFECYCLE = ROOT / "spec" / "03-lifecycle.md"
SPEC_URI = "spec/03-lifecycle.md"  # where the chapter is published (docs/spec links to spec/)
MARKER = "<!-- roc:state-diagram -->"
SECTION = "## 3.1 "
HEADER = ("state", "input", "outcome")
REJECTED = ", nothing changes"

# What a transition label may hold. Mermaid reads a label as everything after the first colon up to the end
# of the line and stops at a further colon or a semicolon; it renders it as HTML, where <, > and & would be
# markup, and treats # as the start of an entity code. Letters, digits and this punctuation are safe.
LABEL_CHARS = re.compile(r"[A-Za-z0-9 _,./()-]+")
STATE_ID = re.compile(r"[a-z][a-z_]*")
LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")
CODE = re.compile(r"[A-Z][A-Z_]+")


@dataclass(frozen=True)
class Row:
    state: str
    input: str
    outcome: str  # as written in the chapter, Markdown included


@dataclass(frozen=True)
class Transition:
    source: str
    target: str
    label: str
    row: int  # index of the table row it comes from


def _plain(cell: str) -> str:
    """A cell as text: links reduced to their text, code spans to their content."""
    return " ".join(LINK.sub(r"\1", cell).replace("`", "").split())


def parse_table(markdown: str) -> list[Row]:
    """The rows of the state/input/outcome table of section 3.1."""
    start = markdown.find("\n" + SECTION)
    if start < 0:
        raise ValueError(f"{LIFECYCLE.name} has no section heading {SECTION.strip()!r}")
    end = markdown.find("\n## ", start + 1)
    lines = markdown[start : end if end >= 0 else None].splitlines()
    for i, line in enumerate(lines):
        cells = tuple(c.strip() for c in line.strip().strip("|").split("|"))
        if line.startswith("|") and cells == HEADER:
            rows = []
            for body in lines[i + 2 :]:  # past the header and its |---| line
                if not body.startswith("|"):
                    break
                state, input_, outcome = (c.strip() for c in body.strip().strip("|").split("|"))
                rows.append(Row(state, input_, outcome))
            if not rows:
                raise ValueError("the table of section 3.1 has no rows")
            return rows
    raise ValueError(f"section 3.1 of {LIFECYCLE.name} has no | {' | '.join(HEADER)} | table")


def _label(*parts: str) -> str:
    label = " / ".join(parts)
    if not LABEL_CHARS.fullmatch(label):
        bad = sorted(set(LABEL_CHARS.sub("", label)))
        raise ValueError(f"label {label!r} holds characters a Mermaid label cannot: {bad}")
    return label


def transitions(rows: list[Row]) -> list[Transition]:
    """One transition per outcome of each row.

    The outcome column has two forms: ``<rejection>, nothing changes`` (a self-loop labelled with the
    rejection, an error code or a pointer to the section that gives it), and ``<action>; ends <a>, or <b>``
    where each alternative is a state (an arrow to it) or an error code (a self-loop).
    """
    states = {row.state for row in rows}
    bad_ids = sorted(s for s in states if not STATE_ID.fullmatch(s))
    if bad_ids:
        raise ValueError(f"state names that are not Mermaid ids: {bad_ids}")
    out: list[Transition] = []
    for n, row in enumerate(rows):
        outcome, input_ = _plain(row.outcome), _plain(row.input)
        if outcome.endswith(REJECTED):
            out.append(Transition(row.state, row.state, _label(input_, outcome[: -len(REJECTED)]), n))
            continue
        action, sep, ends = outcome.partition("; ends ")
        if not sep:
            raise ValueError(f"row {n + 1} of the 3.1 table: cannot read the outcome {row.outcome!r}")
        for alternative in ends.split(", or "):
            first = alternative.split()[0]
            if first in states:
                out.append(Transition(row.state, first, _label(input_, f"{action}, ends {alternative}"), n))
            elif CODE.fullmatch(alternative):
                out.append(Transition(row.state, row.state, _label(input_, alternative), n))
            else:
                raise ValueError(
                    f"row {n + 1} of the 3.1 table: {alternative!r} is neither a state nor a code"
                )
    return out


def state_diagram(rows: list[Row]) -> str:
    lines = ["```mermaid", "stateDiagram-v2", "    direction LR"]
    lines += [f"    {t.source} --> {t.target} : {t.label}" for t in transitions(rows)]
    return "\n".join([*lines, "```"])


def _rel(target: str, page_uri: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(page_uri) or ".")


def diagram_block(markdown: str, page_uri: str) -> str:
    """The diagram and a caption that links the table it was drawn from and the sections its outcomes cite."""
    rows = parse_table(markdown)
    heading = markdown[markdown.find("\n" + SECTION) + 4 :].split("\n", 1)[0]  # "3.1 Terms"
    chapter = _rel(SPEC_URI, page_uri)
    cited = dict.fromkeys(m for row in rows for m in LINK.findall(row.outcome))
    # The chapter's own links are relative to spec/; from the page they go through the page's path.
    targets = {
        href: chapter + href if href.startswith("#") else _rel(posixpath.join("spec", href), page_uri)
        for _, href in cited
    }
    see = ", ".join(f"[{text}]({targets[href]})" for text, href in cited)
    caption = (
        f"*Drawn when the site is built from the table in [{heading}]({chapter}#{slugify(heading, '-')}): "
        "one arrow per outcome of each row; a self-loop that names an error code is an input that ends "
        "with that error, the agent staying in its state."
        + (f" Sections the table cites: {see}." if see else "")
        + "*"
    )
    return f"{state_diagram(rows)}\n\n{caption}\n"


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if MARKER not in markdown:
        return markdown
    try:
        block = diagram_block(LIFECYCLE.read_text(encoding="utf-8"), page.file.src_uri)
    except ValueError as exc:
        raise PluginError(f"state diagram for {page.file.src_uri}: {exc}") from exc
    return markdown.replace(MARKER, block)
