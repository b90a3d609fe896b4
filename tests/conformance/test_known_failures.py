"""Known failures, known flaky items and --repeat: ``roc-conformance run --known-failures/--known-flaky``.

Each run is one fast check (``vector:resume-rejects-null-response``) against the in-process reference
adapter, plain or with the ``null_accepted`` broken fixture (a null response is taken as an answer: FAIL of
ROC-RESUME-005). The registry holds only the requirements that check and the wire observer judge, so the
plain reference is CONFORMANT and the broken one NOT CONFORMANT on ROC-RESUME-005 alone.
"""

from __future__ import annotations

import json
from contextlib import ExitStack, contextmanager

import pytest
from roc_conformance.checks import all_checks
from roc_conformance.checks.wire_schema import SCHEMA_REQUIREMENTS
from roc_conformance.cli import EXIT_INCOMPLETE, EXIT_NOT_CONFORMANT, EXIT_OK, EXIT_USAGE, main
from roc_conformance.expectation_file import Entry, parse, render
from roc_conformance.report import validate_report
from roc_harness_support import load_broken, serving
from roc_reference.harness.server import HarnessServicer

CHECK = "vector:resume-rejects-null-response"
BROKEN = "ROC-RESUME-005"
OTHER_PROFILE = "ROC-HOOK-001"  # in the registry, but in a profile the runs below do not select


@pytest.fixture(autouse=True)
def registry(tmp_path, monkeypatch):
    (check,) = [c for c in all_checks() if c.name == CHECK]
    ids = list(dict.fromkeys([*check.requirements, *SCHEMA_REQUIREMENTS]))
    assert BROKEN in ids
    reqs = [{"id": rid, "level": "MUST", "profile": "core"} for rid in ids]
    reqs.append({"id": OTHER_PROFILE, "level": "MUST", "profile": "hooks"})
    path = tmp_path / "requirements.json"
    path.write_text(json.dumps({"specVersion": "1.0", "requirements": reqs}))
    monkeypatch.setenv("ROC_REQUIREMENTS", str(path))


def run(address, tmp_path, *extra):
    """One run of the one check, judging core only; returns the exit code and the report document."""
    report_dir = tmp_path / "report"
    args = ["run", "--target", address, "--report-dir", str(report_dir), "--only", CHECK, "--profile", "core"]
    code = main([*args, *extra])
    doc = json.loads((report_dir / "report.json").read_text())
    return code, doc


def outcome_line(err):
    """The run's last line: ``roc-conformance: <what the lists made of the run> (exit N) in ...``."""
    last = err.splitlines()[-1]
    assert last.startswith("roc-conformance: ")
    return last


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@contextmanager
def broken_adapter():
    # The fixture patches the in-process reference: no plain reference may be served while it is active.
    with load_broken("null_accepted").patch(), serving() as (address, _):
        yield address


@pytest.fixture
def broken():
    with broken_adapter() as address:
        yield address


@pytest.fixture
def reference():
    with serving() as (address, _):
        yield address


def test_the_fixture_fails_the_one_requirement_without_a_list(broken, tmp_path):
    code, doc = run(broken, tmp_path)
    assert code == EXIT_NOT_CONFORMANT
    assert [r["id"] for r in doc["requirements"] if r["status"] == "FAIL"] == [BROKEN]
    assert "expectations" not in doc


def test_a_known_failure_makes_the_broken_run_pass(broken, tmp_path, capsys):
    known = write(tmp_path, "kf.txt", f"{BROKEN}  # null is taken as an answer  <https://example.org/i/1>\n")
    code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_OK
    assert "CONFORMANT except 1 known failure" in outcome_line(capsys.readouterr().err)
    assert doc["verdict"] == "NOT CONFORMANT"  # the report still says what the implementation does
    exp = doc["expectations"]
    assert exp["passed"] is True
    assert exp["residualVerdict"] == "CONFORMANT"
    assert exp["knownFailures"]["entries"] == [
        {
            "entry": BROKEN,
            "reason": "null is taken as an answer",
            "state": "holds",
            "line": 1,
            "link": "https://example.org/i/1",
            "status": "FAIL",
            "detail": exp["knownFailures"]["entries"][0]["detail"],
        }
    ]
    assert validate_report(doc) == []
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "CONFORMANT except 1 known failure" in summary


def test_the_run_fails_when_the_entry_is_removed(broken, tmp_path, capsys):
    known = write(tmp_path, "kf.txt", "# nothing is known to fail\n")
    code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    err = capsys.readouterr().err
    assert f"new failure: {BROKEN} ({CHECK})" in err
    assert "NOT CONFORMANT beyond the known failures: 1 new failure (exit 1)" in outcome_line(err)
    assert [n["requirement"] for n in doc["expectations"]["newFailures"]] == [BROKEN]
    assert "new failure: " + BROKEN in (tmp_path / "report" / "summary.md").read_text()


def test_a_fixed_bug_makes_its_entry_stale(reference, tmp_path, capsys):
    known = write(tmp_path, "kf.txt", f"# header\n\n{BROKEN}  # null is taken as an answer\n")
    code, doc = run(reference, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    err = capsys.readouterr().err
    assert f"stale entry {known}:3: {BROKEN} passes now" in err
    assert "NOT CONFORMANT beyond the known failures: 1 stale entry (exit 1)" in outcome_line(err)
    assert doc["verdict"] == "CONFORMANT"
    assert doc["expectations"]["knownFailures"]["entries"][0]["state"] == "stale"


def test_an_entry_that_names_nothing_fails_the_run(broken, tmp_path, capsys):
    known = write(
        tmp_path,
        "kf.txt",
        f"{BROKEN}  # null is taken as an answer\nROC-NOPE-001  # typo\ncheck:vector:no-such-check  # gone\n",
    )
    code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    err = capsys.readouterr().err
    assert f"unknown entry {known}:2: ROC-NOPE-001: the spec has no such requirement" in err
    assert f"unknown entry {known}:3: check:vector:no-such-check: the suite has no such check" in err
    assert "2 unknown entries" in outcome_line(err)
    states = [e["state"] for e in doc["expectations"]["knownFailures"]["entries"]]
    assert states == ["holds", "unknown", "unknown"]


def test_an_entry_not_judged_in_this_run_is_kept_without_failing_it(broken, tmp_path, capsys):
    # hooks is not selected (--profile core): its requirement is SKIPPED, neither passed nor failed.
    known = write(tmp_path, "kf.txt", f"{BROKEN}  # null\n{OTHER_PROFILE}  # judged in another CI job\n")
    code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_OK
    assert f"not judged {known}:2: {OTHER_PROFILE} is SKIPPED" in capsys.readouterr().err
    assert doc["expectations"]["knownFailures"]["entries"][1]["state"] == "not-judged"


def test_check_level_entries(tmp_path, capsys):
    known = write(tmp_path, "kf.txt", f"check:{CHECK}  # the null probe fails\n")
    with broken_adapter() as broken:
        code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_OK
    assert doc["expectations"]["knownFailures"]["entries"][0]["status"] == "FAIL"
    with serving() as (reference, _):
        code, doc = run(reference, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    assert f"stale entry {known}:1: check:{CHECK} passes now" in capsys.readouterr().err


def test_a_check_entry_does_not_cover_a_failure_another_check_found(broken, tmp_path):
    known = write(tmp_path, "kf.txt", "check:wire:schema  # not the check that fails\n")
    code, doc = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    assert [n["requirement"] for n in doc["expectations"]["newFailures"]] == [BROKEN]
    assert doc["expectations"]["knownFailures"]["entries"][0]["state"] == "stale"


def test_write_known_failures_round_trip(broken, tmp_path, capsys):
    out = tmp_path / "known.txt"
    code, _ = run(broken, tmp_path, "--write-known-failures", str(out))
    assert code == EXIT_NOT_CONFORMANT  # no list given: the failure is not known yet
    written = parse(out.read_text(), str(out))
    assert written.problems == ()
    assert [(e.key, e.reason.startswith("TODO")) for e in written.entries] == [(BROKEN, True)]
    assert CHECK in written.entries[0].reason
    assert "1 new" in capsys.readouterr().err
    # The bootstrapped file makes the run pass; a reason written by hand survives an update in place.
    code, _ = run(broken, tmp_path, "--known-failures", str(out))
    assert code == EXIT_OK
    out.write_text(out.read_text().replace(written.entries[0].reason, "null taken  <https://example.org/9>"))
    code, _ = run(broken, tmp_path, "--known-failures", str(out), "--write-known-failures", str(out))
    assert code == EXIT_OK
    (entry,) = parse(out.read_text()).entries
    assert (entry.key, entry.reason, entry.link) == (BROKEN, "null taken", "https://example.org/9")


def test_write_known_failures_drops_stale_entries(reference, tmp_path, capsys):
    out = tmp_path / "known.txt"
    out.write_text(f"# kept header\n\n{BROKEN}  # fixed since\n")
    code, _ = run(reference, tmp_path, "--known-failures", str(out), "--write-known-failures", str(out))
    assert code == EXIT_NOT_CONFORMANT  # the entry was stale in this run
    assert f"removed {BROKEN} (stale)" in capsys.readouterr().err
    text = out.read_text()
    assert text.startswith("# kept header\n")
    assert parse(text).entries == ()


def test_a_flaky_entry_never_blocks(tmp_path, capsys):
    flaky = write(tmp_path, "flaky.txt", f"{BROKEN}  # fails now and then\n")
    with broken_adapter() as broken:
        code, doc = run(broken, tmp_path, "--known-flaky", flaky)
    assert code == EXIT_OK
    err = capsys.readouterr().err
    assert f"flaky {BROKEN}: FAIL in 1 of 1 run(s), not blocking" in err
    assert "1 flaky failure" in outcome_line(err)
    assert doc["expectations"]["knownFlaky"]["entries"][0]["state"] == "holds"
    with serving() as (reference, _):
        code, doc = run(reference, tmp_path, "--known-flaky", flaky)
    assert code == EXIT_OK  # a flaky item that passes is not stale
    assert doc["expectations"]["knownFlaky"]["entries"][0]["state"] == "stale"


def test_repeat_2_against_a_stable_runtime(reference, tmp_path, capsys):
    code, doc = run(reference, tmp_path, "--repeat", "2")
    assert code == EXIT_OK
    err = capsys.readouterr().err
    assert "repetition 2 of 2" in err
    assert "CONFORMANT; stable over 2 runs (exit 0)" in outcome_line(err)
    assert doc["expectations"]["repeat"] == 2
    assert doc["expectations"]["unstable"] == []
    assert validate_report(doc) == []


class BrokenFromTheSecondRun(HarnessServicer):
    """The reference, with the null_accepted bug from its second handshake on: a runtime that differs
    between repetitions."""

    def __init__(self, stack: ExitStack) -> None:
        super().__init__()
        self.stack = stack
        self.handshakes = 0

    def Describe(self, request, context):
        self.handshakes += 1
        if self.handshakes == 2:
            self.stack.enter_context(load_broken("null_accepted").patch())
        return super().Describe(request, context)


@pytest.mark.parametrize("flaky", [False, True])
def test_repeat_reports_an_unstable_requirement(tmp_path, capsys, flaky):
    extra = ["--known-flaky", write(tmp_path, "flaky.txt", f"{BROKEN}  # flips\n")] if flaky else []
    with ExitStack() as stack, serving(BrokenFromTheSecondRun(stack)) as (address, _):
        code, doc = run(address, tmp_path, "--repeat", "2", *extra)
    err = capsys.readouterr().err
    assert f"unstable {BROKEN}: PASS, FAIL over 2 runs" in err
    unstable = {u["entry"]: u for u in doc["expectations"]["unstable"]}
    assert unstable[BROKEN]["statuses"] == ["PASS", "FAIL"]
    assert unstable[f"check:{CHECK}"]["statuses"] == ["PASS", "FAIL"]
    if flaky:
        assert code == EXIT_OK
        assert all(u["flaky"] for u in unstable.values())
    else:
        assert code == EXIT_NOT_CONFORMANT
        assert not any(u["flaky"] for u in unstable.values())


def test_residual_incomplete_is_still_incomplete(broken, tmp_path, monkeypatch):
    # Judging hooks too: its requirement has no check in this run, so even with the known failure
    # forgiven the run is INCOMPLETE (exit 4), as it would be without any list.
    known = write(tmp_path, "kf.txt", f"{BROKEN}  # null\n")
    report_dir = tmp_path / "report"
    args = ["run", "--target", broken, "--report-dir", str(report_dir), "--only", CHECK]
    code = main([*args, "--profile", "core", "--profile", "hooks", "--known-failures", known])
    assert code == EXIT_INCOMPLETE
    exp = json.loads((report_dir / "report.json").read_text())["expectations"]
    assert (exp["passed"], exp["residualVerdict"]) == (True, "INCOMPLETE")


# ---------------------------------------------------------------------------------------------
# The file format


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("ROC-MODEL-8  # short id\n", 1, "'ROC-MODEL-8' is neither a requirement ID"),
        ("# c\nmodel-008  # lower case\n", 2, "'model-008' is neither a requirement ID"),
        ("ROC-MODEL-008\n", 1, "ROC-MODEL-008 has no reason"),
        ("\n\nROC-MODEL-008   #   \n", 3, "ROC-MODEL-008 has no reason"),
        ("ROC-MODEL-008  # <https://example.org/1>\n", 1, "ROC-MODEL-008 has no reason"),
        ("check:  # no name\n", 1, "'check:' needs a check name"),
        ("ROC-MODEL-008  # a\nROC-MODEL-008  # b\n", 2, "ROC-MODEL-008 is listed twice (first on line 1)"),
        ("ROC-MODEL-008  # why  <ftp://example.org>\n", 1, "the link <ftp://example.org> of ROC-MODEL-008"),
    ],
)
def test_parse_errors_name_the_line(text, line, message):
    parsed = parse(text, "kf.txt")
    assert parsed.entries == () or len(parsed.problems) == 1
    (problem,) = parsed.problems
    assert problem.line == line
    assert message in problem.message
    assert parsed.messages()[0].startswith(f"kf.txt:{line}: ")


def test_every_bad_line_is_reported_at_once():
    parsed = parse("nope  # a\nROC-MODEL-001  # fine\nROC-X-1  # b\n", "kf.txt")
    assert [p.line for p in parsed.problems] == [1, 3]
    assert [e.key for e in parsed.entries] == ["ROC-MODEL-001"]


def test_render_then_parse_keeps_entries_comments_and_links():
    entries = (
        Entry("ROC-MODEL-008", False, "answers reach the wrong batch", "https://example.org/12"),
        Entry("explicit:malformed-responses", True, "extra members dropped # see notes", None),
    )
    text = render(entries, ("# my SDK", ""))
    again = parse(text)
    assert again.problems == ()
    assert [(e.key, e.reason, e.link) for e in again.entries] == [(e.key, e.reason, e.link) for e in entries]
    assert again.header == ("# my SDK", "")
    text = "# head\n\n# why this one\nROC-MODEL-008  # r\n\n# about the next\nROC-MODEL-009  # s\n"
    commented = parse(text)
    assert commented.header == ("# head", "")
    assert [e.comments for e in commented.entries] == [("# why this one",), ("", "# about the next")]
    assert render(commented.entries, commented.header) == text


def test_cli_usage_errors_exit_2_before_any_run(tmp_path, capsys):
    target = ["run", "--target", "127.0.0.1:1", "--report-dir", str(tmp_path / "r")]
    bad = write(tmp_path, "bad.txt", "ROC-MODEL-008  # ok\nROC-MODEL-8  # bad\n")
    assert main([*target, "--known-failures", bad]) == EXIT_USAGE
    assert f"{bad}:2: 'ROC-MODEL-8' is neither" in capsys.readouterr().err
    both = write(tmp_path, "both.txt", "ROC-MODEL-008  # a\n")
    assert main([*target, "--known-failures", both, "--known-flaky", both]) == EXIT_USAGE
    assert "is also a known failure" in capsys.readouterr().err
    assert main([*target, "--known-failures", str(tmp_path / "missing.txt")]) == EXIT_USAGE
    assert "cannot read it" in capsys.readouterr().err
    assert main([*target, "--repeat", "0"]) == EXIT_USAGE
    assert not (tmp_path / "r").exists()  # nothing ran


def test_the_example_file_names_real_requirements_and_checks(monkeypatch):
    from pathlib import Path

    from roc_conformance.expectation_file import load
    from roc_conformance.registry import load_registry

    monkeypatch.delenv("ROC_REQUIREMENTS")  # the spec's own registry
    example = load(Path(__file__).resolve().parents[2] / "conformance/examples/known-failures.example.txt")
    assert example.problems == ()
    ids = {r.id for r in load_registry().requirements}
    names = {c.name for c in all_checks()}
    assert example.entries
    for entry in example.entries:
        assert entry.name in (names if entry.is_check else ids), entry.key


def test_an_entry_outside_the_req_selection_is_not_judged(broken, tmp_path, capsys):
    known = write(tmp_path, "kf.txt", f"{BROKEN}  # null\nROC-ERR-001  # judged when --req names it\n")
    code, doc = run(broken, tmp_path, "--req", BROKEN, "--known-failures", known)
    assert code == EXIT_OK
    states = [(e["entry"], e["state"]) for e in doc["expectations"]["knownFailures"]["entries"]]
    assert states == [(BROKEN, "holds"), ("ROC-ERR-001", "not-judged")]
    assert f"not judged {known}:2: ROC-ERR-001" in capsys.readouterr().err


def _junit_case(tmp_path, requirement):
    import xml.etree.ElementTree as ET

    suites = ET.parse(tmp_path / "report" / "junit.xml").getroot()
    (case,) = [c for c in suites.iter("testcase") if c.get("name", "").startswith(requirement + " ")]
    return case


def test_junit_shows_a_known_failure_as_skipped_with_its_reason(broken, tmp_path):
    code, _ = run(broken, tmp_path)
    assert code == EXIT_NOT_CONFORMANT
    case = _junit_case(tmp_path, BROKEN)
    assert case.find("failure") is not None
    assert case.find("skipped") is None
    known = write(tmp_path, "kf.txt", f"{BROKEN}  # null is taken as an answer\n")
    code, _ = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_OK
    case = _junit_case(tmp_path, BROKEN)
    assert case.find("failure") is None
    skipped = case.find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "known failure: null is taken as an answer"
    assert case.find("system-err").text  # the failure itself is kept


def test_junit_keeps_a_failure_whose_entry_is_for_another_check(broken, tmp_path):
    known = write(tmp_path, "kf.txt", "check:explicit:malformed-responses  # another check's bug\n")
    code, _ = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_NOT_CONFORMANT
    assert _junit_case(tmp_path, BROKEN).find("failure") is not None


def test_junit_shows_a_failure_known_by_its_check_as_skipped(broken, tmp_path):
    known = write(tmp_path, "kf.txt", f"check:{CHECK}  # this vector's bug\n")
    code, _ = run(broken, tmp_path, "--known-failures", known)
    assert code == EXIT_OK
    case = _junit_case(tmp_path, BROKEN)
    assert case.find("failure") is None
    assert case.find("skipped").get("message") == "known failure: this vector's bug"
