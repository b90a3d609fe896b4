"""The Python adapter kit (``roc_conformance.adapter``): the step interpreter, scenario parsing, the scripted
model, the trace helpers, the service's error mapping, handles, locks and optional RPCs, ``serve`` and
``--target cmd:...``.

The service is called in process (its methods do not use the gRPC context) except where the point is the
process: ``serve`` printing its address, a ``cmd:`` target started and restarted by the runner.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from roc_conformance import adapter as kit
from roc_conformance import wire
from roc_conformance.adapter import (
    AdapterError,
    AdapterInfo,
    DirectToolCall,
    HarnessService,
    InvokeInput,
    Refused,
    RuntimeAdapter,
    Scenario,
    ScenarioError,
    ScriptedModel,
    StateView,
    ToolFailure,
    Trace,
    parse_scenario,
    run_hook,
    run_program,
    tool_result_content,
)
from roc_conformance.adapter.programs import HOOK_OPS, TOOL_OPS, parse_steps
from roc_conformance.client import HARNESS_PROTOCOL_VERSION, HarnessClient
from roc_conformance.errors import HarnessUnavailable
from roc_conformance.pb import jsonmap
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_conformance.target import LISTENING_PREFIX, resolve

# Safety net only: how long a thread may wait for another to reach a point. Never a measure of speed.
SAFETY_SECONDS = 60.0
ECHO = Path(__file__).with_name("kit_echo_adapter.py")

SPEC: dict[str, Any] = {
    "agentId": "a1",
    "executor": "sequential",
    "model": {
        "turns": [
            {"content": [{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}]},
            {"content": [{"text": "done"}]},
        ]
    },
    "tools": [{"name": "ask", "steps": [{"interrupt": {"name": "q"}}, {"return": {"value": 1}}]}],
    "hooks": [
        {"event": "BeforeToolCall", "toolName": "ask", "steps": [{"cancel": {"message": "no"}}]},
        {"event": "AfterTools", "steps": [{"setState": {"key": "k", "value": 2}}]},
    ],
    "state": {"s": 1},
}


def state_view(store: dict[str, Any]) -> StateView:
    return StateView(get=store.get, has=lambda k: k in store, put=store.__setitem__)


# -- the step interpreter ------------------------------------------------------------------------------


def test_a_tool_program_collects_answers_and_returns_the_result_json():
    steps = parse_steps(
        [
            {"interrupt": {"name": "a", "reason": {"r": 1}}},
            {"setState": {"key": "got", "fromAnswer": True}},
            {"interrupt": {"name": "b", "reasonFromState": "got"}},
            {"return": {"value": "v"}},
            {"interrupt": {"name": "never"}},
        ],
        TOOL_OPS,
        "tool",
    )
    asked: list[tuple[str, Any]] = []
    answers = iter(["yes", "again"])

    def ask(name: str, reason: Any) -> Any:
        asked.append((name, reason))
        return next(answers)

    state: dict[str, Any] = {}
    run = run_program(steps, interrupt=ask, state=state_view(state))
    assert asked == [("a", {"r": 1}), ("b", "yes")]  # the second reason is read from the state at the raise
    assert state == {"got": "yes"}
    assert tool_result_content(run) == [{"json": {"answers": ["yes", "again"], "value": "v"}}]


def test_a_fail_step_raises_tool_failure_with_its_message():
    run = run_program(
        parse_steps([{"fail": {"message": "bad"}}], TOOL_OPS, "t"), interrupt=None, state=state_view({})
    )
    with pytest.raises(ToolFailure, match=r"^bad$"):
        tool_result_content(run)


def test_skip_if_state_ends_the_program_and_cancel_if_checks_the_last_answer():
    steps = parse_steps(
        [
            {"skipIfState": {"key": "done", "equals": True}},
            {"interrupt": {"name": "q"}},
            {"cancelIf": {"answerNotIn": ["ok", 1], "message": "refused"}},
        ],
        HOOK_OPS,
        "hook",
    )
    assert run_program(steps, interrupt=None, state=state_view({"done": True})).end == "skipped"
    assert run_program(steps, interrupt=lambda n, r: 1.0, state=state_view({})).cancel is None  # 1 == 1.0
    assert run_program(steps, interrupt=lambda n, r: True, state=state_view({})).cancel == "refused"  # not 1


def test_an_interrupt_without_a_raise_api_is_a_scenario_error():
    steps = parse_steps([{"interrupt": {"name": "q"}}], TOOL_OPS, "t")
    with pytest.raises(ScenarioError, match="cannot interrupt"):
        run_program(steps, interrupt=None, state=state_view({}))


# -- scenario parsing ----------------------------------------------------------------------------------


def test_a_spec_parses_into_plain_data():
    scenario = parse_scenario(SPEC)
    assert scenario.agent_id == "a1"
    assert scenario.executor == "sequential"
    assert scenario.turns == (
        [{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}],
        [{"text": "done"}],
    )
    assert [t.name for t in scenario.tools] == ["ask"]
    first, second = scenario.hooks
    assert (first.index, first.event, first.tool_name, first.interruptible, first.per_tool) == (
        0,
        "BeforeToolCall",
        "ask",
        True,
        True,
    )
    assert (second.index, second.event, second.tool_name, second.interruptible) == (
        1,
        "AfterTools",
        None,
        False,
    )
    assert first.applies_to(["ask"])
    assert not first.applies_to(["other"])
    assert second.applies_to(["anything"])
    assert scenario.state == {"s": 1}
    assert scenario.integrity is None
    assert scenario.session is None
    bound = parse_scenario(
        {**SPEC, "integrity": {"keyId": "k", "secret": "s"}, "session": {"store": "a", "sessionId": "x"}}
    )
    assert (bound.integrity.key_id, bound.integrity.secret) == ("k", b"s")
    assert (bound.session.store, bound.session.session_id) == ("a", "x")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"executor": "parallel"}, "executor must be"),
        ({"tools": [{"name": "a", "steps": []}, {"name": "a", "steps": []}]}, "duplicate name"),
        ({"tools": [{"name": "a", "steps": [{"cancel": {}}]}]}, "not allowed here"),
        ({"hooks": [{"event": "AfterEverything", "steps": []}]}, "unknown event"),
        (
            {"hooks": [{"event": "AfterToolCall", "steps": [{"interrupt": {"name": "q"}}]}]},
            "not allowed here",
        ),
        ({"state": [1]}, "state must be a JSON object"),
        ({"integrity": {"keyId": "k", "secret": ""}}, "must not be empty"),
        ({"session": {"store": "a"}}, "session needs a store and a sessionId"),
        ({"model": {"turns": [{"content": "text"}]}}, r"model.turns\[0\].content must be a list"),
    ],
)
def test_a_bad_spec_is_a_scenario_error(change, message):
    with pytest.raises(ScenarioError, match=message):
        parse_scenario({**SPEC, **change})


def test_an_empty_interrupt_name_passes_through_for_the_runtime_to_refuse():
    spec = {**SPEC, "tools": [{"name": "ask", "steps": [{"interrupt": {"name": ""}}]}]}
    assert parse_scenario(spec).tools[0].steps[0].args["name"] == ""


# -- the scripted model and the trace ------------------------------------------------------------------


def test_the_scripted_model_answers_its_turns_in_order_then_exhausts():
    trace = Trace()
    model = ScriptedModel(parse_scenario(SPEC).turns, trace, offset=0)
    first, second, third = model.next_reply(), model.next_reply(), model.next_reply()
    assert (first.turn, first.stop_reason) == (0, "tool_use")
    assert (second.content, second.stop_reason) == ([{"text": "done"}], "end_turn")
    assert (third.content, third.stop_reason, third.exhausted) == (
        [{"text": "script exhausted"}],
        "end_turn",
        True,
    )
    assert trace.take() == [{"kind": "model_call", "turn": t} for t in (0, 1, 2)]
    restored = ScriptedModel(parse_scenario(SPEC).turns, trace, offset=1)
    assert restored.next_reply().turn == 1
    first.content.append({"text": "changed"})  # a runtime that changes what it got changes no later answer
    assert (
        ScriptedModel(parse_scenario(SPEC).turns, trace).next_reply().content == parse_scenario(SPEC).turns[0]
    )


class Pause(BaseException):
    """Stands in for a runtime's pause signal."""


@pytest.mark.parametrize(
    ("raised", "outcome"), [(None, "returned"), (ToolFailure("x"), "failed"), (Pause(), "interrupted")]
)
def test_tool_body_records_start_and_the_outcome(raised, outcome):
    trace = Trace()
    caught: BaseException | None = None
    try:
        with trace.tool_body("t1", "ask"):
            if raised is not None:
                raise raised
    except (ToolFailure, Pause) as exc:
        caught = exc
    assert caught is raised  # the exception reaches the runtime unchanged
    assert trace.take() == [
        {"kind": "tool_start", "toolUseId": "t1", "name": "ask"},
        {"kind": "tool_end", "toolUseId": "t1", "outcome": outcome},
    ]


def test_run_hook_records_the_callback_then_runs_its_program():
    trace = Trace()
    before_call, after_tools = parse_scenario(SPEC).hooks
    state: dict[str, Any] = {}
    run = run_hook(trace, before_call, interrupt=None, state=state_view(state), tool_use_id="t1")
    assert run.cancel == "no"
    run_hook(trace, after_tools, interrupt=None, state=state_view(state), tool_use_id="t1")
    assert state == {"k": 2}
    assert trace.take() == [
        {"kind": "hook_callback", "event": "BeforeToolCall", "hookIndex": 0, "toolUseId": "t1"},
        {"kind": "hook_callback", "event": "AfterTools", "hookIndex": 1},  # not a per-tool event: no id
    ]


# -- the service -------------------------------------------------------------------------------------


class RuntimeRefusal(Exception):
    """A runtime's own error type, mapped by ``error_json``."""


class FakeAdapter(RuntimeAdapter[dict[str, Any]]):
    """Does what the prompt says: answer, refuse, crash, fail as an adapter; implements no optional RPC."""

    def __init__(self) -> None:
        self.disposed: list[dict[str, Any]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.order: list[str] = []

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            name="fake",
            version="1",
            adapter="fake-adapter 1",
            profiles=("core",),
            not_applicable={"hooks": "no hooks here"},
            capabilities=("inspect",),
            homepage="https://example.org",
        )

    def create(self, scenario: Scenario, trace: Trace) -> dict[str, Any]:
        if scenario.agent_id == "refuse":
            raise Refused({"code": "SNAPSHOT_INVALID", "message": "bad session"})
        if scenario.agent_id == "unmappable":
            raise Refused({"code": "NO_SUCH_CODE", "message": "?"})
        if scenario.agent_id == "bug":
            raise KeyError("oops")
        return {"scenario": scenario, "messages": [], "model": ScriptedModel(scenario.turns, trace)}

    def invoke(self, agent: dict[str, Any], inp: InvokeInput) -> dict[str, Any]:
        prompt = inp.value
        if prompt == "refuse":
            raise Refused({"code": "INTERRUPT_PENDING", "message": "answer first"})
        if prompt == "native":
            raise RuntimeRefusal("native")
        if prompt == "crash":
            raise ZeroDivisionError("kaput")
        if prompt == "adapter":
            raise AdapterError("the adapter lost track")
        if prompt == "hold":
            self.order.append("hold-in")
            self.entered.set()
            assert self.release.wait(SAFETY_SECONDS)
            self.order.append("hold-out")
        else:
            self.order.append(f"{prompt}-in")
        reply = agent["model"].next_reply()
        message = {"role": "assistant", "content": reply.content}
        agent["messages"].append(message)
        return {"stopReason": "end_turn", "message": message, "interrupts": []}

    def messages(self, agent: dict[str, Any]) -> list[Any]:
        return list(agent["messages"])

    def state(self, agent: dict[str, Any]) -> dict[str, Any]:
        return dict(agent["scenario"].state)

    def error_json(self, exc: Exception) -> dict[str, Any] | None:
        if isinstance(exc, RuntimeRefusal):
            return {"code": "INVALID_RESPONSE", "message": str(exc)}
        return None

    def dispose(self, agent: dict[str, Any]) -> None:
        self.disposed.append(agent)


def create(service: HarnessService, spec: dict[str, Any]) -> dict[str, Any]:
    return dict(
        jsonmap.from_proto(
            service.CreateAgent(hpb.CreateAgentRequest(spec=wire.agent_spec_to_proto(spec)), None)
        )
    )


def invoke(service: HarnessService, agent: str, inp: dict[str, Any]) -> dict[str, Any]:
    return dict(jsonmap.from_proto(service.Invoke(wire.invoke_request(agent, inp), None)))


def test_describe_answers_the_adapter_info():
    reply = HarnessService(FakeAdapter()).Describe(hpb.DescribeRequest(), None)
    assert reply.harness_protocol_version == HARNESS_PROTOCOL_VERSION
    assert (reply.implementation.name, reply.implementation.adapter) == ("fake", "fake-adapter 1")
    assert reply.implementation.language == "python"
    assert reply.implementation.language_version  # the running interpreter's, by default
    assert list(reply.profiles) == ["core"]
    assert dict(reply.not_applicable) == {"hooks": "no hooks here"}
    assert list(reply.capabilities) == ["inspect"]
    assert list(reply.spec_versions) == ["1.0"]


def test_an_invoke_reply_is_framed_by_invocation_start_and_end():
    service = HarnessService(FakeAdapter())
    agent = create(service, SPEC)["agent"]
    reply = invoke(service, agent, {"prompt": "go"})
    assert reply["result"]["stopReason"] == "end_turn"
    assert reply["trace"] == [
        {"kind": "invocation_start"},
        {"kind": "model_call", "turn": 0},
        {"kind": "invocation_end", "stopReason": "end_turn"},
    ]
    assert reply["messages"] == [reply["result"]["message"]]
    assert reply["state"] == {"s": 1}


def test_runtime_refusals_are_errors_and_other_exceptions_are_crashes():
    service = HarnessService(FakeAdapter())
    agent = create(service, SPEC)["agent"]
    refused = invoke(service, agent, {"prompt": "refuse"})
    assert refused["error"] == {"code": "INTERRUPT_PENDING", "message": "answer first"}
    assert refused["trace"] == [{"kind": "invocation_start"}]  # no invocation_end without a result
    native = invoke(service, agent, {"prompt": "native"})
    assert native["error"]["code"] == "INVALID_RESPONSE"
    crashed = invoke(service, agent, {"prompt": "crash"})
    assert crashed["crash"]["type"] == "ZeroDivisionError"
    assert crashed["crash"]["message"] == "kaput"
    assert "Traceback" in crashed["crash"]["details"]
    assert not {"result", "error"} & set(crashed)


def test_adapter_faults_are_harness_errors():
    service = HarnessService(FakeAdapter())
    agent = create(service, SPEC)["agent"]
    fault = invoke(service, agent, {"prompt": "adapter"})
    assert not {"result", "error", "crash", "toolResult"} & set(fault), fault
    assert fault["harnessError"]["message"] == "the adapter lost track"
    unknown = invoke(service, "agent-nope", {"prompt": "go"})
    assert unknown["harnessError"]["message"] == "unknown agent handle 'agent-nope'"
    twice = [{"name": "a", "steps": []}, {"name": "a", "steps": []}]
    bad = create(service, {**SPEC, "tools": twice})
    assert set(bad) == {"harnessError"}
    assert bad["harnessError"]["message"].startswith("cannot build scenario: tools[1]: missing or duplicate")
    bug = create(service, {**SPEC, "agentId": "bug"})
    assert set(bug) == {"harnessError"}
    assert "KeyError" in bug["harnessError"]["message"]
    unmappable = create(service, {**SPEC, "agentId": "unmappable"})
    assert unmappable["harnessError"]["message"].startswith("cannot encode the runtime's error")
    assert create(service, {**SPEC, "agentId": "refuse"}) == {
        "error": {"code": "SNAPSHOT_INVALID", "message": "bad session"}
    }


def test_optional_rpcs_the_adapter_lacks_answer_a_clear_harness_error():
    service = HarnessService(FakeAdapter())
    agent = create(service, SPEC)["agent"]
    snap = service.TakeSnapshot(hpb.TakeSnapshotRequest(agent=agent), None)
    assert "does not implement TakeSnapshot" in snap.harness_error.message
    restored = service.RestoreAgent(
        hpb.RestoreAgentRequest(snapshot_json="{}", spec=wire.agent_spec_to_proto(SPEC)), None
    )
    assert "does not implement RestoreAgent" in restored.harness_error.message
    inspected = service.InspectAgent(hpb.InspectAgentRequest(agent=agent), None)
    assert "does not implement InspectAgent" in inspected.harness_error.message
    direct = invoke(service, agent, {"directToolCall": {"name": "ask", "input": {}}})
    assert "does not implement direct tool calls" in direct["harnessError"]["message"]
    for reply in (
        service.TakeSnapshot(hpb.TakeSnapshotRequest(agent="agent-nope"), None),
        service.InspectAgent(hpb.InspectAgentRequest(agent="agent-nope"), None),
    ):
        assert reply.harness_error.message == "unknown agent handle 'agent-nope'"


def test_the_direct_tool_call_reaches_an_adapter_that_implements_it():
    class Direct(FakeAdapter):
        def call_tool(self, agent: dict[str, Any], call: DirectToolCall) -> dict[str, Any]:
            return {
                "toolUseId": "d1",
                "status": "success",
                "content": [{"json": {"called": call.name, **call.input}}],
            }

    service = HarnessService(Direct())
    agent = create(service, SPEC)["agent"]
    reply = invoke(service, agent, {"directToolCall": {"name": "ask", "input": {"n": 1}}})
    assert reply["toolResult"]["content"] == [{"json": {"called": "ask", "n": 1}}]
    assert reply["trace"] == [{"kind": "invocation_start"}]  # a tool result is not an AgentResult: no end


def test_live_agents_are_capped_and_dispose_frees_a_place():
    adapter = FakeAdapter()
    service = HarnessService(adapter, max_live_agents=2)
    first, _ = create(service, SPEC)["agent"], create(service, SPEC)["agent"]
    over = create(service, SPEC)
    assert set(over) == {"harnessError"}
    assert "cap of 2" in over["harnessError"]["message"]
    restored = service.RestoreAgent(
        hpb.RestoreAgentRequest(snapshot_json="{}", spec=wire.agent_spec_to_proto(SPEC)), None
    )
    assert "cap of 2" in restored.harness_error.message
    service.DisposeAgent(hpb.DisposeAgentRequest(agent=first), None)
    assert len(adapter.disposed) == 1
    assert service.live_agents() == 1
    assert "agent" in create(service, SPEC)
    assert invoke(service, first, {"prompt": "go"})["harnessError"]["message"].startswith(
        "unknown agent handle"
    )


def _run_in_thread(name: str, target: Any) -> threading.Thread:
    thread = threading.Thread(target=target, name=name)
    thread.start()
    return thread


def test_invokes_on_one_handle_run_one_after_the_other():
    """A holds inside the runtime until B has called Invoke (and a moment longer, room for B to get in if
    the service let it). B must start only after A's reply: each reply has only its own events."""
    adapter = FakeAdapter()
    adapter.release.clear()
    service = HarnessService(adapter)
    agent = create(service, SPEC)["agent"]
    replies: dict[str, dict[str, Any]] = {}
    b_called = threading.Event()

    def run_b() -> None:
        b_called.set()
        replies["B"] = invoke(service, agent, {"prompt": "b"})

    a = _run_in_thread("A", lambda: replies.__setitem__("A", invoke(service, agent, {"prompt": "hold"})))
    assert adapter.entered.wait(SAFETY_SECONDS)
    b = _run_in_thread("B", run_b)
    assert b_called.wait(SAFETY_SECONDS)
    threading.Event().wait(0.2)  # only gives a missing lock room to show; nothing is asserted about time
    adapter.release.set()
    a.join(SAFETY_SECONDS)
    b.join(SAFETY_SECONDS)
    assert adapter.order == ["hold-in", "hold-out", "b-in"]
    assert replies["A"]["trace"][1] == {"kind": "model_call", "turn": 0}
    assert replies["B"]["trace"][1] == {"kind": "model_call", "turn": 1}
    for reply in replies.values():
        assert [e["kind"] for e in reply["trace"]].count("invocation_start") == 1


def test_invokes_on_different_handles_do_not_wait_for_each_other():
    adapter = FakeAdapter()
    adapter.release.clear()
    service = HarnessService(adapter)
    held, other = create(service, SPEC)["agent"], create(service, SPEC)["agent"]
    a = _run_in_thread("A", lambda: invoke(service, held, {"prompt": "hold"}))
    assert adapter.entered.wait(SAFETY_SECONDS)
    assert invoke(service, other, {"prompt": "free"})["result"]["stopReason"] == "end_turn"  # while A holds
    adapter.release.set()
    a.join(SAFETY_SECONDS)
    assert adapter.order == ["hold-in", "free-in", "hold-out"]


# -- serve and cmd: targets ----------------------------------------------------------------------------


def test_serve_prints_the_listening_line_and_stops_on_sigterm():
    proc = subprocess.Popen(
        [sys.executable, str(ECHO), "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ECHO.parent
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(LISTENING_PREFIX), line
        address = line[len(LISTENING_PREFIX) :].strip()
        with HarnessClient.connect(address) as client:
            assert client.describe().implementation["name"] == "echo"
            agent = client.create_agent({**SPEC, "tools": [], "hooks": []})
            assert client.invoke(agent, {"prompt": "hi"})["result"]["message"]["content"][0] == {
                "toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}
            }
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(SAFETY_SECONDS) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_cmd_target_is_started_and_restarted_like_the_reference():
    target = resolve(f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ECHO))} --port 0")
    try:
        assert target.managed
        with HarnessClient.connect(target.address) as client:
            assert client.describe().implementation["adapter"] == "kit-echo 0.0.1"
        first = target.process
        target.restart()
        assert target.process is not first
        assert target.restarts == 1
        with HarnessClient.connect(target.address) as client:
            assert client.describe().implementation["name"] == "echo"
    finally:
        target.stop()


def test_bad_cmd_targets_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="names no command"):
        resolve("cmd:   ")
    with pytest.raises(ValueError, match="cannot split"):
        resolve("cmd:python 'unclosed")
    with pytest.raises(HarnessUnavailable, match="cannot start"):
        resolve("cmd:/nonexistent/roc-adapter --port 0")


def test_the_kit_declares_its_version_and_public_names():
    assert kit.KIT_VERSION == "1.3.0"
    assert all(hasattr(kit, name) for name in kit.__all__)
