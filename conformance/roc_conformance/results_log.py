"""The result log ``results.jsonl``: a run's results, one JSON object per line, written as they happen.

Line 1 is the header (``"record": "header"``): suite, spec and harness protocol versions, the adapter's
``Describe`` answer, the settings (seed included), the platform, the start time, the requirement registry
the run judges against and the checks it plans to run. Then one ``"record": "check"`` line per check as it
finishes, holding the check's entry of report.json. Last, the footer (``"record": "footer"``): the verdicts,
the counters and the end time. Every line is flushed when written, so a killed run leaves every check it
finished.

``report_from_log`` is the one way a report document is made from a run: report.json, junit.xml,
summary.md and report.html are rendered from it (``roc-conformance report results.jsonl`` does it for the
log of a killed run). A log without its footer gives a report marked incomplete (``complete: false``,
``stopped`` says why), whose planned checks without a line are ERROR ("not run").
"""

from __future__ import annotations

import json
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from roc_conformance.checks.base import Check, CheckContext, CheckResult, Finding, Status
from roc_conformance.client import Description, Timeouts
from roc_conformance.registry import Registry, RegistryError, Requirement, parse_registry
from roc_conformance.runner import (
    REPORT_SCHEMA_VERSION,
    RunResult,
    check_json,
    judged_result,
    rfc3339,
    skip_reason,
)
from roc_conformance.settings import RunSettings

LOG_NAME = "results.jsonl"
LOG_FORMAT = "roc-conformance-results"
LOG_FORMAT_VERSION = 1


class LogError(ValueError):
    """The file is not a result log this suite can read."""


# ---------------------------------------------------------------------------------------------
# Writing


class ResultLog:
    """Writes ``results.jsonl`` while a run goes on: ``start`` (the header), ``progress`` (new checks),
    ``finish`` (the remaining checks and the footer). Their arguments are ``run_suite``'s partial results,
    so ``start`` and ``progress`` are its ``on_start`` and ``on_check`` callbacks."""

    def __init__(self, path: Path, registry: Registry, plan: Sequence[Check] = ()) -> None:
        self.path = path
        self.registry = registry
        self.plan = list(plan)
        self.logged = 0
        self.started = False
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream: TextIO | None = path.open("w", encoding="utf-8")

    def _write(self, record: dict[str, Any]) -> None:
        if self._stream is None:
            return
        self._stream.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._stream.flush()

    def start(self, partial: RunResult) -> None:
        if self.started:  # a repeated run (--repeat): the log keeps the last one, as the reports do
            self.close()
            self._stream = self.path.open("w", encoding="utf-8")
            self.logged = 0
        self.started = True
        self._write(header(partial, self.registry, self.plan))

    def progress(self, partial: RunResult) -> None:
        for res in partial.checks[self.logged :]:
            self._write(
                {
                    "record": "check",
                    "at": rfc3339(datetime.now(UTC)),
                    "rpcCount": partial.rpc_count,
                    "adapterRestarts": partial.restarts,
                    "check": check_json(res),
                }
            )
        self.logged = max(self.logged, len(partial.checks))

    def finish(self, result: RunResult) -> None:
        self.progress(result)
        self._write(footer(result))
        self.close()

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def header(partial: RunResult, registry: Registry, plan: Sequence[Check]) -> dict[str, Any]:
    desc = partial.description
    doc = partial.to_json()
    return {
        "record": "header",
        "format": LOG_FORMAT,
        "formatVersion": LOG_FORMAT_VERSION,
        "reportSchemaVersion": REPORT_SCHEMA_VERSION,
        "suite": doc["suite"],
        "target": partial.target,
        "peer": partial.peer,
        "describe": None if desc is None else desc.to_json(),
        "selectedProfiles": partial.selected_profiles,
        "settings": doc["settings"],
        "startedAt": doc["startedAt"],
        "fatal": partial.fatal,
        "platform": {
            "os": platform.platform(),
            "python": platform.python_version(),
            "pythonImplementation": platform.python_implementation(),
        },
        "registry": {
            "specVersion": registry.spec_version,
            "source": registry.source,
            "requirements": [_requirement_json(r) for r in registry.requirements],
        },
        "plan": [
            {
                "name": c.name,
                "kind": c.kind,
                "requirements": list(c.requirements),
                "profiles": list(c.profiles),
                "capabilities": list(c.capabilities),
            }
            for c in plan
        ],
    }


def _requirement_json(req: Requirement) -> dict[str, Any]:
    doc: dict[str, Any] = {**req.to_json(), "text": req.text}
    if req.untestable:
        doc["untestable"] = req.untestable
    return doc


def footer(result: RunResult) -> dict[str, Any]:
    return {
        "record": "footer",
        "finishedAt": rfc3339(result.finished),
        "verdict": result.verdict,
        "conformant": result.conformant,
        "profiles": {name: entry["status"] for name, entry in result.profiles.items()},
        "complete": result.complete,
        "stopped": result.stopped,
        "fatal": result.fatal,
        "adapterRestarts": result.restarts,
        "rpcCount": result.rpc_count,
        "checks": len(result.checks),
    }


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class LoggedRun:
    """A result log as read: its header, its check lines, its footer (None: the run did not finish it)."""

    header: dict[str, Any]
    checks: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] | None = None
    damaged: str | None = None  # a last line cut mid-write (the run was killed while writing it)


def read_log(path: Path) -> LoggedRun:
    """Parse ``path``; a line cut short at the end (a run killed mid-write) is dropped and noted."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc}") from exc
    lines = text.splitlines()
    records: list[dict[str, Any]] = []
    damaged: str | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines) and not text.endswith("\n"):
                damaged = f"its last line ({number}) was cut short and is left out"
                break
            raise LogError(f"{path}:{number}: not JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise LogError(f"{path}:{number}: not a JSON object")
        records.append(record)
    if not records or records[0].get("record") != "header" or records[0].get("format") != LOG_FORMAT:
        raise LogError(f"{path}: not a {LOG_FORMAT} log (its first line is not its header)")
    head = records[0]
    if head.get("formatVersion") != LOG_FORMAT_VERSION:
        raise LogError(
            f"{path}: log format version {head.get('formatVersion')!r}, expected {LOG_FORMAT_VERSION}"
        )
    logged = LoggedRun(header=head, damaged=damaged)
    for number, record in enumerate(records[1:], 2):
        kind = record.get("record")
        if kind == "check" and logged.footer is None:
            logged.checks.append(record)
        elif kind == "footer" and logged.footer is None:
            logged.footer = record
        else:
            raise LogError(f"{path}: unexpected {kind!r} record (line {number})")
    return logged


def report_from_log(path: Path) -> dict[str, Any]:
    """The report document (report.json) of the run ``path`` logged, finished or not."""
    return result_from_log(read_log(path)).to_json()


def result_from_log(logged: LoggedRun) -> RunResult:
    """The run as the suite judged it (or, without a footer, would judge what it had finished)."""
    head = logged.header
    try:
        registry = parse_registry(head["registry"], str(head["registry"].get("source", "<log>")))
        settings = _settings(head["settings"])
        timeouts = Timeouts(**head["settings"].get("timeouts", {}))
        started = _parse_time(head["startedAt"])
        description = _description(head["describe"]) if head.get("describe") else None
        selected = set(head["selectedProfiles"]) if head.get("selectedProfiles") else None
        results = [_check(record["check"]) for record in logged.checks]
    except (KeyError, TypeError, ValueError, RegistryError) as exc:
        raise LogError(f"malformed result log: {type(exc).__name__}: {exc}") from exc
    end = logged.footer
    fatal = head.get("fatal") or (end or {}).get("fatal")
    stopped: str | None
    if end is not None:
        complete, stopped = bool(end["complete"]), end.get("stopped")
        finished = _parse_time(end["finishedAt"])
        restarts, rpc_count = int(end["adapterRestarts"]), int(end["rpcCount"])
    else:
        last = logged.checks[-1] if logged.checks else None
        finished = _parse_time(last["at"]) if last else started
        restarts = int(last.get("adapterRestarts", 0)) if last else 0
        rpc_count = int(last.get("rpcCount", 0)) if last else 0
        complete = False
        stopped = (
            f"the run ended before it finished its result log ({len(results)} check(s) logged, no footer"
            + (f"; {logged.damaged}" if logged.damaged else "")
            + ")"
        )
        if description is not None and fatal is None:
            results += _not_run(head.get("plan", []), results, description, selected, registry)
    return judged_result(
        registry,
        results,
        description=description,
        selected=selected,
        fatal=fatal,
        target=str(head["target"]),
        settings=settings,
        timeouts=timeouts,
        started=started,
        finished=finished,
        restarts=restarts,
        rpc_count=rpc_count,
        peer=head.get("peer"),
        complete=complete,
        stopped=stopped,
    )


def _not_run(
    plan: list[dict[str, Any]],
    logged: Sequence[CheckResult],
    description: Description,
    selected: set[str] | None,
    registry: Registry,
) -> list[CheckResult]:
    """The planned checks the log has no line for: SKIPPED when the claim would have skipped them, else ERROR
    (what they would have judged has no verdict, as for a run stopped at its time budget)."""
    done = {r.name for r in logged}
    out: list[CheckResult] = []
    for entry in plan:
        if entry["name"] in done:
            continue
        check = Check(
            entry["name"],
            tuple(entry["requirements"]),
            _never_run,
            profiles=tuple(entry["profiles"]),
            kind=entry["kind"],
            capabilities=tuple(entry.get("capabilities", ())),
        )
        reason = skip_reason(check, description, selected, registry)
        status = Status.ERROR if reason is None else Status.SKIPPED
        why = reason or "not run: the run ended before this check finished (the log has no line for it)"
        out.append(CheckResult(check.name, check.kind, check.requirements, check.profiles, status, why))
    return out


def _never_run(ctx: CheckContext) -> None:  # pragma: no cover - a planned check rebuilt from the log
    raise AssertionError("a check rebuilt from a result log is never run")


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _settings(doc: dict[str, Any]) -> RunSettings:
    return RunSettings(
        name=str(doc["name"]),
        derandomize=bool(doc["derandomize"]),
        max_examples=int(doc["maxExamples"]),
        stateful_step_count=int(doc["statefulStepCount"]),
        use_database=bool(doc.get("database", False)),
        seed=doc.get("seed"),
        shrink_seconds=int(doc.get("shrinkSeconds", 0)),
        database_dir=doc.get("databasePath"),
    )


def _description(doc: dict[str, Any]) -> Description:
    return Description(
        harness_protocol_version=int(doc["harnessProtocolVersion"]),
        implementation=dict(doc["implementation"]),
        spec_versions=tuple(doc["specVersions"]),
        profiles=frozenset(doc["profiles"]),
        not_applicable=dict(doc.get("notApplicable", {})),
        capabilities=frozenset(doc.get("capabilities", ())),
    )


def _finding(doc: dict[str, Any]) -> Finding:
    return Finding(
        tuple(doc["requirements"]),
        str(doc["message"]),
        counterexample=doc.get("counterexample"),
        # Only whether a vector was saved for this failure reaches a report (its file name), so the vector
        # itself is not logged; a marker stands for it.
        vector={"savedAs": doc["counterexampleFile"]} if doc.get("counterexampleFile") else None,
        after=tuple(doc.get("after", ())),
    )


def _check(doc: dict[str, Any]) -> CheckResult:
    return CheckResult(
        name=str(doc["name"]),
        kind=str(doc["kind"]),
        requirements=tuple(doc["requirements"]),
        profiles=tuple(doc["profiles"]),
        status=Status(doc["status"]),
        message=str(doc.get("message", "")),
        failed_requirements=tuple(doc.get("failedRequirements", ())),
        counterexample=doc.get("counterexample"),
        duration=float(doc["durationSeconds"]),
        notes=list(doc.get("notes", ())),
        fault_kind=doc.get("faultKind"),
        counterexample_file=doc.get("counterexampleFile"),
        failures=[_finding(f) for f in doc.get("failures", ())],
        consequences=[_finding(f) for f in doc.get("consequences", ())],
        blocked=dict(doc.get("blocked", {})),
    )


__all__ = [
    "LOG_NAME",
    "LogError",
    "LoggedRun",
    "ResultLog",
    "read_log",
    "report_from_log",
    "result_from_log",
]
