"""The runner: verdicts per check, requirement and profile; survival of hung, crashed and broken adapters."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from roc_conformance.checks.base import Check, Status
from roc_conformance.checks.explicit import check_error_shape
from roc_conformance.client import Timeouts
from roc_conformance.errors import ConformanceViolation
from roc_conformance.registry import parse_registry
from roc_conformance.report import validate_report, write_all
from roc_conformance.runner import ProfileVerdict, run_suite
from roc_conformance.settings import CERTIFY
from roc_conformance.target import Target, start_managed
from roc_harness_support import BrokenAdapterServicer, HangingServicer, serving
from roc_reference.errors import SnapshotInvalidError

FAULT_ADAPTER = Path(__file__).with_name("fault_adapter.py")

REGISTRY = parse_registry(
    {
        "specVersion": "1.0",
        "requirements": [
            {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
            {"id": "ROC-ERR-004", "level": "MUST", "profile": "core"},
            {"id": "ROC-ERR-005", "level": "SHOULD", "profile": "core"},
            {"id": "ROC-TEST-001", "level": "MUST", "profile": "core"},
            {"id": "ROC-TEST-002", "level": "MUST", "profile": "hooks"},
            {"id": "ROC-TEST-003", "level": "MUST", "profile": "x-unclaimed"},
            {"id": "ROC-TEST-004", "level": "MUST", "profile": "core", "untestable": "cannot be observed"},
        ],
    }
)

SHAPE = Check(
    "explicit:error-shape",
    ("ROC-ERR-003", "ROC-ERR-004", "ROC-ERR-005"),
    check_error_shape,
    ("core", "sequential-executor"),
)


def failing(ctx):
    ctx.client.describe()
    raise ConformanceViolation("ROC-TEST-001", "observed the wrong thing")


def passing(ctx):
    ctx.client.describe()


def buggy(ctx):
    raise KeyError("a bug in the check itself")


def run(address, checks, registry=REGISTRY, **kwargs):
    return run_suite(Target(address, "test"), checks, registry, CERTIFY, **kwargs)


def statuses(result):
    return {r.requirement.id: r.status for r in result.requirements}


def test_verdicts_per_requirement_and_profile():
    checks = [
        SHAPE,
        Check("t:fail", ("ROC-TEST-001",), failing),
        Check("t:hooks", ("ROC-TEST-002",), passing, ("hooks",)),
    ]
    with serving() as (address, _):
        result = run(address, checks)
    got = statuses(result)
    assert got["ROC-ERR-003"] is Status.PASS
    assert got["ROC-ERR-004"] is Status.PASS
    assert got["ROC-TEST-001"] is Status.FAIL
    assert got["ROC-TEST-002"] is Status.PASS
    assert got["ROC-TEST-003"] is Status.SKIPPED  # the reference claims every defined profile, not this one
    assert got["ROC-TEST-004"] is Status.NOT_TESTED
    by_id = {r.requirement.id: r for r in result.requirements}
    assert "not declared" in by_id["ROC-TEST-003"].reason
    assert by_id["ROC-TEST-004"].reason.startswith("untestable")
    assert result.profiles["core"]["status"] == ProfileVerdict.NOT_CONFORMANT
    assert result.profiles["core"]["failing"] == ["ROC-TEST-001"]
    assert result.profiles["hooks"]["status"] == ProfileVerdict.CONFORMANT
    assert result.profiles["x-unclaimed"]["status"] == ProfileVerdict.NOT_CLAIMED
    assert not result.conformant


def test_conformant_when_every_scored_requirement_passes():
    registry = parse_registry(
        {
            "requirements": [
                {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
                {"id": "ROC-ERR-004", "level": "MUST", "profile": "core"},
                {"id": "ROC-TEST-009", "level": "SHOULD", "profile": "core"},
            ]
        }
    )  # unchecked SHOULD does not block
    with serving() as (address, _):
        result = run(address, [SHAPE], registry)
    assert result.profiles["core"]["status"] == ProfileVerdict.CONFORMANT
    assert result.conformant


def test_an_untested_must_leaves_the_profile_incomplete():
    registry = parse_registry({"requirements": [{"id": "ROC-TEST-001", "level": "MUST", "profile": "core"}]})
    with serving() as (address, _):
        result = run(address, [SHAPE], registry)
    assert result.profiles["core"]["status"] == ProfileVerdict.INCOMPLETE
    assert not result.conformant


def test_a_bug_in_a_check_is_error_not_fail():
    with serving() as (address, _):
        result = run(address, [Check("t:buggy", ("ROC-TEST-001",), buggy)])
    assert result.checks[0].status is Status.ERROR
    assert statuses(result)["ROC-TEST-001"] is Status.ERROR


def test_profile_selection_skips_the_rest():
    checks = [SHAPE, Check("t:hooks", ("ROC-TEST-002",), passing, ("hooks",))]
    with serving() as (address, _):
        result = run(address, checks, selected_profiles=["hooks"])
    assert result.checks[0].status is Status.SKIPPED
    assert "not selected" in result.checks[0].message
    assert result.profiles["core"]["status"] == ProfileVerdict.NOT_SELECTED
    assert result.profiles["hooks"]["status"] == ProfileVerdict.CONFORMANT


def test_hung_adapter_is_error_and_the_run_finishes(tmp_path):
    checks = [SHAPE, Check("t:pass", ("ROC-TEST-001",), passing)]
    # The servicer would hold the Invoke for 600 s (a safety net); the check ends only through its 0.5 s
    # timeout, which the message names, so nothing here needs a stopwatch.
    with serving(HangingServicer(delay=600)) as (address, _):
        result = run(address, checks, timeouts=Timeouts(invoke=0.5))
    assert result.checks[0].status is Status.ERROR
    assert "timeout" in result.checks[0].message
    assert "0.5s" in result.checks[0].message
    assert result.checks[1].status is Status.PASS  # the next check still ran
    assert statuses(result)["ROC-ERR-003"] is Status.ERROR
    doc = write_all(result, tmp_path)["json"]
    assert validate_report(__import__("json").loads(doc.read_text())) == []


def test_adapter_fault_is_error_never_fail():
    with serving(BrokenAdapterServicer()) as (address, _):
        result = run(address, [SHAPE])
    assert result.checks[0].status is Status.ERROR
    assert "adapter" in result.checks[0].message
    assert not any(r.status is Status.FAIL for r in result.requirements)


@pytest.mark.slow
def test_crashed_adapter_is_error_restarted_and_reported(tmp_path):
    target = start_managed([sys.executable, str(FAULT_ADAPTER)], "crashy")
    checks = [SHAPE, Check("explicit:again", ("ROC-TEST-001",), check_error_shape)]
    try:
        result = run_suite(target, checks, REGISTRY, CERTIFY, timeouts=Timeouts(invoke=5))
    finally:
        target.stop()
    assert [c.status for c in result.checks[:2]] == [Status.ERROR, Status.ERROR]
    assert result.restarts >= 1
    assert "adapter restarted after this check" in result.checks[0].notes
    paths = write_all(result, tmp_path)
    import json

    doc = json.loads(paths["json"].read_text())
    assert validate_report(doc) == []
    assert doc["adapterRestarts"] >= 1


def test_nothing_listening_is_a_fatal_run_with_a_report(tmp_path):
    result = run("127.0.0.1:1", [SHAPE], timeouts=Timeouts(describe=2))
    assert result.fatal is not None
    assert "Describe" in result.fatal
    assert all(r.status is Status.ERROR for r in result.requirements)
    assert not result.conformant
    import json

    doc = json.loads(write_all(result, tmp_path)["json"].read_text())
    assert validate_report(doc) == []


def test_a_missing_capability_skips_with_the_reason():
    class NoDirect(__import__("roc_reference.harness.server", fromlist=["HarnessServicer"]).HarnessServicer):
        def Describe(self, request, context):
            reply = super().Describe(request, context)
            del reply.capabilities[:]
            return reply

    check = Check("t:direct", ("ROC-TEST-001",), passing, ("core",), capabilities=("direct-tool-call",))
    with serving(NoDirect()) as (address, _):
        result = run(address, [check])
    assert result.checks[0].status is Status.SKIPPED
    assert "capability 'direct-tool-call'" in result.checks[0].message


def _portable_check() -> tuple[Check, Any]:
    from roc_conformance.checks.snapshots import check_portable_to_peer

    check = Check(
        "explicit:portable-to-peer",
        ("ROC-SESSION-016",),
        check_portable_to_peer,
        ("core", "sessions", "portable-snapshot"),
    )
    registry = parse_registry(
        {"requirements": [{"id": "ROC-SESSION-016", "level": "MUST", "profile": "portable-snapshot"}]}
    )
    return check, registry


def _portability(writer: HarnessServicer, peer: HarnessServicer) -> Any:
    check, registry = _portable_check()
    with serving(writer) as (address, _), serving(peer) as (peer_address, _):
        return run_suite(Target(address, "t"), [check], registry, CERTIFY, peer=Target(peer_address, "p"))


def test_portability_check_skips_without_a_peer_and_runs_with_one():
    check, registry = _portable_check()
    with serving() as (address, _):
        alone = run(address, [check], registry)
    paired = _portability(HarnessServicer(), HarnessServicer())
    assert alone.checks[0].status is Status.SKIPPED
    assert "--peer" in alone.checks[0].message
    assert alone.profiles["portable-snapshot"]["status"] == ProfileVerdict.INCOMPLETE
    assert paired.checks[0].status is Status.PASS
    assert paired.peer == "p"


def test_portability_blames_a_writer_whose_snapshot_the_peer_cannot_continue():
    # The writer forgets the preserved result of t2: a conforming reader runs t2 again.
    writer = HarnessServicer()
    take = writer.reference.snapshot

    def forgetful(agent: Any, *, stored: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = take(agent, stored=stored)
        doc["interruptState"]["pendingToolExecution"]["completedToolResults"] = []
        return doc

    writer.reference.snapshot = forgetful  # type: ignore[method-assign]
    result = _portability(writer, HarnessServicer())
    assert result.checks[0].status is Status.FAIL
    assert "continuing this snapshot" in result.checks[0].message


def test_portability_is_not_judged_by_a_peer_that_cannot_continue_its_own_snapshot():
    peer = HarnessServicer()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise SnapshotInvalidError("this peer restores nothing")

    peer.reference.restore = refuse  # type: ignore[method-assign]
    result = _portability(HarnessServicer(), peer)
    assert result.checks[0].status is Status.SKIPPED
    assert "cannot continue its own snapshot" in result.checks[0].message


def test_portability_is_not_judged_by_a_peer_that_drops_foreign_ids():
    # Like an SDK that derives interrupt ids from the raise point: ids it did not write itself are replaced.
    peer = HarnessServicer()
    take, restore = peer.reference.snapshot, peer.reference.restore
    own_ids: set[str] = set()

    def remember(agent: Any, *, stored: bool = False) -> Any:
        doc = take(agent, stored=stored)
        own_ids.update(i["id"] for i in doc["interruptState"]["interrupts"])
        return doc

    def rename_foreign(snapshot_json: str, *args: Any) -> Any:
        doc = json.loads(snapshot_json)
        for interrupt in doc["interruptState"]["interrupts"]:
            if interrupt["id"] not in own_ids:
                interrupt["id"] = "derived:" + interrupt["source"]["toolUseId"] + ":" + interrupt["name"]
        return restore(json.dumps(doc), *args)

    peer.reference.snapshot = remember  # type: ignore[method-assign]
    peer.reference.restore = rename_foreign  # type: ignore[method-assign]
    result = _portability(HarnessServicer(), peer)
    assert result.checks[0].status is Status.SKIPPED
    assert "does not continue foreign snapshots" in result.checks[0].message


def _snapshot_document(servicer: HarnessServicer) -> Any:
    from roc_conformance.checks.snapshots import check_snapshot_document

    check = Check(
        "explicit:snapshot-document", ("ROC-SNAP-005",), check_snapshot_document, ("core", "sessions")
    )
    registry = parse_registry(
        {"requirements": [{"id": "ROC-SNAP-005", "level": "MUST", "profile": "sessions"}]}
    )
    with serving(servicer) as (address, _):
        return run(address, [check], registry)


def test_the_paused_assistant_message_is_judged_against_what_the_model_said():
    writer = HarnessServicer()
    take = writer.reference.snapshot

    def without_text(agent: Any, *, stored: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = take(agent, stored=stored)
        pending = doc["interruptState"].get("pendingToolExecution")
        if pending:
            pending["assistantMessage"]["content"] = pending["assistantMessage"]["content"][1:]
        return doc

    writer.reference.snapshot = without_text  # type: ignore[method-assign]
    assert _snapshot_document(writer).checks[0].status is Status.FAIL


def test_a_wrong_result_message_does_not_fail_the_snapshot_too():
    # The result's message is ROC-STOP-005's to judge; the snapshot holds the paused message correctly.
    servicer = HarnessServicer()
    invoke = servicer.reference.invoke

    def last_history_message(agent: Any, inp: Any) -> Any:
        out: dict[str, Any] = invoke(agent, inp)
        if out.get("stopReason") == "interrupt":
            out["message"] = {"role": "user", "content": [{"text": "go"}]}
        return out

    servicer.reference.invoke = last_history_message  # type: ignore[method-assign]
    assert _snapshot_document(servicer).checks[0].status is Status.PASS


def test_every_reply_is_validated_against_the_schemas():
    from roc_conformance.checks.wire_schema import SchemaObserver

    with serving() as (address, _):
        result = run(address, [SHAPE])
    wire = next(c for c in result.checks if c.name == "wire:schema")
    assert wire.status is Status.PASS
    observer = SchemaObserver()
    observer(
        "Invoke",
        {
            "result": {
                "stopReason": "teleported",
                "message": {"role": "assistant", "content": []},
                "interrupts": [],
            },
            "messages": [{"role": "robot", "content": []}],
        },
    )
    verdict = observer.result()
    assert verdict.status is Status.FAIL
    assert set(verdict.failed_requirements) == {"ROC-MODEL-001", "ROC-MODEL-011"}


# --- profile selection (--profile core), charged faults, undefined profiles, the run's verdict -----------

from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb  # noqa: E402
from roc_conformance.runner import RunVerdict  # noqa: E402
from roc_harness_support import tool_spec  # noqa: E402
from roc_reference.harness.server import HarnessServicer  # noqa: E402


def test_selecting_core_runs_core_checks_that_need_a_claimed_executor():
    # SHAPE needs core and sequential-executor. Selection narrows what is judged, not which claimed profiles
    # a check may use: under --profile core it runs, and core can be CONFORMANT.
    registry = parse_registry(
        {
            "requirements": [
                {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
                {"id": "ROC-ERR-004", "level": "MUST", "profile": "core"},
                {"id": "ROC-EXEC-001", "level": "MUST", "profile": "sequential-executor"},
            ]
        }
    )
    with serving() as (address, _):
        result = run(address, [SHAPE], registry, selected_profiles=["core"])
    assert result.checks[0].status is Status.PASS
    assert result.profiles["core"]["status"] == ProfileVerdict.CONFORMANT
    assert result.profiles["sequential-executor"]["status"] == ProfileVerdict.NOT_SELECTED
    assert statuses(result)["ROC-EXEC-001"] is Status.SKIPPED
    assert result.verdict == RunVerdict.CONFORMANT
    assert result.conformant


def test_selection_never_runs_a_check_that_needs_an_unclaimed_profile():
    class CoreOnly(HarnessServicer):
        def __init__(self):
            super().__init__(profiles=("core", "concurrent-executor"))

    with serving(CoreOnly()) as (address, _):
        result = run(address, [SHAPE], selected_profiles=["core"])
    assert result.checks[0].status is Status.SKIPPED
    assert "'sequential-executor' not declared" in result.checks[0].message


class SessionsWithoutSnapshots(HarnessServicer):
    """Claims sessions, but every TakeSnapshot and RestoreAgent is an adapter fault."""

    def __init__(self):
        super().__init__(profiles=("core", "hooks", "sequential-executor", "concurrent-executor", "sessions"))

    def TakeSnapshot(self, request, context):
        return hpb.TakeSnapshotResponse(harness_error=hpb.HarnessError(message="snapshots unsupported"))

    def RestoreAgent(self, request, context):
        return hpb.RestoreAgentResponse(harness_error=hpb.HarnessError(message="restore unsupported"))


def snapshots_when_claimed(ctx):
    """Like the state machines: snapshots only because sessions is claimed."""
    agent = ctx.client.create_agent(tool_spec())
    ctx.client.invoke(agent, {"prompt": "go"})
    if "sessions" in ctx.profiles:
        ctx.client.take_snapshot(agent)


SESSIONS_REGISTRY = parse_registry(
    {
        "requirements": [
            {"id": "ROC-TEST-001", "level": "MUST", "profile": "core"},
            {"id": "ROC-TEST-002", "level": "MUST", "profile": "hooks"},
            {"id": "ROC-TEST-005", "level": "MUST", "profile": "sessions"},
        ]
    }
)


def test_an_unsupported_sessions_claim_spoils_only_sessions(tmp_path):
    checks = [
        # needs only core, snapshots because sessions is claimed: run again without sessions
        Check("t:machine-like", ("ROC-TEST-001", "ROC-TEST-005"), snapshots_when_claimed, ("core",)),
        # needs sessions itself, also names a hooks requirement: its ERROR is sessions' alone
        Check(
            "t:needs-sessions", ("ROC-TEST-002", "ROC-TEST-005"), snapshots_when_claimed, ("core", "sessions")
        ),
        Check("t:hooks", ("ROC-TEST-002",), passing, ("hooks",)),
    ]
    with serving(SessionsWithoutSnapshots()) as (address, _):
        result = run(address, checks, SESSIONS_REGISTRY)
    by_name = {c.name: c for c in result.checks}
    assert by_name["t:machine-like"].status is Status.ERROR
    assert "TakeSnapshot" in by_name["t:machine-like"].message
    again = by_name["t:machine-like (without sessions)"]
    assert again.status is Status.PASS
    assert again.requirements == ("ROC-TEST-001",)  # it never vouches for what it did not exercise
    assert by_name["t:needs-sessions"].status is Status.ERROR
    assert "ROC-TEST-002" in by_name["t:needs-sessions"].blocked
    got = statuses(result)
    assert got == {"ROC-TEST-001": Status.PASS, "ROC-TEST-002": Status.PASS, "ROC-TEST-005": Status.ERROR}
    assert result.profiles["core"]["status"] == ProfileVerdict.CONFORMANT
    assert result.profiles["hooks"]["status"] == ProfileVerdict.CONFORMANT
    assert result.profiles["sessions"]["status"] == ProfileVerdict.INCOMPLETE
    assert result.verdict == RunVerdict.INCOMPLETE
    doc = __import__("json").loads(write_all(result, tmp_path)["json"].read_text())
    assert validate_report(doc) == []


def test_a_fault_outside_the_sessions_rpcs_is_still_charged_to_every_declared_requirement():
    with serving(BrokenAdapterServicer()) as (address, _):
        result = run(address, [Check("t:x", ("ROC-TEST-001", "ROC-TEST-002"), snapshots_when_claimed)])
    assert [c.name for c in result.checks if c.name.startswith("t:")] == ["t:x"]
    assert result.checks[0].blocked == {}
    assert statuses(result)["ROC-TEST-002"] is Status.ERROR


@pytest.mark.slow
def test_the_whole_suite_against_an_adapter_that_claims_sessions_it_cannot_do():
    from roc_conformance.checks import all_checks
    from roc_conformance.registry import load_registry
    from roc_conformance.settings import with_overrides

    settings = with_overrides(CERTIFY, max_examples=5)
    with serving(SessionsWithoutSnapshots()) as (address, _):
        result = run_suite(Target(address, "t"), all_checks(), load_registry(), settings)
    verdicts = {name: entry["status"] for name, entry in result.profiles.items()}
    for profile in ("core", "hooks", "sequential-executor", "concurrent-executor"):
        assert verdicts[profile] == ProfileVerdict.CONFORMANT, (profile, result.profiles[profile])
    assert verdicts["sessions"] == ProfileVerdict.INCOMPLETE


def test_an_undefined_profile_is_undefined_not_conformant():
    class Telepathic(HarnessServicer):
        def __init__(self):
            super().__init__(profiles=("core", "sequential-executor", "telepathy"))

    with serving(Telepathic()) as (address, _):
        result = run(address, [SHAPE], parse_registry({"requirements": REGISTRY_CORE}))
    assert result.profiles["telepathy"]["status"] == ProfileVerdict.UNDEFINED
    assert "ROC-CONF-005" in result.profiles["telepathy"]["reason"]
    assert result.profiles["core"]["status"] == ProfileVerdict.CONFORMANT
    assert result.verdict == RunVerdict.NOT_CONFORMANT
    assert any("telepathy" in p for p in result.claim_problems())


REGISTRY_CORE = [
    {"id": "ROC-ERR-003", "level": "MUST", "profile": "core"},
    {"id": "ROC-ERR-004", "level": "MUST", "profile": "core"},
]


def test_a_claim_without_core_is_not_conformant_and_says_why():
    class NoCore(HarnessServicer):
        def __init__(self):
            super().__init__(profiles=("hooks", "sequential-executor"))

    registry = parse_registry(
        {"requirements": [*REGISTRY_CORE, {"id": "ROC-TEST-002", "level": "MUST", "profile": "hooks"}]}
    )
    with serving(NoCore()) as (address, _):
        result = run(address, [Check("t:hooks", ("ROC-TEST-002",), passing, ("hooks",))], registry)
    assert result.profiles["hooks"]["status"] == ProfileVerdict.CONFORMANT
    assert result.profiles["core"]["status"] == ProfileVerdict.NOT_CLAIMED
    assert "ROC-CONF-002" in result.profiles["core"]["reason"]
    assert result.verdict == RunVerdict.NOT_CONFORMANT
    assert not result.conformant


def test_nothing_judged_when_every_check_errored_or_none_ran():
    with serving(BrokenAdapterServicer()) as (address, _):
        faulted = run(address, [SHAPE])
        empty = run(address, [])
    assert faulted.verdict == RunVerdict.NOTHING_JUDGED
    assert empty.verdict == RunVerdict.NOTHING_JUDGED
    assert not faulted.conformant
