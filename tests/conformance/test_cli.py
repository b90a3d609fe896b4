"""``roc-conformance`` exit codes and outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from roc_conformance.cli import (
    EXIT_FATAL,
    EXIT_INCOMPLETE,
    EXIT_NOT_CONFORMANT,
    EXIT_NOTHING_JUDGED,
    EXIT_OK,
    EXIT_USAGE,
    main,
)
from roc_conformance.report import validate_report
from roc_harness_support import serving


def write_registry(path, requirements):
    path.write_text(json.dumps({"specVersion": "1.0", "requirements": requirements}))
    return path


def test_usage_errors_exit_2(tmp_path):
    assert main(["run"]) == EXIT_USAGE
    assert main(["run", "--target", "no-port-here", "--report-dir", str(tmp_path)]) == EXIT_USAGE
    assert main(["frobnicate"]) == EXIT_USAGE


def test_unreachable_target_exits_3_and_still_writes_a_valid_report(tmp_path):
    code = main(
        ["run", "--target", "127.0.0.1:1", "--report-dir", str(tmp_path), "--quiet", "--timeout-scale", "0.2"]
    )
    assert code == EXIT_FATAL
    doc = json.loads((tmp_path / "report.json").read_text())
    assert validate_report(doc) == []
    assert doc["fatal"]


def test_exit_0_only_when_every_declared_profile_is_conformant(tmp_path, monkeypatch):
    registry = write_registry(
        tmp_path / "ok.json",
        [
            {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
            {"id": "ROC-ERR-004", "level": "MUST", "profile": "core"},
        ],
    )
    monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
    args = ["--report-dir", str(tmp_path / "r"), "--quiet", "--only", "explicit:error-*"]
    with serving() as (address, _):
        assert main(["run", "--target", address, *args]) == EXIT_OK
        doc = json.loads((tmp_path / "r" / "report.json").read_text())
        assert doc["conformant"] is True
        registry = write_registry(
            tmp_path / "untested.json",
            [
                {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
                {"id": "ROC-NOPE-001", "level": "MUST", "profile": "core"},
            ],
        )
        monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
        assert (
            main(["run", "--target", address, *args, "--junit", str(tmp_path / "j.xml")]) == EXIT_INCOMPLETE
        )
    assert "ROC-NOPE-001" in (tmp_path / "j.xml").read_text()


def test_checks_lists_every_check(capsys):
    assert main(["checks"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "explicit:error-shape" in out
    assert "ROC-ERR-003" in out


def test_validate_command(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schemaVersion": "1.0"}))
    assert main(["validate", str(bad)]) == EXIT_NOT_CONFORMANT
    capsys.readouterr()
    # a valid report: one line that says so (silence read like "did anything run?")
    main(
        ["run", "--target", "127.0.0.1:1", "--report-dir", str(tmp_path), "--quiet", "--timeout-scale", "0.1"]
    )
    capsys.readouterr()
    assert main(["validate", str(tmp_path / "report.json")]) == EXIT_OK
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    assert "valid report" in out[0]


def test_the_verdict_line_and_exit_code_say_when_nothing_was_judged(tmp_path, capsys, monkeypatch):
    from roc_harness_support import BrokenAdapterServicer

    registry = write_registry(
        tmp_path / "reqs.json", [{"id": "ROC-ERR-003", "level": "MUST", "profile": "core"}]
    )
    monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
    with serving() as (address, _):
        code = main(["run", "--target", address, "--report-dir", str(tmp_path / "a"), "--only", "nothing:*"])
    err = capsys.readouterr().err
    assert code == EXIT_NOTHING_JUDGED
    assert "matches no check" in err
    assert "NOTHING JUDGED" in err
    assert "NOT CONFORMANT" not in err
    with serving(BrokenAdapterServicer()) as (address, _):  # every Invoke is an adapter fault
        code = main(
            ["run", "--target", address, "--report-dir", str(tmp_path / "b"), "--only", "explicit:error-*"]
        )
    err = capsys.readouterr().err
    assert code == EXIT_NOTHING_JUDGED
    assert "NOTHING JUDGED" in err
    assert "NOT CONFORMANT" not in err
    assert json.loads((tmp_path / "b" / "report.json").read_text())["verdict"] == "NOTHING JUDGED"


def test_a_claim_without_core_says_why_in_the_console_and_the_summary(tmp_path, capsys, monkeypatch):
    from roc_reference.harness.server import HarnessServicer

    registry = write_registry(
        tmp_path / "reqs.json", [{"id": "ROC-ERR-003", "level": "MUST", "profile": "core"}]
    )
    monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
    with serving(HarnessServicer(profiles=("hooks", "sequential-executor"))) as (address, _):
        code = main(["run", "--target", address, "--report-dir", str(tmp_path), "--only", "explicit:error-*"])
    err = capsys.readouterr().err
    assert code == EXIT_NOT_CONFORMANT
    assert "ROC-CONF-002" in err
    assert "claim: the claim does not include 'core'" in err
    summary = (tmp_path / "summary.md").read_text()
    assert "Verdict: NOT CONFORMANT" in summary
    assert "ROC-CONF-002" in summary


def test_an_undefined_profile_is_printed_as_undefined(tmp_path, capsys, monkeypatch):
    from roc_reference.harness.server import HarnessServicer

    registry = write_registry(
        tmp_path / "reqs.json", [{"id": "ROC-ERR-003", "level": "MUST", "profile": "core"}]
    )
    monkeypatch.setenv("ROC_REQUIREMENTS", str(registry))
    claim = ("core", "sequential-executor", "telepathy")
    with serving(HarnessServicer(profiles=claim)) as (address, _):
        code = main(["run", "--target", address, "--report-dir", str(tmp_path), "--only", "explicit:error-*"])
    err = capsys.readouterr().err
    assert code == EXIT_NOT_CONFORMANT
    line = next(x for x in err.splitlines() if "profile telepathy" in x)
    assert "UNDEFINED" in line
    assert "CONFORMANT" not in line.replace("NOT CONFORMANT", "")
    assert "| telepathy | UNDEFINED |" in (tmp_path / "summary.md").read_text()


@pytest.mark.slow
def test_target_reference_starts_and_stops_the_adapter(tmp_path):
    registry = write_registry(
        tmp_path / "reqs.json", [{"id": "ROC-ERR-003", "level": "MUST", "profile": "core"}]
    )
    env = {**os.environ, "ROC_REQUIREMENTS": str(registry)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "roc_conformance.cli",
            "run",
            "--target",
            "reference",
            "--report-dir",
            str(tmp_path / "r"),
            "--only",
            "explicit:*",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    assert "CONFORMANT" in proc.stderr
    assert "  ERR " in proc.stderr
    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    assert doc["implementation"]["name"] == "roc-reference"
    assert doc["target"] == "reference"
