"""Each requirement judged on its own evidence, and runs that stay bounded.

- Attribution: a failure counts against the requirement it breaks, whichever check saw it.
- Consequences: what a check saw after a first divergence is listed under it, never a FAIL of its own, and a
  requirement whose only evidence it spoiled is NOT_TESTED with the failure that blocked it.
- The lockstep driver re-synchronises after a data-only divergence, so the next real divergence is primary.
- Bounded runs: a run deadline, a bound on trace events per reply, partial reports after every check.
"""

from __future__ import annotations

import copy

import grpc
import pytest
from roc_conformance.checks.base import Check, Finding, Status
from roc_conformance.errors import ConformanceViolation
from roc_conformance.oracle.driver import ENDED, IN_SYNC, TAINTED
from roc_conformance.oracle.fake import FakeImplementation
from roc_conformance.oracle.vectors import load_vectors, run_vector
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.registry import parse_registry
from roc_conformance.report import validate_report
from roc_conformance.runner import run_suite
from roc_conformance.settings import CERTIFY
from roc_conformance.target import Target
from roc_harness_support import HangingServicer, serving, tool_spec
from roc_reference.harness.server import HarnessServicer

REGISTRY = parse_registry(
    {
        "specVersion": "1.0",
        "requirements": [
            {"id": f"ROC-TEST-00{n}", "level": "MUST", "profile": "core"} for n in range(1, 6)
        ],
    }
)


def run(address, checks, **kwargs):
    return run_suite(Target(address, "test"), checks, REGISTRY, CERTIFY, **kwargs)


def verdicts(result):
    return {r.requirement.id: r for r in result.requirements}


# ---- attribution, consequences, blocked requirements ---------------------------------------------------


def declares_1_fails_2(ctx):
    ctx.client.describe()
    raise ConformanceViolation("ROC-TEST-002", "observed a rule the check did not declare", exhaustive=True)


def fails_1_then_sees_3(ctx):
    ctx.client.describe()
    ctx.evidence.fail(Finding(("ROC-TEST-001",), "the first divergence"))
    ctx.evidence.consequences.append(Finding(("ROC-TEST-003",), "what followed", after=("ROC-TEST-001",)))


def stops_at_1(ctx):
    ctx.client.describe()
    raise ConformanceViolation("ROC-TEST-001", "stops here; 4 was never looked at")


def test_a_failure_counts_against_the_requirement_it_breaks():
    with serving() as (address, _):
        result = run(address, [Check("t:a", ("ROC-TEST-001",), declares_1_fails_2)])
    got = verdicts(result)
    assert got["ROC-TEST-002"].status is Status.FAIL  # not declared, still attributed
    assert got["ROC-TEST-001"].status is Status.PASS  # judged (the check went on to its end) and held


def test_consequences_are_listed_under_their_failure_and_block_only_what_they_spoil():
    checks = [
        Check("t:b", ("ROC-TEST-001", "ROC-TEST-003", "ROC-TEST-005"), fails_1_then_sees_3),
        Check("t:c", ("ROC-TEST-001", "ROC-TEST-004"), stops_at_1),
    ]
    with serving() as (address, _):
        result = run(address, checks)
    got = verdicts(result)
    assert got["ROC-TEST-001"].status is Status.FAIL
    listed = [c for f in got["ROC-TEST-001"].failures for c in f.get("consequences", [])]
    assert [c["requirements"] for c in listed] == [["ROC-TEST-003"]]
    assert got["ROC-TEST-003"].status is Status.NOT_TESTED  # a consequence is never a FAIL of its own
    assert got["ROC-TEST-003"].blocked_by == ["ROC-TEST-001"]
    assert got["ROC-TEST-004"].status is Status.NOT_TESTED  # its only check stopped before it
    assert got["ROC-TEST-004"].blocked_by == ["ROC-TEST-001"]
    assert got["ROC-TEST-005"].status is Status.PASS  # declared, judged, untouched by the failure
    doc = result.to_json()
    assert validate_report(doc) == []
    assert doc["summary"]["blockedByEarlierFailure"] == 2


# ---- the lockstep driver -------------------------------------------------------------------------------

VECTORS = {v["id"]: v for v in load_vectors()}


class ShowsPausedMessage(FakeImplementation):
    """The history shows the paused assistant message (like strands-agents 1.62)."""

    def invoke(self, agent, inp):
        out = super().invoke(agent, inp)
        pending = self._agents[agent].pending_assistant
        if pending is not None and "messages" in out:
            out["messages"] = [*out["messages"], copy.deepcopy(pending)]
        return out


class ReportsOtherReasons(FakeImplementation):
    """Reports every interrupt with another reason: wrong data, with no effect on what runs next."""

    def invoke(self, agent, inp):
        out = super().invoke(agent, inp)
        for item in (out.get("result") or {}).get("interrupts") or []:
            item["reason"] = {"rewritten": True}
        return out


class AlsoTampersAnswers(ReportsOtherReasons):
    """... and delivers every answer as another value: a second, independent divergence."""

    def invoke(self, agent, inp):
        if "interruptResponses" in inp:
            inp = {"interruptResponses": [{**r, "response": "tampered"} for r in inp["interruptResponses"]]}
        return super().invoke(agent, inp)


class RunsCancelledTools(FakeImplementation):
    """Reports an extra tool start on every invocation that ran a tool: the trace diverges."""

    def invoke(self, agent, inp):
        out = super().invoke(agent, inp)
        starts = [e for e in out.get("trace", []) if e.get("kind") == "tool_start"]
        if starts:
            out["trace"] = [*out["trace"], copy.deepcopy(starts[0])]
        return out


def test_a_data_only_divergence_is_followed_and_the_next_one_is_primary():
    vector = VECTORS["tool-interrupt-approve"]
    found, driver = run_vector(vector, ReportsOtherReasons(frozenset({"core", "sequential-executor"})))
    assert {r for v in found for r in v.requirements} == {"ROC-STOP-006"}
    assert driver.sync == IN_SYNC
    assert not driver.consequences
    found, driver = run_vector(vector, AlsoTampersAnswers(frozenset({"core", "sequential-executor"})))
    later = [v for v in found if "step 1" in v.message]
    assert later, "the tampered answer, after the first divergence, is a primary finding of its own"
    assert "ROC-STOP-006" not in {r for v in later for r in v.requirements}


def test_a_trace_divergence_taints_the_run_and_what_follows_is_a_consequence():
    vector = VECTORS["tool-interrupt-approve"]
    found, driver = run_vector(vector, RunsCancelledTools(frozenset({"core", "sequential-executor"})))
    assert found
    assert driver.sync == TAINTED
    assert all("step 0" in v.message for v in found)
    assert driver.consequences, "the resume's findings follow the first divergence"
    assert all(after for _, after in driver.consequences)


def test_a_rejected_input_is_judged_against_the_implementations_own_history():
    """ROC-RESUME-010 holds for an implementation whose history differs for another reason."""
    vector = VECTORS["resume-validation-errors"]
    found, driver = run_vector(vector, ShowsPausedMessage(frozenset({"core", "sequential-executor"})))
    assert not {"ROC-RESUME-010", "ROC-ERR-006"} & {r for v in found for r in v.requirements}
    assert driver.sync != ENDED


# ---- bounded runs --------------------------------------------------------------------------------------


def quick(ctx):
    ctx.client.describe()


def slow_invoke(ctx):
    agent = ctx.client.create_agent(tool_spec())
    ctx.client.invoke(agent, {"prompt": "hello"})


@pytest.mark.slow
def test_the_run_deadline_ends_the_run_with_errors_and_a_report():
    checks = [
        Check("t:1", ("ROC-TEST-001",), quick),
        Check("t:2", ("ROC-TEST-002",), slow_invoke),
        Check("t:3", ("ROC-TEST-003",), quick),
    ]
    partial = []
    with serving(HangingServicer(delay=30.0)) as (address, _):
        result = run(address, checks, max_run_seconds=2.0, on_check=partial.append)
    got = verdicts(result)
    assert got["ROC-TEST-001"].status is Status.PASS
    assert got["ROC-TEST-002"].status is Status.ERROR
    # The hung Invoke is cut at the run deadline, not at its own 15 s: the fault names the budget. (Said by
    # the client's classification, not by a stopwatch, which a loaded machine would make lie.)
    assert "time budget" in got["ROC-TEST-002"].reason, got["ROC-TEST-002"].reason
    assert got["ROC-TEST-003"].status is Status.ERROR
    assert "not run" in got["ROC-TEST-003"].reason
    doc = result.to_json()
    assert doc["complete"] is False
    assert "time budget" in doc["stopped"]
    assert doc["conformant"] is False
    assert validate_report(doc) == []
    assert [len(p.checks) for p in partial] == [1, 2, 3]
    assert all(not p.complete for p in partial)


class FloodingServicer(HarnessServicer):
    """Answers Invoke with far more trace events than any scenario needs."""

    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        reply = hpb.InvokeResponse()
        for _ in range(10_001):
            reply.trace.add().invocation_start.SetInParent()
        return reply  # refused on its trace length, before anything else in it is read


def test_a_flood_of_trace_events_is_an_adapter_fault():
    checks = [Check("t:1", ("ROC-TEST-001",), slow_invoke), Check("t:2", ("ROC-TEST-002",), quick)]
    with serving(FloodingServicer()) as (address, _):
        result = run(address, checks)
    got = verdicts(result)
    assert got["ROC-TEST-001"].status is Status.ERROR  # the adapter's fault, never the runtime's FAIL
    assert "trace events" in got["ROC-TEST-001"].reason
    assert got["ROC-TEST-002"].status is Status.PASS  # the run goes on
