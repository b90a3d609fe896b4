"""``roc-conformance compat`` (``make compat``): the certify suite against every implementation under test.

Each implementation runs with the settings of ``make run`` (certify, the reference as peer) and with its
known-failures file when it has one; the full reports go to ``reports/compat/<name>/`` and a compact form of
each, small enough to commit, to ``compat/<name>.json``. For every ordered pair of implementations that
claim ``sessions``, one cheap run (``--req ROC-SESSION-016``) asks whether a snapshot the first writes
continues in the second (``explicit:portable-to-peer``); ``compat/snapshot-paths.json`` keeps the answers.
``compat/matrix.json`` and ``matrix.md`` (implementations x every requirement of spec/requirements.json) are
built from those files only, and only from runs made at one suite commit (compat_pages.py renders Markdown).

The run passes (exit 0) exactly when every implementation's failures are its known failures (no new
failure, no stale entry) and nothing ended in ERROR; otherwise it prints one line per implementation.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from roc_conformance.checks.snapshots import READER_DROPS_FOREIGN_IDS
from roc_conformance.readable import clip, readable_lines
from roc_conformance.registry import Registry, load_registry

ROOT = Path(__file__).resolve().parents[2]

RUN_FORMAT = "roc-compat-run/1"
PATHS_FORMAT = "roc-compat-snapshot-paths/1"
MATRIX_FORMAT = "roc-compat-matrix/1"
STATUSES = ("PASS", "FAIL", "ERROR", "SKIPPED", "NOT_TESTED")
PORTABLE_WRITE = "ROC-SESSION-016"  # a snapshot one implementation writes continues in another
PORTABLE_CHECK = "explicit:portable-to-peer"
PATHS_FILE = "snapshot-paths.json"
MATRIX_FILE = "matrix.json"

# Triage: a known-failures reason starts with its category and a colon ("sdk: ...").
CATEGORIES = {"sdk": "SDK divergence", "adapter": "adapter limitation", "spec": "spec problem"}
UNTRIAGED = "untriaged"
_CATEGORY = re.compile(r"^\s*(sdk|adapter|spec)\s*:\s*", re.IGNORECASE)

REASON_CHARS = 600
COUNTEREXAMPLE_CHARS = 3000
# What a suite commit's results depend on: a change elsewhere (docs, compat/) leaves the tree clean.
SUITE_PATHS = ("conformance", "spec", "proto", "reference", "pyproject.toml")


class CompatError(Exception):
    """Results that cannot be combined, or an implementation that cannot be run."""


@dataclass(frozen=True)
class Implementation:
    """One implementation under test: how to start its adapter, and what it is known to fail."""

    name: str
    title: str
    target: str  # --target, run from the repository root
    known_failures: str | None = None  # repository-relative
    known_flaky: str | None = None  # repository-relative: failures found in some runs only
    installed: tuple[str, ...] = ()  # repository-relative globs that exist once it is installed
    install: str = ""  # the command that installs it

    def missing(self, root: Path = ROOT) -> list[str]:
        """The install markers that are absent (empty when it can run)."""
        return [pattern for pattern in self.installed if not any(root.glob(pattern))]

    def known_failures_path(self, root: Path = ROOT) -> Path | None:
        return _existing(root, self.known_failures)

    def known_flaky_path(self, root: Path = ROOT) -> Path | None:
        return _existing(root, self.known_flaky)


def _existing(root: Path, relative: str | None) -> Path | None:
    if relative is None:
        return None
    path = root / relative
    return path if path.is_file() else None


_SPY = "conformance/adapters/strands-python"
_STS = "conformance/adapters/strands-typescript"
IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation("reference", "RoC reference runtime", "reference"),
    Implementation(
        "strands-python",
        "Strands Agents (Python)",
        f"cmd:{_SPY}/.venv/bin/python {_SPY}/strands_adapter.py --port 0",
        known_failures=f"{_SPY}/known-failures.txt",
        known_flaky=f"{_SPY}/known-flaky.txt",
        installed=(f"{_SPY}/.venv/bin/python", f"{_SPY}/.venv/lib/python*/site-packages/strands/__init__.py"),
        install="make strands-python",
    ),
    Implementation(
        "strands-typescript",
        "Strands Agents (TypeScript)",
        f"cmd:{_STS}/node_modules/.bin/tsx {_STS}/src/main.ts --port 0",
        known_failures=f"{_STS}/known-failures.txt",
        known_flaky=f"{_STS}/known-flaky.txt",
        installed=(f"{_STS}/node_modules/@strands-agents/sdk/package.json", f"{_STS}/node_modules/.bin/tsx"),
        install="make strands-typescript",
    ),
)


def implementation(name: str) -> Implementation:
    for impl in IMPLEMENTATIONS:
        if impl.name == name:
            return impl
    known = ", ".join(i.name for i in IMPLEMENTATIONS)
    raise CompatError(f"no implementation named {name!r} (known: {known})")


# ---------------------------------------------------------------------------------------------
# The suite's revision


def suite_revision(root: Path = ROOT) -> dict[str, Any]:
    """The git commit the suite runs at, and whether the files results depend on differ from it."""
    commit = _git(root, "rev-parse", "HEAD")
    changed = _git(root, "status", "--porcelain", "--", *SUITE_PATHS)
    if commit is None or changed is None:
        return {"commit": None, "dirty": None}
    return {"commit": commit.strip(), "dirty": bool(changed.strip())}


def suite_fingerprint(root: Path = ROOT) -> str | None:
    """A digest of the suite's files as they are (committed tree + uncommitted changes): a run whose
    fingerprint differs at its end ran code other than its recorded revision."""
    parts = [
        _git(root, "ls-tree", "HEAD", "--", *SUITE_PATHS),
        _git(root, "diff", "HEAD", "--", *SUITE_PATHS),
        _git(root, "ls-files", "--others", "--exclude-standard", "--", *SUITE_PATHS),
    ]
    if any(p is None for p in parts):
        return None
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()


def _git(root: Path, *args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


# ---------------------------------------------------------------------------------------------
# Triage categories


def triage(reason: str) -> tuple[str, str]:
    """``(category, sentence)`` of a known-failures reason: ``sdk: the id repeats`` -> ``("sdk", "the id
    repeats")``; a reason without a category prefix is ``untriaged``."""
    found = _CATEGORY.match(reason)
    if found is None:
        return UNTRIAGED, reason.strip()
    return found.group(1).lower(), reason[found.end() :].strip()


# ---------------------------------------------------------------------------------------------
# The compact form of a report


def _known_entries(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's known-failures and known-flaky entries with their triage category, as the report's
    expectations hold them (``list``: ``failures`` or ``flaky``)."""
    expectations = doc.get("expectations") or {}
    entries = []
    for key, name in (("knownFailures", "failures"), ("knownFlaky", "flaky")):
        for item in (expectations.get(key) or {}).get("entries") or []:
            category, sentence = triage(str(item.get("reason", "")))
            entry = {
                "entry": item["entry"],
                "list": name,
                "category": category,
                "reason": sentence,
                "state": item.get("state"),
            }
            if item.get("link"):
                entry["link"] = item["link"]
            entries.append(entry)
    return entries


def _base_check(name: str) -> str:
    return re.sub(r" \(without [^()]*\)$", "", name)


def _known_for(req: dict[str, Any], entries: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The known-failures entry that covers ``req``: its own, or the entry of a check that failed it."""
    by_key = {e["entry"]: e for e in entries}
    found: dict[str, Any] | None
    if req["id"] in by_key:
        found = by_key[req["id"]]
    else:
        checks = [f"check:{_base_check(f['check'])}" for f in req.get("failures", [])]
        found = next((by_key[c] for c in checks if c in by_key), None)
    if found is None:
        return None
    return {k: found[k] for k in ("entry", "list", "category", "reason", "link", "state") if k in found}


def _compact_requirement(req: dict[str, Any], entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"status": req["status"], "level": req["level"], "profile": req["profile"]}
    if req["status"] == "PASS":
        return out
    if req.get("reason"):
        out["reason"] = clip(str(req["reason"]), REASON_CHARS)
    failures = req.get("failures") or []
    if failures:
        out["check"] = failures[0].get("check")
        example = next((f["counterexample"] for f in failures if f.get("counterexample")), None)
        if example:
            out["counterexample"] = "\n".join(readable_lines(str(example), max_chars=COUNTEREXAMPLE_CHARS))
    known = _known_for(req, entries)
    if known is not None:
        out["known"] = known
    return out


def profile_counts(requirements: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per profile, how many of its requirements have each status (every status present, zeros too)."""
    counts: dict[str, dict[str, int]] = {}
    for req in requirements.values():
        row = counts.setdefault(req["profile"], dict.fromkeys(STATUSES, 0))
        row[req["status"]] = row.get(req["status"], 0) + 1
    return counts


def outcome(doc: dict[str, Any], entries: Sequence[dict[str, Any]], exit_code: int | None) -> dict[str, Any]:
    """Whether the run matched its known failures (no new failure, no stale or unknown entry) and nothing
    errored, and what did not."""
    expectations = doc.get("expectations") or {}
    new = [str(n["requirement"]) for n in expectations.get("newFailures", [])]
    if not expectations:  # no known-failures file: every failure is new
        new = [r["id"] for r in doc["requirements"] if r["status"] == "FAIL"]
    stale = [e["entry"] for e in entries if e["state"] == "stale" and e["list"] == "failures"]
    unknown = [e["entry"] for e in entries if e["state"] == "unknown"]
    # A flaky item may show as a harness fault (a timeout): its listed ERROR is reported, not blocking.
    flaky = {e["entry"] for e in entries if e["list"] == "flaky" and e["state"] == "holds"}
    errors = [r["id"] for r in doc["requirements"] if r["status"] == "ERROR" and r["id"] not in flaky]
    fatal = doc.get("fatal")
    ok = not (new or stale or unknown or errors or fatal) and exit_code in (0, None)
    out: dict[str, Any] = {
        "ok": ok,
        "verdict": expectations.get("verdict") or doc.get("verdict"),
        "exitCode": exit_code,
        "newFailures": new,
        "stale": stale,
        "unknown": unknown,
        "errors": errors,
    }
    if fatal:
        out["fatal"] = clip(str(fatal), REASON_CHARS)
    return out


def compact(
    doc: dict[str, Any],
    impl: Implementation,
    revision: dict[str, Any],
    *,
    exit_code: int | None = None,
    selected: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The compact, committable form of one run's report.json."""
    entries = _known_entries(doc)
    runtime = dict(doc.get("implementation") or {})
    adapter = runtime.pop("adapter", None)
    requirements = {r["id"]: _compact_requirement(r, entries) for r in doc["requirements"]}
    counts = profile_counts(requirements)
    profiles = {
        name: {"status": entry.get("status"), "counts": counts.get(name, dict.fromkeys(STATUSES, 0))}
        for name, entry in (doc.get("profiles") or {}).items()
    }
    return {
        "format": RUN_FORMAT,
        "implementation": impl.name,
        "title": impl.title,
        "date": doc.get("startedAt"),
        "durationSeconds": doc.get("durationSeconds"),
        "suite": {**doc.get("suite", {}), **revision},
        "runtime": {
            k: runtime[k] for k in ("name", "version", "language", "languageVersion") if k in runtime
        },
        "adapter": adapter,
        "target": doc.get("target"),
        "peer": doc.get("peer"),
        "claimed": sorted((doc.get("declaration") or {}).get("profiles") or []),
        "settings": doc.get("settings"),
        "selected": list(selected) if selected else None,
        "knownFailuresFile": impl.known_failures
        if "knownFailures" in (doc.get("expectations") or {})
        else None,
        "knownFlakyFile": impl.known_flaky if "knownFlaky" in (doc.get("expectations") or {}) else None,
        "verdict": doc.get("verdict"),
        "outcome": outcome(doc, entries, exit_code),
        "knownFailures": entries,
        "profiles": profiles,
        "requirements": requirements,
    }


# ---------------------------------------------------------------------------------------------
# Snapshot paths between implementations


def path_result(
    writer: str, reader: str, doc: dict[str, Any] | None, claims: dict[str, list[str]]
) -> dict[str, Any]:
    """Whether a snapshot ``writer`` takes continues in ``reader``, from the pair's report (None: not run,
    because one of them does not claim ``sessions``)."""
    row: dict[str, Any] = {"writer": writer, "reader": reader}
    if doc is None:
        absent = [
            f"{name} does not claim sessions" for name in (writer, reader) if "sessions" not in claims[name]
        ]
        row.update(status="not claimed", reason="; ".join(absent) or "not run")
        return row
    req = next((r for r in doc["requirements"] if r["id"] == PORTABLE_WRITE), None)
    status = req["status"] if req is not None else "NOT_TESTED"
    reason = str((req or {}).get("reason") or doc.get("fatal") or "no result")
    if status == "SKIPPED" and "not declare" in reason:
        row["status"] = "not claimed"  # the writer's or the reader's declaration lacks portable-snapshot
    elif status == "SKIPPED" and READER_DROPS_FOREIGN_IDS in reason:
        # The writer is not judged, but the path is known not to work: the reader loses foreign ids.
        row["status"] = "fails"
        reason = (
            f"{reader} does not keep the interrupt ids of a snapshot written elsewhere (its "
            "ROC-SESSION-014/015), so answers to the writer's ids never reach the units; the writer is "
            "not at fault"
        )
    else:
        row["status"] = {"PASS": "works", "FAIL": "fails", "ERROR": "error"}.get(status, "not judged")
    if status != "PASS":
        row["reason"] = clip(reason, REASON_CHARS)
    return row


# ---------------------------------------------------------------------------------------------
# The matrix


def _same_commit(docs: Sequence[dict[str, Any]], allow_mixed: bool) -> str | None:
    commits = {str(d.get("suite", {}).get("commit")) for d in docs}
    if len(commits) > 1 and not allow_mixed:
        listed = "; ".join(
            f"{d.get('implementation', d.get('format'))} at {d.get('suite', {}).get('commit')}" for d in docs
        )
        raise CompatError(
            f"results of different suite commits cannot be compared ({listed}); run make compat again, "
            "or pass --allow-mixed-commits to combine them anyway"
        )
    return next(iter(commits)) if len(commits) == 1 else None


def build_matrix(
    runs: Sequence[dict[str, Any]],
    registry: Registry,
    *,
    paths: dict[str, Any] | None = None,
    allow_mixed: bool = False,
) -> dict[str, Any]:
    """Implementations x every requirement of the registry, from compact run files (and the snapshot paths).

    Raises CompatError when the files come from different suite commits, unless ``allow_mixed``.
    """
    for run in runs:
        if run.get("format") != RUN_FORMAT:
            raise CompatError(f"not a compact run ({RUN_FORMAT}): {run.get('implementation', '?')}")
    commit = _same_commit([*runs, *([paths] if paths else [])], allow_mixed)
    names = [r["implementation"] for r in runs]
    rows: list[dict[str, Any]] = []
    for req in registry.requirements:
        cells = {}
        for run in runs:
            got = run["requirements"].get(req.id)
            cells[run["implementation"]] = got["status"] if got is not None else "NOT_RUN"
        rows.append(
            {
                "id": req.id,
                "level": req.level,
                "profile": req.profile,
                "chapter": req.chapter,
                "anchor": req.anchor,
                "results": cells,
            }
        )
    return {
        "format": MATRIX_FORMAT,
        "specVersion": registry.spec_version,
        "suiteCommit": commit,
        "mixedCommits": commit is None,
        "implementations": [
            {
                "name": r["implementation"],
                "title": r.get("title", r["implementation"]),
                "runtime": r.get("runtime"),
                "adapter": r.get("adapter"),
                "date": r.get("date"),
                "suite": r.get("suite"),
                "verdict": r.get("verdict"),
                "outcome": {k: r["outcome"][k] for k in ("ok", "verdict")},
                "claimed": r.get("claimed"),
                "profiles": r.get("profiles"),
                "totals": _totals(rows, r["implementation"]),
            }
            for r in runs
        ],
        "snapshotPaths": [
            p for p in (paths or {}).get("paths", []) if p["writer"] in names and p["reader"] in names
        ],
        "requirements": rows,
    }


def _totals(rows: Sequence[dict[str, Any]], name: str) -> dict[str, int]:
    totals = dict.fromkeys((*STATUSES, "NOT_RUN"), 0)
    for row in rows:
        totals[row["results"][name]] = totals.get(row["results"][name], 0) + 1
    return totals


def read_results(directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The compact run files of ``directory`` (in IMPLEMENTATIONS order, others after) and its paths file."""
    runs = []
    for path in sorted(directory.glob("*.json")):
        if path.name in (MATRIX_FILE, PATHS_FILE):
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("format") == RUN_FORMAT:
            runs.append(doc)
    order = {impl.name: i for i, impl in enumerate(IMPLEMENTATIONS)}
    runs.sort(key=lambda r: (order.get(r["implementation"], len(order)), r["implementation"]))
    paths_file = directory / PATHS_FILE
    paths = json.loads(paths_file.read_text(encoding="utf-8")) if paths_file.is_file() else None
    return runs, paths


def write_matrix(directory: Path, registry: Registry, *, allow_mixed: bool = False) -> dict[str, Any]:
    """Build matrix.json, matrix.md and each implementation's deviations page from ``directory``'s files."""
    from roc_conformance.compat_pages import Links, deviations_page, matrix_page

    runs, paths = read_results(directory)
    if not runs:
        raise CompatError(f"no compact run file ({RUN_FORMAT}) in {directory}")
    matrix = build_matrix(runs, registry, paths=paths, allow_mixed=allow_mixed)
    _write_json(directory / MATRIX_FILE, matrix)
    links = Links.repository()
    (directory / "matrix.md").write_text(matrix_page(matrix, runs, links), encoding="utf-8")
    for run in runs:
        page = deviations_page(run, links)
        (directory / f"{run['implementation']}.md").write_text(page, encoding="utf-8")
    return matrix


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Running


@dataclass(frozen=True)
class RunOutput:
    doc: dict[str, Any] | None
    exit_code: int
    last_line: str
    seconds: float


def run_suite_process(
    target: str,
    report_dir: Path,
    *,
    peer: str | None,
    known_failures: Path | None = None,
    known_flaky: Path | None = None,
    req: Sequence[str] = (),
    root: Path = ROOT,
) -> RunOutput:
    """One ``roc-conformance run`` in its own process (its console and the adapter's in run.log)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("report.json", "results.jsonl"):
        (report_dir / stale).unlink(missing_ok=True)
    argv = [sys.executable, "-m", "roc_conformance.cli", "run", "--quiet", "--target", target]
    argv += ["--report-dir", str(report_dir)]
    if peer is not None:
        argv += ["--peer", peer]
    if known_failures is not None:
        argv += ["--known-failures", str(known_failures)]
    if known_flaky is not None:
        argv += ["--known-flaky", str(known_flaky)]
    for rid in req:
        argv += ["--req", rid]
    started = time.monotonic()
    with (report_dir / "run.log").open("w", encoding="utf-8") as log:
        proc = subprocess.run(argv, cwd=root, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
    seconds = time.monotonic() - started
    text = (report_dir / "run.log").read_text(encoding="utf-8", errors="replace")
    last = next((line for line in reversed(text.splitlines()) if line.startswith("roc-conformance: ")), "")
    report = report_dir / "report.json"
    doc = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else None
    return RunOutput(doc, proc.returncode, last, seconds)


def _pair_dir(report_root: Path, writer: str, reader: str) -> Path:
    return report_root / "pairs" / f"{writer}--{reader}"


def run_compat(
    impls: Sequence[Implementation],
    *,
    out_dir: Path,
    report_root: Path,
    req: Sequence[str] = (),
    pairs: bool = True,
    allow_mixed: bool = False,
    root: Path = ROOT,
    console: TextIO = sys.stderr,
) -> int:
    """Run every implementation, then the snapshot paths, then write the matrix; 0 when all is as known."""
    missing = {impl.name: impl.missing(root) for impl in impls}
    if any(missing.values()):
        for impl in impls:
            if missing[impl.name]:
                console.write(
                    f"compat: {impl.name} is not installed ({', '.join(missing[impl.name])} missing): "
                    f"run {impl.install} first (it needs the network once; compat runs offline after)\n"
                )
        return 2
    registry = load_registry()
    revision = suite_revision(root)
    fingerprint = suite_fingerprint(root)
    summary: list[str] = []
    ok = True
    runs: list[dict[str, Any]] = []
    for impl in impls:
        known, flaky = impl.known_failures_path(root), impl.known_flaky_path(root)
        lists = [str(p.relative_to(root)) for p in (known, flaky) if p is not None]
        console.write(
            f"compat: {impl.name}: running the certify suite"
            + (f" with {', '.join(lists)}" if lists else "")
            + "\n"
        )
        console.flush()
        (out_dir / f"{impl.name}.json").unlink(missing_ok=True)  # never left to stand for this run
        done = run_suite_process(
            impl.target,
            report_root / impl.name,
            peer="reference",
            known_failures=known,
            known_flaky=flaky,
            req=req,
            root=root,
        )
        changed = suite_fingerprint(root) != fingerprint
        if changed:
            summary.append(f"{impl.name}: the suite's files changed while it ran; run make compat again")
        if done.doc is None:
            ok = False
            summary.append(f"{impl.name}: no report ({done.last_line or f'exit {done.exit_code}'})")
            continue
        small = compact(done.doc, impl, revision, exit_code=done.exit_code, selected=req)
        if changed:  # recorded, so that committed results say they are not of one revision
            small["outcome"].update(ok=False, suiteChangedDuringRun=True)
        _write_json(out_dir / f"{impl.name}.json", small)
        runs.append(small)
        summary.append(f"{impl.name}: {_one_line(small, done.seconds)}")
        ok = ok and bool(small["outcome"]["ok"])
    if pairs and runs:
        paths, paths_ok = _run_pairs(runs, impls, report_root, revision, root, console)
        _write_json(out_dir / PATHS_FILE, paths)
        ok = ok and paths_ok
        if suite_fingerprint(root) != fingerprint:
            ok = False
            summary.append("snapshot paths: the suite's files changed while they ran; run make compat again")
        for row in paths["paths"]:
            if row["status"] != "not claimed":
                summary.append(f"snapshot {row['writer']} -> {row['reader']}: {row['status']}")
    try:
        write_matrix(out_dir, registry, allow_mixed=allow_mixed)
    except CompatError as exc:
        summary.append(f"matrix: {exc}")
        ok = False
    for line in summary:
        console.write(f"compat: {line}\n")
    console.write(f"compat: {'OK: every run is as its known-failures file says' if ok else 'FAILED'}\n")
    return 0 if ok else 1


def _one_line(small: dict[str, Any], seconds: float) -> str:
    got = small["outcome"]
    parts = [str(got["verdict"])]
    for key, label in (
        ("newFailures", "new"),
        ("stale", "stale"),
        ("unknown", "unknown entries"),
        ("errors", "ERROR"),
    ):
        if got[key]:
            parts.append(f"{label}: {', '.join(got[key][:8])}" + (" ..." if len(got[key]) > 8 else ""))
    if got.get("fatal"):
        parts.append(str(got["fatal"]))
    return f"{'ok' if got['ok'] else 'NOT OK'} ({seconds:.0f}s): " + "; ".join(parts)


def _run_pairs(
    runs: Sequence[dict[str, Any]],
    impls: Sequence[Implementation],
    report_root: Path,
    revision: dict[str, Any],
    root: Path,
    console: TextIO,
) -> tuple[dict[str, Any], bool]:
    claims = {r["implementation"]: list(r.get("claimed") or []) for r in runs}
    targets = {i.name: i.target for i in impls}
    rows = []
    ok = True
    for writer in claims:
        for reader in claims:
            if writer == reader:
                continue
            doc = None
            if "sessions" in claims[writer] and "sessions" in claims[reader]:
                console.write(f"compat: snapshot path {writer} -> {reader}\n")
                console.flush()
                done = run_suite_process(
                    targets[writer],
                    _pair_dir(report_root, writer, reader),
                    peer=targets[reader],
                    req=(PORTABLE_WRITE,),
                    root=root,
                )
                doc = done.doc
                if doc is None:
                    doc = {"requirements": [], "fatal": done.last_line or f"exit {done.exit_code}"}
            row = path_result(writer, reader, doc, claims)
            ok = ok and row["status"] != "error" and not (doc is not None and doc.get("fatal"))
            rows.append(row)
    return {
        "format": PATHS_FORMAT,
        "suite": revision,
        "check": PORTABLE_CHECK,
        "requirement": PORTABLE_WRITE,
        "paths": rows,
    }, ok


def main(argv: Sequence[str] | None = None) -> int:
    """``roc-conformance compat`` (cli.py hands its arguments here)."""
    import argparse

    parser = argparse.ArgumentParser(prog="roc-conformance compat", description=__doc__)
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--impl",
        action="append",
        default=None,
        metavar="NAME",
        help="only this implementation (repeatable): " + ", ".join(i.name for i in IMPLEMENTATIONS),
    )
    parser.add_argument(
        "--req", action="append", default=None, metavar="ID", help="only these requirements (repeatable)"
    )
    parser.add_argument(
        "--out", default="compat", help="where the compact results and the matrix go (default compat/)"
    )
    parser.add_argument("--report-root", default="reports/compat", help="where the full reports go")
    parser.add_argument(
        "--no-pairs", action="store_true", help="skip the cross-implementation snapshot paths"
    )
    parser.add_argument(
        "--allow-mixed-commits",
        action="store_true",
        help="build the matrix even from results of different suite commits (marked as mixed)",
    )
    parser.add_argument(
        "--matrix-only",
        action="store_true",
        help="run nothing: rebuild matrix.json, matrix.md and the pages from the files in --out",
    )


def run_from_args(args: Any) -> int:
    try:
        if args.matrix_only:
            write_matrix(Path(args.out), load_registry(), allow_mixed=args.allow_mixed_commits)
            return 0
        impls = [implementation(n) for n in args.impl] if args.impl else list(IMPLEMENTATIONS)
    except CompatError as exc:
        print(f"compat: {exc}", file=sys.stderr)
        return 2
    return run_compat(
        impls,
        out_dir=Path(args.out),
        report_root=Path(args.report_root),
        req=args.req or (),
        pairs=not args.no_pairs,
        allow_mixed=args.allow_mixed_commits,
    )


if __name__ == "__main__":
    sys.exit(main())
