"""``roc-conformance smoke``: the reference adapter passes, each broken adapter is named by its fault, and a
broken runtime behind a working adapter is never called an adapter fault."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from roc_conformance import cli
from roc_conformance.client import Timeouts
from roc_conformance.smoke import (
    ADAPTER,
    NOT_RUN,
    OK,
    RUNTIME,
    SmokeReport,
    process_exit,
    smoke,
    trace_problems,
)
from roc_conformance.target import start_managed
from roc_harness_support import client_for, load_broken, serving
from roc_reference.harness.server import HarnessServicer

ADAPTERS = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "broken_adapters"


def _adapters_support() -> ModuleType:
    spec = importlib.util.spec_from_file_location("roc_broken_adapters_support", ADAPTERS / "_support.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUPPORT = _adapters_support()
NAMES: list[str] = SUPPORT.adapter_names()
IN_PROCESS = [n for n in NAMES if getattr(SUPPORT.load(n), "IN_PROCESS", True)]
OWN_PROCESS = [n for n in NAMES if n not in IN_PROCESS]

# Invoke: 3 s. Only the hang adapter meets it; the other calls get the default deadlines, so that a busy
# machine cannot turn a slow answer into a timeout the test did not expect.
SHORT = Timeouts().scaled(0.2)


def _smoke(servicer: Any = None, timeouts: Timeouts | None = None) -> SmokeReport:
    with serving(servicer) as (address, _), client_for(address, timeouts) as client:
        return smoke(client, address)


def _statuses(report: SmokeReport) -> dict[str, str]:
    return {f.probe: f.status for f in report.findings}


def test_reference_adapter_is_ok() -> None:
    report = _smoke()
    assert report.adapter_ok
    assert set(_statuses(report).values()) == {OK}, report.text()
    probes = set(_statuses(report))
    assert {"Describe", "CreateAgent", "TakeSnapshot + RestoreAgent", "Invoke: an unknown handle"} <= probes
    assert report.text().splitlines()[-1].startswith("ADAPTER OK")


def test_the_directory_holds_the_named_faults() -> None:
    assert {
        "crash",
        "dies",
        "hang",
        "no_outcome",
        "snapshot_not_json",
        "no_invocation_start",
        "unknown_trace_kind",
        "wrong_protocol",
        "unpaired_tool_start",
    } <= set(NAMES)
    for name in NAMES:
        module = SUPPORT.load(name)
        assert (module.__doc__ or "").strip(), name
        assert isinstance(module.FAULT, str), name
        assert module.FAULT, name


@pytest.mark.parametrize("name", IN_PROCESS)
def test_smoke_names_the_fault_of_each_broken_adapter(name: str) -> None:
    module = SUPPORT.load(name)
    report = _smoke(module.Servicer(), SHORT if name == "hang" else None)
    assert not report.adapter_ok, report.text()
    faults = [f.detail for f in report.adapter_faults]
    assert any(module.FAULT in detail for detail in faults), report.text()
    # A broken adapter is never blamed on the runtime.
    assert not report.runtime_findings, report.text()
    assert report.text().splitlines()[-1].startswith("ADAPTER BROKEN")


def test_a_hang_stops_the_probes_at_the_first_deadline() -> None:
    report = _smoke(SUPPORT.load("hang").Servicer(), SHORT)
    statuses = list(_statuses(report).values())
    assert statuses.count(ADAPTER) == 1, report.text()
    assert "within 3s" in report.adapter_faults[0].detail
    assert statuses[-1] == NOT_RUN


@pytest.mark.parametrize("name", OWN_PROCESS)
def test_an_adapter_process_that_dies_is_named(name: str) -> None:
    module = SUPPORT.load(name)
    target = start_managed([sys.executable, str(ADAPTERS / "serve.py"), name], name)
    try:
        with client_for(target.address) as client:
            report = smoke(client, target.address, exit_code=process_exit(target))
    finally:
        target.stop()
    assert any(module.FAULT in f.detail for f in report.adapter_faults), report.text()
    assert not report.runtime_findings, report.text()


@pytest.mark.parametrize(
    ("fixture", "requirement"), [("null_accepted", None), ("prompt_not_appended", "ROC-TOOL")]
)
def test_a_broken_runtime_is_not_an_adapter_fault(fixture: str, requirement: str | None) -> None:
    with load_broken(fixture).patch():
        report = _smoke()
    assert report.adapter_ok, report.text()
    if requirement is not None:  # a bug the probes reach is reported as the runtime's, with its rule
        assert report.runtime_findings, report.text()
        assert all(requirement in f.detail for f in report.runtime_findings), report.text()
        assert "run the full suite" in report.verdict()


def test_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with serving() as (address, _):
        assert cli.main(["smoke", "--target", address]) == cli.EXIT_OK
    assert "ADAPTER OK" in capsys.readouterr().out
    with serving(SUPPORT.load("no_invocation_start").Servicer()) as (address, _):
        assert cli.main(["smoke", "--target", address]) == cli.EXIT_FATAL
    out = capsys.readouterr().out
    assert "ADAPTER FAULT" in out
    assert "not invocation_start" in out
    assert cli.main(["smoke"]) == cli.EXIT_USAGE
    assert cli.main(["smoke", "--target", "no-port-here"]) == cli.EXIT_USAGE


def test_cli_unreachable_adapter_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    with serving() as (address, _):
        pass  # the port is free again once the server stopped
    assert cli.main(["smoke", "--target", address, "--timeout-scale", "0.2"]) == cli.EXIT_FATAL
    assert "unreachable" in capsys.readouterr().out


# -- the trace rules, one reply at a time ------------------------------------------------------------------


def _reply(*trace: dict[str, Any], stop: str | None = "end_turn") -> dict[str, Any]:
    outcome: dict[str, Any] = (
        {"result": {"stopReason": stop}} if stop is not None else {"error": {"code": "X", "message": "m"}}
    )
    return {**outcome, "trace": list(trace)}


START = {"kind": "invocation_start"}
END = {"kind": "invocation_end", "stopReason": "end_turn"}


def _messages(reply: dict[str, Any], first_turn: int = 0) -> list[str]:
    return [p.message for p in trace_problems(reply, first_turn)]


def test_a_well_formed_trace_has_no_problem() -> None:
    calls = ({"kind": "model_call", "turn": 2}, {"kind": "model_call", "turn": 3})
    use = ({"kind": "tool_start", "toolUseId": "t", "name": "n"}, {"kind": "tool_end", "toolUseId": "t"})
    assert _messages(_reply(START, calls[0], *use, calls[1], END), first_turn=2) == []
    assert _messages(_reply(START, stop=None)) == []


def test_each_trace_rule_is_named() -> None:
    assert "the trace is empty" in _messages(_reply())[0]
    assert any(
        "invocation_end says stopReason 'end_turn'" in m for m in _messages(_reply(START, END, stop="x"))
    )
    assert any("does not end with invocation_end" in m for m in _messages(_reply(START)))
    assert any(
        "invocation_end in a reply whose outcome is error" in m
        for m in _messages(_reply(START, END, stop=None))
    )
    turns = _messages(_reply(START, {"kind": "model_call", "turn": 0}, END), first_turn=1)
    assert turns == ["model_call turns [0], expected [1] (the agent made 1 model call(s) before)"]
    orphan = _messages(_reply(START, {"kind": "tool_end", "toolUseId": "t"}, END))
    assert orphan == ["trace[1] tool_end 't' without a tool_start before it"]
    twice = _messages(_reply(START, START, END))
    assert twice == ["invocation_start 2 times in one reply"]


def test_a_claim_without_core_is_the_runtimes_finding_not_the_adapters() -> None:
    report = _smoke(HarnessServicer(profiles=("hooks", "sequential-executor", "teleport")))
    describe = report.findings[0]
    assert describe.probe == "Describe"
    assert describe.status == RUNTIME, report.text()
    assert "ROC-CONF-002" in describe.detail
    assert "ROC-CONF-005" in describe.detail
    assert report.adapter_ok, report.text()


class DuplicateMemberSnapshot(HarnessServicer):
    """A snapshot that is JSON, but JSON RoC refuses to read (a member name twice): the runtime's document."""

    def TakeSnapshot(self, request: Any, context: Any) -> Any:
        reply = super().TakeSnapshot(request, context)
        reply.snapshot_json = '{"schemaVersion": "2.0", "schemaVersion": "2.0"}'
        return reply


def test_a_snapshot_roc_refuses_to_read_is_the_runtimes_finding() -> None:
    report = _smoke(DuplicateMemberSnapshot())
    assert report.adapter_ok, report.text()
    assert _statuses(report)["TakeSnapshot + RestoreAgent"] == RUNTIME, report.text()
    assert "the snapshot is JSON that RoC refuses to read" in report.runtime_findings[0].detail
