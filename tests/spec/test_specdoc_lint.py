"""Each lint rule: a fixture that breaks it (and is caught with file:line) and one that keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest
from roc_conformance.specdoc.lint import removed_id_violations
from roc_conformance.specdoc.parser import parse_chapter, render_requirements, requirements_of
from specdoc_fixtures import block, chapter, lint_texts, rules


def test_well_formed_chapter_is_clean(tmp_path: Path) -> None:
    text = chapter(
        "## Stop\n",
        block(),
        block("ROC-STOP-002", "SHOULD", "hooks", "A hook **SHOULD** key on `toolUseId`; it can retry."),
        block("ROC-SEC-001", "MUST", "core", "It **MUST** hold."),
    )
    assert lint_texts({"03-lifecycle.md": text}, tmp_path) == []


@pytest.mark.parametrize("word", ["must", "must not", "should", "shall", "required", "Must"])
def test_lowercase_keyword_inside_block_fails(word: str) -> None:
    text = chapter(block(text=f"The agent **MUST** stop and {word} record it."))
    [violation] = lint_texts({"03-lifecycle.md": text})
    assert violation.rule == "lowercase-keyword"
    assert (violation.file, violation.line) == ("03-lifecycle.md", 8)
    assert str(violation).startswith("03-lifecycle.md:8: [lowercase-keyword]")


def test_lowercase_words_outside_blocks_or_in_code_pass() -> None:
    text = chapter(
        "Callers must not parse ids (informative prose, lowercase).\n",
        block(text="The `required` members **MUST** be present; a caller can omit `reason`."),
    )
    assert lint_texts({"03-lifecycle.md": text}) == []


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        ("The agent MUST stop.", "MUST"),
        ("The agent **MUST** NOT stop.", "MUST NOT"),
        ("It **MUST** stop and SHOULD log.", "SHOULD"),
        ("**the agent MUST stop**", "MUST"),
    ],
)
def test_unbolded_uppercase_keyword_inside_block_fails(body: str, phrase: str) -> None:
    violations = lint_texts({"03-lifecycle.md": chapter(block(text=body))})
    assert "unbolded-keyword" in rules(violations)
    assert any(phrase in v.message for v in violations if v.rule == "unbolded-keyword")


def test_bold_phrase_wrapping_across_lines_passes() -> None:
    body = "A preserved result **MUST\nNOT** run again."
    assert lint_texts({"03-lifecycle.md": chapter(block(level="MUST NOT", text=body))}) == []


def test_bold_keywords_pass() -> None:
    body = "It **MUST NOT** run, **SHOULD NOT** log, and **MAY** retry; `MUST` in code is quoted."
    assert lint_texts({"03-lifecycle.md": chapter(block(level="MUST NOT", text=body))}) == []


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("03-lifecycle.md", "Implementations MUST stop."),
        ("10-security.md", "The snapshot **SHOULD** be signed."),
        ("05-tools.md", "The `MUST` keyword in code, outside a block."),
        ("01-conformance.md", "An implementation MUST declare its profiles."),
        ("terms.md", "An answer MUST NOT be null."),
        ("appendix-b-registries.md", "A reader SHOULD ignore unknown values."),
    ],
)
def test_keyword_outside_block_in_normative_chapter_fails(name: str, line: str) -> None:
    [violation] = lint_texts({name: chapter(line + "\n", block())})
    assert (violation.rule, violation.file, violation.line) == ("keyword-outside-block", name, 5)


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("01-conformance.md", "The keywords `MUST`, `MUST NOT`, `SHOULD` and `MAY` are read per BCP 14."),
        ("README.md", "Each chapter says what an implementation MUST do."),
        ("appendix-a-peers.md", "Strands SHOULD, per RoC, reject null answers."),
        ("CHANGELOG.md", "Constant-time comparison becomes MUST."),
        ("conformance-testing.md", "A MUST that errored makes the profile INCOMPLETE."),
        ("03-lifecycle.md", "```text\nMUST appears in an example\n```"),
    ],
)
def test_keyword_where_allowed_passes(name: str, line: str) -> None:
    assert lint_texts({name: chapter(line + "\n")}) == []


def test_block_without_keyword_fails_and_with_keyword_passes() -> None:
    bad = chapter(block(text='The invocation ends with `stopReason` `"interrupt"`.'))
    [violation] = lint_texts({"03-lifecycle.md": bad})
    assert (violation.rule, violation.line) == ("no-keyword", 6)
    assert lint_texts({"03-lifecycle.md": chapter(block())}) == []


@pytest.mark.parametrize(
    ("level", "body"),
    [
        ("SHOULD", "It **MUST** stop."),
        ("MUST", "It **SHOULD** stop."),
        ("MUST", "It **MUST NOT** run."),
        ("MUST NOT", "It **MUST** run."),
        ("MAY", "It **MAY** run and **SHOULD** log."),
    ],
)
def test_header_level_must_match_strongest_keyword(level: str, body: str) -> None:
    [violation] = lint_texts({"03-lifecycle.md": chapter(block(level=level, text=body))})
    assert violation.rule == "level-mismatch"


@pytest.mark.parametrize(
    ("level", "body"),
    [
        ("MUST", "It **MUST** stop and **MAY** log."),
        ("MUST NOT", "It **MUST** stop and **MUST NOT** call the model."),
        ("MUST", "It **MUST** stop and **MUST NOT** call the model."),
        ("SHOULD NOT", "It **SHOULD NOT** log."),
        ("MUST", "It **REQUIRED** by the **SHALL** form."),
    ],
)
def test_header_level_matching_strongest_keyword_passes(level: str, body: str) -> None:
    assert lint_texts({"03-lifecycle.md": chapter(block(level=level, text=body))}) == []


@pytest.mark.parametrize(
    "header",
    [
        "> **ROC-STOP-1** · MUST · core",
        "> **ROC-STOP-001** - MUST - core",
        "> **ROC-STOP-001** · MUSTN'T · core",
        "> **ROC-STOP-001** · MUST",
        "> ROC-STOP-001 · MUST · core",
        "> **roc-stop-001** · MUST · core",
        "> **ROC-STOP-001** · must · core",
    ],
)
def test_malformed_header_fails(header: str) -> None:
    text = chapter(f'<a id="roc-stop-001"></a>\n{header}\n>\n> It **MUST** stop.\n')
    violations = lint_texts({"03-lifecycle.md": text})
    assert ("malformed-header", 6) in [(v.rule, v.line) for v in violations]


def test_unknown_area_and_dangling_anchor_are_malformed() -> None:
    text = chapter(block("ROC-FOO-001"), '<a id="roc-stop-002"></a>\n\nJust prose.\n')
    assert rules(lint_texts({"03-lifecycle.md": text})) == ["malformed-header", "malformed-header"]


@pytest.mark.parametrize("profile", ["cores", "response_schema", "Core"])
def test_unknown_or_reserved_profile_fails(profile: str) -> None:
    violations = lint_texts({"03-lifecycle.md": chapter(block(profile=profile))})
    assert set(rules(violations)) <= {"unknown-profile", "malformed-header"}
    assert violations


@pytest.mark.parametrize(
    "profile",
    [
        "core",
        "hooks",
        "sequential-executor",
        "direct-tool-call",
        "session-store",
        "snapshot-integrity",
        "portable-snapshot",
    ],
)
def test_known_profile_passes(profile: str) -> None:
    assert lint_texts({"03-lifecycle.md": chapter(block(profile=profile))}) == []


def test_duplicate_id_fails_with_both_places() -> None:
    files = {"03-lifecycle.md": chapter(block()), "04-hooks.md": chapter(block())}
    [violation] = lint_texts(files)
    assert (violation.rule, violation.file, violation.line) == ("duplicate-id", "04-hooks.md", 6)
    assert "03-lifecycle.md:6" in violation.message
    files["04-hooks.md"] = chapter(block("ROC-HOOK-001"))
    assert lint_texts(files) == []


@pytest.mark.parametrize("anchor", ["roc-stop-002", "ROC-STOP-001", "stop-001"])
def test_anchor_not_matching_id_fails(anchor: str) -> None:
    [violation] = lint_texts({"03-lifecycle.md": chapter(block(anchor=anchor))})
    assert (violation.rule, violation.line) == ("anchor", 5)


def test_missing_anchor_fails() -> None:
    text = chapter("> **ROC-STOP-001** · MUST · core\n>\n> It **MUST** stop.\n")
    assert rules(lint_texts({"03-lifecycle.md": text})) == ["anchor"]


def test_block_in_informative_file_fails() -> None:
    assert rules(lint_texts({"appendix-a-peers.md": chapter(block())})) == ["block-in-informative"]


@pytest.mark.parametrize(
    "link",
    [
        "[x](04-hooks.md)",
        "[x](03-lifecycle.md#roc-stop-999)",
        "[x](#no-such-heading)",
        "[x](03-lifecycle.md#Stop-Rules)",
        "[x](/spec/03-lifecycle.md)",
        "[x](schema/v1/missing.schema.json)",
        "[x]: 09-versioning.md",
        '<a href="07-errors.md#codes">x</a>',
    ],
)
def test_broken_internal_link_fails(tmp_path: Path, link: str) -> None:
    files = {"02-data-model.md": chapter(f"{link}\n"), "03-lifecycle.md": chapter("## Stop rules\n", block())}
    [violation] = lint_texts(files, tmp_path)
    assert (violation.rule, violation.file, violation.line) == ("broken-link", "02-data-model.md", 5)


@pytest.mark.parametrize(
    "link",
    [
        "[x](03-lifecycle.md)",
        "[x](03-lifecycle.md#roc-stop-001)",
        "[x](03-lifecycle.md#stop-rules)",
        "[x](03-lifecycle.md#stop-rules_1)",
        "[x](03-lifecycle.md#32-the-stopreason-field)",
        "[x](#data-model)",
        "[x](https://www.rfc-editor.org/rfc/rfc8174)",
        "[x](schema/v1/interrupt.schema.json)",
        "`[x](nowhere.md)` in code",
    ],
)
def test_resolving_internal_link_passes(tmp_path: Path, link: str) -> None:
    (tmp_path / "schema" / "v1").mkdir(parents=True)
    (tmp_path / "schema" / "v1" / "interrupt.schema.json").write_text("{}", encoding="utf-8")
    lifecycle = chapter("## Stop rules\n", block(), "## Stop rules\n", "## 3.2 The `stopReason` field\n")
    files = {"02-data-model.md": chapter(f"See {link}.\n", title="Data model"), "03-lifecycle.md": lifecycle}
    assert lint_texts(files, tmp_path) == []


def test_header_must_be_followed_by_a_blank_quote_line() -> None:
    text = chapter('<a id="roc-stop-001"></a>\n> **ROC-STOP-001** · MUST · core\n> It **MUST** stop.\n')
    [violation] = lint_texts({"03-lifecycle.md": text})
    assert (violation.rule, violation.line) == ("malformed-header", 7)


@pytest.mark.parametrize(
    "marker",
    [
        "*Untestable:* reason",
        "**Untestable:** reason",
        "*Untestable*: reason",
        "_Untestable:_ reason",
        "Untestable: reason",
        "untestable because reason",
        "*Untestable:*",
    ],
)
def test_an_untestable_line_in_a_block_is_refused(marker: str) -> None:
    text = chapter(block(text="It **MUST** hold.") + f">\n> {marker}\n")
    [violation] = lint_texts({"03-lifecycle.md": text})
    assert (violation.rule, violation.file, violation.line) == ("untestable-in-block", "03-lifecycle.md", 10)
    assert violation.message.startswith("ROC-STOP-001: ")
    assert "conformance-testing.md" in violation.message
    assert "Requirements the harness cannot observe" in violation.message


def test_an_untestable_line_is_refused_even_inside_a_paragraph_and_its_words_count_for_nothing() -> None:
    # No blank quote line before the marker, and a MUST in the reason of a SHOULD: one violation, the
    # refusal, not a level mismatch or a keyword complaint about the stray words.
    text = chapter(
        block(level="SHOULD", text="It **SHOULD** log.\n*Untestable:* a **MUST** is\nnot seen, must it?")
    )
    [violation] = lint_texts({"03-lifecycle.md": text})
    assert (violation.rule, violation.line) == ("untestable-in-block", 9)


def test_a_malformed_block_with_an_untestable_line_gets_both_reports() -> None:
    text = chapter('<a id="roc-stop-001"></a>\n> **ROC-STOP-1** · MUST · core\n>\n> It **MUST** hold.\n')
    text += ">\n> *Untestable:* reason\n"
    violations = lint_texts({"03-lifecycle.md": text})
    assert rules(violations) == ["malformed-header", "untestable-in-block"]
    assert not violations[1].message.startswith("ROC-")


def test_mentioned_requirement_ids_must_exist() -> None:
    files = {"03-lifecycle.md": chapter("See ROC-HOOK-001 and `ROC-STOP-001`.\n", block())}
    [violation] = lint_texts(files)
    assert (violation.rule, violation.line) == ("unknown-id-reference", 5)
    files["04-hooks.md"] = chapter(block("ROC-HOOK-001", profile="hooks"))
    assert lint_texts(files) == []


def test_a_published_id_that_disappears_is_reported() -> None:
    published = render_requirements(requirements_of([parse_chapter("03-lifecycle.md", chapter(block()))]))
    renumbered = [parse_chapter("03-lifecycle.md", chapter(block("ROC-STOP-002")))]
    [violation] = removed_id_violations(published, renumbered)
    assert (violation.rule, violation.file) == ("removed-id", "03-lifecycle.md")
    assert "ROC-STOP-001" in violation.message
    kept = [parse_chapter("03-lifecycle.md", chapter(block(), block("ROC-STOP-002")))]
    assert removed_id_violations(published, kept) == []
    assert removed_id_violations(None, renumbered) == []
