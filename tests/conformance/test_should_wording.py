"""A failed SHOULD is shown as a warning that is not scored, in the summary and in the HTML report."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from roc_conformance.html_report import html_report
from roc_conformance.summary import markdown, own_findings
from test_reports import make_report


def _with_a_failed_should(tmp_path: Path) -> dict:
    doc = copy.deepcopy(make_report(tmp_path))
    failed = next(r for r in doc["requirements"] if r["status"] == "FAIL")
    should = {**copy.deepcopy(failed), "id": "ROC-TEST-009", "level": "SHOULD"}
    doc["requirements"].append(should)
    return json.loads(json.dumps(doc))


def test_the_summary_says_a_failed_should_is_a_warning_not_scored(tmp_path):
    text = markdown(_with_a_failed_should(tmp_path))
    assert "## Failures (2: 1 MUST, 1 SHOULD, not scored)" in text
    assert "### ROC-TEST-009 (SHOULD, core): FAIL (SHOULD: a warning, not scored)" in text
    assert "### ROC-TEST-001 (MUST, core): FAIL\n" in text  # a MUST failure is not marked
    assert "not scored, and no verdict depends on it" in text


def test_the_html_report_says_a_failed_should_is_a_warning_not_scored(tmp_path):
    page = html_report(_with_a_failed_should(tmp_path))
    assert "Failures (2: 1 MUST, 1 SHOULD, not scored)" in page
    assert "(SHOULD: a warning, not scored)</h3>" in page
    assert "FAIL (SHOULD, not scored)</td>" in page


def test_without_a_failed_should_the_count_is_plain(tmp_path):
    assert "## Failures (1)" in markdown(make_report(tmp_path))


def test_a_requirement_shows_its_own_findings_first():
    vector = (
        "vector v: a title\n"
        "- [ROC-TOOL-006, ROC-TOOL-005] vector v step 0: history [...] != expected [...]\n"
        "- [ROC-STOP-002, ROC-EXEC-006] vector v step 1: interrupt ('tool', 't2', 'b') missing"
    )
    assert own_findings(vector, "ROC-STOP-002").split("\n")[1].startswith("- [ROC-STOP-002")
    assert "ROC-TOOL-005" not in own_findings(vector, "ROC-STOP-002", only=True)
    assert own_findings(vector, "ROC-TOOL-005") == vector
    explicit = "[ROC-STOP-007] an empty name was accepted; [ROC-MODEL-001] the interrupt fails its schema"
    assert own_findings(explicit, "ROC-MODEL-001").startswith("[ROC-MODEL-001]")
    assert own_findings("state changed: {} -> {'a': 1}", "ROC-DIRECT-003") == "state changed: {} -> {'a': 1}"
