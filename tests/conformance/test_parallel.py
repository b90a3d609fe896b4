"""The state machines run side by side (roc_conformance.parallel) give the report a serial run gives."""

from __future__ import annotations

import re
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from roc_conformance import parallel, runner
from roc_conformance.checks import Status
from roc_conformance.checks.stateful import machine_checks
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.errors import HarnessTimeout
from roc_conformance.registry import load_registry
from roc_conformance.runner import RunResult, run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roc_harness_support import load_broken, serving

FIXTURE = "only_first_hook"  # a broken fixture both machines catch within SMALL
SMALL = RunSettings(name="small", derandomize=True, max_examples=12, stateful_step_count=8, shrink_seconds=0)


def _judge(monkeypatch: pytest.MonkeyPatch, serial: bool, fixture: str | None = None) -> RunResult:
    """The machines' verdict; side by side, it also checks that every machine's result came from there."""
    monkeypatch.setenv(parallel.SERIAL_ENV, "1" if serial else "0")
    taken: list[str] = []

    def spy(*args: Any) -> parallel.SideBySide:
        ready = parallel.run_side_by_side(*args)
        taken.extend(ready.done)
        return ready

    monkeypatch.setattr(runner, "run_side_by_side", spy)
    with ExitStack() as stack:
        if fixture is not None:
            stack.enter_context(load_broken(fixture).patch())
        address, _ = stack.enter_context(serving())
        result = run_suite(
            Target(address=address, label="reference"), machine_checks(), load_registry(), SMALL
        )
    assert taken == ([] if serial else ["machine:sequential", "machine:concurrent"])
    return result


def _handles(text: str | None) -> str | None:
    """The transcript with the adapter's agent handles (random) blanked out."""
    return None if text is None else re.sub(r"agent-[0-9a-f]+", "agent-…", text)


def _summary(result: RunResult) -> list[tuple[str, str, list[str], tuple[str, ...]]]:
    return [(c.name, c.status.value, c.notes, c.failed_requirements) for c in result.checks]


def test_side_by_side_gives_the_serial_report(monkeypatch: pytest.MonkeyPatch) -> None:
    serial = _judge(monkeypatch, serial=True)
    side = _judge(monkeypatch, serial=False)
    assert [c.name for c in side.checks] == ["machine:sequential", "machine:concurrent", "wire:schema"]
    assert all(c.status is Status.PASS for c in side.checks), _summary(side)
    # Same examples (the child draws what a serial run draws), so the same RPCs and the same replies seen.
    assert _summary(side) == _summary(serial)
    assert side.rpc_count == serial.rpc_count


def test_side_by_side_reports_the_serial_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    serial = _judge(monkeypatch, serial=True, fixture=FIXTURE)
    side = _judge(monkeypatch, serial=False, fixture=FIXTURE)
    assert any(c.status is Status.FAIL for c in side.checks[:2]), _summary(side)
    assert _summary(side) == _summary(serial)
    assert [(_handles(c.counterexample), c.vector, c.blocked) for c in side.checks] == [
        (_handles(c.counterexample), c.vector, c.blocked) for c in serial.checks
    ]


def test_only_the_machine_checks_themselves_run_elsewhere() -> None:
    check = machine_checks()[0]
    assert parallel.eligible(check)
    assert not parallel.eligible(
        type(check)(check.name, check.requirements[:1], check.run, check.profiles, "machine")
    )


def test_observations_merge_within_the_limit() -> None:
    observer = SchemaObserver(limit=3)
    observer.problems = ["a", "b"]
    observer.observed = 5
    parallel.absorb(observer, (7, ["c", "d"], ["stop"], []))
    assert observer.observed == 12
    assert observer.problems == ["a", "b", "c"]
    assert observer.stop_reason_problems == ["stop"]


def test_a_fault_crosses_the_process_boundary() -> None:
    import pickle

    fault = HarnessTimeout("Invoke", "no answer within 15s", details="trace")
    back = parallel._rebuild_fault(pickle.loads(pickle.dumps(parallel._fault_state(fault))))
    assert isinstance(back, HarnessTimeout)
    assert (back.kind, back.rpc, back.message, back.details, str(back)) == (
        "timeout",
        "Invoke",
        "no answer within 15s",
        "trace",
        str(fault),
    )


def test_hypothesis_constants_are_adopted() -> None:
    from hypothesis.internal.conjecture import providers

    mine = parallel.hypothesis_constants()
    assert mine is not None
    try:
        assert parallel.adopt_constants({"integers": [424242], "floats": [], "bytes": [], "strings": ["x"]})
        assert set(providers._get_local_constants().integers) == {424242}
        assert set(providers._get_local_constants().strings) == {"x"}
    finally:
        assert parallel.adopt_constants(mine)
    assert parallel.hypothesis_constants() == mine
