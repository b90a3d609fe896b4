"""The checks of spec chapter 11 (decisions, abandon, expiry, the pending list, re-sent answers, and the
drive-to-end property) against the reference and against the broken fixtures that break one of their rules.

Each fixture must fail exactly the requirements it names among those the chapter 11 checks judge: one
divergence is charged to its own rule and to no other (what another rule cannot judge after it is a
consequence, never a FAIL). Only the chapter 11 checks run, so this is fast; test_broken.py judges the same
fixtures with the whole suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from roc_conformance.applicability import cannot_arise
from roc_conformance.checks import Status
from roc_conformance.checks.explicit import chapter_11_checks
from roc_conformance.registry import load_registry
from roc_conformance.runner import RunResult, run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roc_harness_support import serving
from test_broken import SUPPORT, patched

CHECKS = chapter_11_checks()
JUDGED = {r for c in CHECKS for r in c.requirements}
SETTINGS = RunSettings(
    name="fixtures", derandomize=True, max_examples=60, stateful_step_count=10, shrink_seconds=0
)
FIXTURES = [n for n in SUPPORT.fixture_names() if set(SUPPORT.load(n).BREAKS) & JUDGED]


def judge(*fixtures: str) -> RunResult:
    with patched(*fixtures), serving() as (address, _):
        return run_suite(
            Target(address=address, label="+".join(fixtures) or "reference"),
            CHECKS,
            load_registry(),
            SETTINGS,
        )


def failing(result: RunResult) -> set[str]:
    return {r.requirement.id for r in result.requirements if r.status is Status.FAIL}


def explain(result: RunResult) -> str:
    return "\n".join(
        f"{r.requirement.id} {r.status.value}: {r.reason[:400]}"
        for r in result.requirements
        if r.status is Status.FAIL
    )


def test_one_check_per_requirement_of_chapter_11():
    wanted = {
        r.id
        for r in load_registry().requirements
        if r.area in {"DECIDE", "ABANDON", "EXPIRY", "PENDING", "RESEND"} and not r.untestable
    }
    named = {c.name.removeprefix("explicit:") for c in CHECKS}
    assert wanted <= named, sorted(wanted - named)
    for check in CHECKS:
        profile = {r.profile for r in load_registry().requirements if r.id in check.requirements}
        assert profile <= set(check.profiles), (check.name, profile, check.profiles)


def test_the_reference_passes_every_chapter_11_check():
    result = judge()
    mine = [c for c in result.checks if c.name in {k.name for k in CHECKS}]
    assert [c.name for c in mine if c.status is not Status.PASS] == [], explain(result)
    assert not failing(result), explain(result)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_is_caught_on_exactly_its_rules(name):
    wanted = set(SUPPORT.load(name).BREAKS) & JUDGED
    result = judge(name)
    assert failing(result) & JUDGED == wanted, explain(result)


def test_fixtures_cover_the_four_named_bugs():
    assert {
        "decline_runs_tool",
        "expired_decline_refused",
        "expiry_unresolved",
        "pending_omits_answer",
    } <= set(FIXTURES)


@pytest.mark.parametrize(
    ("requirement", "claimed", "arises"),
    [
        ("ROC-DECIDE-005", {"core", "decisions"}, False),
        ("ROC-DECIDE-005", {"core", "decisions", "hooks"}, True),
        ("ROC-DECIDE-006", {"core", "decisions"}, False),
        ("ROC-DECIDE-009", {"core", "decisions"}, False),
        ("ROC-DECIDE-009", {"core", "decisions", "expiry"}, True),
        ("ROC-EXPIRY-005", {"core", "decisions", "expiry", "sequential-executor"}, False),
        ("ROC-EXPIRY-005", {"core", "decisions", "expiry", "concurrent-executor"}, True),
        ("ROC-EXPIRY-005", {"core", "decisions", "expiry", "sequential-executor", "hooks"}, True),
        ("ROC-PENDING-004", {"core", "pending-list"}, False),
        ("ROC-PENDING-004", {"core", "pending-list", "sessions"}, True),
        ("ROC-RESEND-003", {"core", "idempotent-resume"}, False),
        ("ROC-RESEND-003", {"core", "idempotent-resume", "sessions"}, True),
    ],
)
def test_situations_that_cannot_arise(requirement, claimed, arises):
    assert (cannot_arise(requirement, claimed) is None) is arises


@pytest.mark.parametrize(
    ("fixture", "check", "requirement"),
    [
        ("abandon_refused_when_decided", "explicit:drive-to-end-abandon", "ROC-ABANDON-001"),
        ("expired_decline_refused", "explicit:drive-to-end-decline", "ROC-DECIDE-009"),
    ],
)
def test_the_drive_to_end_property_alone_finds_a_stuck_agent(fixture, check, requirement):
    """The property, run on its own, reaches the state the fixture gets stuck in and names its rule."""
    only = [c for c in CHECKS if c.name == check]
    with patched(fixture), serving() as (address, _):
        result = run_suite(Target(address=address, label=fixture), only, load_registry(), SETTINGS)
    assert [c.status for c in result.checks if c.name == check] == [Status.FAIL]
    assert requirement in failing(result), explain(result)


NEW = ["decisions", "abandon", "expiry", "pending-list", "idempotent-resume"]


@pytest.mark.parametrize(
    "claim",
    [
        ["core", "sequential-executor", *NEW],  # no hooks, no concurrent executor, no sessions
        ["core", "concurrent-executor", *NEW],
        ["core", "sequential-executor", "hooks", "decisions", "abandon"],
        ["core", "sequential-executor", "sessions", "pending-list", "idempotent-resume"],
    ],
)
def test_narrower_claims_of_the_reference_pass(claim):
    """Against the reference claiming less, every chapter 11 check that runs passes, and each requirement of
    a claimed profile it cannot judge is one whose situation cannot arise under that claim."""
    from roc_reference.harness.server import HarnessServicer

    servicer = HarnessServicer()
    original = servicer.Describe

    def describe(request, context):
        reply = original(request, context)
        del reply.profiles[:]
        reply.profiles.extend(claim)
        return reply

    servicer.Describe = describe
    with serving(servicer) as (address, _):
        result = run_suite(Target(address=address, label="narrow"), CHECKS, load_registry(), SETTINGS)
    bad = [
        (c.name, c.status, c.message[:300]) for c in result.checks if c.status in (Status.FAIL, Status.ERROR)
    ]
    assert bad == []
    for r in result.requirements:
        if r.requirement.id in JUDGED and r.requirement.profile in claim and r.status is Status.SKIPPED:
            assert r.cannot_arise, (r.requirement.id, r.reason)
    for profile in set(NEW) & set(claim):
        assert result.profiles[profile]["status"] != "NOT_CONFORMANT", result.profiles[profile]
        assert not result.profiles[profile].get("unresolved"), result.profiles[profile]
