"""Untestable reasons come only from the table of spec/conformance-testing.md: parsing and lint."""

from __future__ import annotations

import pytest
from roc_conformance.specdoc.parser import parse_chapter, requirements_of
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


def test_reason_comes_only_from_the_table_of_the_untestable_file() -> None:
    files = {"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(row())}
    assert reasons(files) == {"ROC-STOP-001": REASON, "ROC-STOP-002": None}
    # A table in any other file means nothing.
    assert reasons({"03-lifecycle.md": two_blocks(), "README.md": table_page(row())})["ROC-STOP-001"] is None
    # Nor does a line in the block, with or without a row: the row alone gives the reason.
    assert reasons({"03-lifecycle.md": two_blocks("another reason.")})["ROC-STOP-001"] is None
    files["03-lifecycle.md"] = two_blocks("another reason.")
    assert reasons(files)["ROC-STOP-001"] == REASON


def test_table_rows_lint_clean() -> None:
    assert lint_texts({"03-lifecycle.md": two_blocks(), UNTESTABLE_FILE: table_page(row())}) == []


def test_a_block_line_is_refused_next_to_a_row_too() -> None:
    files = {"03-lifecycle.md": two_blocks(REASON), UNTESTABLE_FILE: table_page(row())}
    [violation] = lint_texts(files)
    assert (violation.rule, violation.file, violation.line) == ("untestable-in-block", "03-lifecycle.md", 10)


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
