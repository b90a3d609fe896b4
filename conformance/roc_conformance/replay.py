"""``roc-conformance replay FILE``: run one vector file against an adapter and say PASS or FAIL.

The file is a saved counterexample (``run --save-counterexamples DIR``) or a vector of one's own, in the
format of conformance/vectors/vector.schema.json. It runs as the suite runs its static vectors (the same
check, the same failure messages), and the output is its RPC transcript, then the verdict.

Exit codes: 0 PASS; 1 FAIL; 2 the file is not a runnable vector (each problem listed) or bad arguments;
3 the adapter could not be reached or faulted (nothing is judged); 5 the adapter does not claim a profile
the vector needs (nothing is judged).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from roc_conformance.checks.base import CheckResult, Status

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_BAD_FILE = 2
EXIT_UNREACHABLE = 3
EXIT_NOT_RUN = 5


@dataclass
class LoadedVector:
    """A vector file read and checked before any RPC is sent."""

    vector: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)  # the file cannot be run: exit 2
    warnings: list[str] = field(default_factory=list)  # it can, but its expectations disagree with the oracle


def schema_problems(doc: Any) -> list[str]:
    """Every way ``doc`` breaks vector.schema.json, each with the JSON pointer of the offending value."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    from roc_conformance.oracle.vectors import SCHEMA_PATH

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    problems: list[str] = []
    for error in sorted(Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(map(str, e.path))):
        # A "oneOf" error names the whole value; the branch that came closest says what is wrong in it.
        cause = best_match([error]) or error
        message = cause.message if len(cause.message) <= 300 else cause.message[:297] + "..."
        problems.append(f"at {_pointer(list(cause.absolute_path))}: {message}")
    return problems


def _pointer(path: list[Any]) -> str:
    return "/" + "/".join(str(p) for p in path) if path else "(the document)"


def load_vector(path: Path) -> LoadedVector:
    """Read ``path``, validate it against the schema and run it on the oracle (no adapter needed).

    The oracle run finds what the schema cannot, such as an answer to an interrupt the scenario never
    raises; disagreements between the vector's own expectations and the oracle are warnings, since the
    replay reports them against the implementation anyway.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return LoadedVector(None, [f"cannot read the file: {exc.strerror or exc}"])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return LoadedVector(None, [f"not JSON: {exc}"])
    problems = schema_problems(doc)
    if problems:
        return LoadedVector(None, problems)
    from roc_conformance.oracle.vectors import check_vector_against_oracle

    try:
        warnings = check_vector_against_oracle(doc)
    except Exception as exc:  # a scenario the oracle cannot follow cannot be replayed either
        return LoadedVector(None, [f"the scenario cannot be run: {type(exc).__name__}: {exc}"])
    return LoadedVector(doc, [], warnings)


def replay_vector(
    vector: dict[str, Any], client: Any, out: TextIO, *, label: str = ""
) -> tuple[int, CheckResult | None]:
    """Run ``vector`` through the adapter behind ``client``; print the transcript and verdict to ``out``.

    Returns the exit code and the check's result (None when it did not run).
    """
    from roc_conformance.checks.base import CheckContext
    from roc_conformance.checks.vectors import vector_check
    from roc_conformance.errors import HarnessFault
    from roc_conformance.runner import run_check
    from roc_conformance.settings import CERTIFY

    try:
        description = client.describe()
    except HarnessFault as exc:
        print(f"ERROR: the adapter{f' at {label}' if label else ''} is unreachable: {exc}", file=out)
        return EXIT_UNREACHABLE, None
    impl = description.implementation
    print(
        f"adapter: {impl.get('name', '?')} {impl.get('version', '')}".rstrip()
        + (f" at {label}" if label else "")
        + f"; profiles: {', '.join(sorted(description.profiles)) or '(none)'}",
        file=out,
    )
    transcripts: list[str] = []
    check = vector_check(vector, transcripts.append)
    missing = check.missing_profiles(description.profiles)
    if missing:
        print(
            f"NOT RUN: the vector needs profile(s) {', '.join(missing)}, which the adapter does not claim",
            file=out,
        )
        return EXIT_NOT_RUN, None
    result = run_check(check, CheckContext(client=client, description=description, settings=CERTIFY))
    print("", file=out)
    print(transcripts[-1] if transcripts else (result.counterexample or "(no RPC transcript)"), file=out)
    print("", file=out)
    return _verdict(result, out), result


def _verdict(result: CheckResult, out: TextIO) -> int:
    """Print PASS / FAIL / ERROR with the suite's messages; returns the exit code."""
    if result.status is Status.PASS:
        print(f"PASS {' '.join(result.requirements)}", file=out)
        return EXIT_PASS
    if result.status is Status.FAIL:
        for finding in result.failures:
            print(f"FAIL {', '.join(finding.requirements)}: {finding.message}", file=out)
        for consequence in result.consequences:
            print(
                f"  consequence (seen after {', '.join(consequence.after)} failed): {consequence.message}",
                file=out,
            )
        for rid, why in sorted(result.blocked.items()):
            print(f"  not judged {rid}: {why}", file=out)
        return EXIT_FAIL
    if result.fault_kind is not None:
        print(f"ERROR (not a verdict on the implementation): {result.message}", file=out)
        return EXIT_UNREACHABLE
    # Not a fault of the adapter: the check could not run this vector (a scenario the driver rejects).
    print(f"ERROR: the vector could not be run: {result.message}", file=out)
    return EXIT_BAD_FILE


def replay_file(path: Path, target_spec: str, out: TextIO, *, timeouts: Any = None) -> int:
    """``roc-conformance replay``: load ``path``, start or dial ``target_spec``, replay, report."""
    from roc_conformance.client import HarnessClient
    from roc_conformance.errors import HarnessFault
    from roc_conformance.target import resolve

    loaded = load_vector(path)
    if loaded.vector is None:
        print(f"{path}: not a runnable vector (conformance/vectors/vector.schema.json):", file=out)
        for problem in loaded.problems:
            print(f"  {problem}", file=out)
        return EXIT_BAD_FILE
    vector = loaded.vector
    print(f"replay {path}: {vector['id']}: {vector['title']}", file=out)
    print(f"requirements: {' '.join(vector['requirements'])}", file=out)
    for warning in loaded.warnings:
        print(f"  warning: the vector's expectations disagree with the oracle: {warning}", file=out)
    try:
        target = resolve(target_spec)
    except ValueError as exc:
        print(f"roc-conformance: {exc}", file=out)
        return EXIT_BAD_FILE
    except HarnessFault as exc:
        print(f"ERROR: cannot start the adapter: {exc}", file=out)
        return EXIT_UNREACHABLE
    try:
        client = HarnessClient.connect(target.address, timeouts=timeouts)
        try:
            code, _ = replay_vector(vector, client, out, label=target.label)
        finally:
            client.close()
    finally:
        target.stop()
    return code


__all__ = ["LoadedVector", "load_vector", "replay_file", "replay_vector", "schema_problems"]
