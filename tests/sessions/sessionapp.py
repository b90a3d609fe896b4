"""Agents for the session tests, built the same way in the test process and in its subprocesses.

Run as a script it is a subprocess of the tests:

    python sessionapp.py seed-server ROOT INPUT_JSON        the seed's server(): one invocation, one process
    python sessionapp.py resume-race ROOT GO ANSWER         load a paused session, wait for GO, answer it
    python sessionapp.py worker                             JSON-lines service: run/restore scenario agents

Tool bodies record each start in ``ROOT/executions.jsonl`` (seed, race) or in a per-command counter
(worker), so the tests can see what ran, in which process, and how often.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from roc_reference import (
    Agent,
    BeforeToolCallEvent,
    ConcurrentExecutor,
    HookRegistry,
    ScriptedModel,
    SequentialExecutor,
    Tool,
    ToolContext,
    tool,
)
from roc_reference.errors import RocError
from roc_reference.sessions import FileSessionManager, FileSessionStore

SESSION_ID = "myapp"

# -- the seed's session example (spec seed "Session Management") ----------------------------------

SEED_TURNS: list[list[dict[str, Any]]] = [
    [
        {
            "toolUse": {
                "toolUseId": "d1",
                "name": "delete_files",
                "input": {"paths": ["a/b/c.txt", "d/e/f.txt"]},
            }
        }
    ],
    [{"text": "Deleted a/b/c.txt and d/e/f.txt."}],
    [
        {"toolUse": {"toolUseId": "i2", "name": "inspect_files", "input": {"paths": ["g/h.txt"]}}},
        {"toolUse": {"toolUseId": "d2", "name": "delete_files", "input": {"paths": ["g/h.txt"]}}},
    ],
    [{"text": "Deleted g/h.txt."}],
]


def _record(root: Path, name: str, tool_input: dict[str, Any]) -> None:
    line = json.dumps({"pid": os.getpid(), "tool": name, "input": tool_input}) + "\n"
    with (root / "executions.jsonl").open("a", encoding="utf-8") as f:
        f.write(line)


def executions(root: Path) -> list[dict[str, Any]]:
    path = root / "executions.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


class ApprovalHook:
    """The seed's hook: ask before delete_files unless the user said "t"(rust); remember the answer."""

    def __init__(self, app_name: str) -> None:
        self.app_name = app_name

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.approve)

    def approve(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use.name != "delete_files":
            return
        if event.agent.state.get(f"{self.app_name}-approval") == "t":  # (t)rust
            return
        approval = event.interrupt(
            f"{self.app_name}-approval", reason={"paths": event.tool_use.input["paths"]}
        )
        if approval.lower() not in ["y", "t"]:
            event.cancel_tool = "User denied permission to delete files"
        event.agent.state.set(f"{self.app_name}-approval", approval.lower())


def seed_tools(root: Path) -> list[Tool]:
    @tool
    def delete_files(paths: list[str]) -> bool:
        _record(root, "delete_files", {"paths": paths})
        return True

    @tool
    def inspect_files(paths: list[str]) -> dict[str, Any]:
        _record(root, "inspect_files", {"paths": paths})
        return {p: {"ageDays": 9} for p in paths}

    return [delete_files, inspect_files]


def seed_agent(root: Path) -> Agent:
    return Agent(
        ScriptedModel(SEED_TURNS),
        tools=seed_tools(root),
        hooks=[ApprovalHook("myapp")],
        session=FileSessionManager(SESSION_ID, FileSessionStore(root)),
    )


def _seed_server(root: str, prompt_json: str) -> None:
    """The seed's ``server(prompt)``: a fresh agent with session management for each call."""
    try:
        result = seed_agent(Path(root))(json.loads(prompt_json))
    except RocError as exc:
        print(json.dumps({"error": exc.to_json()}))
    else:
        print(json.dumps({"result": result.to_json()}))


def _resume_race(root: str, go: str, answer: str) -> None:
    agent = seed_agent(Path(root))
    (pending,) = agent.interrupts
    print("loaded", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    responses = [{"interruptResponse": {"interruptId": pending.id, "response": answer}}]
    try:
        result = agent(responses)
    except RocError as exc:
        print(json.dumps({"error": exc.to_json()}), flush=True)
    else:
        print(json.dumps({"result": result.to_json()}), flush=True)


# -- generated scenarios for the round-trip property ----------------------------------------------
#
# Scenario JSON: {"executor": "sequential" | "concurrent",
#                 "turns": [[{"tool": name, "id": toolUseId}, ...], ...],   one list per tool-using turn
#                 "tools": {name: {"asks": [question, ...], "hook": bool}}}
# A tool body asks its questions in order (one interrupt at a time) and returns the answers; a tool with
# "hook" is guarded by a BeforeToolCall hook that asks "approve" and cancels on "n".


def scenario_agent(
    scenario: dict[str, Any], counts: Counter[str], snapshot: dict[str, Any] | None = None
) -> Agent:
    lock = threading.Lock()  # the concurrent executor runs bodies in threads

    def count(key: str) -> None:
        with lock:
            counts[key] += 1

    def make_tool(name: str, asks: list[str]) -> Tool:
        def body(tool_context: ToolContext, **tool_input: Any) -> dict[str, Any]:
            count(f"tool:{name}")
            answers = [tool_context.interrupt(q, reason={"tool": name, "q": q}) for q in asks]
            return {"answers": answers, "input": tool_input}

        return Tool(name=name, fn=body, context=True)

    class Guard:
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, self.check)

        def check(self, event: BeforeToolCallEvent) -> None:
            spec = scenario["tools"].get(event.tool_use.name)
            if spec is None or not spec["hook"]:
                return
            count(f"hook:{event.tool_use.tool_use_id}")
            answer = event.interrupt("approve", reason={"toolUseId": event.tool_use.tool_use_id})
            event.agent.state.set(f"approved:{event.tool_use.tool_use_id}", answer)
            if answer == "n":
                event.cancel_tool = "denied"

    turns: list[list[dict[str, Any]]] = [
        [
            {"toolUse": {"toolUseId": u["id"], "name": u["tool"], "input": {"n": k}}}
            for k, u in enumerate(turn)
        ]
        for turn in scenario["turns"]
    ]
    turns.append([{"text": "all done"}])
    model = ScriptedModel(turns)
    tools = [make_tool(name, spec["asks"]) for name, spec in scenario["tools"].items()]
    executor = ConcurrentExecutor() if scenario["executor"] == "concurrent" else SequentialExecutor()
    if snapshot is not None:
        return Agent.from_snapshot(snapshot, model=model, tools=tools, hooks=[Guard()], executor=executor)
    return Agent(model, tools=tools, hooks=[Guard()], executor=executor, agent_id="scenario")


def answer_for(interrupt: dict[str, Any], round_: int) -> str:
    """The deterministic human: approves most things, refuses one approval in three rounds."""
    if interrupt["name"] == "approve":
        return "n" if round_ % 3 == 2 else "y"
    return f"{interrupt['name']}@{round_}"


def responses_for(result: dict[str, Any], round_: int, partial: bool) -> list[dict[str, Any]]:
    pending = result["interrupts"]
    chosen = pending[:1] if partial else pending
    return [
        {"interruptResponse": {"interruptId": i["id"], "response": answer_for(i, round_)}} for i in chosen
    ]


def _worker() -> None:
    """Serve commands, one JSON object per line; every command builds a fresh agent (no shared memory)."""
    for line in sys.stdin:
        command = json.loads(line)
        counts: Counter[str] = Counter()
        try:
            agent = scenario_agent(command["scenario"], counts, command.get("snapshot"))
            result = agent(command["input"])
            reply: dict[str, Any] = {
                "result": result.to_json(),
                "snapshot": agent.take_snapshot(),
                "counts": dict(counts),
            }
        except RocError as exc:
            reply = {"error": exc.to_json(), "counts": dict(counts)}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "seed-server":
        _seed_server(*args)
    elif command == "resume-race":
        _resume_race(*args)
    elif command == "worker":
        _worker()
    else:
        raise SystemExit(f"unknown command {command}")
