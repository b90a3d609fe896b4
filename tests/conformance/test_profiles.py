"""A runtime without hook events or a direct-call API can be `core`-conformant (spec 1.3, 4.1).

The reference runtime is served by an adapter that claims only `core` and `sequential-executor` and whose
replies carry only the trace kinds an adapter sees without a hook API (it brackets the invocation, serves
the scripted model and runs the tool bodies): the way a LangGraph- or OpenAI-Agents-style runtime is
driven. The suite must judge every `core` requirement on that evidence: no check of `core` skipped for a
missing profile or capability, and the verdict CONFORMANT. The counterpart proves the filtering is not a
blind spot: the same hookless adapter in front of a broken runtime is still caught.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from roc_conformance.checks import Status, all_checks
from roc_conformance.oracle.check import CORE_TRACE_KINDS
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.registry import load_registry
from roc_conformance.runner import ProfileVerdict, RunResult, run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target
from roc_reference.harness.server import HarnessServicer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roc_harness_support import load_broken, serving

CLAIMS = (("core", "sequential-executor"), ("core", "concurrent-executor"))
SETTINGS = RunSettings(
    name="profiles", derandomize=True, max_examples=40, stateful_step_count=10, shrink_seconds=0
)


class HooklessAdapter(HarnessServicer):
    """Claims `core` and one executor only, and reports no hook event in its traces."""

    def __init__(self, claim: tuple[str, ...]) -> None:
        super().__init__(profiles=claim)

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        reply = super().Invoke(request, context)
        kept = [e for e in reply.trace if e.WhichOneof("event") in CORE_TRACE_KINDS]
        del reply.trace[:]
        reply.trace.extend(kept)
        return reply


def judge(claim: tuple[str, ...], patch: Any = None) -> RunResult:
    checks = [c for c in all_checks() if set(c.profiles) <= set(claim)]
    with serving(HooklessAdapter(claim)) as (address, _):
        if patch is None:
            return run_suite(Target(address=address, label="hookless"), checks, load_registry(), SETTINGS)
        with patch():
            return run_suite(Target(address=address, label="hookless"), checks, load_registry(), SETTINGS)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda claim: claim[1])
def test_a_hookless_runtime_without_direct_calls_is_core_conformant(claim: tuple[str, ...]) -> None:
    result = judge(claim)
    core = [r for r in result.requirements if r.requirement.profile == "core"]
    failing = [f"{r.requirement.id}: {r.reason[:200]}" for r in core if r.status is Status.FAIL]
    assert not failing, "\n".join(failing)
    assert result.profiles["core"]["status"] == ProfileVerdict.CONFORMANT, result.profiles["core"]
    assert result.profiles[claim[1]]["status"] == ProfileVerdict.CONFORMANT
    # Nothing of core was skipped for want of a profile the claim does not need.
    skipped = [c.name for c in result.checks if c.status is Status.SKIPPED and "core" in c.profiles]
    assert not skipped, skipped
    machine = [c for c in result.checks if c.name == f"machine:{claim[1].removesuffix('-executor')}"]
    assert machine
    assert machine[0].status is Status.PASS


def test_the_hookless_view_still_catches_a_broken_core_rule() -> None:
    # A model call on resume is visible without any hook event (a model_call in the trace).
    fixture = load_broken("model_called_on_resume")
    result = judge(CLAIMS[0], fixture.patch)
    failing = {r.requirement.id for r in result.requirements if r.status is Status.FAIL}
    assert set(fixture.BREAKS) <= failing, sorted(failing)
    assert result.profiles["core"]["status"] == ProfileVerdict.NOT_CONFORMANT
