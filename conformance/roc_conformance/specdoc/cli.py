"""Spec tooling: generate and check spec/requirements.json, lint the chapters, report coverage and traces.

Usage: ``python -m roc_conformance.specdoc [--root DIR] gen|check|lint|coverage|trace``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .history import committed_requirements_text
from .lint import lint_spec
from .parser import parse_spec, render_requirements
from .report import coverage_text, trace_text
from .trace import TraceError, build_matrix, collect_markers, load_registry


def find_root(start: Path) -> Path:
    """The repository root: the nearest directory holding spec/ and pyproject.toml, else this checkout."""
    for directory in (start, *start.parents):
        if (directory / "spec").is_dir() and (directory / "pyproject.toml").is_file():
            return directory
    return Path(__file__).resolve().parents[3]


def requirements_path(root: Path) -> Path:
    return root / "spec" / "requirements.json"


def is_fresh(root: Path) -> bool:
    path = requirements_path(root)
    expected = render_requirements(parse_spec(root / "spec"))
    return path.is_file() and path.read_text(encoding="utf-8") == expected


def _gen(root: Path) -> int:
    requirements = parse_spec(root / "spec")
    requirements_path(root).write_text(render_requirements(requirements), encoding="utf-8")
    print(f"wrote {requirements_path(root).relative_to(root)}: {len(requirements)} requirements")
    return 0


def _check(root: Path) -> int:
    if is_fresh(root):
        print("spec/requirements.json is up to date")
        return 0
    print("spec/requirements.json is stale or missing: run `python -m roc_conformance.specdoc gen`")
    return 1


def _lint(root: Path) -> int:
    violations = lint_spec(root / "spec", committed_requirements_text(root))
    for violation in violations:
        print(f"spec/{violation}")
    print(f"{len(violations)} violations" if violations else "spec lint: clean")
    return 1 if violations else 0


def _coverage(root: Path) -> int:
    print(coverage_text(parse_spec(root / "spec")), end="")
    return 0


def _trace(root: Path, tests: str, as_json: bool, strict: bool) -> int:
    requirements = parse_spec(root / "spec")
    try:
        collection = collect_markers(root, tests)
    except TraceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    registry = load_registry()
    matrix = build_matrix(requirements, collection.markers, registry.checks)
    notes = [registry.note]
    if not collection.complete:
        notes.append(
            f"warning: pytest collection exited {collection.returncode}; some test modules did not load"
        )
    if as_json:
        print(json.dumps(matrix.to_json(), indent=2))
    else:
        print(trace_text(matrix, notes), end="")
    failed = bool(matrix.unknown) or (strict and bool(matrix.untraced_musts()))
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roc_conformance.specdoc",
        description="Spec tooling: requirements.json, spec lint, coverage and traceability.",
    )
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: found from cwd)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("gen", help="write spec/requirements.json from the chapters")
    commands.add_parser("check", help="exit 1 when spec/requirements.json is stale")
    commands.add_parser("lint", help="print spec lint violations (exit 1 if any)")
    commands.add_parser("coverage", help="requirement counts by level, profile and chapter")
    trace = commands.add_parser("trace", help="traceability matrix: requirement -> tests and checks")
    trace.add_argument("--tests", default="tests", help="test path to collect (default: tests)")
    trace.add_argument("--json", action="store_true", help="print the matrix as JSON")
    trace.add_argument("--strict", action="store_true", help="also exit 1 when a MUST is untraced")
    args = parser.parse_args(argv)
    root = (args.root or find_root(Path.cwd())).resolve()
    if args.command == "gen":
        return _gen(root)
    if args.command == "check":
        return _check(root)
    if args.command == "lint":
        return _lint(root)
    if args.command == "coverage":
        return _coverage(root)
    return _trace(root, args.tests, args.json, args.strict)
