"""The agent-as-tool checks (spec chapter 12): one explicit check per requirement, registered like the other
explicit checks; the reference passes every one of them with nothing recorded as a consequence, also when it
claims fewer profiles (sequential only, no hooks, decisions, expiry or sessions), where the checks that need
a missing profile are skipped with the reason. The broken fixtures that each break one rule are
tests/conformance/test_broken.py's."""

from __future__ import annotations

import pytest
from roc_conformance.checks import Status, all_checks
from roc_conformance.registry import load_registry
from roc_conformance.runner import run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target
from roc_harness_support import serving
from roc_reference.harness.server import HarnessServicer

AGENT_IDS = [f"ROC-AGENT-{n:03d}" for n in range(1, 13)]
CHECKS = [c for c in all_checks() if c.name.startswith("explicit:ROC-AGENT-")]
SETTINGS = RunSettings(
    name="agents", derandomize=True, max_examples=1, stateful_step_count=1, shrink_seconds=0
)


def test_one_check_per_requirement_named_after_it_in_the_profile():
    assert sorted(c.name for c in CHECKS) == sorted(f"explicit:{rid}" for rid in AGENT_IDS)
    for check in CHECKS:
        assert check.requirements == (check.name.removeprefix("explicit:"),)
        assert "agent-as-tool" in check.profiles
    sessions = {c.name for c in CHECKS if "sessions" in c.profiles}
    assert sessions == {"explicit:ROC-AGENT-008", "explicit:ROC-AGENT-009"}
    known = load_registry().by_id()
    assert all(known[rid].profile == "agent-as-tool" for rid in AGENT_IDS)


def _judge(profiles: tuple[str, ...] | None):
    with serving(HarnessServicer(profiles)) as (address, _):
        return run_suite(Target(address=address, label="reference"), CHECKS, load_registry(), SETTINGS)


@pytest.mark.req(*AGENT_IDS)
def test_the_reference_passes_every_agent_check_without_consequences():
    result = _judge(None)
    for check in result.checks:
        assert check.status is Status.PASS, (check.name, check.message)
        assert not check.consequences, (check.name, [c.message for c in check.consequences])
        assert not check.blocked, (check.name, check.blocked)


@pytest.mark.req("ROC-AGENT-001", "ROC-AGENT-005", "ROC-AGENT-011")
def test_with_fewer_profiles_the_rest_still_pass_and_the_others_are_skipped():
    result = _judge(("core", "sequential-executor", "agent-as-tool"))
    statuses = {c.name: c.status for c in result.checks}
    skipped = {name for name, status in statuses.items() if status is Status.SKIPPED}
    assert skipped == {
        "explicit:ROC-AGENT-006",
        "explicit:ROC-AGENT-010",
        "explicit:ROC-AGENT-008",
        "explicit:ROC-AGENT-009",
    }
    for check in result.checks:
        if check.status is not Status.SKIPPED:
            assert check.status is Status.PASS, (check.name, check.message)
            assert not check.consequences, (check.name, [c.message for c in check.consequences])
