"""A save costs what the cycle added: the agent lends its history JSON to the file store, which appends to
the lineage it committed without comparing the prefix, and compares everything else in full."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from roc_reference import Agent
from roc_reference.errors import ErrorCode, RocError
from roc_reference.history import History, HistoryJson
from roc_reference.models import ModelTurn
from roc_reference.sessions import FileSessionManager, FileSessionStore
from roc_reference.types import Message, TextBlock
from sessionkit import snapshot, text_message


class Answers:
    """Answers every call with one text; fails while ``failing`` (a provider outage)."""

    def __init__(self) -> None:
        self.failing = False
        self.calls = 0

    def call(self, messages: Sequence[Message]) -> ModelTurn:
        self.calls += 1
        if self.failing:
            raise ConnectionError("provider unavailable")
        return ModelTurn(
            Message(role="assistant", content=[TextBlock(text=f"answer {self.calls}")]), "end_turn"
        )


@pytest.fixture
def store(tmp_path):
    return FileSessionStore(tmp_path / "sessions")


def stored_messages(store: FileSessionStore, session_id: str = "s") -> list[Any]:
    doc = FileSessionManager(session_id, store).load()
    assert doc is not None
    return list(doc["agent"]["messages"])


def spy_extends(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the full comparisons of the stored prefix (each records the prefix length it compared)."""
    compared: list[int] = []
    original = FileSessionManager._extends

    def counting(messages: list[Any], stored: list[Any]) -> bool:
        compared.append(len(stored))
        return original(messages, stored)

    monkeypatch.setattr(FileSessionManager, "_extends", staticmethod(counting))
    return compared


def spy_to_json(monkeypatch: pytest.MonkeyPatch) -> list[Message]:
    """Every message serialized (``Message.to_json``), in order."""
    serialized: list[Message] = []
    original = Message.to_json

    def counting(self: Message) -> dict[str, Any]:
        serialized.append(self)
        return original(self)

    monkeypatch.setattr(Message, "to_json", counting)
    return serialized


@pytest.mark.req("ROC-SESSION-013")
def test_saves_after_appends_neither_compare_nor_serialize_the_stored_prefix(store, monkeypatch):
    agent = Agent(Answers(), session=store.manager("s"))
    for k in range(20):
        agent(f"prompt {k}")  # 40 messages stored
    compared = spy_extends(monkeypatch)
    serialized = spy_to_json(monkeypatch)
    agent("one more")
    assert compared == []  # the store trusted the lineage it committed: no comparison
    # Only the two new messages (and the prompt the claim records) were serialized, none of the 40 old ones.
    assert {m.role for m in serialized} <= {"user", "assistant"}
    assert len(serialized) <= 3
    assert all(m in (agent._messages[-1], agent._messages[-2]) for m in serialized)
    monkeypatch.undo()
    assert stored_messages(store) == agent.messages_json()


@pytest.mark.req("ROC-SESSION-013")
def test_a_plain_list_with_an_edited_past_message_is_compared_and_stored_exactly(store, monkeypatch):
    agent = Agent(Answers(), session=store.manager("s"))
    agent("go")
    manager = agent._session
    assert isinstance(manager, FileSessionManager)
    doc = agent.take_snapshot()  # fresh copies: a plain list
    doc["agent"]["messages"][0]["metadata"] = {"n": 1}
    doc["revision"] = agent.revision + 1
    manager.save(doc, expected_revision=agent.revision)
    edited = json.loads(json.dumps(doc))
    edited["agent"]["messages"][0]["metadata"] = {"n": True}  # equal under ==, not in canonical JSON
    edited["revision"] = doc["revision"] + 1
    compared = spy_extends(monkeypatch)
    manager.save(edited, expected_revision=doc["revision"])
    assert compared == [2]
    monkeypatch.undo()
    assert stored_messages(store)[0]["metadata"] == {"n": True}
    assert stored_messages(store)[0]["metadata"]["n"] is True


@pytest.mark.req("ROC-SESSION-013")
def test_history_json_of_another_lineage_or_shorter_is_compared_in_full(store, monkeypatch):
    manager = store.manager("s")
    first = HistoryJson([text_message("user", "a"), text_message("assistant", "b")])
    manager.save(snapshot(0, first), expected_revision=None)
    compared = spy_extends(monkeypatch)
    other = HistoryJson(
        [text_message("user", "A"), text_message("assistant", "b"), text_message("user", "c")]
    )
    manager.save(snapshot(1, other), expected_revision=0)  # another lineage: compared, then rewritten
    assert compared == [2]
    shorter = HistoryJson(other[:2], lineage=other.lineage)  # same token, fewer messages: proves nothing
    manager.save(snapshot(2, shorter), expected_revision=1)
    assert compared == [2, 3]
    longer = HistoryJson([*shorter, text_message("user", "d")], lineage=other.lineage)
    manager.save(snapshot(3, longer), expected_revision=2)  # extends the lineage just committed
    assert compared == [2, 3]
    monkeypatch.undo()
    assert stored_messages(store) == [
        text_message("user", "A"),
        text_message("assistant", "b"),
        text_message("user", "d"),
    ]


@pytest.mark.req("ROC-SESSION-013", "ROC-ERR-006")
def test_a_save_after_a_rolled_back_invocation_stores_the_rolled_back_history(store):
    model = Answers()
    agent = Agent(model, session=store.manager("s"))
    agent("first")
    kept = agent.messages_json()
    model.failing = True
    with pytest.raises(RocError) as info:
        agent("lost")  # the prompt was appended, then the failure rolled it back
    assert info.value.code == ErrorCode.INTERNAL
    assert agent.messages_json() == kept
    model.failing = False
    agent("second")
    assert [m["content"][0]["text"] for m in stored_messages(store)] == [
        "first",
        "answer 1",
        "second",
        "answer 3",
    ]
    assert stored_messages(store) == agent.messages_json()


def test_a_claim_save_with_no_new_message_leaves_the_log_untouched(store):
    agent = Agent(Answers(), session=store.manager("s"))
    agent("first")
    (log,) = [p for p in store.session_dir("s").iterdir() if p.name.startswith("messages.")]
    before = os.stat(log)
    manager = agent._session
    assert isinstance(manager, FileSessionManager)
    doc = agent._snapshot_doc(agent.revision + 1, lend=True)  # what the claim of the next invocation saves
    manager.save(doc, expected_revision=agent.revision)
    after = os.stat(log)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert stored_messages(store) == agent.messages_json()


def test_a_fresh_process_restores_what_was_saved(store, tmp_path):
    agent = Agent(Answers(), session=store.manager("s"))
    for k in range(3):
        agent(f"prompt {k}")
    code = (
        "import json, sys\nfrom roc_reference import Agent\n"
        "from roc_reference.sessions import FileSessionStore\n"
        "class M:\n    def call(self, messages): raise AssertionError('no model call')\n"
        "agent = Agent(M(), session=FileSessionStore(sys.argv[1]).manager('s'))\n"
        "print(json.dumps({'messages': agent.messages_json(), 'revision': agent.revision}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(store.root)], capture_output=True, text=True, check=True, timeout=120
    )
    restored = json.loads(done.stdout)
    assert restored == {"messages": agent.messages_json(), "revision": agent.revision}


class CopyingManager:
    """A session manager that does not declare it borrows documents: it keeps what it is given."""

    def __init__(self) -> None:
        self.saved: list[Mapping[str, Any]] = []

    def load(self) -> dict[str, Any] | None:
        return None

    def save(self, snapshot: Mapping[str, Any], *, expected_revision: int | None) -> None:
        self.saved.append(snapshot)


@pytest.mark.req("ROC-SEC-016")
def test_other_session_managers_get_fresh_documents(store):
    manager = CopyingManager()
    agent = Agent(Answers(), session=manager)
    agent("go")
    messages = manager.saved[-1]["agent"]["messages"]
    assert type(messages) is list
    messages[0]["content"][0]["text"] = "edited by the manager"
    messages.append(text_message("user", "appended by the manager"))
    assert [m["content"][0]["text"] for m in agent.messages_json()] == ["go", "answer 1"]


# -- History ---------------------------------------------------------------------------------------------


def message(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def test_history_appends_keep_the_lineage_and_other_changes_start_a_new_one():
    history = History([message("a")])
    lineage = history.lineage
    view = history.json_view()
    history.append(message("b"))
    assert history.lineage is lineage
    assert view == [message("a").to_json(), message("b").to_json()]
    mark = history.mark()
    history.append(message("c"))
    history.restore(mark)
    assert history.lineage is not lineage
    assert [m.content[0].text for m in history] == ["a", "b"]
    assert len(view) == 3  # the older lineage's list was not shortened under its reader
    unchanged = history.lineage
    history.restore(history.mark())  # nothing appended since the mark: nothing changes
    assert history.lineage is unchanged
    history.replace([message("z")])
    assert history.lineage is not unchanged
    assert history.json_view() == [message("z").to_json()]


def test_history_json_copies_share_nothing_with_the_history():
    history = History([message("a")])
    copies = history.json_copies()
    copies[0]["content"][0]["text"] = "x"
    assert history.json_view()[0]["content"][0]["text"] == "a"
    assert type(copies) is list


@pytest.mark.req("ROC-SESSION-013")
def test_a_history_cut_back_below_what_was_committed_is_not_trusted(store):
    """A rollback after the store committed more than the mark (an end save that committed before the
    invocation failed) then new appends of the same length: a new lineage, so the store compares."""
    history = History([message("a")])
    mark = history.mark()
    history.append(message("b"))
    history.append(message("c"))
    manager = store.manager("s")
    manager.save(snapshot(0, history.json_view()), expected_revision=None)
    history.restore(mark)
    history.append(message("B"))
    history.append(message("C"))
    manager.save(snapshot(1, history.json_view()), expected_revision=0)
    assert [m["content"][0]["text"] for m in stored_messages(store)] == ["a", "B", "C"]
