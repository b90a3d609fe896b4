"""The suite benchmark runs at quick scale and reports what it measured honestly (no timing is asserted)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import suite
from benchmarks.common import Section


@pytest.fixture(scope="module")
def section() -> Section:
    return suite.run("quick")


def _rows(section: Section, title: str) -> list[dict[str, Any]]:
    return next(t.rows for t in section.tables if t.title.startswith(title))


def test_both_kinds_of_scenario_are_measured_over_grpc_and_in_process(section: Section) -> None:
    rows = _rows(section, "Scenarios judged per second")
    assert [r["kind"] for r in rows] == ["static vector", "state-machine example"]
    for row in rows:
        # The same derandomized scenarios on both sides, every run: the RPC counts agree and all pass.
        assert row["same_rpcs"]
        assert row["passed"]
        assert row["scenarios"] > 0
        assert row["rpcs_per_scenario"] >= 1
        assert row["grpc_s"] > 0
        assert row["inproc_s"] > 0
        assert row["grpc_min_s"] <= row["grpc_s"] <= row["grpc_max_s"]


def test_the_floor_is_a_real_round_trip(section: Section) -> None:
    (floor,) = _rows(section, "Raw grpcio unary round trip")
    assert 0 < floor["min_us"] <= floor["median_us"] <= floor["max_us"]


def test_quick_scale_skips_certify_and_says_so(section: Section) -> None:
    assert not any(t.title.startswith("Certify") for t in section.tables)
    certify = [t for t in section.targets if t.goal.startswith("certify")]
    assert [(t.met, t.measured) for t in certify] == [(None, "not run at quick scale")]
    rate = next(t for t in section.targets if "per second" in t.goal)
    assert rate.met in (True, False)


def test_the_certify_row_reads_stage_times_from_the_report() -> None:
    report = {
        "durationSeconds": 50.0,
        "verdict": "CONFORMANT",
        "rpcCount": 100,
        "checks": [
            {"name": "machine:sequential", "kind": "machine", "durationSeconds": 40.0},
            {"name": "machine:concurrent", "kind": "machine", "durationSeconds": 42.0},
            {"name": "vector:a", "kind": "vector", "durationSeconds": 1.5},
            {"name": "explicit:b", "kind": "explicit", "durationSeconds": 2.0},
        ],
    }
    row = suite.certify_row(report, 53.0, 0)
    stages = (row["machine_max_s"], row["machine_sum_s"], row["vector_s"], row["explicit_s"])
    assert stages == (42.0, 82.0, 1.5, 2.0)
    assert (row["checks"], row["wall_s"]) == (4, 53.0)


def test_the_in_process_stub_hands_the_servicer_the_request_itself() -> None:
    seen: list[Any] = []

    class Servicer:
        def Describe(self, request: Any, context: Any) -> str:
            seen.append(request)
            return "reply"

    stub = suite.CountingStub(suite.DirectStub(Servicer()))
    request = object()
    assert stub.Describe(request, timeout=1.0) == "reply"
    assert seen == [request]
    assert stub.counts == {"Describe": 1}
