"""Explore runs record their seed, and ``--seed N`` runs the same examples again; certify stays
derandomized."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule
from roc_conformance.checks.stateful import run_machine
from roc_conformance.cli import EXIT_OK, EXIT_USAGE, main
from roc_conformance.report import validate_report
from roc_harness_support import serving

RANDOM = settings(
    max_examples=5,
    stateful_step_count=4,
    derandomize=False,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


class Recorder(RuleBasedStateMachine):
    """Records every value it draws, so two runs can be compared."""

    drawn: ClassVar[list[int]] = []

    @rule(value=st.integers(0, 2**32))
    def draw(self, value: int) -> None:
        Recorder.drawn.append(value)


def _drawn(seed: int) -> list[int]:
    Recorder.drawn = []
    run_machine(Recorder, RANDOM, seed)
    return list(Recorder.drawn)


def test_a_seed_repeats_the_examples_of_a_random_run() -> None:
    first = _drawn(1234)
    assert first
    assert _drawn(1234) == first
    assert _drawn(1235) != first


def _registry(tmp_path: Path) -> Path:
    path = tmp_path / "reqs.json"
    path.write_text(
        json.dumps(
            {
                "specVersion": "1.0",
                "requirements": [{"id": "ROC-ERR-003", "level": "MUST", "profile": "core"}],
            }
        )
    )
    return path


def _settings(args: list[str], address: str, report_dir: Path) -> dict:
    base = [
        "run",
        "--target",
        address,
        "--report-dir",
        str(report_dir),
        "--quiet",
        "--only",
        "explicit:error-*",
    ]
    assert main([*base, *args]) == EXIT_OK
    doc = json.loads((report_dir / "report.json").read_text())
    assert validate_report(doc) == []
    return dict(doc["settings"])


def test_the_seed_is_recorded_and_certify_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROC_REQUIREMENTS", str(_registry(tmp_path)))
    monkeypatch.chdir(tmp_path)  # the explore example database lives under the working directory
    with serving() as (address, _):
        fresh = _settings(["--explore"], address, tmp_path / "a")
        pinned = _settings(
            ["--explore", "--seed", "42", "--save-counterexamples", "cx"], address, tmp_path / "b"
        )
        certify = _settings([], address, tmp_path / "c")
        assert (
            main(["run", "--target", address, "--seed", "42", "--report-dir", str(tmp_path / "d")])
            == EXIT_USAGE
        )
    assert fresh["name"] == "explore"
    assert isinstance(fresh["seed"], int)
    assert pinned["seed"] == 42
    assert not (tmp_path / "cx").exists()  # nothing failed, nothing written
    assert certify["name"] == "certify"
    assert certify["derandomize"] is True
    assert certify["seed"] is None
