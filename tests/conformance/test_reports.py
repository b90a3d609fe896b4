"""Reports: report.json validates against its schema; JUnit names carry requirement IDs; Markdown verdicts."""

from __future__ import annotations

import io
import json
from pathlib import Path
from xml.etree import ElementTree as ET

from jsonschema import Draft202012Validator
from roc_conformance.checks.base import Check
from roc_conformance.checks.explicit import check_error_shape
from roc_conformance.errors import ConformanceViolation
from roc_conformance.registry import parse_registry
from roc_conformance.report import REPORT_SCHEMA_PATH, junit_xml, markdown, validate_report, write_all
from roc_conformance.runner import run_suite
from roc_conformance.settings import CERTIFY
from roc_conformance.target import Target
from roc_harness_support import serving

REGISTRY = parse_registry(
    {
        "specVersion": "1.0",
        "requirements": [
            {"id": "ROC-ERR-003", "level": "MUST", "profile": "core", "section": "Errors"},
            {"id": "ROC-TEST-001", "level": "MUST", "profile": "core"},
            {"id": "ROC-TEST-002", "level": "MUST", "profile": "core"},
            {"id": "ROC-TEST-003", "level": "MUST", "profile": "x-unclaimed"},
        ],
    }
)


def fail(ctx):
    raise ConformanceViolation("ROC-TEST-001", "wrong", counterexample="Invoke({...}) -> {...}")


def make_report(tmp_path: Path) -> dict:
    checks = [
        Check(
            "explicit:error-shape",
            ("ROC-ERR-003", "ROC-ERR-777"),
            check_error_shape,
            ("core", "sequential-executor"),
        ),
        Check("t:fail", ("ROC-TEST-001",), fail),
    ]
    with serving() as (address, _):
        result = run_suite(Target(address, "in-process"), checks, REGISTRY, CERTIFY)
    paths = write_all(result, tmp_path, junit=tmp_path / "extra" / "junit.xml")
    assert set(paths) == {"json", "markdown", "junit", "html", "junit-extra"}
    return json.loads(paths["json"].read_text())


def test_the_report_schema_is_a_valid_2020_12_schema():
    Draft202012Validator.check_schema(json.loads(REPORT_SCHEMA_PATH.read_text()))


def test_report_validates_and_records_settings_and_verdicts(tmp_path):
    doc = make_report(tmp_path)
    assert validate_report(doc) == []
    assert doc["schemaVersion"] == "1.3"
    assert doc["settings"]["name"] == "certify"
    assert doc["settings"]["derandomize"] is True
    assert doc["settings"]["maxExamples"] == CERTIFY.max_examples
    statuses = {r["id"]: r["status"] for r in doc["requirements"]}
    assert statuses == {
        "ROC-ERR-003": "PASS",
        "ROC-TEST-001": "FAIL",
        "ROC-TEST-002": "NOT_TESTED",
        "ROC-TEST-003": "SKIPPED",
    }
    failed = next(r for r in doc["requirements"] if r["id"] == "ROC-TEST-001")
    assert failed["failures"][0]["counterexample"].startswith("Invoke(")
    assert doc["unregisteredRequirements"]["ROC-ERR-777"] == ["explicit:error-shape"]
    assert doc["profiles"]["core"]["status"] == "NOT_CONFORMANT"
    assert doc["conformant"] is False


def test_a_tampered_report_fails_validation(tmp_path):
    doc = make_report(tmp_path)
    doc["requirements"][0]["status"] = "MAYBE"
    del doc["settings"]
    problems = validate_report(doc)
    assert any("settings" in p for p in problems)
    assert any("MAYBE" in p for p in problems)


def test_junit_has_one_case_per_requirement_named_by_id(tmp_path):
    doc = make_report(tmp_path)
    root = ET.fromstring(junit_xml(doc))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {
        "ROC-ERR-003 MUST core",
        "ROC-TEST-001 MUST core",
        "ROC-TEST-002 MUST core",
        "ROC-TEST-003 MUST x-unclaimed",
    }
    assert cases["ROC-TEST-001 MUST core"].find("failure") is not None
    assert cases["ROC-TEST-002 MUST core"].find("skipped").get("message").startswith("NOT_TESTED")
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "2")
    assert (tmp_path / "extra" / "junit.xml").read_text() == (tmp_path / "junit.xml").read_text()


def test_markdown_summary_shows_verdict_failures_and_untested(tmp_path):
    text = markdown(make_report(tmp_path))
    assert "**Verdict: NOT CONFORMANT**" in text
    assert "### ROC-TEST-001 (MUST, core): FAIL" in text
    assert "| ROC-TEST-002 | MUST | core |" in text
    assert "profile 'x-unclaimed' not declared" in text


def test_matrix_has_one_row_per_requirement_and_one_column_per_report(tmp_path):
    from roc_conformance.report import matrix

    doc = make_report(tmp_path)
    other = json.loads(json.dumps(doc))
    other["implementation"]["name"] = "other-impl"
    table = matrix([doc, other]).splitlines()
    assert "roc-reference" in table[0]
    assert "other-impl" in table[0]
    rows = [line for line in table if line.startswith("| ROC-")]
    assert len(rows) == len(doc["requirements"])
    assert any(line.startswith("| ROC-TEST-001 ") and line.count("❌") == 2 for line in rows)


# ---------------------------------------------------------------------------------------------
# summary.md and report.html for people

LONG_REPLY = {
    "result": {
        "stopReason": "interrupt",
        "interrupts": [{"id": f"i{n}", "name": "x" * 400} for n in range(40)],
    },
    "trace": [{"kind": "model_call", "turn": n} for n in range(60)],
}
# What a check's message looks like when the check capped a quoted reply at its length, mid-object.
CUT = json.dumps(LONG_REPLY, separators=(",", ":"))[:700] + "…"
TRANSCRIPT = "\n".join(
    [
        '"kind":"model_call"}]}',  # the start of a transcript kept only by its tail
        '[create] → {"rpc":"CreateAgent","spec":{"agentId":"a1"}}',
        "    ← " + json.dumps({"agent": "a-1"}),
        '[step 0] → {"prompt":"<script>alert(1)</script>","rpc":"Invoke"}',
        "    ← " + json.dumps(LONG_REPLY),
    ]
)
REGISTRY_LINKED = parse_registry(
    {
        "specVersion": "1.0",
        "requirements": [
            {
                "id": "ROC-TEST-001",
                "level": "MUST",
                "profile": "core",
                "anchor": "03-lifecycle.md#roc-test-001",
            },
            {
                "id": "ROC-TEST-002",
                "level": "MUST",
                "profile": "core",
                "anchor": "03-lifecycle.md#roc-test-002",
            },
            {"id": "ROC-TEST-003", "level": "MUST", "profile": "core"},
        ],
    }
)


def fails_with_consequence(ctx):
    from roc_conformance.checks.base import Finding

    ctx.evidence.fail(
        Finding(("ROC-TEST-001",), f"step 0: expected error, got {CUT}", counterexample=TRANSCRIPT)
    )
    ctx.evidence.consequences.append(
        Finding(
            ("ROC-TEST-002",),
            "step 1: the state <b>differs</b> (after the first failure)",
            after=("ROC-TEST-001",),
        )
    )


def people_report(tmp_path: Path, settings=CERTIFY) -> dict:
    checks = [
        Check("t:consequence", ("ROC-TEST-001", "ROC-TEST-002", "ROC-TEST-003"), fails_with_consequence)
    ]
    with serving() as (address, _):
        result = run_suite(Target(address, "in-process"), checks, REGISTRY_LINKED, settings)
    paths = write_all(result, tmp_path)
    return json.loads(paths["json"].read_text())


def fenced_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.append(line)
    assert current is None, "an unclosed fence"
    return blocks


def json_payloads(line: str) -> list[str]:
    """The JSON a transcript or message line carries: after an arrow, or after 'got '."""
    for marker in ("→ ", "← ", "got "):
        if marker in line:
            return [line.split(marker, 1)[1]]
    return []


def test_summary_quotes_only_whole_json_values(tmp_path):
    text = markdown(people_report(tmp_path))
    blocks = fenced_blocks(text)
    payloads = [p for block in blocks for line in block for p in json_payloads(line)]
    assert len(payloads) >= 5  # the message's reply and the four transcript lines
    for payload in payloads:
        json.loads(payload)  # raises on JSON cut mid-object
    # Shortened by whole values: long strings and arrays end in a marker, the structure stays.
    reply = json.loads(payloads[-1])
    assert reply["trace"][-1].startswith("… ")
    assert reply["result"]["interrupts"][0]["name"].endswith("…")
    # The message's cut reply keeps its complete members and marks the cut.
    got = json.loads(json_payloads(next(line for b in blocks for line in b if "got " in line))[0])
    assert got["result"]["stopReason"] == "interrupt"
    assert "(the start of this transcript was cut)" in text


def test_summary_puts_the_verdicts_first_and_folds_consequences_under_their_failure(tmp_path):
    text = markdown(people_report(tmp_path))
    assert text.index("**Verdict: NOT CONFORMANT**") < text.index("## Profiles") < text.index("## Failures")
    assert text.index("## Failures") < text.index("## The run")
    section = text[text.index("### [ROC-TEST-001]") :]
    section = section[: section.find("\n## ")]
    assert "(https://roc-protocol.org/spec/03-lifecycle/#roc-test-001)" in text
    details = section[section.index("<details>") : section.index("</details>")]
    assert "consequence" in details
    assert "ROC-TEST-002: step 1: the state <b>differs</b>" in details
    assert "### [ROC-TEST-002]" not in text  # a consequence is no failure of its own
    # No internal remarks: suite bookkeeping stays in report.json.
    for internal in ("unregistered", "Checks: PASS", "every declared profile must be conformant"):
        assert internal not in text


def test_summary_shows_the_explore_seed_and_the_example_database(tmp_path):
    from roc_conformance.settings import EXPLORE, with_overrides

    explore = with_overrides(EXPLORE, max_examples=2, steps=2, seed=8675309)
    text = markdown(people_report(tmp_path, explore))
    assert "Seed: `8675309`" in text
    assert "--explore --seed 8675309" in text
    assert "Example database: `" in text
    certify = markdown(people_report(tmp_path / "c"))
    assert "Seed:" not in certify
    assert "Example database" not in certify


def test_html_report_is_self_contained_linked_and_escaped(tmp_path):
    from html.parser import HTMLParser

    people_report(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>differs</b>" not in page
    assert 'href="https://roc-protocol.org/spec/03-lifecycle/#roc-test-001"' in page

    class Refs(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.loads: list[str] = []
            self.details = 0

            self.open: list[str] = []
            self.unbalanced: list[str] = []

        def handle_endtag(self, tag):
            if self.open and self.open[-1] == tag:
                self.open.pop()
            else:
                self.unbalanced.append(tag)

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            if tag != "meta":
                self.open.append(tag)
            self.details += tag == "details"
            attrs = dict(attrs)
            if tag in ("script", "img", "iframe", "link") or "src" in attrs:
                self.loads.append(tag)

    refs = Refs()
    refs.feed(page)
    assert refs.loads == []  # nothing fetched: one file, inline CSS
    assert (refs.open, refs.unbalanced) == ([], [])  # escaped text opens no element
    assert "style" in refs.tags
    assert refs.details >= 2  # the transcript and the consequences fold


# ---------------------------------------------------------------------------------------------
# The console while checks run


def noisy_machine(ctx):
    """A state machine that fails, plus a warning: what Hypothesis prints by itself on a failing run."""
    import warnings

    from hypothesis import HealthCheck
    from hypothesis import settings as hsettings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisDeprecationWarning
    from hypothesis.reporting import report
    from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

    class Machine(RuleBasedStateMachine):
        @rule(value=st.integers(0, 10))
        def step(self, value):
            if value > 3:
                raise ConformanceViolation("ROC-TEST-001", f"value {value} is too big")

    warnings.warn("a Hypothesis warning", HypothesisDeprecationWarning, stacklevel=1)
    # What Hypothesis prints through its reporter when a failure does not reproduce.
    report("Failed to reproduce exception. Expected: ...")
    quiet = hsettings(
        max_examples=50,
        database=None,
        derandomize=False,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    run_state_machine_as_test(Machine, settings=quiet)


def test_no_hypothesis_text_reaches_the_console(tmp_path, capfd):
    checks = [Check("t:noisy", ("ROC-TEST-001",), noisy_machine)]
    with serving() as (address, _):
        result = run_suite(Target(address, "in-process"), checks, REGISTRY, CERTIFY, progress=None)
    out, err = capfd.readouterr()
    noisy = next(c for c in result.checks if c.name == "t:noisy")
    assert noisy.status.value == "FAIL"
    for text in (out, err):
        assert "state." not in text  # the replayed steps
        assert "@seed" not in text
        assert "Hypothesis" not in text
        assert "Failed to reproduce" not in text
    assert any("a Hypothesis warning" in note for note in noisy.notes)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_per_stage_on_a_terminal_and_plain_lines_elsewhere():
    checks = [Check("t:fail", ("ROC-TEST-001",), fail), Check("t:also", ("ROC-TEST-002",), fail)]
    terminal, log = FakeTerminal(), io.StringIO()
    with serving() as (address, _):
        run_suite(Target(address, "in-process"), checks, REGISTRY, CERTIFY, progress=terminal)
        run_suite(Target(address, "in-process"), checks, REGISTRY, CERTIFY, progress=log)
    shown = terminal.getvalue()
    assert "━" in shown  # rich's bar
    assert "t:also" in shown  # the check running now
    assert "TEST     FF" in shown  # and the stage's line when it ends
    plain = log.getvalue()
    assert "\x1b" not in plain
    assert "━" not in plain
    assert "  TEST     FF" in plain.splitlines()[1]


def test_the_seed_command_of_a_cmd_target_starts_the_same_target(tmp_path):
    import re
    import shlex

    from roc_conformance.settings import EXPLORE, with_overrides

    doc = people_report(tmp_path, with_overrides(EXPLORE, max_examples=2, steps=2, seed=7))
    doc["target"] = "cmd:python my adapter.py --port 0"  # the label a cmd: target runs under
    command = re.search(r"`(roc-conformance run [^`]*)`", markdown(doc))
    assert command is not None
    argv = shlex.split(command.group(1))
    assert argv[argv.index("--target") + 1] == "cmd:python my adapter.py --port 0"
