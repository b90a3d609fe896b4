"""The seed's session example, for real: every server() call is a fresh Python process sharing one store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from roc_reference.sessions import FileSessionManager, FileSessionStore
from sessionapp import SESSION_ID, executions

APP = Path(__file__).with_name("sessionapp.py")


def server(root: Path, prompt) -> dict:
    """The seed's ``server(prompt)``, run in its own process: nothing survives between calls but the store."""
    done = subprocess.run(
        [sys.executable, str(APP), "seed-server", str(root), json.dumps(prompt)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    reply = json.loads(done.stdout)
    assert "error" not in reply, reply
    return reply["result"]


def client(root: Path, prompt: str, user_inputs: list[str]) -> tuple[dict, list[dict]]:
    """The seed's ``client``: answer every "myapp-approval" interrupt with the next user input."""
    result = server(root, prompt)
    asked = []
    while result["stopReason"] == "interrupt":
        responses = []
        for interrupt in result["interrupts"]:
            if interrupt["name"] == "myapp-approval":
                asked.append(interrupt)
                responses.append(
                    {"interruptResponse": {"interruptId": interrupt["id"], "response": user_inputs.pop(0)}}
                )
        result = server(root, responses)
    return result, asked


def stored(root: Path) -> dict:
    doc = FileSessionManager(SESSION_ID, FileSessionStore(root)).load()
    assert doc is not None
    return doc


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-001", "ROC-SESSION-002", "ROC-SESSION-013")
def test_trust_answer_is_remembered_across_processes(tmp_path):
    paths = ["a/b/c.txt", "d/e/f.txt"]
    result, asked = client(tmp_path, f"paths=<{paths}>", ["t"])
    assert [i["reason"] for i in asked] == [{"paths": paths}]
    assert asked[0]["source"] == {"kind": "before_tool_call", "toolUseId": "d1", "toolName": "delete_files"}
    assert result["stopReason"] == "end_turn"
    assert result["message"]["content"] == [{"text": "Deleted a/b/c.txt and d/e/f.txt."}]
    first_runs = executions(tmp_path)
    assert [(e["tool"], e["input"]) for e in first_runs] == [("delete_files", {"paths": paths})]
    # The paused process and the answering process were different processes.
    doc = stored(tmp_path)
    assert doc["agent"]["state"] == {"myapp-approval": "t"}
    # idle; format 2.1 keeps only which answer the completed batch consumed (ROC-RESEND-003)
    state = doc["interruptState"]
    assert state == {**state, "activated": False, "interrupts": [], "pendingToolExecution": None}
    assert [c["interruptId"] for c in state["consumed"]] == [asked[0]["id"]]

    # A later request in yet another process: the stored "t" means no prompt at all.
    result, asked = client(tmp_path, "paths=<['g/h.txt']>", [])
    assert asked == []
    assert result["stopReason"] == "end_turn"
    later = executions(tmp_path)[len(first_runs) :]
    assert [(e["tool"], e["input"]) for e in later] == [
        ("inspect_files", {"paths": ["g/h.txt"]}),
        ("delete_files", {"paths": ["g/h.txt"]}),
    ]
    messages = stored(tmp_path)["agent"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"] * 2
    results = [b["toolResult"] for m in messages for b in m["content"] if "toolResult" in b]
    assert [(r["toolUseId"], r["status"]) for r in results] == [
        ("d1", "success"),
        ("i2", "success"),
        ("d2", "success"),
    ]


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-001", "ROC-SESSION-002", "ROC-SESSION-013")
def test_a_refusal_cancels_the_tool_and_the_next_request_asks_again(tmp_path):
    paths = ["a/b/c.txt", "d/e/f.txt"]
    first = server(tmp_path, f"paths=<{paths}>")
    assert first["stopReason"] == "interrupt"
    (interrupt,) = first["interrupts"]
    paused = stored(tmp_path)
    assert paused["interruptState"]["activated"] is True
    assert [i["id"] for i in paused["interruptState"]["interrupts"]] == [interrupt["id"]]
    assert executions(tmp_path) == []  # nothing ran before the answer

    result = server(tmp_path, [{"interruptResponse": {"interruptId": interrupt["id"], "response": "N"}}])
    assert result["stopReason"] == "end_turn"
    assert executions(tmp_path) == []  # cancelled: the tool body never ran
    doc = stored(tmp_path)
    assert doc["agent"]["state"] == {"myapp-approval": "n"}
    (tool_result,) = [
        b["toolResult"] for m in doc["agent"]["messages"] for b in m["content"] if "toolResult" in b
    ]
    assert tool_result == {
        "toolUseId": "d1",
        "status": "error",
        "content": [{"text": "User denied permission to delete files"}],
    }

    # "n" is not trust, so the next delete asks again (in a new process), and "y" lets it run.
    result, asked = client(tmp_path, "paths=<['g/h.txt']>", ["y"])
    assert [i["reason"] for i in asked] == [{"paths": ["g/h.txt"]}]
    assert result["stopReason"] == "end_turn"
    assert [e["tool"] for e in executions(tmp_path)] == ["inspect_files", "delete_files"]
    assert stored(tmp_path)["agent"]["state"] == {"myapp-approval": "y"}


@pytest.mark.slow
@pytest.mark.req("ROC-SESSION-001", "ROC-SESSION-002", "ROC-SESSION-013")
def test_resending_a_consumed_answer_in_a_new_process_runs_nothing(tmp_path):
    first = server(tmp_path, "paths=<['x']>")
    answer = [{"interruptResponse": {"interruptId": first["interrupts"][0]["id"], "response": "y"}}]
    assert server(tmp_path, answer)["stopReason"] == "end_turn"
    before = stored(tmp_path)
    done = subprocess.run(
        [sys.executable, str(APP), "seed-server", str(tmp_path), json.dumps(answer)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout)["error"]["code"] == "NOT_INTERRUPTED"
    assert len(executions(tmp_path)) == 1
    after = stored(tmp_path)
    assert after["revision"] == before["revision"]  # rejected before the claim: nothing was saved
    assert after["agent"] == before["agent"]
    assert after["interruptState"] == before["interruptState"]
