"""``roc-conformance`` exit codes and outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from roc_conformance.cli import EXIT_FATAL, EXIT_NOT_CONFORMANT, EXIT_OK, EXIT_USAGE, main
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
            main(["run", "--target", address, *args, "--junit", str(tmp_path / "j.xml")])
            == EXIT_NOT_CONFORMANT
        )
    assert "ROC-NOPE-001" in (tmp_path / "j.xml").read_text()


def test_checks_lists_every_check(capsys):
    assert main(["checks"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "explicit:error-shape" in out
    assert "ROC-ERR-003" in out


def test_validate_command(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schemaVersion": "1.0"}))
    assert main(["validate", str(bad)]) == EXIT_NOT_CONFORMANT


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
