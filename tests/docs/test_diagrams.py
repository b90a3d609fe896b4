"""The diagrams of the concepts page: the state diagram drawn from the table of section 3.1, and the two
sequence diagrams of an interrupt's round trip.

The site is built once for the module into a temporary directory; the tests read the built HTML. The table
is parsed here on its own (not with the hook's parser), so a hook that dropped, merged or misdirected a row
fails. Whether Mermaid renders the blocks needs a browser: the site's browser test checks that; here each
line of every block is held to the statement forms and label characters Mermaid's grammar accepts.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from hook_module import load_hook

ROOT = Path(__file__).resolve().parents[2]
LIFECYCLE = ROOT / "spec" / "03-lifecycle.md"
MERMAID_BLOCK = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.S)
TRANSITION = re.compile(r"^ {4}(\w+) --> (\w+) : (.*)$")
LABEL = re.compile(r"[A-Za-z0-9 _,./()-]+")  # no colon, semicolon, #, %, quotes or HTML markup


def table_rows() -> list[tuple[str, str, str]]:
    """The state/input/outcome rows of section 3.1, read straight from the chapter."""
    text = LIFECYCLE.read_text(encoding="utf-8")
    section = text.split("\n## 3.1 ", 1)[1].split("\n## ", 1)[0]
    table = section.split("| state | input | outcome |\n|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines():
        state, input_, outcome = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((state, re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", input_), outcome))
    return rows


@pytest.fixture(scope="module")
def blocks(site: Path) -> list[str]:
    page = (site / "concepts" / "index.html").read_text(encoding="utf-8")
    return [html.unescape(b) for b in MERMAID_BLOCK.findall(page)]


@pytest.fixture(scope="module")
def transitions(blocks: list[str]) -> list[tuple[str, str, str]]:
    (state,) = [b for b in blocks if b.startswith("stateDiagram-v2\n")]
    found = [m.groups() for m in map(TRANSITION.match, state.splitlines()) if m]
    assert found, state
    return found


def test_the_concepts_page_has_the_three_diagrams_and_no_marker(site: Path, blocks: list[str]) -> None:
    page = (site / "concepts" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="mermaid"') == 3
    kinds = sorted(b.split("\n", 1)[0] for b in blocks)
    assert kinds == ["sequenceDiagram", "sequenceDiagram", "stateDiagram-v2"]
    # The marker is an HTML comment: left unreplaced it would be copied into the page as it stands.
    assert "roc:state-diagram" not in page


def test_every_row_of_the_table_has_its_outcomes_and_nothing_else(
    transitions: list[tuple[str, str, str]],
) -> None:
    rows = table_rows()
    assert len(rows) >= 7
    states = {state for state, _, _ in rows}
    expected = []
    for state, input_, outcome in rows:
        if outcome.endswith("nothing changes"):
            # A rejected input: a self-loop naming its code (or the section that gives it).
            codes = re.findall(r"`([A-Z_]+)`", outcome) or ["the code of"]
            expected += [(state, state, input_, code) for code in codes]
            continue
        ends = outcome.split("ends ", 1)[1].split(", or ")
        for end in ends:
            target = end.split()[0].strip("`")
            if target in states:
                expected.append((state, target, input_, f"ends {end}"))
            else:
                expected.append((state, state, input_, target))  # an error code: the agent stays
    assert len(transitions) == len(expected)
    for source, target, input_, needle in expected:
        from_row = [t for t in transitions if t[:2] == (source, target) and t[2].startswith(f"{input_} / ")]
        match = [t for t in from_row if needle in t[2]]
        assert len(match) == 1, (source, target, input_, needle, transitions)


@pytest.mark.parametrize(
    "transition",
    [
        ("idle", "interrupted", "prompt / runs, ends interrupted"),
        ("idle", "idle", "resume input / NOT_INTERRUPTED"),
        ("interrupted", "idle", "valid resume input / runs the pending batch, ends idle"),
        ("interrupted", "interrupted", "direct tool call / INTERRUPT_PENDING"),
        ("interrupted", "interrupted", "prompt, other content, mixed input / INTERRUPT_PENDING"),
    ],
)
def test_spot_checks_against_the_table_as_read_by_a_person(
    transitions: list[tuple[str, str, str]], transition: tuple[str, str, str]
) -> None:
    assert transition in transitions


def test_no_prompt_leaves_an_interrupted_agent(transitions: list[tuple[str, str, str]]) -> None:
    # The property the table exists for: from interrupted, only a valid resume input gets anywhere.
    leaving = [t for t in transitions if t[0] == "interrupted" and t[1] != "interrupted"]
    assert [t[2].split(" / ")[0] for t in leaving] == ["valid resume input"]


def test_every_line_of_every_diagram_is_one_mermaid_accepts(blocks: list[str]) -> None:
    sequence = [
        re.compile(r"sequenceDiagram|autonumber|and|end"),
        re.compile(r"participant [A-Z]+ as [A-Za-z ]+"),
        re.compile(r"(par|opt|alt|loop) [^:#;%]+"),
        re.compile(r"[A-Z]+-{1,2}>>[A-Z]+: [^#;%:<>\"]+"),
        re.compile(r"Note (over [A-Z]+(,[A-Z]+)?|(left|right) of [A-Z]+): [^#;%:<>\"]+"),
    ]
    state = [re.compile(r"stateDiagram-v2|direction (LR|TB)"), re.compile(r"\w+ --> \w+ : " + LABEL.pattern)]
    for block in blocks:
        forms = state if block.startswith("stateDiagram") else sequence
        for line in filter(None, (line.strip() for line in block.splitlines())):
            assert any(form.fullmatch(line) for form in forms), line


def test_every_requirement_a_diagram_names_exists_and_is_linked(site: Path, blocks: list[str]) -> None:
    anchors = {
        r["id"]: r["anchor"]
        for r in json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]
    }
    page = (site / "concepts" / "index.html").read_text(encoding="utf-8")
    named = {i for block in blocks for i in re.findall(r"ROC-[A-Z]+-\d{3}", block)}
    assert len(named) >= 15
    for req in sorted(named):
        assert req in anchors, f"{req} is not a requirement of the spec"
        chapter, anchor = anchors[req].split(".md#")
        assert f'href="../spec/{chapter}/#{anchor}"' in page, f"no link to {req} on the page"


def test_the_caption_links_the_table_it_was_drawn_from(site: Path) -> None:
    page = (site / "concepts" / "index.html").read_text(encoding="utf-8")
    lifecycle = (site / "spec" / "03-lifecycle" / "index.html").read_text(encoding="utf-8")
    for anchor in re.findall(r'href="\.\./spec/03-lifecycle/#([^"]+)">3\.\d', page):
        assert f'id="{anchor}"' in lifecycle
    assert 'href="../spec/03-lifecycle/#31-terms"' in page


def test_the_hook_refuses_a_table_it_cannot_read() -> None:
    hook = load_hook("diagrams")
    text = LIFECYCLE.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read the outcome"):
        hook.transitions(hook.parse_table(text.replace("runs; ends idle, or interrupted", "runs")))
    with pytest.raises(ValueError, match="neither a state nor a code"):
        hook.transitions(hook.parse_table(text.replace("ends idle, or interrupted", "ends idle, or paused")))
    with pytest.raises(ValueError, match="no \\| state"):
        hook.parse_table(text.replace("| state | input | outcome |", "| state | in | out |"))
    with pytest.raises(ValueError, match="a Mermaid label cannot"):
        hook.transitions(hook.parse_table(text.replace("| idle | prompt |", "| idle | prompt: text |")))
