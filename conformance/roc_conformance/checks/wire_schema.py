"""Every reply of every check, validated against the spec's JSON Schemas (ROC-MODEL-001, ROC-MODEL-011).

The runner installs ``SchemaObserver`` on the client for the whole run, so the traffic of the vectors, the
state machine and the explicit checks is all validated (the MCP conformance "wire schema" idea). At the
end the observer becomes one more check result, ``wire:schema``.

Trace events are validated too (trace-event.schema.json), but they are the adapter's report, not a value
the implementation emits: a malformed event is an adapter fault and makes the check ERROR (never FAIL),
except an ``invocation_end`` whose stopReason the spec does not define, which is the implementation's own
value echoed (ROC-MODEL-011, FAIL). RestoreAgent traces are checked the same way whenever the client
reports that RPC to its observers.

InspectAgent replies (harness protocol 2) carry the implementation's own values too: the history and the
pending assistant message are validated as messages, and each inspected interrupt, without the harness's
``answered`` / ``response`` / ``responseMetadata`` members, as an Interrupt.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from roc_conformance.checks.base import CheckResult, Status

SCHEMA_REQUIREMENTS = ("ROC-MODEL-001", "ROC-MODEL-011")


def _schema_dir() -> Path | None:
    for directory in Path(__file__).resolve().parents:
        candidate = directory / "spec" / "schema" / "v1"
        if (candidate / "agent-result.schema.json").is_file():
            return candidate
    return None


@functools.cache
def stop_reasons() -> frozenset[str]:
    """The closed StopReason set, read from its schema (one source of truth); empty without the spec."""
    directory = _schema_dir()
    if directory is None:
        return frozenset()
    doc = json.loads((directory / "stop-reason.schema.json").read_text(encoding="utf-8"))
    return frozenset(doc["enum"])


@functools.cache
def error_codes() -> frozenset[str]:
    """The closed code set of chapter 7, read from error.schema.json (one source of truth).

    Unlike the stop reasons, the suite cannot judge codes without the spec, so a missing schema is an error.
    """
    directory = _schema_dir()
    if directory is None:
        raise FileNotFoundError("spec/schema/v1/error.schema.json not found: the suite reads the spec")
    doc = json.loads((directory / "error.schema.json").read_text(encoding="utf-8"))
    return frozenset(doc["properties"]["code"]["enum"])


_MAX_REMEMBERED = 50_000
"""Distinct values one observer remembers the verdict of before it starts afresh."""


def _first_error(validator: Any, value: Any) -> str | None:
    error = next(iter(validator.iter_errors(value)), None)
    if error is None:
        return None
    path = "/".join(str(p) for p in error.absolute_path) or "<root>"
    return f"at {path}: {error.message[:200]}"


class SchemaObserver:
    """Validates the data-model values in Invoke replies; keeps the first problems found."""

    def __init__(self, limit: int = 20) -> None:
        self.limit = limit
        self.problems: list[str] = []
        self.stop_reason_problems: list[str] = []
        self.trace_problems: list[str] = []  # adapter faults, reported as ERROR
        self.observed = 0
        self._validators: dict[str, Any] | None = None
        self._verdicts: dict[tuple[str, str], str | None] = {}  # see _first_error
        self.available = _schema_dir() is not None
        self._echoes: set[str] = set()  # see expect_echo

    def expect_echo(self, message: dict[str, Any]) -> None:
        """``message`` is a malformed input the suite itself sends (a prompt ROC-ERR-010 requires refused).

        A runtime that takes it in holds it in its history; that message is the caller's, not a value the
        runtime made, and taking it is judged once, by ROC-ERR-010, not again by ROC-MODEL-001.
        """
        self._echoes.add(json.dumps(message, sort_keys=True))

    def _load(self) -> dict[str, Any]:
        if self._validators is None:
            from jsonschema import Draft202012Validator
            from referencing import Registry, Resource

            directory = _schema_dir()
            self._validators = {}
            if directory is None:
                return self._validators
            docs = {
                p.name: json.loads(p.read_text(encoding="utf-8")) for p in directory.glob("*.schema.json")
            }
            registry: Registry[Any] = Registry().with_resources(
                (doc.get("$id", name), Resource.from_contents(doc)) for name, doc in docs.items()
            )
            for key, name in (
                ("result", "agent-result"),
                ("error", "error"),
                ("message", "message"),
                ("toolResult", "tool-result"),
                ("traceEvent", "trace-event"),
                ("interrupt", "interrupt"),
            ):
                if f"{name}.schema.json" in docs:
                    self._validators[key] = Draft202012Validator(
                        docs[f"{name}.schema.json"], registry=registry
                    )
        return self._validators

    def _check(self, kind: str, value: Any, where: str, problems: list[str] | None = None) -> None:
        validator = self._load().get(kind)
        if validator is None:
            return
        self.observed += 1
        problem = self._first_error(kind, validator, value)
        into = self.problems if problems is None else problems
        if problem is not None and len(into) < self.limit:
            into.append(f"{where}: {kind} {problem}")

    def _first_error(self, kind: str, validator: Any, value: Any) -> str | None:
        """``at PATH: MESSAGE`` of the first schema error of ``value``, or None; each distinct value once.

        Every reply repeats most of the previous one (the whole history, the same trace events), and
        jsonschema took about half of the suite's CPU time validating them again. The verdict depends on
        the value alone, so it is remembered under the value's exact JSON text: ``json.dumps`` keeps member
        order and tells ``1`` from ``1.0`` and ``true``, so two values share a key only when they are the
        same JSON document. A value without a JSON text (not expected from a decoded reply) is validated
        every time.
        """
        try:
            key = (kind, json.dumps(value, ensure_ascii=False, allow_nan=True))
        except (TypeError, ValueError):
            return _first_error(validator, value)
        if key in self._verdicts:
            return self._verdicts[key]
        problem = _first_error(validator, value)
        if len(self._verdicts) >= _MAX_REMEMBERED:  # bound the memory of a long explore run
            self._verdicts.clear()
        self._verdicts[key] = problem
        return problem

    def _check_trace(self, rpc: str, trace: Any) -> None:
        if not isinstance(trace, list):
            return
        for index, event in enumerate(trace):
            where = f"{rpc} trace[{index}]"
            if isinstance(event, dict) and event.get("kind") == "invocation_end":
                stop = event.get("stopReason")
                if stop not in stop_reasons():
                    # The implementation's stop reason, echoed: its fault, not the adapter's.
                    if len(self.stop_reason_problems) < self.limit:
                        self.stop_reason_problems.append(f"{where}: invocation_end stopReason {stop!r}")
                    continue
            self._check("traceEvent", event, where, self.trace_problems)

    # What InspectAgent adds to an interrupt, not members of an Interrupt (responseMetadata: profile audit).
    _HARNESS_MEMBERS = ("answered", "response", "responseMetadata")

    def _check_inspection(self, inspection: dict[str, Any]) -> None:
        for message in inspection.get("messages", []):
            self._check("message", message, "InspectAgent history")
        if "pendingAssistantMessage" in inspection:
            self._check("message", inspection["pendingAssistantMessage"], "InspectAgent pending message")
        for item in inspection.get("interrupts", []):
            if isinstance(item, dict):
                interrupt = {k: v for k, v in item.items() if k not in self._HARNESS_MEMBERS}
                self._check("interrupt", interrupt, "InspectAgent interrupts")

    def __call__(self, rpc: str, reply: dict[str, Any]) -> None:
        if rpc in ("Invoke", "RestoreAgent"):
            self._check_trace(rpc, reply.get("trace", []))
        if rpc == "InspectAgent":
            self._check_inspection(reply)
        if rpc != "Invoke":
            return
        for kind in ("result", "error", "toolResult"):
            if kind in reply:
                self._check(kind, reply[kind], "Invoke")
        if "result" in reply:
            stop = reply["result"].get("stopReason")
            if stop not in stop_reasons() and len(self.stop_reason_problems) < self.limit:
                self.stop_reason_problems.append(f"stopReason {stop!r}")
        for message in reply.get("messages", []):
            if self._echoes and json.dumps(message, sort_keys=True) in self._echoes:
                continue
            self._check("message", message, "history")

    def result(self) -> CheckResult:
        out = CheckResult("wire:schema", "explicit", SCHEMA_REQUIREMENTS, ("core",), Status.PASS)
        failed: list[str] = []
        if self.problems:
            failed.append("ROC-MODEL-001")
        if self.stop_reason_problems:
            failed.append("ROC-MODEL-011")
        if failed:
            out.status = Status.FAIL
            out.failed_requirements = tuple(failed)
            out.message = "; ".join([*self.problems, *self.stop_reason_problems, *self.trace_problems])[:4000]
        elif self.trace_problems:
            out.status = Status.ERROR
            out.fault_kind = "adapter"
            detail = "; ".join(self.trace_problems)
            out.message = f"adapter trace breaks trace-event.schema.json: {detail}"[:4000]
        elif not self.available or self.observed == 0:
            out.status = Status.SKIPPED
            out.message = "no schema directory or no reply observed"
        out.notes = [f"{self.observed} values validated against spec/schema/v1"]
        return out
