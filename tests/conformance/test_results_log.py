"""The result log results.jsonl: written line by line while the run goes on, and the one source every report
is rendered from (a killed run's log too)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from roc_conformance.checks.base import Check
from roc_conformance.checks.explicit import check_error_shape
from roc_conformance.cli import EXIT_INCOMPLETE, EXIT_NOT_CONFORMANT, main
from roc_conformance.errors import ConformanceViolation
from roc_conformance.registry import parse_registry
from roc_conformance.report import validate_report
from roc_conformance.results_log import LOG_NAME, ResultLog, read_log, report_from_log
from roc_conformance.runner import RunResult, run_suite
from roc_conformance.settings import CERTIFY
from roc_conformance.target import Target
from roc_harness_support import serving

REGISTRY = parse_registry(
    {
        "specVersion": "1.0",
        "requirements": [
            {"id": "ROC-ERR-003", "level": "MUST", "profile": "core", "anchor": "06-errors.md#roc-err-003"},
            {"id": "ROC-TEST-001", "level": "MUST", "profile": "core"},
            {"id": "ROC-TEST-002", "level": "MUST", "profile": "core", "text": "Two."},
            {"id": "ROC-TEST-003", "level": "MUST", "profile": "x-unclaimed"},
        ],
    }
)


def passes(ctx):
    ctx.client.describe()


def fails(ctx):
    raise ConformanceViolation("ROC-TEST-001", "wrong", counterexample='[step 0] → {"rpc":"Invoke"}')


CHECKS = [
    Check("explicit:error-shape", ("ROC-ERR-003",), check_error_shape, ("core", "sequential-executor")),
    Check("t:fail", ("ROC-TEST-001",), fails),
    Check("t:pass", ("ROC-TEST-002",), passes),
]


def logged_run(path: Path, on_line=None) -> RunResult:
    log = ResultLog(path, REGISTRY, CHECKS)

    def progress(partial: RunResult) -> None:
        log.progress(partial)
        if on_line is not None:
            on_line(partial)

    with serving() as (address, _):
        result = run_suite(
            Target(address, "in-process"), CHECKS, REGISTRY, CERTIFY, on_start=log.start, on_check=progress
        )
    log.finish(result)
    return result


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_check_is_in_the_log_as_soon_as_it_finished(tmp_path):
    path = tmp_path / LOG_NAME
    seen: list[tuple[int, int]] = []
    # Read by another handle while the run goes on: what a killed run would leave.
    logged_run(path, on_line=lambda partial: seen.append((len(partial.checks), len(lines(path)) - 1)))
    assert seen == [(1, 1), (2, 2), (3, 3)]
    records = lines(path)
    head, end = records[0], records[-1]
    assert [r["record"] for r in records] == ["header", "check", "check", "check", "check", "footer"]
    assert head["describe"]["implementation"]["name"] == "roc-reference"
    assert head["describe"]["implementation"]["adapter"]
    assert head["suite"]["specVersion"] == "1.3"
    assert head["suite"]["harnessProtocolVersion"] >= 1
    assert head["settings"]["name"] == "certify"
    assert "seed" in head["settings"]
    assert head["platform"]["python"]
    assert head["platform"]["os"]
    assert head["startedAt"].endswith("Z")
    assert [c["name"] for c in head["plan"]] == [c.name for c in CHECKS]
    assert records[2]["check"]["name"] == "t:fail"
    counts = [r["rpcCount"] for r in records[1:-1]]
    assert counts == sorted(counts)
    assert counts[0] > 0  # what a killed run's report counts: the RPCs sent so far
    assert records[2]["check"]["status"] == "FAIL"
    assert records[-2]["check"]["name"] == "wire:schema"  # the run's last check, logged with the footer
    assert end["verdict"] == "NOT CONFORMANT"
    assert end["profiles"]["core"] == "NOT_CONFORMANT"
    assert end["finishedAt"].endswith("Z")


def test_the_report_rendered_from_the_log_is_the_runs_report_and_valid(tmp_path):
    result = logged_run(tmp_path / LOG_NAME)
    rendered = report_from_log(tmp_path / LOG_NAME)
    assert validate_report(rendered) == []
    assert rendered["schemaVersion"] == "1.3"
    direct = result.to_json()
    for doc in (rendered, direct):  # the log keeps times to the millisecond
        doc.pop("durationSeconds")
    assert rendered == direct
    statuses = {r["id"]: r["status"] for r in rendered["requirements"]}
    assert statuses == {
        "ROC-ERR-003": "PASS",
        "ROC-TEST-001": "FAIL",
        "ROC-TEST-002": "PASS",
        "ROC-TEST-003": "SKIPPED",
    }


def test_a_log_cut_off_mid_run_renders_a_valid_report_marked_incomplete(tmp_path, capsys):
    full = tmp_path / "full" / LOG_NAME
    logged_run(full)
    text = full.read_text(encoding="utf-8").splitlines(keepends=True)
    killed = tmp_path / "killed" / LOG_NAME
    killed.parent.mkdir()
    # The header, the first check, and half of the second check's line: the run died while writing it.
    killed.write_text(text[0] + text[1] + text[2][: len(text[2]) // 2], encoding="utf-8")
    logged = read_log(killed)
    assert logged.footer is None
    assert len(logged.checks) == 1
    assert logged.damaged
    doc = report_from_log(killed)
    assert validate_report(doc) == []
    assert doc["complete"] is False
    assert "no footer" in doc["stopped"]
    assert doc["verdict"] == "INCOMPLETE"  # nothing logged failed; the rest was not judged
    statuses = {r["id"]: r["status"] for r in doc["requirements"]}
    assert statuses["ROC-ERR-003"] == "PASS"
    assert statuses["ROC-TEST-001"] == "ERROR"  # its check has no line: not run
    checks = {c["name"]: c for c in doc["checks"]}
    assert checks["t:fail"]["status"] == "ERROR"
    assert checks["t:fail"]["message"].startswith("not run")
    # `roc-conformance report` renders every report from it; the exit code follows the verdict.
    assert main(["report", str(killed)]) == EXIT_INCOMPLETE
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("roc-conformance: INCOMPLETE (exit 4)")
    for name in ("report.json", "summary.md", "junit.xml", "report.html"):
        assert (killed.parent / name).is_file(), name
    assert (
        "Incomplete: the run ended before it finished its result log"
        in (killed.parent / "summary.md").read_text()
    )
    # With the failing check logged, the cut log is NOT CONFORMANT, as the run would have been.
    killed.write_text(text[0] + text[1] + text[2], encoding="utf-8")
    assert main(["report", str(killed), "--report-dir", str(tmp_path / "out")]) == EXIT_NOT_CONFORMANT
    assert json.loads((tmp_path / "out" / "report.json").read_text())["verdict"] == "NOT CONFORMANT"


def test_report_refuses_what_is_not_a_result_log(tmp_path, capsys):
    other = tmp_path / "report.json"
    other.write_text('{"schemaVersion": "1.3"}\n', encoding="utf-8")
    assert main(["report", str(other)]) == 2
    assert "not a roc-conformance-results log" in capsys.readouterr().err


def test_the_cli_writes_the_log_and_renders_every_report_from_it(tmp_path, capsys, monkeypatch):
    registry = tmp_path / "reqs.json"
    registry.write_text(
        json.dumps({"specVersion": "1.0", "requirements": [r.to_json() for r in REGISTRY.requirements]})
    )
    monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
    out = tmp_path / "r"
    with serving() as (address, _):
        code = main(["run", "--target", address, "--report-dir", str(out), "--only", "explicit:error-shape"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INCOMPLETE  # ROC-TEST-00x have no check
    assert err[-1].startswith("roc-conformance: INCOMPLETE (exit 4) in ")
    assert str(out) in err[-1]
    doc = json.loads((out / "report.json").read_text())
    assert doc == report_from_log(out / LOG_NAME)
    assert lines(out / LOG_NAME)[-1]["record"] == "footer"


def test_a_run_whose_adapter_does_not_start_ends_with_the_same_kind_of_last_line(tmp_path, capsys):
    code = main(["run", "--target", "cmd:/nonexistent/adapter --port {port}", "--report-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert err[-1] == "roc-conformance: NOTHING JUDGED (the run could not start) (exit 3); no reports"


@pytest.mark.slow
def test_a_killed_run_leaves_a_log_that_renders_its_finished_checks(tmp_path, capsys):
    """SIGKILL: no handler runs, nothing is finished; what was logged is all there is."""
    out = tmp_path / "r"
    log = out / LOG_NAME
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "roc_conformance.cli",
            "run",
            "--target",
            "reference",
            "--report-dir",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the adapter it started goes with it
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if log.is_file() and len(log.read_text(encoding="utf-8").splitlines()) >= 4:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert not (out / "report.json").exists()  # nothing but the log was written
    logged = read_log(log)
    assert logged.footer is None
    assert len(logged.checks) >= 3
    assert main(["report", str(log)]) == EXIT_INCOMPLETE
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("roc-conformance: INCOMPLETE (exit 4)")
    doc = json.loads((out / "report.json").read_text())
    assert validate_report(doc) == []
    assert doc["complete"] is False
    by_status = {c["status"] for c in doc["checks"]}
    assert "PASS" in by_status
    assert any(c.get("message", "").startswith("not run") for c in doc["checks"])
