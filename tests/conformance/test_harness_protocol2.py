"""What harness protocol 2 introduced, over real gRPC: the handshake refuses an older adapter with every
change since its version, raw resume bodies reach the runtime unvalidated (and the reference answers each
malformed one with its RoC code), and InspectAgent shows the pending interrupt state without touching it.
Protocol 3's own changes are in test_harness_protocol3.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from roc_conformance import client as client_module
from roc_conformance.client import HARNESS_PROTOCOL_VERSION, PROTOCOL_CHANGES
from roc_conformance.errors import AdapterError, ProtocolMismatch
from roc_conformance.scenarios import agent_spec, interrupt, returns, text, tool, tool_use, turn
from roc_harness_support import VersionedServicer, client_for, serving, tool_spec
from roc_reference.harness.server import HarnessServicer

README = Path(__file__).resolve().parents[2] / "conformance" / "README.md"


# ---------------------------------------------------------------------------------------------
# Handshake


def test_the_handshake_check_notes_an_unknown_capability():
    from roc_conformance.checks import CheckContext, all_checks
    from roc_conformance.runner import run_check
    from roc_conformance.settings import CERTIFY

    servicer = HarnessServicer()
    original = servicer.Describe

    def describe(request, context):
        reply = original(request, context)
        reply.capabilities.append("inspection")  # misspelled: the inspect comparisons would be skipped
        return reply

    servicer.Describe = describe
    check = {c.name: c for c in all_checks()}["explicit:handshake"]
    with serving(servicer) as (address, _), client_for(address) as c:
        ctx = CheckContext(client=c, description=c.describe(), settings=CERTIFY)
        result = run_check(check, ctx)
    assert result.status.value == "PASS"
    assert any("['inspection']" in note for note in result.notes)


def test_a_protocol_1_adapter_is_refused_with_what_changed():
    with serving(VersionedServicer(1)) as (address, _), client_for(address) as c:
        with pytest.raises(ProtocolMismatch) as caught:
            c.describe()
        message = str(caught.value)
        assert f"adapter speaks harness protocol 1, suite speaks {HARNESS_PROTOCOL_VERSION}" in message
        for version in range(2, HARNESS_PROTOCOL_VERSION + 1):  # every change since protocol 1
            for change in PROTOCOL_CHANGES[version]:
                assert change in message
        # Fatal: the client latches, so nothing else is sent to an adapter that speaks another protocol.
        with pytest.raises(ProtocolMismatch):
            c.create_agent(tool_spec())


def test_a_run_against_a_protocol_1_adapter_is_fatal_exit_3_with_a_report(tmp_path, capsys):
    from roc_conformance.cli import main

    with serving(VersionedServicer(1)) as (address, _):
        args = ["run", "--target", address, "--report-dir", str(tmp_path), "--only", "explicit:handshake"]
        code = main([*args, "--quiet"])
    assert code == 3
    err = capsys.readouterr().err
    assert f"adapter speaks harness protocol 1, suite speaks {HARNESS_PROTOCOL_VERSION}" in err
    assert "InspectAgent" in err
    assert (tmp_path / "report.json").is_file()


def test_a_newer_adapter_is_told_to_use_a_newer_suite():
    newer = HARNESS_PROTOCOL_VERSION + 1
    message = client_module.protocol_mismatch_message(newer)
    assert f"adapter speaks harness protocol {newer}, suite speaks {HARNESS_PROTOCOL_VERSION}" in message
    assert f"use a suite that speaks protocol {newer}" in message


def test_the_readme_changelog_lists_the_same_changes():
    """One list, two places: the refusal message and the changelog adapter authors read must agree."""
    readme = README.read_text(encoding="utf-8")
    section = readme.split("### Harness protocol changelog", 1)[1]
    for version, changes in PROTOCOL_CHANGES.items():
        entry = section.split(f"**Protocol {version}**", 1)[1].split(f"**Protocol {version - 1}**", 1)[0]
        # Markdown may set names in code type; the words must be the same.
        items = [re.sub(r"\s+", " ", item).replace("`", "").strip() for item in re.split(r"\n- ", entry)[1:]]
        assert items == list(changes), version
    assert f"harness_protocol_version` ({HARNESS_PROTOCOL_VERSION} for this document)" in readme


# ---------------------------------------------------------------------------------------------
# Raw resume bodies: ROC-RESUME-004 / -005 through the harness


def _paused(client):
    agent = client.create_agent(tool_spec())
    first = client.invoke(agent, {"prompt": "go"})
    return agent, first["result"]["interrupts"][0]["id"], first["messages"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"response": "y"}, "INVALID_RESUME"),  # missing interruptId
        ({"interruptId": 5, "response": "y"}, "INVALID_RESUME"),  # not a string
        ({"interruptId": "", "response": "y"}, "INVALID_RESUME"),  # empty
        ({"interruptId": "ID", "response": "y", "status": "ok"}, "INVALID_RESUME"),  # extra member
        ("ID", "INVALID_RESUME"),  # the body is not an object
        ({"interruptId": "ID"}, "INVALID_RESPONSE"),  # missing response
        ({"interruptId": "ID", "response": None}, "INVALID_RESPONSE"),  # null response
    ],
)
def test_a_malformed_body_reaches_the_runtime_and_is_refused_with_its_code(client, body, code):
    agent, iid, messages = _paused(client)
    sent = body.replace("ID", iid) if isinstance(body, str) else {
        k: (iid if v == "ID" else v) for k, v in body.items()
    }
    out = client.invoke(agent, {"interruptResponses": [sent]})
    assert out["error"]["code"] == code, out
    assert [e["kind"] for e in out["trace"]] == ["invocation_start"]
    assert out["messages"] == messages
    # The agent is unchanged: the interrupt is still pending and accepts its answer.
    assert [i["id"] for i in client.inspect(agent)["interrupts"]] == [iid]
    done = client.invoke(agent, {"interruptResponses": [{"interruptId": iid, "response": "y"}]})
    assert done["result"]["stopReason"] == "end_turn"


def test_a_block_with_a_member_beside_interrupt_response_is_a_malformed_block(client):
    agent, iid, _ = _paused(client)
    block = {"interruptResponse": {"interruptId": iid, "response": "y"}, "note": "x"}
    out = client.invoke(agent, {"content": [block]})
    assert out["error"]["code"] == "INVALID_RESUME"


def test_a_direct_tool_call_input_must_be_an_object(client):
    agent = client.create_agent(tool_spec())
    with pytest.raises(ValueError, match="not a valid invoke input"):
        client.invoke(agent, {"directToolCall": {"name": "ask", "input": [1]}})


# ---------------------------------------------------------------------------------------------
# InspectAgent


def _three_tools() -> dict:
    """Concurrent: t1 completes, t2 and t3 each ask one question."""
    return agent_spec(
        "inspected",
        executor="concurrent",
        turns=[
            turn(text("on it"), tool_use("t1", "plain"), tool_use("t2", "ask"), tool_use("t3", "ask")),
            turn(text("done")),
        ],
        tools=[tool("plain", returns("p")), tool("ask", interrupt("q", {"why": "x"}), returns())],
        state={"k": 1},
    )


def test_inspect_reflects_pending_answered_and_preserved_state(client):
    agent = client.create_agent(_three_tools())
    idle = client.inspect(agent)
    assert idle == {
        "activated": False,
        "interrupts": [],
        "preservedToolUseIds": [],
        "messages": [],
        "state": {"k": 1},
    }

    first = client.invoke(agent, {"prompt": "go"})
    ids = {i["source"]["toolUseId"]: i["id"] for i in first["result"]["interrupts"]}
    paused = client.inspect(agent)
    assert paused["activated"] is True
    assert sorted((i["id"], i["answered"]) for i in paused["interrupts"]) == sorted(
        [(ids["t2"], False), (ids["t3"], False)]
    )
    assert all("response" not in i for i in paused["interrupts"])
    assert all(i["reason"] == {"why": "x"} and i["name"] == "q" for i in paused["interrupts"])
    assert {i["source"]["toolUseId"] for i in paused["interrupts"]} == {"t2", "t3"}
    assert paused["preservedToolUseIds"] == ["t1"]
    assert paused["pendingAssistantMessage"] == first["result"]["message"]
    assert paused["messages"] == first["messages"]
    assert client.inspect(agent) == paused  # reading changes nothing

    # A partial answer: t2's answer is stored (and t2 completes), t3 is still asked.
    partial = client.invoke(agent, {"interruptResponses": [{"interruptId": ids["t2"], "response": False}]})
    assert partial["result"]["stopReason"] == "interrupt"
    after = client.inspect(agent)
    answered = {i["id"]: i for i in after["interrupts"]}
    assert answered[ids["t2"]]["answered"] is True
    assert answered[ids["t2"]]["response"] is False  # a falsy answer is an answer, shown as stored
    assert answered[ids["t3"]]["answered"] is False
    assert sorted(after["preservedToolUseIds"]) == ["t1", "t2"]

    # A rejected input leaves all of it as it was (what ROC-RESUME-010 asks the suite to compare).
    mixed = [{"interruptId": ids["t3"], "response": "y"}, {"interruptId": "nope", "response": 1}]
    rejected = client.invoke(agent, {"interruptResponses": mixed})
    assert rejected["error"]["code"] == "UNKNOWN_INTERRUPT"
    assert client.inspect(agent) == after

    done = client.invoke(agent, {"interruptResponses": [{"interruptId": ids["t3"], "response": "y"}]})
    assert done["result"]["stopReason"] == "end_turn"
    final = client.inspect(agent)
    assert final["activated"] is False
    assert final["interrupts"] == []
    assert final["preservedToolUseIds"] == []
    assert "pendingAssistantMessage" not in final
    assert final["messages"] == done["messages"]


def test_inspect_of_an_unknown_handle_is_a_harness_fault(client):
    with pytest.raises(AdapterError, match="unknown agent handle"):
        client.inspect("no-such-agent")


def test_inspect_replies_are_seen_by_the_observers(client):
    seen: list[str] = []
    client.observers.append(lambda rpc, doc: seen.append(rpc))
    client.inspect(client.create_agent(tool_spec()))
    assert seen == ["InspectAgent"]
