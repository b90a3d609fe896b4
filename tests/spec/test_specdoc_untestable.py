"""Untestable reasons from the table of spec/conformance-testing.md: parsing, lint and move-untestable."""

from __future__ import annotations

from pathlib import Path

import pytest
from roc_conformance.specdoc.cli import main
from roc_conformance.specdoc.lint import lint_chapters
from roc_conformance.specdoc.move import MoveError, plan_move
from roc_conformance.specdoc.parser import parse_chapter, parse_spec, render_requirements, requirements_of
from roc_conformance.specdoc.untestable import UNTESTABLE_FILE, find_table
from specdoc_fixtures import block, chapter, lint_texts, rules

REASON = "the harness cannot observe it."


def table_page(*rows: str, heading: str = "Requirements the harness cannot observe") -> str:
    lines = [
        "# Conformance testing",
        "",
        f"## {heading}",
        "",
        "Prose before the table.",
        "",
        "| requirement | reason |",
        "|---|---|",
        *rows,
        "",
        "## Afterwards",
        "",
        "| requirement | reason |",
        "|---|---|",
        "| ROC-STOP-002 | a table under another heading is ignored |",
        "",
    ]
    return "\n".join(lines)


def row(rid: str = "ROC-STOP-001", reason: str = REASON) -> str:
    return f"| [{rid}](03-lifecycle.md#{rid.lower()}) | {reason} |"


def two_blocks(untestable: str | None = None) -> str:
    return chapter(block(untestable=untestable), block("ROC-STOP-002", text="It **MUST** stop."))


def reasons(files: dict[str, str]) -> dict[str, str | None]:
    chapters = [parse_chapter(name, files[name]) for name in sorted(files)]
    return {req.id: req.untestable for req in requirements_of(chapters)}


def test_table_rows_are_parsed_with_line_numbers_and_escaped_pipes() -> None:
    text = table_page(row(), row("ROC-STOP-002", r"one \| two"))
    table = find_table(text)
    assert table is not None
    assert [(r.line, r.ids, r.reason) for r in table.rows] == [
        (9, ("ROC-STOP-001",), REASON),
        (10, ("ROC-STOP-002",), "one | two"),
    ]
    assert (table.first_line, table.last_line) == (7, 10)
    assert find_table(table_page(row(), heading="Something else")) is None


def test_reason_comes_from_the_block_or_from_the_table() -> None:
    assert reasons({"03-lifecycle.md": two_blocks(REASON)}) == {"ROC-STOP-001": REASON, "ROC-STOP-002": None}
    files = {"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(row())}
    assert reasons(files) == {"ROC-STOP-001": REASON, "ROC-STOP-002": None}
    # A table in any other file means nothing.
    assert reasons({"03-lifecycle.md": two_blocks(), "README.md": table_page(row())})["ROC-STOP-001"] is None


def test_block_and_table_give_the_same_json_either_way() -> None:
    in_block = {"03-lifecycle.md": two_blocks(REASON), UNTESTABLE_FILE: table_page()}
    in_table = {"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(row())}

    def rendered(files: dict[str, str]) -> str:
        return render_requirements(requirements_of([parse_chapter(n, files[n]) for n in sorted(files)]))

    assert rendered(in_block) == rendered(in_table)


def test_table_alone_and_block_alone_lint_clean() -> None:
    assert lint_texts({"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(row())}) == []
    assert lint_texts({"03-lifecycle.md": two_blocks(REASON), UNTESTABLE_FILE: table_page()}) == []


def test_reason_in_both_places_is_reported() -> None:
    files = {"03-lifecycle.md": two_blocks("another reason."), UNTESTABLE_FILE: table_page(row())}
    violations = lint_texts(files)
    assert rules(violations) == ["untestable-twice"]
    assert "differs" in violations[0].message
    assert violations[0].file == "03-lifecycle.md"
    # The same reason twice: tolerated while the chapters still carry their lines, an error once enforced.
    same = {"03-lifecycle.md": two_blocks(REASON), UNTESTABLE_FILE: table_page(row())}
    assert lint_texts(same) == []
    chapters = [parse_chapter(name, same[name]) for name in sorted(same)]
    assert rules(lint_chapters(chapters, identical_untestable_allowed=False)) == ["untestable-twice"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([row("ROC-STOP-009")], "ROC-STOP-009 is not defined in the spec"),
        ([row(), row()], "ROC-STOP-001 already has a row at line 9"),
        (["| no id here | a reason |"], "exactly one requirement ID, found 0"),
        (["| ROC-STOP-001, ROC-STOP-002 | a reason |"], "exactly one requirement ID, found 2"),
        ([row(reason="")], "the row gives no reason"),
    ],
)
def test_bad_table_rows_are_reported_once(rows: list[str], message: str) -> None:
    violations = lint_texts({"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(*rows)})
    assert rules(violations) == ["untestable-table"]
    assert message in violations[0].message
    assert violations[0].file == UNTESTABLE_FILE


def test_move_removes_identical_block_lines_and_adds_missing_rows(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    lifecycle = chapter(
        block(untestable=REASON),
        block("ROC-STOP-002", text="It **MUST** stop.", untestable="not\n> observable | at all."),
        block("ROC-STOP-003", text="It **MUST** end."),
    )
    (spec / "03-lifecycle.md").write_text(lifecycle, encoding="utf-8")
    (spec / UNTESTABLE_FILE).write_text(table_page(row()), encoding="utf-8")
    before = render_requirements(parse_spec(spec))

    assert main(["--root", str(tmp_path), "move-untestable", "--dry-run"]) == 0
    assert (spec / "03-lifecycle.md").read_text(encoding="utf-8") == lifecycle
    assert main(["--root", str(tmp_path), "move-untestable"]) == 0

    moved = (spec / "03-lifecycle.md").read_text(encoding="utf-8")
    assert "Untestable" not in moved
    assert moved == chapter(
        block(),
        block("ROC-STOP-002", text="It **MUST** stop."),
        block("ROC-STOP-003", text="It **MUST** end."),
    )
    table = (spec / UNTESTABLE_FILE).read_text(encoding="utf-8")
    assert row() in table
    assert row("ROC-STOP-002", r"not observable \| at all.") in table
    assert table.index(row()) < table.index("ROC-STOP-002](")
    assert render_requirements(parse_spec(spec)) == before
    chapters = [parse_chapter(p.name, p.read_text(encoding="utf-8")) for p in sorted(spec.glob("*.md"))]
    assert lint_chapters(chapters, identical_untestable_allowed=False) == []
    assert main(["--root", str(tmp_path), "move-untestable"]) == 0  # nothing left: a no-op


def test_move_keeps_a_conflict_and_fails() -> None:
    files = {"03-lifecycle.md": two_blocks("another reason."), UNTESTABLE_FILE: table_page(row())}
    result = plan_move([parse_chapter(name, files[name]) for name in sorted(files)])
    assert result.conflicts == ["ROC-STOP-001"]
    assert result.moved == []
    assert result.files == {}


def test_move_needs_the_table() -> None:
    with pytest.raises(MoveError):
        plan_move([parse_chapter("03-lifecycle.md", two_blocks(REASON))])
