"""``reasonFromState``: an interrupt step whose reason is read from the agent state at the raise, so a replay
can pass a different reason at the same raise point (ROC-STOP-011). The oracle keeps the first reason and
names ROC-STOP-011 when an implementation reports the newer one; the wire and the reference adapter carry
the step as the scenario language defines it."""

from __future__ import annotations

import copy

import pytest
from roc_conformance import wire
from roc_conformance.errors import AdapterError
from roc_conformance.oracle import OracleAgent, Prompt, parse_spec, reqs
from roc_conformance.oracle.engine import MISSING, Registered, Response, Resume
from roc_conformance.oracle.fake import FakeImplementation
from roc_conformance.oracle.scenario import ScenarioError
from roc_conformance.oracle.vectors import load_vectors, run_vector
from roc_harness_support import client_for, serving

SPEC = {
    "agentId": "a1",
    "executor": "sequential",
    "model": {
        "turns": [
            {"content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}}]},
            {"content": [{"text": "end"}]},
        ]
    },
    "tools": [{"name": "x", "steps": [{"return": {"value": "done"}}]}],
    "hooks": [
        {
            "event": "BeforeTools",
            "steps": [{"interrupt": {"name": "b1"}}, {"setState": {"key": "topic", "fromAnswer": True}}],
        },
        {"event": "BeforeTools", "steps": [{"interrupt": {"name": "b2", "reasonFromState": "topic"}}]},
    ],
    "state": {"topic": "first"},
}
B1 = ("before_tools", None, "b1")
B2 = ("before_tools", None, "b2")


def _vector() -> dict:
    (vector,) = [v for v in load_vectors() if v["id"] == "reason-kept-on-replay"]
    return vector


@pytest.mark.req("ROC-STOP-011")
def test_the_oracle_keeps_the_first_reason_when_the_replay_passes_another():
    agent = OracleAgent(parse_spec(SPEC))
    first = agent.invoke(Prompt([{"text": "p"}]))
    assert {i.key: i.reason for i in first.interrupts}[B2] == "first"
    assert reqs.REASON_KEPT not in first.exercised
    second = agent.invoke(Resume((Response(B1, "second"),)))
    assert agent.state == {"topic": "second"}  # the replayed b2 was raised with "second"
    (only,) = second.interrupts
    assert (only.key, only.reason) == (B2, "first")
    assert reqs.REASON_KEPT in second.exercised
    assert second.reason_changed == {B2}


def test_an_unchanged_reason_on_replay_does_not_claim_the_rule():
    spec = copy.deepcopy(SPEC)
    spec["hooks"][0]["steps"] = [{"interrupt": {"name": "b1"}}]  # nothing writes the topic
    agent = OracleAgent(parse_spec(spec))
    agent.invoke(Prompt([{"text": "p"}]))
    second = agent.invoke(Resume((Response(B1, "second"),)))
    assert [i.reason for i in second.interrupts] == ["first"]
    assert reqs.REASON_KEPT not in second.exercised
    assert second.reason_changed == set()


def test_an_absent_state_key_raises_without_a_reason():
    spec = copy.deepcopy(SPEC)
    spec["state"] = {}
    first = OracleAgent(parse_spec(spec)).invoke(Prompt([{"text": "p"}]))
    assert {i.key: i.reason for i in first.interrupts}[B2] is MISSING


@pytest.mark.parametrize(
    "args",
    [{"name": "b2", "reason": "x", "reasonFromState": "topic"}, {"name": "b2", "reasonFromState": 3}],
)
def test_the_oracle_refuses_a_malformed_reason_source(args):
    spec = copy.deepcopy(SPEC)
    spec["hooks"][1]["steps"] = [{"interrupt": args}]
    with pytest.raises(ScenarioError):
        parse_spec(spec)


class _NewestReason(OracleAgent):
    """A broken agent: a re-raised pending interrupt takes the reason of the replay."""

    def _stop(self, raised, ids):
        for key, reason, source in raised:
            if key in self.interrupts and not self.interrupts[key].answered:
                self.interrupts[key] = Registered(key, copy.deepcopy(reason), source)
        return super()._stop(raised, ids)


class _NewestReasonFake(FakeImplementation):
    agent_factory = _NewestReason


@pytest.mark.req("ROC-STOP-011")
def test_the_vector_passes_a_conforming_fake_and_names_the_rule_for_the_newest_reason():
    vector = _vector()
    assert reqs.REASON_KEPT in vector["requirements"]
    found, _ = run_vector(vector, FakeImplementation())
    assert found == []
    found, _ = run_vector(vector, _NewestReasonFake())
    assert found
    assert any(reqs.REASON_KEPT in v.requirements for v in found), [str(v) for v in found]


def test_reason_from_state_round_trips_over_the_wire():
    assert wire.agent_spec_from_proto(wire.agent_spec_to_proto(SPEC)) == SPEC


@pytest.mark.req("ROC-STOP-011")
def test_the_reference_adapter_reads_the_reason_from_state_and_keeps_the_first():
    with serving() as (address, _), client_for(address) as client:
        agent = client.create_agent(SPEC)
        first = client.invoke(agent, {"prompt": "p"})["result"]
        reasons = {i["name"]: i.get("reason") for i in first["interrupts"]}
        assert reasons == {"b1": None, "b2": "first"}
        b1 = next(i["id"] for i in first["interrupts"] if i["name"] == "b1")
        second = client.invoke(agent, {"interruptResponses": [{"interruptId": b1, "response": "second"}]})
        assert second["state"] == {"topic": "second"}
        (b2,) = second["result"]["interrupts"]
        assert (b2["name"], b2["reason"]) == ("b2", "first")
        client.dispose_agent(agent)


def test_the_reference_adapter_refuses_both_reason_sources():
    spec = copy.deepcopy(SPEC)
    spec["hooks"][1]["steps"] = [{"interrupt": {"name": "b2", "reason": "x", "reasonFromState": "topic"}}]
    with serving() as (address, _), client_for(address) as client, pytest.raises(AdapterError):
        client.create_agent(spec)
