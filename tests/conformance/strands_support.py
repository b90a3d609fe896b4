"""What the two Strands adapter tests share: pausing the snapshot scenario through the harness, taking its
snapshot, answering every interrupt, and the reference continuing a snapshot (its own or the SDK's)."""

from __future__ import annotations

from typing import Any

from roc_conformance.checks.snapshot_support import two_tool_scenario
from roc_conformance.client import HarnessClient
from roc_reference.harness.build import build_agent, restore_agent


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
