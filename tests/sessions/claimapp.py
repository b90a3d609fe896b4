"""An approval agent for the exactly-once tests, built the same way in the test process and its subprocesses.

The model asks for two transfers in one batch (``t1`` then ``t2``, sequential executor); a BeforeTools
hook asks for one approval of the batch. The tool appends a ``start`` line before its work and an ``end`` line
after it to ``ROOT/executions.jsonl`` (with the pid), so a test counts what ran, where, and what completed.
The work takes ``TOOL_SECONDS`` — a real tool is not instant, and the window between the claim and the end
save is where the old claim let a second process in.

Run as a script:

    python claimapp.py race-worker          JSON lines on stdin: {"root", "go", "delay", "ids"}; per line:
                                            print "ready", wait for GO and the delay, load the session,
                                            approve the ids, print the outcome
    python claimapp.py resume ROOT          load ROOT's session and answer both (CLAIMAPP_HOLD=1 makes
                                            t2 hang after its start line, for kill -9 tests)
"""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from roc_reference import Agent, BeforeToolsEvent, HookRegistry, ScriptedModel, tool
from roc_reference.errors import RocError
from roc_reference.executors import Executor
from roc_reference.sessions import FileSessionManager, FileSessionStore

SESSION_ID = "claims"
TOOL_SECONDS = 0.03
SAFETY_SECONDS = 60.0  # a worker waiting for a GO that never comes gives up (the test has failed anyway)

TURNS: list[list[dict[str, Any]]] = [
    [
        {"toolUse": {"toolUseId": "t1", "name": "transfer", "input": {"amount": 5}}},
        {"toolUse": {"toolUseId": "t2", "name": "transfer", "input": {"amount": 7}}},
    ],
    [{"text": "Both transfers done."}],
]


class Approval:
    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolsEvent, self.approve)

    def approve(self, event: BeforeToolsEvent) -> None:
        if event.interrupt("approve", reason="two transfers") != "yes":
            event.cancel = "denied"


def _log(root: Path, event: str, amount: int) -> None:
    line = json.dumps({"pid": os.getpid(), "event": event, "amount": amount}) + "\n"
    with (root / "executions.jsonl").open("a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def build(root: Path, executor: Executor | None = None) -> Agent:
    @tool
    def transfer(amount: int) -> int:
        _log(root, "start", amount)
        if amount == 7 and os.environ.get("CLAIMAPP_HOLD") == "1":
            time.sleep(SAFETY_SECONDS)  # killed here by the test
        time.sleep(TOOL_SECONDS)
        _log(root, "end", amount)
        return amount

    return Agent(
        ScriptedModel(TURNS),
        tools=[transfer],
        hooks=[Approval()],
        executor=executor,
        session=FileSessionManager(SESSION_ID, FileSessionStore(root)),
    )


def fail_end_save(agent: Agent) -> None:
    """Make the agent's store meet a full disk at the end save of its next invocation (the claim save before
    it goes through), so the invocation fails after its tools ran and the claim stays to be recovered."""
    session = agent._session
    assert isinstance(session, FileSessionManager)
    real_save = session.save
    calls: list[int | None] = []

    def full_disk_on_end_save(snapshot: Any, *, expected_revision: int | None) -> None:
        calls.append(expected_revision)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_save(snapshot, expected_revision=expected_revision)

    session.save = full_disk_on_end_save  # type: ignore[method-assign]


def executions(root: Path) -> list[dict[str, Any]]:
    path = root / "executions.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def answers(agent: Agent) -> list[dict[str, Any]]:
    return approve([i.id for i in agent.interrupts])


def approve(ids: list[str]) -> list[dict[str, Any]]:
    """The answers a caller sends: it knows the ids from the result that stopped the agent."""
    return [{"interruptResponse": {"interruptId": i, "response": "yes"}} for i in ids]


def _outcome(root: Path, ids: list[str] | None = None) -> dict[str, Any]:
    try:
        agent = build(root)
        result = agent(answers(agent) if ids is None else approve(ids))
    except RocError as exc:
        return {"pid": os.getpid(), "error": exc.to_json()}
    return {"pid": os.getpid(), "result": result.to_json()}


def _race_worker() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        go = Path(job["go"])
        print("ready", flush=True)
        deadline = time.monotonic() + SAFETY_SECONDS
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(job.get("delay", 0.0))
        print(json.dumps(_outcome(Path(job["root"]), job["ids"])), flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "race-worker":
        _race_worker()
    elif command == "resume":
        print(json.dumps(_outcome(Path(args[0]))), flush=True)
    else:
        raise SystemExit(f"unknown command {command}")
