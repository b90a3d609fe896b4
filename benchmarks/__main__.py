"""``python -m benchmarks``: run every benchmark, write ``benchmarks/results.json``, print the Markdown.

``--quick`` runs the smallest scale (what the tests use) and writes only where ``--out`` says, so a smoke run
never replaces the committed results of a full one. ``python -m benchmarks render`` prints the page of the
committed results.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import report
from benchmarks.common import Scale, Section

BENCHMARKS = ("round_trip", "sessions", "suite", "canonical")
"""Module names under ``benchmarks/``, in the order the issue lists them and the page shows them."""


def run(names: list[str], scale: Scale) -> list[Section]:
    sections = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        started = time.perf_counter()
        print(f"bench: {name} ({scale}) ...", file=sys.stderr, flush=True)
        sections.append(module.run(scale))
        print(f"bench: {name} done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return sections


def main(argv: list[str]) -> int:
    if argv[:1] == ["render"]:
        path = Path(argv[1]) if len(argv) > 1 else report.RESULTS_PATH
        print(report.render_page(report.load(path)), end="")
        return 0
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest scale; writes only with --out")
    parser.add_argument("--only", action="append", choices=BENCHMARKS, help="run this benchmark (repeatable)")
    parser.add_argument("--out", type=Path, default=None, help="where the results JSON goes")
    args = parser.parse_args(argv)
    scale: Scale = "quick" if args.quick else "full"
    out = args.out if args.out is not None or args.quick else report.RESULTS_PATH
    started, load_before = datetime.now(UTC), list(os.getloadavg())
    sections = run(args.only or list(BENCHMARKS), scale)
    document = report.results_document(sections, scale, started, load_before)
    if out is not None:
        report.write(document, out)
        print(f"bench: wrote {out}", file=sys.stderr)
    print(report.render_page(document), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
