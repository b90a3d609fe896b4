"""Reports: report.json validates against its schema; JUnit names carry requirement IDs; Markdown verdicts."""

from __future__ import annotations

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
            {"id": "ROC-TEST-003", "level": "MUST", "profile": "expiry"},
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
    assert set(paths) == {"json", "markdown", "junit", "junit-extra"}
    return json.loads(paths["json"].read_text())


def test_the_report_schema_is_a_valid_2020_12_schema():
    Draft202012Validator.check_schema(json.loads(REPORT_SCHEMA_PATH.read_text()))


def test_report_validates_and_records_settings_and_verdicts(tmp_path):
    doc = make_report(tmp_path)
    assert validate_report(doc) == []
    assert doc["schemaVersion"] == "1.2"
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
        "ROC-TEST-003 MUST expiry",
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
    assert "profile 'expiry' not declared" in text


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
