"""The handshake judges which profiles a claim may combine (spec 1.3): a claim of `expiry` needs
`decisions` (ROC-CONF-007), whose decline an expired interrupt resolves as; `questions` needs
`response-schema` (ROC-CONF-008), `approval` needs `hooks` and `response-schema` (ROC-CONF-009) and `audit`
needs `sessions` (ROC-CONF-010)."""

from __future__ import annotations

import pytest
from roc_harness_support import client_for, serving
from roc_reference.harness.server import HarnessServicer


def _handshake(profiles: list[str]):
    from roc_conformance.checks import CheckContext, all_checks
    from roc_conformance.runner import run_check
    from roc_conformance.settings import CERTIFY

    servicer = HarnessServicer()
    original = servicer.Describe

    def describe(request, context):
        reply = original(request, context)
        del reply.profiles[:]
        reply.profiles.extend(profiles)
        return reply

    servicer.Describe = describe
    check = {c.name: c for c in all_checks()}["explicit:handshake"]
    with serving(servicer) as (address, _), client_for(address) as c:
        return run_check(check, CheckContext(client=c, description=c.describe(), settings=CERTIFY))


@pytest.mark.req("ROC-CONF-007")
def test_expiry_without_decisions_is_refused():
    result = _handshake(["core", "sequential-executor", "expiry"])
    assert result.status.value == "FAIL"
    assert result.failed_requirements == ("ROC-CONF-007",)


@pytest.mark.req("ROC-CONF-007")
def test_expiry_with_decisions_is_accepted():
    assert _handshake(["core", "sequential-executor", "decisions", "expiry"]).status.value == "PASS"


BASE = ["core", "sequential-executor"]


@pytest.mark.req("ROC-CONF-008", "ROC-CONF-009", "ROC-CONF-010")
@pytest.mark.parametrize(
    ("profiles", "failed"),
    [
        (["questions"], "ROC-CONF-008"),
        (["approval", "hooks"], "ROC-CONF-009"),
        (["approval", "response-schema"], "ROC-CONF-009"),
        (["audit"], "ROC-CONF-010"),
    ],
)
def test_a_spec_1_3_profile_without_what_it_needs_is_refused(profiles: list[str], failed: str) -> None:
    result = _handshake([*BASE, *profiles])
    assert result.status.value == "FAIL"
    assert result.failed_requirements == (failed,)


@pytest.mark.req("ROC-CONF-008", "ROC-CONF-009", "ROC-CONF-010")
def test_spec_1_3_profiles_with_what_they_need_are_accepted() -> None:
    claim = [*BASE, "hooks", "sessions", "response-schema", "questions", "approval", "audit", "streaming"]
    assert _handshake(claim).status.value == "PASS"
