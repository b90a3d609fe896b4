"""The sessions benchmark runs at its smallest scale and measures what it claims (no timing is asserted)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import sessions
from benchmarks.common import Section


@pytest.fixture(scope="module")
def section() -> Section:
    return sessions.run("quick")


def test_every_size_has_a_row_in_every_table(section: Section) -> None:
    assert section.key == "sessions"
    assert section.method
    for table in section.tables:
        assert [row["messages"] for row in table.rows] == list(sessions.SIZES["quick"])
        keys = {column.key for column in table.columns}
        assert all(keys <= set(row) for row in table.rows)


def test_the_reference_side_did_the_work(section: Section) -> None:
    (saves, restores, space) = section.tables
    for row in saves.rows:
        assert 0 < row["save_min_ms"] <= row["save_ms"] <= row["save_max_ms"]
        assert row["invocation_ms"] >= row["save_ms"]  # each invocation contains its saves
        assert row["save_cpu_ms"] > 0
        assert row["store_signed_ms"] > 0  # quick signs at every size
        if row["messages"] == sessions.AGENT_SIGNED_AT["quick"]:
            assert row["agent_signed_ms"] > 0
        else:
            assert row["agent_signed_ms"] is None
        assert row["first_save_ms"] > 0
    for row in restores.rows:
        assert row["restore_ms"] > 0
        assert row["restore_us_per_message"] == pytest.approx(row["restore_ms"] * 1000 / row["messages"])
    for row in space.rows:
        # Two state documents and the two new log lines per cycle, whatever the history's length.
        assert 0 < row["written"] < 10_000
    # Quick measures the first size in-process (its peak RSS in a child) and the last in child processes.
    assert sessions.CHILD_SIZES["quick"] == sessions.SIZES["quick"][-1:]
    assert all(row["rss_mib"] is not None for row in space.rows)


def test_targets_are_judged_or_say_why_not(section: Section) -> None:
    flat, linear, peer = section.targets
    assert flat.met is not None
    assert linear.met is not None
    strands_rows = [row["strands_save_ms"] for row in section.tables[0].rows]
    if sessions._strands() is None:
        assert peer.met is None
        assert peer.measured == sessions.NOT_INSTALLED
        assert strands_rows == [None, None]
    else:
        assert all(value is not None and value > 0 for value in strands_rows)
        for row in section.tables[2].rows:
            assert 0 < row["strands_written"] < 10_000  # two message files and agent.json rewrites
            assert row["strands_rss_mib"] is not None


def test_the_history_leaves_no_tool_use_open() -> None:
    for size in (2, 10, 12, 1_000):
        messages = sessions.history(size)
        assert len(messages) == size
        open_uses = 0
        for message in messages:
            open_uses += sum("toolUse" in block for block in message["content"])
            open_uses -= sum("toolResult" in block for block in message["content"])
        assert open_uses == 0


def test_bytes_count_new_replaced_and_appended_files_only(tmp_path: Path) -> None:
    kept, appended, replaced = tmp_path / "kept", tmp_path / "appended", tmp_path / "replaced"
    kept.write_bytes(b"k" * 10)
    appended.write_bytes(b"a" * 10)
    replaced.write_bytes(b"r" * 10)
    before = sessions._tree(tmp_path)
    with appended.open("ab") as log:
        log.write(b"a" * 5)
    (tmp_path / "new").write_bytes(b"n" * 7)
    (tmp_path / "next").write_bytes(b"r" * 12)
    (tmp_path / "next").replace(replaced)
    kept.touch()  # a time change alone writes nothing
    assert sessions._written(before, sessions._tree(tmp_path)) == 5 + 7 + 12


def test_strands_message_files_written_directly_match_the_api(tmp_path: Path) -> None:
    pytest.importorskip("strands")
    messages = sessions.history(12)
    api, direct = sessions._Strands(tmp_path / "api", "s"), sessions._Strands(tmp_path / "direct", "s")
    api.build(messages)
    direct.build(messages, through_api=0, workers=2)  # the worker processes of the largest lengths
    stamps = re.compile(r'"(created|updated)_at": "[^"]*"')
    files = sorted(api.session_dir().rglob("message_*.json"))
    assert len(files) == len(messages)
    for path in files:
        twin = direct.session_dir() / path.relative_to(api.session_dir())
        assert stamps.sub("", twin.read_text(encoding="utf-8")) == stamps.sub(
            "", path.read_text(encoding="utf-8")
        )
