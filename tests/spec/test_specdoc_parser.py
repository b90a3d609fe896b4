"""The parser turns requirement blocks into records; requirements.json is rendered deterministically."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from roc_conformance.specdoc.markdown import anchors, headings, slugify
from roc_conformance.specdoc.parser import (
    load_requirements,
    parse_chapter,
    parse_spec,
    render_requirements,
    requirements_of,
)
from specdoc_fixtures import block, chapter


def test_block_becomes_a_record_with_every_field() -> None:
    text = chapter(
        "## 3.1 Stop\n",
        block(text='When a tool raises, the invocation **MUST** end\nwith `stopReason` `"interrupt"`.'),
    )
    [req] = requirements_of([parse_chapter("03-lifecycle.md", text)])
    assert req.to_json() == {
        "id": "ROC-STOP-001",
        "level": "MUST",
        "profile": "core",
        "text": 'When a tool raises, the invocation **MUST** end with `stopReason` `"interrupt"`.',
        "section": "3.1 Stop",
        "chapter": "03-lifecycle.md",
        "anchor": "03-lifecycle.md#roc-stop-001",
        "untestable": None,
    }


def test_section_is_the_nearest_heading_and_paragraphs_are_kept() -> None:
    text = chapter(
        "## Resume\n",
        block("ROC-RESUME-001", text="A **MUST** one."),
        "### Partial answers `interruptResponse`\n",
        block("ROC-ANSWER-002", "MAY", "core", "First **MAY**.\n\nSecond paragraph."),
    )
    first, second = requirements_of([parse_chapter("03-lifecycle.md", text)])
    assert first.section == "Resume"
    assert second.section == "Partial answers interruptResponse"
    assert second.text == "First **MAY**.\n\nSecond paragraph."


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("It **MUST** hold.\n\n*Untestable:* the harness cannot\nsee memory.", "It **MUST** hold."),
        ("It **MUST** hold.\n**Untestable:** the harness cannot\nsee memory.", "It **MUST** hold."),
        (
            "It **MUST** hold.\n\nUntestable: the harness cannot see memory.\n\nAnd **MAY** log.",
            "It **MUST** hold.\n\nAnd **MAY** log.",
        ),
    ],
)
def test_an_untestable_line_in_a_block_is_neither_reason_nor_text(body: str, text: str) -> None:
    # The lint refuses the line; the record does not pick it up in the meantime, as reason or as rule.
    [req] = requirements_of([parse_chapter("10-security.md", chapter(block(text=body)))])
    assert req.untestable is None
    assert req.text == text


def test_malformed_blocks_and_code_examples_are_not_requirements() -> None:
    text = chapter(
        "```markdown\n" + block("ROC-STOP-009") + "```\n",
        '<a id="roc-stop-002"></a>\n> **ROC-STOP-2** · MUST · core\n>\n> It **MUST**.\n',
        block("ROC-STOP-003"),
    )
    parsed = parse_chapter("03-lifecycle.md", text)
    assert parsed.blocks[0].header_text == "> **ROC-STOP-2** · MUST · core"
    assert parsed.blocks[0].header is None
    assert [r.id for r in requirements_of([parsed])] == ["ROC-STOP-003"]


def test_every_level_and_hyphenated_profiles_parse() -> None:
    parts = [
        block(f"ROC-EXEC-00{i}", level, "concurrent-executor", f"X **{level}** y.")
        for i, level in enumerate(["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"], start=1)
    ]
    reqs = requirements_of([parse_chapter("05-tools.md", chapter(*parts))])
    assert [(r.level, r.profile) for r in reqs] == [
        (level, "concurrent-executor") for level in ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
    ]


def test_spec_order_is_file_name_order_then_document_order(tmp_path: Path) -> None:
    (tmp_path / "10-security.md").write_text(chapter(block("ROC-SEC-001")), encoding="utf-8")
    (tmp_path / "02-data-model.md").write_text(
        chapter(block("ROC-MODEL-002"), block("ROC-MODEL-001")), encoding="utf-8"
    )
    assert [r.id for r in parse_spec(tmp_path)] == ["ROC-MODEL-002", "ROC-MODEL-001", "ROC-SEC-001"]


def test_rendered_json_is_stable_and_round_trips(tmp_path: Path) -> None:
    (tmp_path / "03-lifecycle.md").write_text(chapter(block(), block("ROC-STOP-002")), encoding="utf-8")
    reqs = parse_spec(tmp_path)
    text = render_requirements(reqs)
    assert text == render_requirements(parse_spec(tmp_path))
    assert text.endswith("}\n")
    assert text.splitlines()[1] == '  "specVersion": "1.3",'
    doc = json.loads(text)
    assert list(doc) == ["specVersion", "requirements"]
    out = tmp_path / "requirements.json"
    out.write_text(text, encoding="utf-8")
    assert load_requirements(out) == reqs


def test_slugs_follow_mkdocs_toc() -> None:
    assert slugify("3.2 The stopReason field") == "32-the-stopreason-field"
    assert slugify("Résumé & errors — v1") == "resume-errors-v1"
    lines = ["# A", "## Same", "## Same", "```", "## Not a heading", "```", "## Custom {#my-id}"]
    assert [h.slug for h in headings(lines)] == ["a", "same", "same_1", "my-id"]
    doc = '## The `tool_use` **stop**\n\n<a id="roc-x-001"></a>\n'
    assert anchors(doc) == {"the-tool_use-stop", "roc-x-001"}


def test_heading_ids_agree_with_python_markdown_toc() -> None:
    markdown = pytest.importorskip("markdown")
    doc = "\n\n".join(
        [
            "# 3. Interrupt lifecycle",
            "## 3.1 Terms",
            "## 3.2 The `stopReason` **field**",
            "## 3.2 The `stopReason` **field**",
            "## Résumé & errors — v1 (draft)",
            "## [Linked](04-hooks.md) heading_with_underscores",
            "### Custom {#my-anchor}",
            "## my-anchor",
        ]
    )
    html = markdown.markdown(doc, extensions=["toc", "attr_list"])
    expected = re.findall(r'<h\d id="([^"]+)"', html)
    assert [h.slug for h in headings(doc.splitlines())] == expected
