"""``roc-conformance compat`` (make compat): compact results, the matrix, the same-commit rule, triage
categories, the pages, and a short end-to-end run over the reference.

The report documents are real runs of the CLI against the in-process reference adapter, plain or with the
``null_accepted`` broken fixture (a null response is taken as an answer: FAIL of ROC-RESUME-005), each one
fast check (``vector:resume-rejects-null-response``) under a registry of the requirements that check and the
wire observer judge, plus one requirement of a profile the runs do not select.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from roc_conformance import compat
from roc_conformance.checks import all_checks
from roc_conformance.checks.wire_schema import SCHEMA_REQUIREMENTS
from roc_conformance.cli import main
from roc_conformance.compat_pages import Links, deviations_page, matrix_page
from roc_conformance.expectation_file import parse
from roc_conformance.registry import load_registry, parse_registry
from roc_harness_support import load_broken, serving

ROOT = Path(__file__).resolve().parents[2]
CHECK = "vector:resume-rejects-null-response"
BROKEN = "ROC-RESUME-005"
OTHER_PROFILE = "ROC-HOOK-001"
REVISION = {"commit": "a" * 40, "dirty": False}
SDK = compat.Implementation("sdk", "An SDK", "cmd:sdk", known_failures="sdk/known-failures.txt")
REF = compat.implementation("reference")


@pytest.fixture
def small_registry(tmp_path, monkeypatch):
    (check,) = [c for c in all_checks() if c.name == CHECK]
    ids = list(dict.fromkeys([*check.requirements, *SCHEMA_REQUIREMENTS]))
    reqs = [
        {"id": rid, "level": "MUST", "profile": "core", "chapter": "03.md", "anchor": f"03.md#{rid}"}
        for rid in ids
    ]
    reqs.append({"id": OTHER_PROFILE, "level": "MUST", "profile": "hooks", "chapter": "04-hooks.md"})
    path = tmp_path / "requirements.json"
    path.write_text(json.dumps({"specVersion": "1.0", "requirements": reqs}))
    monkeypatch.setenv("ROC_REQUIREMENTS", str(path))
    return load_registry(path)


def run(address, tmp_path, name, *extra):
    """One run of the one check, judging core only: (exit code, report document)."""
    report_dir = tmp_path / name
    args = ["run", "--target", address, "--report-dir", str(report_dir), "--only", CHECK, "--profile", "core"]
    code = main([*args, *extra])
    return code, json.loads((report_dir / "report.json").read_text())


def known_file(tmp_path, text):
    path = tmp_path / "known-failures.txt"
    path.write_text(text)
    return str(path)


def broken_run(tmp_path, name, *extra):
    with load_broken("null_accepted").patch(), serving() as (address, _):
        return run(address, tmp_path, name, *extra)


def plain_run(tmp_path, name, *extra):
    with serving() as (address, _):
        return run(address, tmp_path, name, *extra)


# ---------------------------------------------------------------------------------------------
# Triage categories


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("sdk: a null answer raises again", ("sdk", "a null answer raises again")),
        ("Adapter : no metadata in 1.62", ("adapter", "no metadata in 1.62")),
        ("spec:the rule was wrong", ("spec", "the rule was wrong")),
        ("a null answer raises again", ("untriaged", "a null answer raises again")),
        ("sdkish: not a category", ("untriaged", "sdkish: not a category")),
        ("TODO explain: found by x", ("untriaged", "TODO explain: found by x")),
    ],
)
def test_triage_category_of_a_reason(reason, expected):
    assert compat.triage(reason) == expected


def test_triage_of_a_parsed_known_failures_line():
    (entry,) = parse(
        "ROC-TOOL-005  # sdk: the toolUse stays in the history  <https://example.org/i/5>\n"
    ).entries
    assert compat.triage(entry.reason) == ("sdk", "the toolUse stays in the history")
    assert entry.link == "https://example.org/i/5"


# ---------------------------------------------------------------------------------------------
# The compact form


def test_compact_of_a_run_that_fails_as_known(small_registry, tmp_path):
    known = known_file(tmp_path, f"{BROKEN}  # sdk: null is taken as an answer  <https://example.org/i/1>\n")
    code, doc = broken_run(tmp_path, "broken", "--known-failures", known)
    small = compat.compact(doc, SDK, REVISION, exit_code=code)
    assert small["format"] == compat.RUN_FORMAT
    assert small["suite"]["commit"] == REVISION["commit"]
    assert small["suite"]["dirty"] is False
    assert small["suite"]["version"] == doc["suite"]["version"]
    assert small["runtime"]["name"] == doc["implementation"]["name"]
    assert small["adapter"] == doc["implementation"]["adapter"]
    assert small["date"] == doc["startedAt"]
    assert small["settings"]["name"] == "certify"
    assert set(small["requirements"]) == {r["id"] for r in doc["requirements"]}
    failed = small["requirements"][BROKEN]
    assert failed["status"] == "FAIL"
    assert failed["known"] == {
        "entry": BROKEN,
        "list": "failures",
        "category": "sdk",
        "reason": "null is taken as an answer",
        "link": "https://example.org/i/1",
        "state": "holds",
    }
    assert failed["check"] == CHECK
    assert failed["reason"]
    assert "Invoke" in failed["counterexample"]  # the transcript of the RPCs that show it
    assert small["outcome"]["ok"] is True
    assert small["outcome"]["newFailures"] == []
    # counts per profile follow the requirements' statuses; the unselected profile is there too
    core = [r for r in doc["requirements"] if r["profile"] == "core"]
    assert small["profiles"]["core"]["counts"]["FAIL"] == 1
    assert sum(small["profiles"]["core"]["counts"].values()) == len(core)
    assert small["profiles"]["core"]["status"] == doc["profiles"]["core"]["status"]
    assert OTHER_PROFILE in small["requirements"]


def test_a_failure_not_in_the_file_or_a_stale_entry_is_not_ok(small_registry, tmp_path):
    code, doc = broken_run(tmp_path, "new", "--known-failures", known_file(tmp_path, "# nothing known\n"))
    new = compat.compact(doc, SDK, REVISION, exit_code=code)
    assert new["outcome"]["ok"] is False
    assert new["outcome"]["newFailures"] == [BROKEN]
    assert "known" not in new["requirements"][BROKEN]

    stale_file = known_file(tmp_path, f"{BROKEN}  # spec: thought wrong\n")
    code, doc = plain_run(tmp_path, "stale", "--known-failures", stale_file)
    stale = compat.compact(doc, SDK, REVISION, exit_code=code)
    assert stale["outcome"]["ok"] is False
    assert stale["outcome"]["stale"] == [BROKEN]
    assert stale["knownFailures"][0]["category"] == "spec"

    code, doc = broken_run(tmp_path, "no-file")  # without a file every failure is new
    assert compat.compact(doc, REF, REVISION, exit_code=code)["outcome"]["newFailures"] == [BROKEN]


# ---------------------------------------------------------------------------------------------
# The matrix and the same-commit rule


def two_runs(tmp_path):
    known = known_file(tmp_path, f"{BROKEN}  # sdk: null is taken as an answer\n")
    code, doc = broken_run(tmp_path, "broken", "--known-failures", known)
    sdk = compat.compact(doc, SDK, REVISION, exit_code=code)
    code, doc = plain_run(tmp_path, "plain")
    return compat.compact(doc, REF, REVISION, exit_code=code), sdk


def test_the_matrix_has_every_requirement_for_every_implementation(small_registry, tmp_path):
    ref, sdk = two_runs(tmp_path)
    matrix = compat.build_matrix([ref, sdk], small_registry)
    assert [r["id"] for r in matrix["requirements"]] == [r.id for r in small_registry.requirements]
    for row in matrix["requirements"]:
        assert set(row["results"]) == {"reference", "sdk"}
    rows = {r["id"]: r["results"] for r in matrix["requirements"]}
    assert rows[BROKEN] == {"reference": "PASS", "sdk": "FAIL"}
    assert matrix["suiteCommit"] == REVISION["commit"]
    assert matrix["mixedCommits"] is False
    totals = {i["name"]: i["totals"] for i in matrix["implementations"]}
    assert totals["sdk"]["FAIL"] == 1
    assert totals["reference"]["FAIL"] == 0
    assert sum(totals["sdk"].values()) == len(small_registry.requirements)


def test_a_requirement_outside_the_run_is_not_run(small_registry, tmp_path):
    ref, sdk = two_runs(tmp_path)
    registry = parse_registry(
        {"specVersion": "1.0", "requirements": [{"id": "ROC-NEW-001", "level": "MUST", "profile": "core"}]}
    )
    (row,) = compat.build_matrix([ref, sdk], registry)["requirements"]
    assert row["results"] == {"reference": "NOT_RUN", "sdk": "NOT_RUN"}


def test_runs_of_different_suite_commits_are_not_combined(small_registry, tmp_path):
    ref, sdk = two_runs(tmp_path)
    later = {**sdk, "suite": {**sdk["suite"], "commit": "b" * 40}}
    with pytest.raises(compat.CompatError, match="different suite commits"):
        compat.build_matrix([ref, later], small_registry)
    mixed = compat.build_matrix([ref, later], small_registry, allow_mixed=True)
    assert mixed["mixedCommits"] is True
    assert mixed["suiteCommit"] is None
    paths = {"format": compat.PATHS_FORMAT, "suite": {"commit": "c" * 40}, "paths": []}
    with pytest.raises(compat.CompatError, match="different suite commits"):
        compat.build_matrix([ref, sdk], small_registry, paths=paths)


def test_matrix_only_refuses_mixed_commits_unless_told(small_registry, tmp_path, capsys):
    ref, sdk = two_runs(tmp_path)
    out = tmp_path / "compat"
    out.mkdir()
    (out / "reference.json").write_text(json.dumps(ref))
    (out / "sdk.json").write_text(json.dumps({**sdk, "suite": {**sdk["suite"], "commit": "b" * 40}}))
    assert main(["compat", "--matrix-only", "--out", str(out)]) == 2
    assert "different suite commits" in capsys.readouterr().err
    assert not (out / "matrix.json").exists()
    assert main(["compat", "--matrix-only", "--out", str(out), "--allow-mixed-commits"]) == 0
    assert json.loads((out / "matrix.json").read_text())["mixedCommits"] is True
    assert "not comparable" in (out / "matrix.md").read_text()


# ---------------------------------------------------------------------------------------------
# Pages


def test_pages_link_requirements_and_failures(small_registry, tmp_path):
    ref, sdk = two_runs(tmp_path)
    matrix = compat.build_matrix([ref, sdk], small_registry)
    site = matrix_page(matrix, [ref, sdk], Links.site(), titles={})
    anchor = BROKEN.lower()
    assert f"[{BROKEN}](spec/03.md#{BROKEN})" in site
    assert f'[❌ FAIL sdk](compat/sdk.md#{anchor} "null is taken as an answer")' in site
    page = deviations_page(sdk, Links.site())
    assert f"### {BROKEN}\n" in page
    assert "**SDK divergence** (`sdk`)" in page
    assert "null is taken as an answer" in page
    assert "````text\n" in page
    assert sdk["requirements"][BROKEN]["counterexample"] in page
    assert "| SDK divergence (`sdk`) | 1 |" in page
    assert "| SKIPPED |" in page
    assert OTHER_PROFILE in page
    repo = matrix_page(matrix, [ref, sdk], Links.repository(), titles={})
    assert f"[❌ FAIL sdk](sdk.md#{anchor} " in repo
    assert "<script>" in site
    assert "<script>" not in repo


def test_a_known_flaky_failure(small_registry, tmp_path):
    flaky = tmp_path / "known-flaky.txt"
    flaky.write_text(f"{BROKEN}  # sdk: found in some runs only\n")
    code, doc = broken_run(
        tmp_path, "flaky", "--known-failures", known_file(tmp_path, "# none\n"), "--known-flaky", str(flaky)
    )
    sdk = compat.compact(doc, SDK, REVISION, exit_code=code)
    assert sdk["outcome"]["ok"] is True
    assert sdk["requirements"][BROKEN]["known"]["list"] == "flaky"
    assert sdk["requirements"][BROKEN]["known"]["category"] == "sdk"
    assert "Known flaky (found in some runs only): found in some runs only" in deviations_page(
        sdk, Links.site()
    )


def test_an_untriaged_failure_is_shown_as_such(small_registry, tmp_path):
    known = known_file(tmp_path, f"{BROKEN}  # why\n")
    code, doc = broken_run(tmp_path, "untriaged", "--known-failures", known)
    sdk = compat.compact(doc, SDK, REVISION, exit_code=code)
    assert sdk["requirements"][BROKEN]["known"]["category"] == "untriaged"
    assert "**untriaged** (`untriaged`)" in deviations_page(sdk, Links.repository())


def test_the_snapshot_path_of_a_pair(tmp_path):
    with serving() as (writer, _), serving() as (reader, _):
        args = ["run", "--target", writer, "--peer", reader, "--req", compat.PORTABLE_WRITE]
        main([*args, "--report-dir", str(tmp_path / "pair"), "--quiet"])
    doc = json.loads((tmp_path / "pair" / "report.json").read_text())
    claims = {"a": ["sessions", "portable-snapshot"], "b": ["sessions", "portable-snapshot"], "c": ["core"]}
    assert compat.path_result("a", "b", doc, claims) == {"writer": "a", "reader": "b", "status": "works"}
    assert compat.path_result("a", "c", None, claims) == {
        "writer": "a",
        "reader": "c",
        "status": "not claimed",
        "reason": "c does not claim sessions",
    }


def test_a_path_whose_reader_drops_foreign_ids_fails_without_blaming_the_writer():
    from roc_conformance.checks.snapshots import READER_DROPS_FOREIGN_IDS

    skipped = {"id": compat.PORTABLE_WRITE, "status": "SKIPPED", "reason": READER_DROPS_FOREIGN_IDS}
    doc = {"requirements": [skipped]}
    claims = {"a": ["sessions", "portable-snapshot"], "b": ["sessions", "portable-snapshot"]}
    row = compat.path_result("a", "b", doc, claims)
    assert row["status"] == "fails"
    assert "b does not keep the interrupt ids" in row["reason"]
    assert "the writer is not at fault" in row["reason"]


COMMITTED = sorted(p for p in (ROOT / "compat").glob("*.json") if p.name not in ("matrix.json",))


@pytest.mark.skipif(not COMMITTED, reason="no results committed under compat/ yet")
def test_the_committed_results_make_the_committed_pages():
    runs, paths = compat.read_results(ROOT / "compat")
    registry = load_registry(ROOT / "spec" / "requirements.json")
    matrix = compat.build_matrix(runs, registry, paths=paths)
    committed = json.loads((ROOT / "compat" / "matrix.json").read_text())
    fix = "rebuild it: roc-conformance compat --matrix-only (or make compat)"
    assert committed == matrix, f"compat/matrix.json is not the matrix of the committed runs: {fix}"
    ids = [r.id for r in registry.requirements]
    assert [r["id"] for r in matrix["requirements"]] == ids
    for row in matrix["requirements"]:
        assert set(row["results"]) == {r["implementation"] for r in runs}
    assert (ROOT / "compat" / "matrix.md").read_text() == matrix_page(matrix, runs, Links.repository()), fix
    for run in runs:
        page = (ROOT / "compat" / f"{run['implementation']}.md").read_text()
        assert page == deviations_page(run, Links.repository()), fix
        assert (ROOT / "compat" / f"{run['implementation']}.json").stat().st_size < 300_000
        page = deviations_page(run, Links.site())
        for rid, req in run["requirements"].items():
            if req["status"] in ("FAIL", "ERROR"):
                assert f"### {rid}\n" in page


def committed_matrix_page():
    """The site's matrix page of the committed results, its sections by heading, and the runs."""
    runs, paths = compat.read_results(ROOT / "compat")
    registry = load_registry(ROOT / "spec" / "requirements.json")
    page = matrix_page(compat.build_matrix(runs, registry, paths=paths), runs, Links.site())
    sections = dict(re.findall(r"^## (.+)\n((?:(?!^## ).*\n)*)", page, re.MULTILINE))
    return registry, runs, sections


def table(section):
    """A Markdown table's body rows as lists of cells (head and rule dropped)."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[2:]]


@pytest.mark.skipif(not COMMITTED, reason="no results committed under compat/ yet")
def test_the_matrix_lists_every_requirement_once_in_its_profile_section():
    registry, runs, sections = committed_matrix_page()
    profiles = list(dict.fromkeys(r.profile for r in registry.requirements))
    assert [t for t in sections if t.startswith("Profile: ")] == [f"Profile: {p}" for p in profiles]
    for profile in profiles:
        rows = table(sections[f"Profile: {profile}"])
        ids = [re.match(r"\[(ROC-[A-Z]+-\d+)\]", row[0]).group(1) for row in rows]
        assert ids == [r.id for r in registry.requirements if r.profile == profile]
        for row in rows:
            assert len(row) == 3 + len(runs)
            for run, cell in zip(runs, row[3:], strict=True):
                req = run["requirements"][re.match(r"\[(ROC-[A-Z]+-\d+)\]", row[0]).group(1)]
                # the status in words, not only its symbol; a reason on every cell that did not pass
                assert req["status"] in cell
                if req["status"] != "PASS":
                    assert 'title="' in cell or re.search(r'\.md#[a-z0-9-]+ "', cell), cell


@pytest.mark.skipif(not COMMITTED, reason="no results committed under compat/ yet")
def test_the_verdict_per_profile_is_the_committed_one():
    registry, runs, sections = committed_matrix_page()
    words = {
        "CONFORMANT": "**CONFORMANT**",
        "NOT_CONFORMANT": "**NOT CONFORMANT**",
        "NOT_CLAIMED": "not claimed",
    }
    rows = {re.search(r"`(.+)`", row[0]).group(1): row[1:] for row in table(sections["Verdict per profile"])}
    assert list(rows) == list(dict.fromkeys(r.profile for r in registry.requirements))
    for i, run in enumerate(runs):
        for profile, entry in run["profiles"].items():
            cell = rows[profile][i]
            assert cell.split(" (")[0].endswith(words[entry["status"]]), (profile, cell)
            assert f"{entry['counts']['PASS']} / {entry['counts']['FAIL']} /" in cell


@pytest.mark.skipif(not COMMITTED, reason="no results committed under compat/ yet")
def test_the_header_shows_each_runs_versions_settings_and_date():
    _, runs, sections = committed_matrix_page()
    header = {row[0]: row[1:] for row in table(sections["Implementations"])}
    for i, run in enumerate(runs):
        column = {field: cells[i] for field, cells in header.items()}
        assert run["title"] in column["implementation"]
        assert run["runtime"]["version"] in column["SDK"]
        assert run["runtime"]["language"] in column["language"]
        assert run["suite"]["version"] in column["suite"]
        assert run["suite"]["commit"][:12] in column["suite"]
        assert run["suite"]["specVersion"] in column["spec"]
        assert run["settings"]["name"] in column["settings"]
        assert column["run on"] == f"{run['date'][:10]} {run['date'][11:16]} UTC"
        assert column["verdict"] == f"**{run['verdict']}**"


# ---------------------------------------------------------------------------------------------
# Running


def test_the_revision_and_fingerprint_follow_the_suite_files(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=tmp_path, check=True)

    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "check.py").write_text("A = 1\n")
    (tmp_path / "notes.md").write_text("x\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    first = compat.suite_revision(tmp_path)
    assert first["dirty"] is False
    assert len(first["commit"]) == 40
    clean = compat.suite_fingerprint(tmp_path)
    (tmp_path / "notes.md").write_text("y\n")  # not a suite file: nothing changes
    assert compat.suite_revision(tmp_path) == first
    assert compat.suite_fingerprint(tmp_path) == clean
    (tmp_path / "conformance" / "check.py").write_text("A = 2\n")
    assert compat.suite_revision(tmp_path)["dirty"] is True
    edited = compat.suite_fingerprint(tmp_path)
    assert edited != clean
    (tmp_path / "conformance" / "new.py").write_text("")
    assert compat.suite_fingerprint(tmp_path) != edited


def test_a_missing_adapter_stops_before_anything_runs(tmp_path):
    absent = compat.Implementation(
        "absent", "Absent", "cmd:absent", installed=("nope/*",), install="make absent"
    )
    console = io.StringIO()
    code = compat.run_compat([absent], out_dir=tmp_path / "out", report_root=tmp_path / "r", console=console)
    assert code == 2
    assert "absent is not installed (nope/* missing): run make absent first" in console.getvalue()
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_end_to_end_over_the_reference(tmp_path):
    console = io.StringIO()
    out = tmp_path / "compat"
    code = compat.run_compat(
        [REF], out_dir=out, report_root=tmp_path / "reports", req=["ROC-SESSION-016"], console=console
    )
    assert code == 0, console.getvalue()
    small = json.loads((out / "reference.json").read_text())
    assert small["selected"] == ["ROC-SESSION-016"]
    assert small["requirements"]["ROC-SESSION-016"]["status"] == "PASS"
    assert len(small["suite"]["commit"]) == 40  # the git commit the suite ran at
    assert small["peer"] == "reference"
    matrix = json.loads((out / "matrix.json").read_text())
    assert len(matrix["requirements"]) == len(load_registry().requirements)
    assert (out / "matrix.md").is_file()
    assert (out / "reference.md").is_file()
    assert json.loads((out / "snapshot-paths.json").read_text())["paths"] == []  # one implementation: no pair
    assert (tmp_path / "reports" / "reference" / "report.json").is_file()
    assert "compat: OK" in console.getvalue()
