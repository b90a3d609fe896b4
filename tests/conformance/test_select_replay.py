"""Selecting by requirement (``run --req``), replaying one vector file (``replay``), and the explore example
database (written where the README says, its failing examples replayed first by the next explore run)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from roc_conformance.checks import all_checks
from roc_conformance.checks.stateful import machine_checks
from roc_conformance.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, main
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.registry import load_registry
from roc_conformance.replay import EXIT_BAD_FILE, EXIT_FAIL, EXIT_NOT_RUN, EXIT_PASS, EXIT_UNREACHABLE
from roc_conformance.report import validate_report
from roc_conformance.runner import run_suite
from roc_conformance.selection import plan_requirements
from roc_conformance.settings import DEFAULT_DATABASE, EXPLORE, RunSettings, prepare_database
from roc_conformance.target import Target
from roc_harness_support import load_broken, serving
from roc_reference.harness.server import HarnessServicer

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "conformance" / "vectors" / "v1"


def _verifying(rid: str) -> set[str]:
    return {c.name for c in all_checks() if rid in c.requirements}


# ---------------------------------------------------------------------------------------------
# --req


def test_req_selects_exactly_the_checks_that_verify_it() -> None:
    registry = load_registry()
    plan = plan_requirements(["roc-model-008"], all_checks(), registry)
    chosen = plan.narrow(all_checks())
    assert {c.name for c in chosen} == _verifying("ROC-MODEL-008")
    assert len(chosen) >= 2  # more than one kind of check verifies it: all of them are chosen
    judged = {r.id for r in plan.registry.requirements}
    assert "ROC-MODEL-008" in judged
    assert all(set(c.requirements) <= judged for c in chosen)
    assert plan.unknown == ()
    assert plan.unverified == {}
    assert plan.profiles == ("core",)


def test_an_untestable_requirement_is_named_as_such() -> None:
    registry = load_registry()
    untestable = next(r for r in registry.requirements if r.untestable)
    plan = plan_requirements([untestable.id], all_checks(), registry)
    assert plan.narrow(all_checks()) == []
    assert untestable.id in plan.unverified
    assert "untestable" in plan.unverified[untestable.id]


def test_req_runs_only_those_checks_and_judges_only_that_requirement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = "ROC-CANCEL-008"
    expected = _verifying(rid)
    assert expected
    assert all(name.startswith("vector:") for name in expected)  # cheap to run
    with serving() as (address, _):
        code = main(["run", "--target", address, "--req", rid, "--report-dir", str(tmp_path), "--quiet"])
    assert code == EXIT_OK, capsys.readouterr().err
    doc = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert validate_report(doc) == []
    assert {c["name"] for c in doc["checks"]} - {"wire:schema"} == expected
    statuses = {r["id"]: r["status"] for r in doc["requirements"]}
    assert statuses[rid] == "PASS"
    # Besides the chosen requirement, only what wire:schema judges on every reply is in the verdict.
    assert set(statuses) - {rid} <= {"ROC-MODEL-001", "ROC-MODEL-011"}
    assert doc["verdict"] == "CONFORMANT"
    assert doc["unregisteredRequirements"] == {}
    # Only the chosen requirement's profile is judged, on that requirement alone.
    judged = {
        name: p for name, p in doc["profiles"].items() if p["status"] not in ("NOT_SELECTED", "NOT_CLAIMED")
    }
    profile = next(r["profile"] for r in doc["requirements"] if r["id"] == rid)
    assert set(judged) == {profile}
    assert judged[profile]["status"] == "CONFORMANT"
    assert judged[profile]["counts"] == {"PASS": 1}


def test_req_and_only_combine(tmp_path: Path) -> None:
    rid = "ROC-MODEL-008"
    expected = {name for name in _verifying(rid) if name.startswith("vector:")}
    assert expected
    assert expected != _verifying(rid)
    with serving() as (address, _):
        args = ["run", "--target", address, "--req", rid, "--only", "vector:*", "--report-dir", str(tmp_path)]
        assert main([*args, "--quiet"]) == EXIT_OK
    doc = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert {c["name"] for c in doc["checks"]} - {"wire:schema"} == expected
    assert next(r["status"] for r in doc["requirements"] if r["id"] == rid) == "PASS"


def test_an_unknown_requirement_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No adapter is started for a usage error: the target would not even be reachable.
    code = main(["run", "--target", "127.0.0.1:1", "--req", "ROC-NOPE-999", "--report-dir", str(tmp_path)])
    assert code == EXIT_USAGE
    assert "ROC-NOPE-999" in capsys.readouterr().err
    assert not (tmp_path / "report.json").exists()


# ---------------------------------------------------------------------------------------------
# replay

FAST_EXPLORE = replace(EXPLORE, max_examples=40, stateful_step_count=10, shrink_seconds=5, seed=2)


def test_a_saved_counterexample_fails_the_broken_runtime_and_passes_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bug every resume shows (a wasted model call), so the machine meets it within a few examples.
    broken = load_broken("model_called_on_resume")
    checks = [c for c in machine_checks() if c.name == "machine:sequential"]
    settings = RunSettings(
        "certify", derandomize=True, max_examples=40, stateful_step_count=10, shrink_seconds=5
    )
    out = tmp_path / "cx"
    with broken.patch(), serving() as (address, _):
        run_suite(Target(address, "broken"), checks, load_registry(), settings, save_counterexamples=out)
        saved = sorted(out.glob("*.json"))
        assert saved, "the broken runtime produced no counterexample"
        capsys.readouterr()
        assert main(["replay", str(saved[0]), "--target", address]) == EXIT_FAIL
    failed = capsys.readouterr().out
    vector = json.loads(saved[0].read_text(encoding="utf-8"))
    assert "[create] →" in failed  # the RPC transcript
    assert f"vector {vector['id']}" in failed  # the suite's own failure message
    fail_lines = [line for line in failed.splitlines() if line.startswith("FAIL ")]
    assert fail_lines
    assert set(broken.BREAKS) & {r for line in fail_lines for r in line[5:].split(":")[0].split(", ")}
    with serving() as (address, _):
        assert main(["replay", str(saved[0]), "--target", address]) == EXIT_PASS
    passed = capsys.readouterr().out
    assert "[create] →" in passed
    assert passed.rstrip().splitlines()[-1].startswith("PASS ")


def test_a_vector_of_ones_own_replays(capsys: pytest.CaptureFixture[str]) -> None:
    with serving() as (address, _):
        assert main(["replay", str(VECTORS / "partial-answers.json"), "--target", address]) == EXIT_PASS
    assert "[step 3]" in capsys.readouterr().out


def test_a_malformed_file_is_exit_2_with_its_schema_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = json.loads((VECTORS / "partial-answers.json").read_text(encoding="utf-8"))
    vector["steps"][0]["invoke"] = {"bogus": 1}
    del vector["title"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(vector), encoding="utf-8")
    # The file is refused before any adapter is dialled (this address has none).
    assert main(["replay", str(bad), "--target", "127.0.0.1:1"]) == EXIT_BAD_FILE
    out = capsys.readouterr().out
    assert "'title' is a required property" in out
    assert "at /steps/0/invoke:" in out
    not_json = tmp_path / "not.json"
    not_json.write_text("{", encoding="utf-8")
    assert main(["replay", str(not_json), "--target", "127.0.0.1:1"]) == EXIT_BAD_FILE
    assert "not JSON" in capsys.readouterr().out


class NoSessions(HarnessServicer):
    """The reference adapter claiming no sessions."""

    def Describe(self, request: hpb.DescribeRequest, context: grpc.ServicerContext) -> hpb.DescribeResponse:
        reply = super().Describe(request, context)
        kept = [p for p in reply.profiles if p != "sessions"]
        del reply.profiles[:]
        reply.profiles.extend(kept)
        return reply


def test_a_vector_needing_an_unclaimed_profile_is_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    path = VECTORS / "partial-answers-across-restores.json"  # restores: needs sessions
    with serving(NoSessions()) as (address, _):
        assert main(["replay", str(path), "--target", address]) == EXIT_NOT_RUN
    out = capsys.readouterr().out
    assert "NOT RUN" in out
    assert "sessions" in out.splitlines()[-1]


def test_an_unreachable_adapter_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(VECTORS / "partial-answers.json")
    assert main(["replay", path, "--target", "127.0.0.1:1", "--timeout-scale", "0.2"]) == EXIT_UNREACHABLE
    assert "unreachable" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# The explore example database


def _explore(address: str, report_dir: Path, *extra: str) -> int:
    """A tiny explore run of one machine check: it passes, the rest of the suite is not judged."""
    args = ["run", "--target", address, "--explore", "--max-examples", "2", "--steps", "2"]
    args += ["--only", "machine:sequential", "--report-dir", str(report_dir), "--quiet", *extra]
    return main(args)


def test_the_database_is_where_the_readme_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    assert f"`{DEFAULT_DATABASE.as_posix()}`" in readme
    assert "--database DIR" in readme
    monkeypatch.chdir(tmp_path)
    chosen = tmp_path / "db"
    with serving() as (address, _):
        assert _explore(address, tmp_path / "a") == EXIT_INCOMPLETE
        assert (tmp_path / DEFAULT_DATABASE).is_dir()
        assert _explore(address, tmp_path / "b", "--database", str(chosen)) == EXIT_INCOMPLETE
        assert chosen.is_dir()
    for report_dir, where in ((tmp_path / "a", tmp_path / DEFAULT_DATABASE), (tmp_path / "b", chosen)):
        doc = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
        assert validate_report(doc) == []
        assert doc["settings"]["databasePath"] == str(where.resolve())
        assert isinstance(doc["settings"]["seed"], int)
        summary = (report_dir / "summary.md").read_text(encoding="utf-8")
        assert str(where.resolve()) in summary
        assert str(doc["settings"]["seed"]) in summary
        assert main(["run", "--target", address, "--database", str(chosen)]) == EXIT_USAGE  # certify


def test_a_failing_explore_example_is_replayed_first_by_the_next_run(tmp_path: Path) -> None:
    broken = load_broken("model_called_on_resume")
    checks = [c for c in machine_checks() if c.name == "machine:sequential"]
    registry = load_registry()
    kept = prepare_database(replace(FAST_EXPLORE, database_dir=str(tmp_path / "kept")))
    # One example per run: Hypothesis draws the simplest first, which does not reach a resume; only a
    # replayed example from the database can fail it.
    once = replace(kept, max_examples=1)
    fresh = prepare_database(replace(once, database_dir=str(tmp_path / "fresh")))

    def status(settings: RunSettings) -> str:
        result = run_suite(Target(address, "broken"), checks, registry, settings)
        return result.checks[0].status.value

    with broken.patch(), serving() as (address, _):
        assert status(kept) == "FAIL"
        assert any((tmp_path / "kept" / "machine-sequential" / "round-1").iterdir())
        assert status(fresh) == "PASS"  # without the stored example, one example finds nothing
        assert status(once) == "FAIL"  # with it, the stored failure comes first
