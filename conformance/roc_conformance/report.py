"""Reports of a run: ``report.json`` (schema: conformance/report.schema.json), JUnit XML, ``summary.md``
(summary.py) and ``report.html`` (html_report.py), all rendered from one report document. A run's document
comes from its result log (results_log.report_from_log), so a killed run's log renders the same reports.

JUnit has one test case per requirement, named ``ROC-XXX-NNN <level> <profile>`` so CI dashboards show
requirement IDs; the checks that judged it are listed in the case's output. SKIPPED and NOT_TESTED become
``<skipped>`` with their reason, ERROR ``<error>``, FAIL ``<failure>`` with the counterexample.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from roc_conformance.expectations import base_name
from roc_conformance.html_report import html_report
from roc_conformance.readable import clip
from roc_conformance.runner import RunResult
from roc_conformance.summary import markdown, verdict_of

REPORT_SCHEMA_PATH = Path(__file__).resolve().parents[1] / "report.schema.json"


def write_json(result: RunResult, path: Path) -> dict[str, Any]:
    doc = result.to_json()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc


REPORT_FILES = {"json": "report.json", "markdown": "summary.md", "junit": "junit.xml", "html": "report.html"}


def validate_report(doc: dict[str, Any], schema_path: Path = REPORT_SCHEMA_PATH) -> list[str]:
    """Schema violations of a report document (empty when valid)."""
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
        for e in validator.iter_errors(doc)
    ]


def junit_xml(doc: dict[str, Any]) -> str:
    """JUnit XML of a report document."""
    reqs: list[dict[str, Any]] = doc["requirements"]
    counts = {"tests": len(reqs), "failures": 0, "errors": 0, "skipped": 0}
    suites = ET.Element("testsuites", name="roc-conformance")
    impl = doc.get("implementation") or {}
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"roc-conformance {impl.get('name', doc['target'])}",
        timestamp=doc["startedAt"],
        time=f"{doc['durationSeconds']:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("target", doc["target"]),
        ("implementation", json.dumps(impl, sort_keys=True)),
        ("settings", json.dumps(doc["settings"], sort_keys=True)),
        ("specVersion", doc["suite"]["specVersion"]),
        ("conformant", str(doc["conformant"])),
        ("verdict", verdict_of(doc)),
    ):
        ET.SubElement(props, "property", name=name, value=str(value))
    known = _known_failures(doc)
    for req in reqs:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"roc.{req['id'].split('-')[1].lower()}",
            name=f"{req['id']} {req['level']} {req['profile']}",
        )
        status = req["status"]
        reason = req.get("reason", "")
        excuse = _excuse(req, known) if status == "FAIL" else None
        if excuse is not None:
            # A failure the run's known-failures (or known-flaky) list holds: CI's JUnit view follows the
            # exit code, so it is shown as skipped with the listed reason, the failure kept in system-err.
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=clip(excuse, 500))
            ET.SubElement(case, "system-err").text = clip(reason, 2000)
        elif status == "FAIL":
            counts["failures"] += 1
            failure = ET.SubElement(case, "failure", message=clip(reason, 500), type="ConformanceViolation")
            failure.text = "\n\n".join(
                f"[{f['check']}] {f['message']}"
                + (f"\n{f['counterexample']}" if f.get("counterexample") else "")
                for f in req.get("failures", [])
            )
        elif status == "ERROR":
            counts["errors"] += 1
            ET.SubElement(case, "error", message=clip(reason, 500), type="HarnessFault")
        elif status in ("SKIPPED", "NOT_TESTED"):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=clip(f"{status}: {reason}", 500))
        if req.get("checks"):
            ET.SubElement(case, "system-out").text = "checks: " + ", ".join(req["checks"])
    for key, value in counts.items():
        suite.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _known_failures(doc: dict[str, Any]) -> dict[str, str]:
    """Entry -> reason for each known-failures or known-flaky entry that holds in this run."""
    expectations = doc.get("expectations") or {}
    known: dict[str, str] = {}
    for kind, label in (("knownFailures", "known failure"), ("knownFlaky", "known flaky")):
        for entry in (expectations.get(kind) or {}).get("entries", []):
            if entry["state"] == "holds":
                known[entry["entry"]] = f"{label}: {entry['reason']}"
    return known


def _excuse(req: dict[str, Any], known: dict[str, str]) -> str | None:
    """Why a failed requirement is expected: its own entry, or entries naming every check that failed it."""
    if req["id"] in known:
        return known[req["id"]]
    checks = [f"check:{base_name(f['check'])}" for f in req.get("failures", [])]
    if checks and all(c in known for c in checks):
        return "; ".join(dict.fromkeys(known[c] for c in checks))
    return None


def write_reports(doc: dict[str, Any], report_dir: Path, *, junit: Path | None = None) -> dict[str, Path]:
    """Write report.json, summary.md, junit.xml and report.html of ``doc`` into ``report_dir``; ``junit``
    adds a copy of the JUnit XML there."""
    report_dir.mkdir(parents=True, exist_ok=True)
    paths = {key: report_dir / name for key, name in REPORT_FILES.items()}
    paths["json"].write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["markdown"].write_text(markdown(doc), encoding="utf-8")
    xml = junit_xml(doc)
    paths["junit"].write_text(xml, encoding="utf-8")
    paths["html"].write_text(html_report(doc), encoding="utf-8")
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(xml, encoding="utf-8")
        paths["junit-extra"] = junit
    return paths


def write_all(result: RunResult, report_dir: Path, *, junit: Path | None = None) -> dict[str, Path]:
    """``write_reports`` of a run result held in memory (the CLI renders from the result log instead)."""
    return write_reports(result.to_json(), report_dir, junit=junit)


_MARK = {"PASS": "✅", "FAIL": "❌", "ERROR": "⚠️", "SKIPPED": "–", "NOT_TESTED": "·"}


def matrix(docs: list[dict[str, Any]]) -> str:
    """The implementations × requirements matrix (Markdown) of several reports, measured results only."""
    names = []
    for doc in docs:
        impl = doc.get("implementation") or {}
        names.append(f"{impl.get('name', doc['target'])} {impl.get('version', '')}".strip())
    order: dict[str, dict[str, Any]] = {}
    for doc in docs:
        for req in doc["requirements"]:
            order.setdefault(req["id"], req)
    lines = [
        "| requirement | level | profile | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for rid, req in order.items():
        cells = []
        for doc in docs:
            status = next((r["status"] for r in doc["requirements"] if r["id"] == rid), "NOT_TESTED")
            cells.append(_MARK.get(status, status))
        lines.append(f"| {rid} | {req['level']} | {req['profile']} | " + " | ".join(cells) + " |")
    legend = ", ".join(f"{mark} {status}" for status, mark in _MARK.items())
    return "\n".join([*lines, "", f"Legend: {legend}."]) + "\n"
