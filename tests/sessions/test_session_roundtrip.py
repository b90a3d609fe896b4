"""Round trip: pausing, snapshotting, restoring in another Python process and answering there reaches the
same outcome as answering in-process — same results, messages, state and tool/hook execution counts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sessionapp import responses_for, scenario_agent

APP = Path(__file__).with_name("sessionapp.py")
MAX_ROUNDS = 40  # at most 6 tool uses x (1 approval + 2 questions) pauses, plus the end


class Worker:
    """A long-lived Python process that builds a fresh agent for every command (no memory shared with us)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(APP), "worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def run(self, command: dict) -> dict:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "worker died"
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def workers():
    pair = (Worker(), Worker())
    yield pair
    for worker in pair:
        worker.close()


@st.composite
def scenarios(draw):
    names = draw(
        st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=3, unique=True)
    )
    tools = {
        name: {
            "asks": draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), max_size=2, unique=True)),
            "hook": draw(st.booleans()),
        }
        for name in names
    }
    turn_count = draw(st.integers(1, 2))
    turns = []
    for t in range(turn_count):
        picked = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
        turns.append([{"tool": name, "id": f"u{t}_{k}"} for k, name in enumerate(picked)])
    return {"executor": draw(st.sampled_from(["sequential", "concurrent"])), "turns": turns, "tools": tools}


def run_in_process(scenario, partial):
    counts: Counter[str] = Counter()
    agent = scenario_agent(scenario, counts)
    results = [agent("go").to_json()]
    while results[-1]["stopReason"] == "interrupt":
        assert len(results) < MAX_ROUNDS
        results.append(agent(responses_for(results[-1], len(results), partial)).to_json())
    final = agent.take_snapshot()
    return results, final, counts


def run_across_processes(scenario, partial, workers):
    """Each answer is given in the other process, to an agent restored from the last snapshot."""
    counts: Counter[str] = Counter()
    reply = workers[0].run({"scenario": scenario, "input": "go"})
    counts.update(reply["counts"])
    results = [reply["result"]]
    while results[-1]["stopReason"] == "interrupt":
        assert len(results) < MAX_ROUNDS
        snapshot = json.loads(json.dumps(reply["snapshot"]))  # only JSON crosses the boundary
        responses = responses_for(results[-1], len(results), partial)
        worker = workers[len(results) % 2]
        reply = worker.run({"scenario": scenario, "input": responses, "snapshot": snapshot})
        assert "error" not in reply, reply
        counts.update(reply["counts"])
        results.append(reply["result"])
    return results, reply["snapshot"], counts


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-001", "ROC-SESSION-002", "ROC-SESSION-003", "ROC-SESSION-005")
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scenario=scenarios(), partial=st.booleans())
def test_restoring_in_another_process_reaches_the_same_outcome(workers, scenario, partial):
    local_results, local_final, local_counts = run_in_process(scenario, partial)
    remote_results, remote_final, remote_counts = run_across_processes(scenario, partial, workers)
    assert remote_results == local_results  # every intermediate result too, interrupt ids included
    assert remote_final["agent"] == local_final["agent"]  # messages and state
    assert remote_final["interruptState"] == local_final["interruptState"]
    assert remote_counts == local_counts  # nothing ran more (or less) often because of the restore


def test_the_property_really_pauses():
    """Guard against a vacuous property: a typical scenario pauses several times before it ends."""
    scenario = {
        "executor": "sequential",
        "turns": [[{"tool": "alpha", "id": "u0_0"}, {"tool": "beta", "id": "u0_1"}]],
        "tools": {"alpha": {"asks": ["q1", "q2"], "hook": True}, "beta": {"asks": [], "hook": True}},
    }
    results, final, counts = run_in_process(scenario, partial=False)
    assert [r["stopReason"] for r in results] == ["interrupt"] * 4 + ["end_turn"]
    assert counts["tool:alpha"] == 3  # replayed once per answered question
    assert final["agent"]["state"] == {"approved:u0_0": "y", "approved:u0_1": "y"}
