"""The interrupt round trip benchmark runs and measures what it says (never how fast: no time is asserted)."""

from __future__ import annotations

import json

import pytest
from roc_reference import ConcurrentExecutor

from benchmarks import round_trip
from benchmarks.common import section_from_json


def test_quick_run_measures_every_executor_and_batch() -> None:
    section = round_trip.run("quick")
    assert section_from_json(json.loads(json.dumps(section.to_json()))) == section
    [table] = section.tables
    assert [(r["executor"], r["batch"]) for r in table.rows] == [
        (e, b) for e in ("sequential", "concurrent") for b in (1, 8)
    ]
    assert all(r["repeats"] == 2 for r in table.rows)
    assert all(0 < r["reference_min_ms"] <= r["reference_ms"] <= r["reference_max_ms"] for r in table.rows)
    assert all(r["reference_us_per_tool"] > 0 for r in table.rows)
    speedups, linear = section.targets[:2], section.targets[2:]
    if round_trip._strands() is None:  # the project venv: the optional peer is absent
        assert all(r["strands_ms"] is None and r["ratio"] is None for r in table.rows)
        assert all(t.met is None and t.measured == round_trip.NOT_INSTALLED for t in speedups)
    else:
        assert all(r["strands_ms"] > 0 and r["ratio"] > 0 for r in table.rows)
        assert all(t.met is not None for t in speedups)
    assert [t.met for t in linear] == [None, None]  # quick measures no batch of 64
    assert any("CPUs" in note for note in section.notes)
    assert "callback_handler=None" in " ".join(section.notes)


def test_a_round_trip_that_did_not_do_the_work_stops_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    # A "sequential" executor that does not stop at the first interrupt answers everything in one stop:
    # the sample must refuse to report a time for it.
    monkeypatch.setattr(round_trip, "SequentialExecutor", ConcurrentExecutor)
    with pytest.raises(round_trip.BenchmarkError, match="1 interrupt stops, expected 8"):
        round_trip._reference_sample("sequential", 8)


def test_the_tally_names_every_way_a_run_can_go_wrong() -> None:
    tally = round_trip.Tally(stops=1, answered=2)
    tally.body_returned(round_trip._answer(0))
    tally.body_returned(round_trip._answer(0))
    with pytest.raises(round_trip.BenchmarkError) as caught:
        tally.check("reference", "concurrent", 2, "interrupt", "")
    message = str(caught.value)
    assert "ended with 'interrupt'" in message
    assert "not each tool its own answer once" in message
    round_trip.Tally(stops=2, answered=2, returned=["ok-1", "ok-0"]).check(
        "reference", "sequential", 2, "end_turn", round_trip.FINAL_TEXT
    )
