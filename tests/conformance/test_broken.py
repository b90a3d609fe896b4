"""Proof that the checks catch bugs: every broken fixture fails (at least) the requirements it names, and
the unpatched reference runtime passes the same checks.

Each fixture monkeypatches one rule of the reference runtime, served in process through the reference
harness adapter; the suite then runs the static vectors and the state machine against it, or, for a
fixture that names ``CHECKS`` (a rule only an explicit check observes, such as stored revisions), those
explicit checks.

Why "at least" and not "exactly": one wrong behaviour is observable under several rules at once (a model
call on resume also breaks the stop rule and the trace of the events that follow it), so the set of
requirements a fixture fails is wider than the one rule it breaks. What pins the attribution is the pair of
tests below: the fixture's named requirements are among its failures, and the unpatched reference fails none.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from roc_conformance.checks import CheckContext, Status, all_checks
from roc_conformance.client import HarnessClient
from roc_conformance.errors import ConformanceViolation, find_violations
from roc_conformance.machine import make_machine
from roc_conformance.oracle.vectors import load_vectors, run_vector
from roc_conformance.runner import run_check
from roc_conformance.settings import CERTIFY

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "conformance" / "fixtures" / "broken"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from roc_harness_support import serving  # noqa: E402


def _support():
    spec = importlib.util.spec_from_file_location("roc_broken_support", BROKEN / "_support.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUPPORT = _support()
NAMES = SUPPORT.fixture_names()
VECTORS = load_vectors()
MACHINE = settings(
    max_examples=60,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
)


def failed_requirements(client: HarnessClient) -> tuple[set[str], list[str]]:
    """Every MUST requirement the vectors and the machine find broken, with one line per finding."""
    profiles = frozenset(client.describe().profiles) - {"portable-snapshot"}
    failed: set[str] = set()
    notes: list[str] = []
    for vector in VECTORS:
        if not set(vector["profiles"]) <= profiles:
            continue
        found, _ = run_vector(vector, client)
        for v in found:
            if v.level == "MUST":
                failed |= set(v.requirements)
                notes.append(f"{vector['id']}: {v}")
    machine = make_machine(lambda: client, profiles, MACHINE)
    try:
        run_state_machine_as_test(machine, settings=MACHINE)
    except ConformanceViolation as exc:
        failed |= set(exc.requirements)
        notes.append(f"machine: {exc}")
    except Exception as exc:
        vs = find_violations(exc)
        if not vs:
            raise
        for v in vs:
            failed |= set(v.requirements)
            notes.append(f"machine: {v}")
    return failed, notes


EXPLICIT = {c.name: c for c in all_checks() if c.kind == "explicit"}
NAMED_CHECKS = sorted({c for n in NAMES for c in getattr(SUPPORT.load(n), "CHECKS", ())})


def explicit_failures(client: HarnessClient, names: tuple[str, ...]) -> tuple[set[str], list[str]]:
    """The requirements the named explicit checks find broken (a check that cannot run is a test error)."""
    ctx = CheckContext(client=client, description=client.describe(), settings=CERTIFY)
    failed: set[str] = set()
    notes: list[str] = []
    for name in names:
        result = run_check(EXPLICIT[name], ctx)
        assert result.status in (Status.PASS, Status.FAIL), f"{name}: {result.status} {result.message}"
        failed |= set(result.failed_requirements)
        if result.message:
            notes.append(f"{name}: {result.message}")
    return failed, notes


def test_the_reference_passes_every_check():
    with serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            failed, notes = failed_requirements(client)
        finally:
            client.close()
    assert not failed, "\n".join(notes[:20])


def test_there_are_at_least_twelve_broken_fixtures():
    assert len(NAMES) >= 12
    for name in NAMES:
        module = SUPPORT.load(name)
        assert module.BREAKS, name
        assert all(r.startswith("ROC-") for r in module.BREAKS), name
        assert module.__doc__, name


@pytest.mark.parametrize("name", NAMED_CHECKS)
def test_the_reference_passes_the_explicit_checks_fixtures_name(name):
    with serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            failed, notes = explicit_failures(client, (name,))
        finally:
            client.close()
    assert not failed, "\n".join(notes)


@pytest.mark.parametrize("name", NAMES)
def test_broken_fixture_is_caught(name):
    module = SUPPORT.load(name)
    checks = tuple(getattr(module, "CHECKS", ()))
    assert all(c in EXPLICIT for c in checks), f"{name} names unknown checks {checks}"
    with module.patch(), serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            failed, _notes = explicit_failures(client, checks) if checks else failed_requirements(client)
        finally:
            client.close()
    missing = set(module.BREAKS) - failed
    assert not missing, f"{name} breaks {sorted(missing)} undetected; found {sorted(failed)}"
