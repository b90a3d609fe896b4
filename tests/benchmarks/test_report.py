"""The results file of ``make bench`` and the page rendered from it (no timing is asserted anywhere)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks import __main__ as bench_main
from benchmarks import report
from benchmarks.common import Column, Section, Stats, Table, Target, interleaved, section_from_json


def _section() -> Section:
    table = Table("per size", [Column("size", "size", "{:,}"), Column("ms", "ms", "{:.2f}")], [
        {"size": 1000, "ms": 1.234},
        {"size": 10, "ms": None},
    ])
    targets = [
        Target("fast", "2.0x", True),
        Target("flat", "+30%", False),
        Target("peer", "not installed", None),
    ]
    return Section("demo", "Demo", "What is timed.", [table], targets, ["a note"])


def test_a_section_survives_the_json_round_trip() -> None:
    section = _section()
    assert section_from_json(json.loads(json.dumps(section.to_json()))) == section


def test_the_page_shows_every_target_verdict_and_formats_cells() -> None:
    doc = report.results_document([_section()], "quick", datetime.now(UTC), [0.5, 0.4, 0.3])
    page = report.render_page(doc)
    assert "| Demo | fast | 2.0x | met |" in page
    assert "| Demo | flat | +30% | **missed** |" in page
    assert "| Demo | peer | not installed | not judged |" in page
    assert "| 1,000 | 1.23 |" in page
    assert "| 10 | – |" in page  # not measured is shown, not a zero
    assert "- a note" in page


def test_interleaving_alternates_the_order_of_the_sides() -> None:
    order: list[str] = []

    def side(name: str) -> float:
        order.append(name)
        return float(len(order))

    stats = interleaved({"a": lambda: side("a"), "b": lambda: side("b")}, 3)
    assert order == ["a", "b", "b", "a", "a", "b"]
    assert stats["a"] == Stats(median=4.0, min=1.0, max=5.0, n=3)


def test_a_quick_run_writes_only_where_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.json"
    assert bench_main.main(["--quick", "--only", "canonical", "--out", str(out)]) == 0
    doc = report.load(out)
    assert doc["scale"] == "quick"
    assert [s["key"] for s in doc["sections"]] == ["canonical"]
    assert "# Performance" in capsys.readouterr().out


def test_the_committed_results_are_a_full_run_of_every_benchmark() -> None:
    """The docs page shows benchmarks/results.json: it must come from `make bench`, with every benchmark."""
    doc = report.load()
    assert doc["scale"] == "full"
    assert [s["key"] for s in doc["sections"]] == list(bench_main.BENCHMARKS)
    assert all(s["targets"] for s in doc["sections"]), "every benchmark judges at least one target"
    report.render_page(doc)
