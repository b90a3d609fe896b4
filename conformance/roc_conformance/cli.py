"""``roc-conformance``: run the RoC conformance suite against an adapter and write the reports.

    roc-conformance run --target reference|cmd:...|HOST:PORT [--profile P ...] [--report-dir DIR]
                        [--junit FILE] [--explore] [--max-examples N] [--steps N] [--timeout-scale F]
                        [--quiet] [--only GLOB ...] [--seed N] [--save-counterexamples DIR]
                        [--known-failures FILE] [--known-flaky FILE] [--write-known-failures FILE]
                        [--repeat N] [--req ID ...] [--database DIR]
    roc-conformance smoke --target reference|cmd:...|HOST:PORT [--timeout-scale F]
                                      a few seconds: is the adapter itself working? (before a full run)
    roc-conformance report LOG [--report-dir DIR] [--junit FILE]
                                      render the reports of a result log (results.jsonl), e.g. a killed run's
    roc-conformance replay FILE.json --target reference|cmd:...|HOST:PORT [--timeout-scale F]
                                      run one vector file (a saved counterexample, or one's own vector)
    roc-conformance checks            list every check and the requirements it verifies
    roc-conformance validate REPORT   validate a report.json against conformance/report.schema.json
    roc-conformance matrix REPORT...  implementations x requirements table (Markdown) for the docs
    roc-conformance compat [--impl NAME ...] [--req ID ...] [--out DIR] [--matrix-only]
                                      make compat: every implementation under test, compat/ and its matrix

Exit codes of ``run`` (conformance/README.md, "Verdicts and exit codes"): 0 CONFORMANT; 1 NOT CONFORMANT
(a MUST failed, or the claim itself is wrong); 2 usage error; 3 the run could not start (no adapter,
handshake failed); 4 INCOMPLETE (nothing failed, but something a verdict needs was not judged); 5 NOTHING
JUDGED (no requirement of a judged profile passed or failed: every check errored or was skipped, or
``--only`` matched no check). ``report`` exits with the code of the logged run's verdict (a log without its
footer is at best INCOMPLETE). The last line ``run`` and ``report`` print (also with ``--quiet``) is always
``roc-conformance: <VERDICT> (exit <code>) ...``.
With ``--known-failures``, ``--known-flaky`` or ``--repeat`` (README, "Known failures in your CI"), a new
failure, a stale or unknown entry or an unstable item is 1; otherwise the verdict is judged as if the listed
failures had passed ("CONFORMANT except N known failures" is 0).

``smoke`` prints one line per probe (ok, ADAPTER FAULT with the fault and a hint, RUNTIME for a well formed
answer RoC does not allow, not run) and a verdict line. Exit codes of ``smoke``: 0 the adapter works (also
when the runtime answered wrongly: run the full suite for that); 3 the adapter is broken or unreachable;
2 usage error.

``replay`` prints the vector's RPC transcript and PASS or FAIL with the suite's messages. Exit codes: 0 PASS;
1 FAIL; 2 the file is not a runnable vector (its problems listed) or a usage error; 3 the adapter is
unreachable or faulted; 5 the adapter does not claim a profile the vector needs.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_NOT_CONFORMANT = 1
EXIT_USAGE = 2
EXIT_FATAL = 3
EXIT_INCOMPLETE = 4
EXIT_NOTHING_JUDGED = 5


def _run(args: argparse.Namespace) -> int:
    from roc_conformance.checks import all_checks
    from roc_conformance.client import Timeouts
    from roc_conformance.errors import HarnessFault
    from roc_conformance.expectations import expect, load_lists, repeated
    from roc_conformance.registry import RegistryError, load_registry
    from roc_conformance.report import write_reports
    from roc_conformance.results_log import LOG_NAME, ResultLog, report_from_log
    from roc_conformance.runner import RunVerdict, run_suite
    from roc_conformance.settings import CERTIFY, EXPLORE, new_seed, prepare_database, with_overrides
    from roc_conformance.target import resolve

    try:
        registry = load_registry()
    except RegistryError as exc:
        print(f"roc-conformance: {exc}", file=sys.stderr)
        return _not_started()
    if args.seed is not None and not args.explore:
        print("roc-conformance: --seed needs --explore (certify is derandomized)", file=sys.stderr)
        return EXIT_USAGE
    if args.database is not None and not args.explore:
        print("roc-conformance: --database needs --explore (certify keeps none)", file=sys.stderr)
        return EXIT_USAGE
    settings = with_overrides(
        EXPLORE if args.explore else CERTIFY,
        max_examples=args.max_examples,
        steps=args.steps,
        seed=(new_seed() if args.seed is None else args.seed) if args.explore else None,
        database=args.database,
    )
    if args.repeat < 1:
        print("roc-conformance: --repeat needs a count of 1 or more", file=sys.stderr)
        return EXIT_USAGE
    lists = load_lists(
        *(Path(p) if p else None for p in (args.known_failures, args.known_flaky, args.write_known_failures))
    )
    for problem in lists.problems:
        print(f"roc-conformance: {problem}", file=sys.stderr)
    if lists.problems:
        return EXIT_USAGE
    plan = None
    if args.req:
        from roc_conformance.selection import plan_requirements

        plan = plan_requirements(args.req, all_checks(), registry, args.profile)
        if plan.unknown:
            print(
                f"roc-conformance: --req: not a requirement of RoC {registry.spec_version}: "
                + ", ".join(plan.unknown),
                file=sys.stderr,
            )
            return EXIT_USAGE
        if not plan.profiles:
            print("roc-conformance: --req: no chosen requirement is in a --profile chosen", file=sys.stderr)
            return EXIT_USAGE
        for note in plan.notes():
            print(f"roc-conformance: --req {note}", file=sys.stderr)
        registry = plan.registry  # the run judges the chosen requirements only (selection.py)
    settings = prepare_database(settings)
    timeouts = Timeouts().scaled(args.timeout_scale)
    try:
        target = resolve(args.target)
        peer = resolve(args.peer) if args.peer else None
    except ValueError as exc:
        print(f"roc-conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except HarnessFault as exc:
        print(f"roc-conformance: cannot start the adapter: {exc}", file=sys.stderr)
        return _not_started()
    progress = None if args.quiet else sys.stderr
    checks = all_checks()
    if args.only:
        checks = [c for c in checks if any(fnmatch.fnmatchcase(c.name, pattern) for pattern in args.only)]
        if not checks and not args.quiet:
            print(f"roc-conformance: --only {' '.join(args.only)} matches no check", file=sys.stderr)
    if plan is not None:
        checks = plan.narrow(checks)
        if not checks and not args.quiet:
            print(f"roc-conformance: no check to run verifies --req {' '.join(plan.ids)}", file=sys.stderr)
    report_dir = Path(args.report_dir)

    # Every check is logged as it finishes, and the reports are rendered from the log: a killed run leaves
    # the log, from which `roc-conformance report` renders them.
    log = ResultLog(report_dir / LOG_NAME, registry, checks)

    signal.signal(signal.SIGTERM, _interrupt)  # a terminated run reports like an interrupted one
    try:
        once = functools.partial(
            run_suite,
            target,
            checks,
            registry,
            settings,
            selected_profiles=list(plan.profiles) if plan is not None else args.profile,
            timeouts=timeouts,
            progress=progress,
            peer=peer,
            save_counterexamples=Path(args.save_counterexamples) if args.save_counterexamples else None,
            max_run_seconds=args.max_run_seconds,
            on_check=log.progress,
            on_start=log.start,
        )
        runs = repeated(once, args.repeat, None if args.quiet else sys.stderr)
        result = runs[-1]
    finally:
        target.stop()
        if peer is not None:
            peer.stop()
    log.finish(result)
    doc = report_from_log(log.path)
    write = Path(args.write_known_failures) if args.write_known_failures else None
    expected = expect(lists, runs, registry, write=write) if result.fatal is None else None
    if expected is not None:
        doc = expected.annotate(doc)  # the known failures' outcome, in report.json and summary.md
    write_reports(doc, report_dir, junit=Path(args.junit) if args.junit else None)
    verdict = result.verdict
    if not args.quiet:
        for name, entry in result.profiles.items():
            # A profile that is not claimed is listed only when it has something to say (core: it must be).
            if entry["status"] not in ("NOT_CLAIMED", "NOT_SELECTED") or entry.get("reason"):
                extra = ""
                if entry.get("failing"):
                    extra = " failing: " + ", ".join(entry["failing"])
                elif entry.get("unresolved"):
                    extra = " unresolved: " + ", ".join(entry["unresolved"][:12])
                elif entry.get("reason"):
                    extra = f" ({entry['reason']})"
                print(f"  profile {name:<22} {entry['status']}{extra}", file=sys.stderr)
        for problem in result.claim_problems():
            print(f"  claim: {problem}", file=sys.stderr)
        faulted = sum(1 for c in result.checks if c.status.value == "ERROR")
        if faulted and verdict in (RunVerdict.INCOMPLETE, RunVerdict.NOTHING_JUDGED):
            print(
                f"  {faulted} check(s) ended in ERROR (a harness fault or a check not run): not the "
                "implementation's failures, and nothing they would have judged has a verdict",
                file=sys.stderr,
            )
        if result.stopped:
            print(f"  stopped early: {result.stopped}; the later checks are ERROR", file=sys.stderr)
    if expected is not None:
        for line in [] if args.quiet else expected.lines():
            print(line, file=sys.stderr)
        verdict = expected.verdict or verdict
    if result.fatal is not None:
        print(f"roc-conformance: {result.fatal}", file=sys.stderr)
    return _last_line(verdict, doc, report_dir, shown=expected.shown if expected is not None else None)


def _last_line(verdict: str, doc: dict[str, Any], report_dir: Path, shown: str | None = None) -> int:
    """Print the run's last line, the same for ``run`` and ``report``, and return its exit code.

    ``shown`` replaces the verdict's words, e.g. ``CONFORMANT except 2 known failures`` (--known-failures).
    """
    from roc_conformance.runner import RunVerdict

    if doc.get("fatal"):
        code, verdict = EXIT_FATAL, f"{RunVerdict.NOTHING_JUDGED} (the run could not start)"
    else:
        code = {
            RunVerdict.CONFORMANT: EXIT_OK,
            RunVerdict.NOT_CONFORMANT: EXIT_NOT_CONFORMANT,
            RunVerdict.INCOMPLETE: EXIT_INCOMPLETE,
            RunVerdict.NOTHING_JUDGED: EXIT_NOTHING_JUDGED,
        }[verdict]
    print(
        f"roc-conformance: {shown or verdict} (exit {code}) in {doc['durationSeconds']:.1f}s; "
        f"reports in {report_dir}: summary.md, report.html, report.json, junit.xml, results.jsonl",
        file=sys.stderr,
    )
    return code


def _not_started() -> int:
    """The last line of a run that could not start at all (so it has no reports)."""
    print("roc-conformance: NOTHING JUDGED (the run could not start) (exit 3); no reports", file=sys.stderr)
    return EXIT_FATAL


def _report(args: argparse.Namespace) -> int:
    from roc_conformance.report import write_reports
    from roc_conformance.results_log import LogError, report_from_log

    log = Path(args.log)
    try:
        doc = report_from_log(log)
    except LogError as exc:
        print(f"roc-conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report_dir = Path(args.report_dir) if args.report_dir else log.parent
    write_reports(doc, report_dir, junit=Path(args.junit) if args.junit else None)
    if not doc.get("complete", True) and doc.get("stopped"):
        print(f"  incomplete: {doc['stopped']}", file=sys.stderr)
    return _last_line(str(doc["verdict"]), doc, report_dir)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _smoke(args: argparse.Namespace) -> int:
    from roc_conformance.client import HarnessClient, Timeouts
    from roc_conformance.errors import HarnessFault
    from roc_conformance.smoke import process_exit, smoke
    from roc_conformance.target import resolve

    if args.timeout_scale <= 0:
        print("roc-conformance: --timeout-scale must be positive", file=sys.stderr)
        return EXIT_USAGE
    try:
        target = resolve(args.target)
    except ValueError as exc:
        print(f"roc-conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except HarnessFault as exc:
        print(f"roc-conformance: cannot start the adapter: {exc}", file=sys.stderr)
        print("ADAPTER BROKEN: the adapter did not start", file=sys.stderr)
        return EXIT_FATAL
    try:
        with HarnessClient.connect(target.address, timeouts=Timeouts().scaled(args.timeout_scale)) as client:
            report = smoke(client, args.target, exit_code=process_exit(target))
    finally:
        target.stop()
    print(report.text())
    return EXIT_OK if report.adapter_ok else EXIT_FATAL


def _replay(args: argparse.Namespace) -> int:
    from roc_conformance.client import Timeouts
    from roc_conformance.replay import replay_file

    if args.timeout_scale <= 0:
        print("roc-conformance: --timeout-scale must be positive", file=sys.stderr)
        return EXIT_USAGE
    timeouts = Timeouts().scaled(args.timeout_scale)
    return replay_file(Path(args.file), args.target, sys.stdout, timeouts=timeouts)


def _checks(args: argparse.Namespace) -> int:
    from roc_conformance.checks import all_checks

    for check in all_checks():
        print(f"{check.name}\t{check.kind}\t{','.join(check.profiles)}\t{' '.join(check.requirements)}")
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    from roc_conformance.report import validate_report

    doc = json.loads(Path(args.report).read_text(encoding="utf-8"))
    problems = validate_report(doc)
    for problem in problems:
        print(problem)
    if not problems:
        # Silence on success reads like "did it run at all?": say what was checked against what.
        print(f"{args.report}: valid report (schemaVersion {doc.get('schemaVersion')}, report.schema.json)")
    return EXIT_NOT_CONFORMANT if problems else EXIT_OK


def _matrix(args: argparse.Namespace) -> int:
    from roc_conformance.report import matrix

    docs = [json.loads(Path(path).read_text(encoding="utf-8")) for path in args.reports]
    print(matrix(docs), end="")
    return EXIT_OK


def _compat(args: argparse.Namespace) -> int:
    from roc_conformance.compat import run_from_args

    return run_from_args(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roc-conformance", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the suite against an adapter")
    run.add_argument(
        "--target",
        required=True,
        help="'reference' (start the reference adapter), cmd:<command line> (start it) or HOST:PORT",
    )
    run.add_argument(
        "--profile",
        action="append",
        default=None,
        help="only judge this profile (repeatable); default: every declared profile",
    )
    run.add_argument(
        "--peer",
        default=None,
        help="a second adapter ('reference' or HOST:PORT) that portability checks restore snapshots into",
    )
    run.add_argument("--report-dir", default="reports", help="where report.json, summary.md, junit.xml go")
    run.add_argument("--junit", default=None, help="also write the JUnit XML to this path")
    run.add_argument(
        "--explore",
        action="store_true",
        help="explore settings: random, more examples (certify is the default)",
    )
    run.add_argument(
        "--seed",
        type=int,
        default=None,
        help="explore only: the seed of the random examples (default: a fresh one, recorded in the report)",
    )
    run.add_argument("--max-examples", type=int, default=None, help="override Hypothesis max_examples")
    run.add_argument("--steps", type=int, default=None, help="override the state machine's step count")
    run.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every RPC deadline")
    run.add_argument("--quiet", action="store_true", help="no progress output")
    run.add_argument(
        "--max-run-seconds",
        type=float,
        default=3600.0,
        help="the whole run's time budget; checks not finished by then are ERROR (default 3600)",
    )
    run.add_argument(
        "--save-counterexamples",
        default=None,
        metavar="DIR",
        help="write each shrunk state-machine counterexample into DIR as a static vector file",
    )
    run.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="GLOB",
        help="run only checks whose name matches (repeatable), e.g. 'explicit:*' or 'vector:*'",
    )
    run.add_argument(
        "--req",
        action="append",
        default=None,
        metavar="ID",
        help="run the checks that verify this requirement and judge only it (repeatable), e.g. ROC-MODEL-008",
    )
    run.add_argument(
        "--database",
        default=None,
        metavar="DIR",
        help="explore only: the example database, whose failing examples are replayed first "
        "(default: .hypothesis/roc-explore in the working directory)",
    )
    run.add_argument(
        "--known-failures",
        default=None,
        metavar="FILE",
        help="the failures this implementation is known to have: the run passes when it fails exactly these",
    )
    run.add_argument(
        "--known-flaky",
        default=None,
        metavar="FILE",
        help="requirements/checks that fail now and then: run and reported, never deciding the outcome",
    )
    run.add_argument(
        "--write-known-failures",
        default=None,
        metavar="FILE",
        help="write this run's failures as a known-failures file (keeps the reasons of entries that hold)",
    )
    run.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run the checks N times and report every requirement/check whose status differs (unstable)",
    )
    run.set_defaults(func=_run)
    probe = commands.add_parser("smoke", help="a few seconds of probes: is the adapter itself working?")
    probe.add_argument(
        "--target", required=True, help="as for run: 'reference', cmd:<command line> or HOST:PORT"
    )
    probe.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every RPC deadline")
    probe.set_defaults(func=_smoke)
    again = commands.add_parser("replay", help="run one vector file (e.g. a saved counterexample)")
    again.add_argument("file", help="a vector (conformance/vectors/vector.schema.json)")
    again.add_argument("--target", required=True, help="as for run: 'reference', cmd:... or HOST:PORT")
    again.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every RPC deadline")
    again.set_defaults(func=_replay)
    checks = commands.add_parser("checks", help="list the checks and the requirements they verify")
    checks.set_defaults(func=_checks)
    render = commands.add_parser("report", help="render the reports of a result log (results.jsonl)")
    render.add_argument("log", help="a results.jsonl, finished or not (a killed run's)")
    render.add_argument("--report-dir", default=None, help="where the reports go (default: the log's folder)")
    render.add_argument("--junit", default=None, help="also write the JUnit XML to this path")
    render.set_defaults(func=_report)
    validate = commands.add_parser("validate", help="validate a report.json against its schema")
    validate.add_argument("report")
    validate.set_defaults(func=_validate)
    table = commands.add_parser("matrix", help="implementations × requirements table (Markdown) of reports")
    table.add_argument("reports", nargs="+")
    table.set_defaults(func=_matrix)
    from roc_conformance.compat import add_arguments

    compat = commands.add_parser(
        "compat", help="certify every implementation under test; compat/ results and matrix (make compat)"
    )
    add_arguments(compat)
    compat.set_defaults(func=_compat)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code not in (0, None) else EXIT_OK
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
