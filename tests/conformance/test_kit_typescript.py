"""The TypeScript adapter kit (conformance/adapters/kit-typescript) end to end: its example adapter, started
as a managed target, is driven by the suite's own client and by ``roc-conformance smoke``, and its broken
modes are reported as adapter faults.

``npm test`` (the kit's own node tests: the JSON mapping, the step interpreter, the service, the freshness of
the generated stubs) runs too. Skipped, with the reason, when Node.js 20+ or npm is not installed. ``npm ci``
runs only when node_modules is missing or older than package-lock.json, as for the canonical-form test.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from node_kit import KIT, checked, ready_node, run
from roc_conformance.client import HarnessClient, Timeouts
from roc_conformance.errors import AdapterError, HarnessTimeout
from roc_conformance.target import Target, start_managed

EXAMPLE = KIT / "examples" / "minimal.ts"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def node() -> str:
    """The node binary, with the kit's locked dependencies installed."""
    return ready_node()


def _command(node: str) -> list[str]:
    # One process (node with tsx's loader), not `npx tsx`: the runner stops the process it started, and a
    # wrapper's child would outlive it holding the stdout pipe.
    loader = (KIT / "node_modules" / "tsx" / "dist" / "loader.mjs").as_uri()
    return [node, "--import", loader, str(EXAMPLE), "--host", "127.0.0.1", "--port", "0"]


def _start(node: str, broken: str | None = None) -> Target:
    previous = os.environ.pop("ROC_EXAMPLE_BROKEN", None)
    if broken is not None:
        os.environ["ROC_EXAMPLE_BROKEN"] = broken  # the spawned adapter inherits the environment
    try:
        return start_managed(_command(node), f"kit-typescript example ({broken or 'healthy'})")
    finally:
        os.environ.pop("ROC_EXAMPLE_BROKEN", None)
        if previous is not None:
            os.environ["ROC_EXAMPLE_BROKEN"] = previous


@pytest.fixture(scope="module")
def client(node: str) -> Iterator[HarnessClient]:
    target = _start(node)
    try:
        with HarnessClient.connect(target.address) as harness:
            yield harness
    finally:
        target.stop()


def _fresh(client: HarnessClient) -> HarnessClient:
    """The shared client with any previous fault forgotten (a fault latches every later call)."""
    client.reset_latch()
    return client


def _spec(steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """One tool ``x`` with these steps, used by the first of two scripted turns."""
    lead = {"text": "on it"}
    use = {"toolUse": {"toolUseId": "t1", "name": "x", "input": {"k": 1}}}
    return {
        "agentId": "a1",
        "executor": "sequential",
        "model": {"turns": [{"content": [lead, use]}, {"content": [{"text": "done"}]}]},
        "tools": [{"name": "x", "steps": steps}],
        "state": {"n": 1},
        **extra,
    }


def test_npm_test_passes(node: str) -> None:
    npm = shutil.which("npm")
    assert npm is not None
    checked([npm, "test"], timeout=600)


def test_describe_states_the_example_and_protocol_4(client: HarnessClient) -> None:
    description = _fresh(client).describe()
    assert description.harness_protocol_version == 4
    assert description.implementation["name"] == "roc-kit-minimal-example"
    assert description.implementation["language"] == "typescript"
    assert description.profiles == {"core", "sequential-executor", "direct-tool-call"}
    assert description.capabilities == {"inspect"}
    assert description.not_applicable == {"hooks": "the example runtime has no hook API"}


def test_a_prompt_with_a_tool_turn_is_traced_in_order_with_the_history(client: HarnessClient) -> None:
    harness = _fresh(client)
    agent = harness.create_agent(
        _spec([{"setState": {"key": "seen", "value": [1.5]}}, {"return": {"value": "v"}}])
    )
    reply = harness.invoke(agent, {"prompt": "hi"})
    assert reply["result"] == {
        "stopReason": "end_turn",
        "message": {"role": "assistant", "content": [{"text": "done"}]},
        "interrupts": [],
    }
    assert reply["trace"] == [
        {"kind": "invocation_start"},
        {"kind": "message_added", "role": "user"},
        {"kind": "model_call", "turn": 0},
        {"kind": "message_added", "role": "assistant"},
        {"kind": "tool_start", "toolUseId": "t1", "name": "x"},
        {"kind": "tool_end", "toolUseId": "t1", "outcome": "returned"},
        {"kind": "message_added", "role": "user"},
        {"kind": "model_call", "turn": 1},
        {"kind": "message_added", "role": "assistant"},
        {"kind": "invocation_end", "stopReason": "end_turn"},
    ]
    result = {"toolUseId": "t1", "status": "success", "content": [{"json": {"answers": [], "value": "v"}}]}
    assert reply["messages"] == [  # the runtime's trackingId extra is gone
        {"role": "user", "content": [{"text": "hi"}]},
        {
            "role": "assistant",
            "content": [{"text": "on it"}, {"toolUse": {"toolUseId": "t1", "name": "x", "input": {"k": 1}}}],
        },
        {"role": "user", "content": [{"toolResult": result}]},
        {"role": "assistant", "content": [{"text": "done"}]},
    ]
    assert reply["state"] == {"n": 1, "seen": [1.5]}
    assert harness.inspect(agent)["messages"] == reply["messages"]
    harness.dispose_agent(agent)


def test_a_failing_tool_and_a_direct_call(client: HarnessClient) -> None:
    harness = _fresh(client)
    agent = harness.create_agent(_spec([{"fail": {"message": "no luck"}}]))
    reply = harness.invoke(agent, {"prompt": "go"})
    tool_result = reply["messages"][2]["content"][0]["toolResult"]
    assert tool_result == {"toolUseId": "t1", "status": "error", "content": [{"text": "no luck"}]}
    assert {"kind": "tool_end", "toolUseId": "t1", "outcome": "failed"} in reply["trace"]
    direct = harness.invoke(agent, {"directToolCall": {"name": "x", "input": {}}})
    assert direct["toolResult"]["status"] == "error"
    assert [e["kind"] for e in direct["trace"]] == ["invocation_start", "tool_start", "tool_end"]
    harness.dispose_agent(agent)


def test_a_runtime_refusal_is_an_error_value(client: HarnessClient) -> None:
    harness = _fresh(client)
    agent = harness.create_agent(_spec([{"return": {}}]))
    reply = harness.invoke(agent, {"interruptResponses": [{"interruptId": "nope", "response": True}]})
    assert reply["error"]["code"] == "NOT_INTERRUPTED"
    assert reply["trace"] == [{"kind": "invocation_start"}]
    assert reply["messages"] == []
    harness.dispose_agent(agent)


def test_an_exception_in_the_runtime_is_a_crash(client: HarnessClient) -> None:
    harness = _fresh(client)
    agent = harness.create_agent(_spec([{"interrupt": {"name": "ask", "reason": "why"}}]))
    reply = harness.invoke(agent, {"prompt": "go"})
    assert reply["crash"]["type"] == "NoInterrupts"
    assert "no interrupts" in reply["crash"]["message"]
    assert reply["trace"][-1] == {"kind": "tool_end", "toolUseId": "t1", "outcome": "interrupted"}
    assert all(e["kind"] != "invocation_end" for e in reply["trace"])
    harness.dispose_agent(agent)


def test_adapter_problems_are_harness_errors(client: HarnessClient) -> None:
    harness = _fresh(client)
    agent = harness.create_agent(_spec([{"return": {}}]))
    harness.dispose_agent(agent)
    with pytest.raises(AdapterError, match="unknown agent handle"):
        harness.invoke(agent, {"prompt": "again"})
    with pytest.raises(AdapterError, match="no hooks"):
        _fresh(client).create_agent(_spec([], hooks=[{"event": "AfterTools", "steps": []}]))
    kept = _fresh(client).create_agent(_spec([{"return": {}}]))
    with pytest.raises(AdapterError, match="does not implement TakeSnapshot"):
        _fresh(client).take_snapshot(kept)
    _fresh(client).dispose_agent(kept)


def test_roc_conformance_smoke_passes_the_adapter(node: str) -> None:
    target = "cmd:" + shlex.join(_command(node))
    done = run([sys.executable, "-m", "roc_conformance.cli", "smoke", "--target", target], timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ADAPTER OK" in done.stdout


def test_a_reply_without_an_outcome_is_an_adapter_fault(node: str) -> None:
    target = _start(node, broken="malformed")
    try:
        with HarnessClient.connect(target.address) as harness:
            agent = harness.create_agent(_spec([{"return": {}}]))
            with pytest.raises(AdapterError, match="0 outcomes"):
                harness.invoke(agent, {"prompt": "hi"})
    finally:
        target.stop()
    env = {**os.environ, "ROC_EXAMPLE_BROKEN": "malformed"}
    smoke = [
        sys.executable,
        "-m",
        "roc_conformance.cli",
        "smoke",
        "--target",
        "cmd:" + shlex.join(_command(node)),
    ]
    done = run(smoke, timeout=300, env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "ADAPTER FAULT" in done.stdout


def test_an_invoke_that_never_answers_is_a_timeout(node: str) -> None:
    target = _start(node, broken="hang")
    try:
        with HarnessClient.connect(target.address, timeouts=Timeouts(invoke=2.0)) as harness:
            agent = harness.create_agent(_spec([{"return": {}}]))
            with pytest.raises(HarnessTimeout):
                harness.invoke(agent, {"prompt": "hi"})
    finally:
        target.stop()


def test_list_pending_is_a_harness_error_saying_it_is_not_supported(client: HarnessClient) -> None:
    # Protocol 4's new RPC over real gRPC: the kit claims no RoC 1.1 profile and says why it cannot list.
    fresh = _fresh(client)
    agent = fresh.create_agent(_spec([{"return": {}}]))
    out = fresh.list_pending(agent)
    assert set(out) == {"harness_error"}
    assert "not implement ListPending" in out["harness_error"]
