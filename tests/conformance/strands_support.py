"""What the two Strands adapter tests share: the smoke run, a client of the adapter, pausing the snapshot
scenario through the harness, taking its snapshot, answering every interrupt, and the reference continuing
a snapshot (its own or the SDK's)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from roc_conformance.checks.snapshot_support import two_tool_scenario
from roc_conformance.client import HarnessClient
from roc_conformance.target import start_managed
from roc_reference.harness.build import build_agent, restore_agent

ROOT = Path(__file__).resolve().parents[2]


def smoke(command: list[str]) -> tuple[int, str]:
    """``roc-conformance smoke`` against the adapter started by ``command``: (exit code, its output)."""
    target = "cmd:" + " ".join(command)
    smoke = [sys.executable, "-m", "roc_conformance.cli", "smoke", "--target", target]
    try:
        done = subprocess.run(smoke, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"smoke did not finish in 300 s: {exc.stdout!r}\n{exc.stderr!r}")
    return done.returncode, done.stdout + done.stderr


@contextmanager
def connected(command: list[str], label: str) -> Iterator[HarnessClient]:
    """A client of the adapter started by ``command``, stopped afterwards."""
    target = start_managed(command, label)
    client = HarnessClient.connect(target.address)
    try:
        yield client
    finally:
        client.close()
        target.stop()


def paused(client: HarnessClient, agent_id: str = "snap") -> tuple[dict[str, Any], str, dict[str, Any]]:
    """The snapshot checks' two-tool scenario, paused: (spec, agent handle, the Invoke reply)."""
    spec = two_tool_scenario(agent_id=agent_id)
    agent = client.create_agent(spec)
    out = client.invoke(agent, {"prompt": "go"})
    assert out["result"]["stopReason"] == "interrupt", out
    return spec, agent, out


def snapshot_of(client: HarnessClient, agent: str) -> dict[str, Any]:
    taken = client.take_snapshot(agent)
    assert taken.get("snapshot") is not None, taken
    doc: dict[str, Any] = taken["snapshot"]
    return doc


def answer_all(out: dict[str, Any], value: Any) -> dict[str, Any]:
    """A resume answering every interrupt of an Invoke reply with ``value``."""
    ids = [i["id"] for i in out["result"]["interrupts"]]
    return {"interruptResponses": [{"interruptId": i, "response": value} for i in ids]}


def reference_continues(snapshot: dict[str, Any], spec: dict[str, Any], answers: dict[str, Any]) -> Any:
    """(result, history, state) of the reference restoring ``snapshot`` and resuming with ``answers``."""
    built = restore_agent(snapshot, spec, model_turn_offset=1)
    result = built.agent.invoke([{"interruptResponse": r} for r in answers["interruptResponses"]])
    return result.to_json(), built.agent.messages_json(), built.agent.state.to_dict()


def reference_own_continuation(spec: dict[str, Any], value: Any) -> Any:
    """What the reference reaches through its own snapshot of ``spec``, answering all with ``value``."""
    built = build_agent(spec)
    built.agent.invoke("go")
    own = built.agent.take_snapshot()
    pending = [i for i in own["interruptState"]["interrupts"] if "response" not in i]
    answers = {"interruptResponses": [{"interruptId": i["id"], "response": value} for i in pending]}
    return reference_continues(own, spec, answers)
