"""Reports of a run: ``report.json`` (schema: conformance/report.schema.json), JUnit XML, Markdown summary.

JUnit has one test case per requirement, named ``ROC-XXX-NNN <level> <profile>`` so CI dashboards show
requirement IDs; the checks that judged it are listed in the case's output. SKIPPED and NOT_TESTED become
``<skipped>`` with their reason, ERROR ``<error>``, FAIL ``<failure>`` with the counterexample.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from roc_conformance.runner import RunResult

REPORT_SCHEMA_PATH = Path(__file__).resolve().parents[1] / "report.schema.json"


def write_json(result: RunResult, path: Path) -> dict[str, Any]:
    doc = result.to_json()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc


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
        ("verdict", _verdict(doc)),
    ):
        ET.SubElement(props, "property", name=name, value=str(value))
    for req in reqs:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"roc.{req['id'].split('-')[1].lower()}",
            name=f"{req['id']} {req['level']} {req['profile']}",
        )
        status = req["status"]
        reason = req.get("reason", "")
        if status == "FAIL":
            counts["failures"] += 1
            failure = ET.SubElement(case, "failure", message=reason[:500], type="ConformanceViolation")
            failure.text = "\n\n".join(
                f"[{f['check']}] {f['message']}"
                + (f"\n{f['counterexample']}" if f.get("counterexample") else "")
                for f in req.get("failures", [])
            )
        elif status == "ERROR":
            counts["errors"] += 1
            ET.SubElement(case, "error", message=reason[:500], type="HarnessFault")
        elif status in ("SKIPPED", "NOT_TESTED"):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=f"{status}: {reason}"[:500])
        if req.get("checks"):
            ET.SubElement(case, "system-out").text = "checks: " + ", ".join(req["checks"])
    for key, value in counts.items():
        suite.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _verdict(doc: dict[str, Any]) -> str:
    """The run's verdict; a schema 1.1 report has only ``conformant``."""
    verdict = doc.get("verdict")
    if isinstance(verdict, str):
        return verdict
    return "CONFORMANT" if doc["conformant"] else "NOT CONFORMANT"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(doc: dict[str, Any]) -> str:
    """A Markdown summary (for CI step summaries and humans)."""
    impl = doc.get("implementation") or {}
    lines = [
        f"# RoC conformance: {impl.get('name', '?')} {impl.get('version', '')}".rstrip(),
        "",
        f"- Target: `{doc['target']}`; suite {doc['suite']['name']} {doc['suite']['version']}, "
        f"spec {doc['suite']['specVersion']}, harness protocol {doc['suite']['harnessProtocolVersion']}",
        f"- Settings: `{doc['settings']['name']}` (derandomize={doc['settings']['derandomize']}, "
        f"maxExamples={doc['settings']['maxExamples']}, "
        f"statefulStepCount={doc['settings']['statefulStepCount']})",
        f"- Started {doc['startedAt']}, took {doc['durationSeconds']:.1f}s, {doc['rpcCount']} RPCs, "
        f"adapter restarts: {doc['adapterRestarts']}",
        f"- **Verdict: {_verdict(doc)}** (every declared profile must be conformant)",
    ]
    # The claim's own problems (no core, undefined profiles) show in no requirement verdict, so they are
    # stated here, next to the verdict they decide.
    lines += [f"- Claim: {_cell(problem)}" for problem in doc.get("claimProblems", [])]
    if doc.get("fatal"):
        lines += ["", f"> Fatal: {doc['fatal']}"]
    if not doc.get("complete", True):
        why = doc.get("stopped") or "the run is still going on (a partial report)"
        lines += ["", f"> Incomplete: {why}."]
    lines += [
        "",
        "## Profiles",
        "",
        "| profile | verdict | requirements | pass | fail | error | skipped | not tested | reason |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in doc["profiles"].items():
        c = entry.get("counts", {})
        lines.append(
            f"| {name} | {entry['status']} | {entry['requirements']} | {c.get('PASS', 0)} | "
            f"{c.get('FAIL', 0)} | {c.get('ERROR', 0)} | {c.get('SKIPPED', 0)} | {c.get('NOT_TESTED', 0)} | "
            f"{_cell(entry.get('reason', ''))} |"
        )
    summary = doc["summary"]["requirements"]
    lines += [
        "",
        "Requirements: " + ", ".join(f"{k} {v}" for k, v in summary.items()),
        "Checks: " + ", ".join(f"{k} {v}" for k, v in doc["summary"]["checks"].items()),
    ]
    failing = [r for r in doc["requirements"] if r["status"] in ("FAIL", "ERROR")]
    if failing:
        lines += ["", "## Failures and errors", ""]
        for req in failing:
            lines.append(f"### {req['id']} ({req['level']}, {req['profile']}): {req['status']}")
            lines.append("")
            lines.append(_cell(req.get("reason", ""))[:1500])
            for failure in req.get("failures", [])[:3]:
                followed = failure.get("consequences") or []
                if followed:
                    where = f"`{failure['check']}`"
                    lines += ["", f"Seen after it in {where} (consequences, not failures of their own):"]
                    lines += [
                        f"- {', '.join(c['requirements'])}: {_cell(c['message'])[:300]}" for c in followed[:5]
                    ]
                if failure.get("counterexample"):
                    lines += [
                        "",
                        f"Counterexample from `{failure['check']}`:",
                        "",
                        "```",
                        failure["counterexample"][:3000],
                        "```",
                    ]
            lines.append("")
    untested = [r for r in doc["requirements"] if r["status"] == "NOT_TESTED"]
    if untested:
        lines += ["", "## Not tested", "", "| requirement | level | profile | reason |", "|---|---|---|---|"]
        lines += [
            f"| {r['id']} | {r['level']} | {r['profile']} | {_cell(r.get('reason', ''))} |" for r in untested
        ]
    skipped = [r for r in doc["requirements"] if r["status"] == "SKIPPED"]
    if skipped:
        reasons: dict[str, list[str]] = {}
        for r in skipped:
            reasons.setdefault(r.get("reason", ""), []).append(r["id"])
        lines += ["", "## Skipped", ""]
        lines += [f"- {reason}: {len(ids)} requirement(s)" for reason, ids in reasons.items()]
    return "\n".join(lines) + "\n"


def write_all(result: RunResult, report_dir: Path, *, junit: Path | None = None) -> dict[str, Path]:
    """Write report.json, summary.md and (always) junit.xml into ``report_dir``; ``junit`` adds a copy."""
    report_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": report_dir / "report.json",
        "markdown": report_dir / "summary.md",
        "junit": report_dir / "junit.xml",
    }
    doc = write_json(result, paths["json"])
    paths["markdown"].write_text(markdown(doc), encoding="utf-8")
    xml = junit_xml(doc)
    paths["junit"].write_text(xml, encoding="utf-8")
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(xml, encoding="utf-8")
        paths["junit-extra"] = junit
    return paths


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
