"""The state machine against the in-process oracle fake: it must run clean, and exercise the rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.stateful import run_state_machine_as_test
from roc_conformance.machine import make_machine
from roc_conformance.oracle import OracleAgent, Prompt, parse_spec
from roc_conformance.oracle.engine import Response, Resume
from roc_conformance.oracle.fake import ALL_PROFILES, FakeImplementation
from roc_conformance.strategies import scenarios

SETTINGS = settings(
    max_examples=40,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.req("ROC-STOP-001", "ROC-REPLAY-001", "ROC-RESUME-010", "ROC-ANSWER-001")
def test_machine_passes_on_the_oracle_fake():
    machine = make_machine(lambda: FakeImplementation(), frozenset(ALL_PROFILES), SETTINGS)
    # Bounded by SETTINGS (max_examples x stateful_step_count), not by a clock.
    run_state_machine_as_test(machine, settings=SETTINGS)


@pytest.mark.parametrize(
    "profiles",
    [
        ("core", "sequential-executor"),
        ("core", "concurrent-executor"),
        ("core", "hooks", "sequential-executor"),
    ],
)
def test_machine_respects_declared_profiles(profiles):
    machine = make_machine(lambda: FakeImplementation(profiles), frozenset(profiles), SETTINGS)
    run_state_machine_as_test(machine, settings=settings(SETTINGS, max_examples=10))


@pytest.mark.parametrize("profiles", [ALL_PROFILES, ("core", "sequential-executor")])
def test_generated_scenarios_are_modelled(profiles):
    """Every generated scenario parses and runs in the oracle to an end (answers 'y' until done)."""

    @given(scenarios(profiles))
    @settings(max_examples=60, deadline=None, database=None, derandomize=True)
    def run(doc):
        spec = parse_spec(doc)
        assert ("hooks" in profiles) or not spec.hooks
        assert f"{spec.executor}-executor" in profiles
        agent = OracleAgent(spec)
        out = agent.invoke(Prompt([{"text": "go"}]))
        for _round in range(200):
            if out.is_error or out.stop_reason != "interrupt":
                break
            out = agent.invoke(Resume(tuple(Response(k, "y") for k in agent.pending_keys())))
        assert out.is_error or out.stop_reason == "end_turn"

    run()


def test_strategies_cover_the_interesting_shapes():
    """Interrupts from tools and both hook events, cancels and both executors all appear."""
    seen: set[str] = set()

    @given(scenarios(ALL_PROFILES))
    @settings(max_examples=150, deadline=None, database=None, derandomize=True)
    def collect(doc):
        seen.add(doc["executor"])
        for t in doc["tools"]:
            if any("interrupt" in s for s in t["steps"]):
                seen.add("tool-interrupt")
        for h in doc["hooks"]:
            if any("interrupt" in s for s in h["steps"]):
                seen.add(f"{h['event']}-interrupt")
            if any("cancel" in s or "cancelIf" in s for s in h["steps"]):
                seen.add("cancel")
        if len(doc["model"]["turns"]) >= 3:
            seen.add("multi-turn")

    collect()
    assert {
        "sequential",
        "concurrent",
        "tool-interrupt",
        "BeforeToolCall-interrupt",
        "BeforeTools-interrupt",
        "cancel",
        "multi-turn",
    } <= seen


def test_the_machine_exercises_every_requirement_it_vouches_for(pinned_constants):
    """A machine pass is only worth something for the rules its runs actually set up."""
    from roc_conformance import machine as machine_module

    ledger = machine_module.MachineLedger()
    s = settings(SETTINGS, max_examples=200, stateful_step_count=12)
    # The spec 1.1 profiles at the certify run's step count: an expired interrupt left by a partial resume
    # (ROC-EXPIRY-005) needs a few steps of one scenario.
    for profiles, steps in (
        (ALL_PROFILES, 12),
        (("core", "hooks", "concurrent-executor", "sessions"), 12),
        ((*ALL_PROFILES, "decisions", "abandon", "expiry", "pending-list"), 20),
    ):
        run = settings(s, stateful_step_count=steps)
        machine = make_machine(
            lambda p=profiles: FakeImplementation(p),
            frozenset(profiles),
            run,
            name="CoverageMachine",
            ledger=ledger,
        )
        run_state_machine_as_test(machine, settings=run)
    seen = ledger.exercised_in_sync
    assert seen == ledger.exercised_any, "a conforming fake never diverges, so every step is in sync"
    # Ids, sessions and message checks are exercised by every run without an "exercised" tag.
    untagged = {
        r for r in machine_module.MACHINE_REQUIREMENTS if r.startswith(("ROC-SESSION-", "ROC-MODEL-"))
    }
    untagged |= {
        "ROC-ERR-001",
        "ROC-ERR-002",
        "ROC-ERR-003",
        "ROC-ERR-006",
        "ROC-STOP-003",
        "ROC-STOP-006",
        "ROC-STOP-011",
        "ROC-STOP-009",
        "ROC-HOOK-024",
        "ROC-TOOL-006",
        "ROC-TOOL-012",
        "ROC-DIRECT-006",
        "ROC-DIRECT-007",
        "ROC-RESUME-014",
        "ROC-EXEC-007",
        "ROC-EXEC-008",
        "ROC-HOOK-012",
    }
    missing = set(machine_module.MACHINE_REQUIREMENTS) - seen - untagged
    assert not missing, " ".join(sorted(missing))
