"""explicit:malformed-responses judges each malformed shape on its own requirement: the reference passes;
a runtime that drops unknown members fails ROC-RESUME-004 only; one that crashes on a body without
``response`` fails ROC-RESUME-005 and ROC-ERR-001 only."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from roc_conformance.checks import CheckContext, Status, all_checks
from roc_conformance.client import HarnessClient
from roc_conformance.runner import run_check
from roc_conformance.settings import CERTIFY
from roc_harness_support import serving

BROKEN = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "broken"
CHECK = {c.name: c for c in all_checks()}["explicit:malformed-responses"]


def _run() -> Any:
    with serving() as (address, _):
        client = HarnessClient.connect(address)
        try:
            ctx = CheckContext(client=client, description=client.describe(), settings=CERTIFY)
            return run_check(CHECK, ctx)
        finally:
            client.close()


def test_the_reference_passes_and_the_notes_name_each_code():
    result = _run()
    assert result.status == Status.PASS, result.message
    assert "interruptId missing: INVALID_RESUME" in result.notes
    assert "a member beside interruptId and response: INVALID_RESUME" in result.notes
    assert "response missing: INVALID_RESPONSE" in result.notes


def test_a_runtime_that_drops_unknown_members_fails_resume_004_only(monkeypatch: pytest.MonkeyPatch):
    from roc_reference import interrupts

    original = interrupts._response_body

    def lenient(block: Any) -> Any:
        body = block.get("interruptResponse") if isinstance(block, dict) else None
        if isinstance(body, dict) and "response" in body and isinstance(body.get("interruptId"), str):
            kept = ("interruptId", "response", "metadata")  # drops every member RoC does not define
            return original({"interruptResponse": {k: body[k] for k in kept if k in body}})
        return original(block)

    monkeypatch.setattr(interrupts, "_response_body", lenient)
    result = _run()
    assert result.status == Status.FAIL
    assert set(result.failed_requirements) == {"ROC-RESUME-004"}
    assert "a member beside interruptId and response: got end_turn" in result.message


def test_a_crash_on_a_missing_response_fails_resume_005_and_err_001_only():
    sys.path.insert(0, str(BROKEN))
    import _support

    with _support.load("missing_response_crashes").patch():
        result = _run()
    assert result.status == Status.FAIL
    assert set(result.failed_requirements) == {"ROC-RESUME-005", "ROC-ERR-001"}
