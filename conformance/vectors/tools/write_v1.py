"""Writes conformance/vectors/v1/*.json. Every expectation below is typed by hand from the rules
(DESIGN.md pinned semantics, seeds/000); nothing here runs the oracle. Re-run after editing:
    .venv/bin/python conformance/vectors/tools/write_v1.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from roc_conformance.oracle import reqs as R

OUT = Path(__file__).resolve().parents[1] / "v1"


def tu(tuid: str, name: str, inp: Any = None) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": tuid, "name": name, "input": {} if inp is None else inp}}


def text(t: str) -> dict[str, Any]:
    return {"text": t}


def turn(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"content": list(blocks)}


def user(t: str) -> dict[str, Any]:
    return {"role": "user", "content": [text(t)]}


def asst(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def ok(tuid: str, answers: list[Any], value: Any = None) -> dict[str, Any]:
    return {
        "toolResult": {
            "toolUseId": tuid,
            "status": "success",
            "content": [{"json": {"answers": answers, "value": value}}],
        }
    }


def err(tuid: str, msg: str) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": tuid, "status": "error", "content": [{"text": msg}]}}


def results(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def agent(
    executor: str,
    turns: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    hooks: list[dict[str, Any]] | None = None,
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {"agentId": "a1", "executor": executor, "model": {"turns": turns}, "tools": tools}
    if hooks:
        doc["hooks"] = hooks
    if state is not None:
        doc["state"] = state
    return doc


def tool(name: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "steps": list(steps)}


def hook(event: str, *steps: dict[str, Any], tool_name: str | None = None) -> dict[str, Any]:
    h: dict[str, Any] = {"event": event, "steps": list(steps)}
    if tool_name:
        h["toolName"] = tool_name
    return h


def intr(name: str, reason: Any = None) -> dict[str, Any]:
    return {"interrupt": {"name": name, **({} if reason is None else {"reason": reason})}}


def ret(value: Any = None) -> dict[str, Any]:
    return {"return": {} if value is None else {"value": value}}


def src(kind: str, tuid: str | None = None, name: str | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"kind": kind}
    if tuid:
        s["toolUseId"] = tuid
    if name:
        s["toolName"] = name
    return s


def answer(*pairs: tuple[dict[str, Any], Any]) -> dict[str, Any]:
    return {"interruptResponses": [{"interrupt": ref, "response": v} for ref, v in pairs]}


def ref(name: str, tuid: str | None = None) -> dict[str, Any]:
    return {"name": name, **({"toolUseId": tuid} if tuid else {})}


REJECTED: dict[str, Any] = {"modelCalls": [], "toolStarts": {}, "messagesAdded": [], "hookCallbacks": {}}
VECTORS: list[dict[str, Any]] = []


# Requirements the chapters added after the vectors were first written, by vector.
EXTRA_REQUIREMENTS: dict[str, list[str]] = {
    "tool-interrupt-approve": [R.RESULT_MESSAGE, R.NOT_AN_ERROR],
    "concurrent-completion": [R.EXEC_CONC_NO_CANCEL, R.EXEC_CONC_WAITS],
    "trust-remembered-after-restore": [R.SESSION_ANSWERS, R.SESSION_KEPT],
    "partial-answers-across-restores": [R.SESSION_ANSWERS, R.SESSION_ID, R.SESSION_PRESERVED],
    "direct-tool-call": [R.DIRECT_RUNS, R.DIRECT_RECORDED],
    "sequential-stop": [R.EVENT_ORDER],
}


def vector(
    vid: str,
    title: str,
    requirements: list[str],
    profiles: list[str],
    agent_doc: dict[str, Any],
    steps: list[dict[str, Any]],
    source: str,
) -> None:
    requirements = list(dict.fromkeys([*requirements, *EXTRA_REQUIREMENTS.get(vid, [])]))
    VECTORS.append(
        {
            "id": vid,
            "title": title,
            "source": source,
            "requirements": requirements,
            "profiles": profiles,
            "agent": agent_doc,
            "steps": steps,
        }
    )


def step(inp: dict[str, Any], **expect: Any) -> dict[str, Any]:
    return {"invoke": inp, "expect": expect}


# ---------------------------------------------------------------------------------------------------
PATHS = {"paths": ["a/b/c.txt", "d/e/f.txt"]}
DENY = "User denied permission to delete files"

# 1. Tool interrupt (seed "Tools"): stop, replay, answer delivered, re-answer after completion.
T1 = [turn(text("deleting"), tu("t1", "delete_files", PATHS)), turn(text("done"))]
vector(
    "tool-interrupt-approve",
    "A tool body interrupts; the answer reaches the replayed body",
    [
        R.STOP_REASON,
        R.STOP_MESSAGE,
        R.REPLAY_RERUN,
        R.REPLAY_ANSWER,
        R.SOURCE_KIND,
        R.INTERRUPT_SOURCE,
        R.INTERRUPT_FIELDS,
        R.TRANSCRIPT,
        R.TOOL_INTERRUPT_NO_RESULT,
        R.CONSUMED,
        R.CONSUMED_NOT_INTERRUPTED,
        R.NOT_INTERRUPTED,
        R.RESUME_NOT_APPENDED,
        R.BATCH_APPEND,
        R.CONTINUE,
        R.LOOP,
    ],
    ["core"],
    agent("sequential", T1, [tool("delete_files", intr("myapp-approval", PATHS), ret(True))]),
    [
        step(
            {"prompt": "delete old files"},
            stopReason="interrupt",
            interrupts=[
                {"name": "myapp-approval", "reason": PATHS, "source": src("tool", "t1", "delete_files")}
            ],
            modelCalls=[0],
            toolStarts={"t1": 1},
            afterToolCall={},
            afterTools=[[]],
            messagesAdded=["user"],
            messages=[user("delete old files")],
        ),
        step(
            answer((ref("myapp-approval"), "y")),
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[1],
            toolStarts={"t1": 1},
            afterToolCall={"t1": "success"},
            afterTools=[["t1"]],
            messagesAdded=["assistant", "user", "assistant"],
            messages=[
                user("delete old files"),
                asst(text("deleting"), tu("t1", "delete_files", PATHS)),
                results(ok("t1", ["y"], True)),
                asst(text("done")),
            ],
        ),
        step(answer((ref("myapp-approval"), "y")), error="NOT_INTERRUPTED", **REJECTED),
    ],
    "seeds/000 Tools; pinned 1, 2, 15",
)

# 2-3. Approval hook (seed "BeforeToolCallEvent"): approve / deny via cancel_tool.
APPROVAL_HOOK = hook(
    "BeforeToolCall",
    intr("myapp-approval", PATHS),
    {"cancelIf": {"answerNotIn": ["y", "t"], "message": DENY}},
    tool_name="delete_files",
)
T2 = [turn(tu("t1", "inspect_files", PATHS), tu("t2", "delete_files", PATHS)), turn(text("done"))]
TOOLS2 = [tool("delete_files", ret(True)), tool("inspect_files", ret({"files": 2}))]
for verdict, vid in (("y", "approval-hook-approve"), ("n", "approval-hook-deny")):
    final_t2 = ok("t2", [], True) if verdict == "y" else err("t2", DENY)
    vector(
        vid,
        f"BeforeToolCall approval hook, answered {verdict!r}",
        [
            R.BTC_INTERRUPT,
            R.ATC_NOT_FOR_INTERRUPTED,
            R.ATC_NOT_FOR_PRESERVED,
            R.PRESERVED,
            R.RESUME_SKIPS_MODEL,
            R.EXEC_CONCURRENT,
            R.AFTER_TOOL_CALL,
            R.BTC_ONCE,
            R.REPLAY_HOOKS,
        ]
        + ([] if verdict == "y" else [R.CANCEL_TOOL, R.CANCEL_MESSAGE, R.CANCEL_COMPLETES]),
        ["core", "hooks", "concurrent-executor"],
        agent("concurrent", T2, TOOLS2, [APPROVAL_HOOK]),
        [
            step(
                {"prompt": "clean up"},
                stopReason="interrupt",
                interrupts=[
                    {
                        "name": "myapp-approval",
                        "reason": PATHS,
                        "source": src("before_tool_call", "t2", "delete_files"),
                    }
                ],
                modelCalls=[0],
                beforeToolCall={"t1": 1, "t2": 1},
                toolStarts={"t1": 1},
                afterToolCall={"t1": "success"},
                afterTools=[["t1"]],
                hookCallbacks={"BeforeToolCall#0#t2": 1},
                messagesAdded=["user"],
            ),
            step(
                answer((ref("myapp-approval"), verdict)),
                stopReason="end_turn",
                message=asst(text("done")),
                modelCalls=[1],
                beforeToolCall={"t2": 1},
                toolStarts={"t2": 1} if verdict == "y" else {},
                afterToolCall={"t2": "success" if verdict == "y" else "error"},
                afterTools=[["t1", "t2"]],
                hookCallbacks={"BeforeToolCall#0#t2": 1},
                messagesAdded=["assistant", "user", "assistant"],
                messages=[
                    user("clean up"),
                    asst(*T2[0]["content"]),
                    results(ok("t1", [], {"files": 2}), final_t2),
                    asst(text("done")),
                ],
            ),
        ],
        "seeds/000 BeforeToolCallEvent; pinned 6, 8, 10",
    )

# 4-5. Batch approval (seed "BeforeToolsEvent"): cancel / approve.
BATCH = hook(
    "BeforeTools",
    intr("batch_approval", "Approve 2 dangerous tool calls?"),
    {"cancelIf": {"answerNotIn": [{"approved": True}], "message": "Batch cancelled by user"}},
)
T4 = [
    turn(tu("t1", "delete_files", {"paths": ["a"]}), tu("t2", "delete_files", {"paths": ["b"]})),
    turn(text("ok")),
]
for approved in (False, True):
    vid = "batch-approval-approve" if approved else "batch-approval-cancel"
    second = (
        dict(
            beforeToolCall={"t1": 1, "t2": 1},
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "success", "t2": "success"},
        )
        if approved
        else dict(beforeToolCall={}, toolStarts={}, afterToolCall={})
    )
    r1, r2 = (
        (ok("t1", [], "gone"), ok("t2", [], "gone"))
        if approved
        else (err("t1", "Batch cancelled by user"), err("t2", "Batch cancelled by user"))
    )
    vector(
        vid,
        f"BeforeTools batch approval, approved={approved}",
        [
            R.BT_INTERRUPT,
            R.BT_RERUN,
            R.AFTER_TOOLS_NOT_ON_BT,
            R.AFTER_TOOLS_ONCE,
            R.BT_SOURCE,
            R.BT_ONCE,
            R.BT_FULL_MESSAGE,
        ]
        + ([] if approved else [R.CANCEL_BATCH, R.CANCEL_BATCH_NO_ATC, R.CANCEL_COMPLETES]),
        ["core", "hooks"],
        agent("sequential", T4, [tool("delete_files", ret("gone"))], [BATCH]),
        [
            step(
                {"prompt": "batch"},
                stopReason="interrupt",
                interrupts=[
                    {
                        "name": "batch_approval",
                        "reason": "Approve 2 dangerous tool calls?",
                        "source": {"kind": "before_tools"},
                    }
                ],
                modelCalls=[0],
                beforeToolCall={},
                toolStarts={},
                afterToolCall={},
                afterTools=[],
                hookCallbacks={"BeforeTools#0": 1},
                messagesAdded=["user"],
            ),
            step(
                answer((ref("batch_approval"), {"approved": approved})),
                stopReason="end_turn",
                modelCalls=[1],
                afterTools=[["t1", "t2"]],
                hookCallbacks={"BeforeTools#0": 1},
                messages=[user("batch"), asst(*T4[0]["content"]), results(r1, r2), asst(text("ok"))],
                **second,
            ),
        ],
        "seeds/000 BeforeToolsEvent; pinned 7, 8, 9",
    )

# 6. Trust remembered in agent state (seed "Session Management"), with and without a restore.
TRUST = hook(
    "BeforeToolCall",
    {"skipIfState": {"key": "myapp-approval", "equals": "t"}},
    intr("myapp-approval", "delete?"),
    {"cancelIf": {"answerNotIn": ["y", "t"], "message": DENY}},
    {"setState": {"key": "myapp-approval", "fromAnswer": True}},
    tool_name="delete_files",
)
T6 = [
    turn(tu("t1", "delete_files", {"paths": ["a"]})),
    turn(tu("t2", "delete_files", {"paths": ["b"]})),
    turn(text("all done")),
]
for restored in (False, True):
    steps6 = [
        step(
            {"prompt": "delete a then b"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "myapp-approval",
                    "reason": "delete?",
                    "source": src("before_tool_call", "t1", "delete_files"),
                }
            ],
            modelCalls=[0],
            toolStarts={},
            state={},
        )
    ]
    if restored:
        steps6.append({"restore": True})
    steps6.append(
        step(
            answer((ref("myapp-approval", "t1"), "t")),
            stopReason="end_turn",
            message=asst(text("all done")),
            modelCalls=[1, 2],
            toolStarts={"t1": 1, "t2": 1},
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#0#t2": 1},
            afterTools=[["t1"], ["t2"]],
            state={"myapp-approval": "t"},
            messages=[
                user("delete a then b"),
                asst(*T6[0]["content"]),
                results(ok("t1", [], True)),
                asst(*T6[1]["content"]),
                results(ok("t2", [], True)),
                asst(text("all done")),
            ],
        )
    )
    vector(
        "trust-remembered" + ("-after-restore" if restored else ""),
        "A 't'rust answer stored in agent state skips the next approval"
        + (" (answer given to a restored agent)" if restored else ""),
        [R.REPLAY_ANSWER, R.CONSUMED, R.STATE_PERSISTS, R.STATE_KEPT]
        + ([R.SESSION_RESTORE, R.ID_STABLE] if restored else []),
        ["core", "hooks"] + (["sessions"] if restored else []),
        agent("sequential", T6, [tool("delete_files", ret(True))], [TRUST], state={}),
        steps6,
        "seeds/000 Session Management; pinned 18",
    )

# 7. Partial answers (concurrent): the unanswered one comes back unchanged; the answered one completes.
T7 = [turn(tu("t1", "ask_a"), tu("t2", "ask_b"), tu("t3", "plain")), turn(text("fin"))]
TOOLS7 = [
    tool("ask_a", intr("qa", "A?"), ret("a")),
    tool("ask_b", intr("qb", {"q": "B?"}), ret("b")),
    tool("plain", ret(1)),
]
PARTIAL_STEPS = [
    step(
        {"prompt": "go"},
        stopReason="interrupt",
        interrupts=[
            {"name": "qa", "reason": "A?", "source": src("tool", "t1", "ask_a")},
            {"name": "qb", "reason": {"q": "B?"}, "source": src("tool", "t2", "ask_b")},
        ],
        modelCalls=[0],
        toolStarts={"t1": 1, "t2": 1, "t3": 1},
        afterToolCall={"t3": "success"},
        afterTools=[["t3"]],
    ),
    step(
        answer((ref("qa"), 1)),
        stopReason="interrupt",
        interrupts=[{"name": "qb", "reason": {"q": "B?"}, "source": src("tool", "t2", "ask_b")}],
        modelCalls=[],
        toolStarts={"t1": 1, "t2": 1},
        afterToolCall={"t1": "success"},
        afterTools=[["t1", "t3"]],
        messagesAdded=[],
    ),
    step(answer((ref("qa"), 5)), error="UNKNOWN_INTERRUPT", **REJECTED),
    step(
        answer((ref("qb"), 2)),
        stopReason="end_turn",
        modelCalls=[1],
        toolStarts={"t2": 1},
        afterToolCall={"t2": "success"},
        afterTools=[["t1", "t2", "t3"]],
        messages=[
            user("go"),
            asst(*T7[0]["content"]),
            results(ok("t1", [1], "a"), ok("t2", [2], "b"), ok("t3", [], 1)),
            asst(text("fin")),
        ],
    ),
]
vector(
    "partial-answers",
    "Answer one of two interrupts; the other returns with the same name and reason",
    [
        R.PARTIAL,
        R.PARTIAL_SAME,
        R.PARTIAL_KEPT,
        R.ANSWERED_UNKNOWN,
        R.PRESERVED,
        R.PRESERVED_UNCHANGED,
        R.AFTER_TOOLS_CONTENT,
        R.EXEC_CONCURRENT,
        R.EXEC_CONC_REPORTED,
        R.RESULT_ORDER,
        R.STOP_NO_ANSWERED,
    ],
    ["core", "concurrent-executor"],
    agent("concurrent", T7, TOOLS7),
    PARTIAL_STEPS,
    "pinned 10, 14, 17",
)
vector(
    "partial-answers-across-restores",
    "Partial answers given to restored agents; ids stay stable",
    [R.SESSION_RESTORE, R.ID_STABLE, R.PARTIAL],
    ["core", "concurrent-executor", "sessions"],
    agent("concurrent", T7, TOOLS7),
    [PARTIAL_STEPS[0], {"restore": True}, PARTIAL_STEPS[1], {"restore": True}, PARTIAL_STEPS[2]],
    "pinned 18",
)

vector(
    "partial-answers-streamed",
    "Partial answers of a concurrent batch, every input streamed: each interrupt streamed once, none else",
    [R.STREAM_FINAL, R.STREAM_ONCE, R.STREAM_ONLY, R.PARTIAL, R.PARTIAL_SAME],
    ["core", "concurrent-executor", "streaming"],
    agent("concurrent", T7, TOOLS7),
    [{**s, "stream": True} for s in PARTIAL_STEPS],
    "spec 17.2, 17.3",
)

# 8. Fan-out: two BeforeToolCall hooks, two BeforeTools hooks.
T8 = [turn(tu("t1", "x")), turn(text("end"))]
vector(
    "fanout-before-tool-call",
    "Both BeforeToolCall callbacks run and both interrupts are returned",
    [
        R.FANOUT,
        R.FANOUT_ALL,
        R.HOOK_ORDER,
        R.BTC_INTERRUPT,
        R.STOP_ALL_INTERRUPTS,
        R.ID_DISTINCT,
        R.ID_DISTINCT_RESULT,
        R.NO_RESPONSE_IN_RESULT,
        R.INTERRUPT_ORDER,
    ],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("done"))],
        [hook("BeforeToolCall", intr("audit", "log?")), hook("BeforeToolCall", intr("approve", "ok?"))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "audit", "reason": "log?", "source": src("before_tool_call", "t1", "x")},
                {"name": "approve", "reason": "ok?", "source": src("before_tool_call", "t1", "x")},
            ],
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1},
            toolStarts={},
            afterToolCall={},
            afterTools=[[]],
        ),
        step(
            answer((ref("audit"), "fine"), (ref("approve"), "y")),
            stopReason="end_turn",
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1},
            toolStarts={"t1": 1},
            afterToolCall={"t1": "success"},
            afterTools=[["t1"]],
            modelCalls=[1],
        ),
    ],
    "seeds/000 rules; pinned 4",
)
vector(
    "fanout-before-tools-partial",
    "Two BeforeTools callbacks; answering one re-runs both, the other asks again",
    [
        R.FANOUT,
        R.BT_INTERRUPT,
        R.BT_RERUN,
        R.REPLAY_HOOKS,
        R.PARTIAL,
        R.AFTER_TOOLS_NOT_ON_BT,
        R.NO_REASON_MEMBER,
    ],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("done"))],
        [hook("BeforeTools", intr("b1")), hook("BeforeTools", intr("b2", [1, 2]))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "b1", "source": {"kind": "before_tools"}},
                {"name": "b2", "reason": [1, 2], "source": {"kind": "before_tools"}},
            ],
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            beforeToolCall={},
            afterTools=[],
        ),
        step(
            answer((ref("b1"), True)),
            stopReason="interrupt",
            interrupts=[{"name": "b2", "reason": [1, 2], "source": {"kind": "before_tools"}}],
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            beforeToolCall={},
            toolStarts={},
            afterTools=[],
            modelCalls=[],
        ),
        step(
            answer((ref("b2"), False)),
            stopReason="end_turn",
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            beforeToolCall={"t1": 1},
            toolStarts={"t1": 1},
            afterTools=[["t1"]],
            modelCalls=[1],
        ),
    ],
    "pinned 4, 7, 9, 14",
)

# 9. Duplicate name in one scope.
vector(
    "duplicate-interrupt-name",
    "Two BeforeToolCall callbacks raise the same name: an error, never a merge",
    [R.DUPLICATE_NAME, R.ERROR_UNCHANGED],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret())],
        [hook("BeforeToolCall", intr("approval")), hook("BeforeToolCall", intr("approval"))],
    ),
    [
        step({"prompt": "p"}, error="DUPLICATE_INTERRUPT_NAME", toolStarts={}, messages=[], state={}),
        # The agent is as it was (ROC-ERR-006); the scripted model has moved on to its next turn.
        step(
            {"prompt": "again"},
            stopReason="end_turn",
            modelCalls=[1],
            messages=[user("again"), asst(text("end"))],
        ),
    ],
    "pinned 5",
)

# 10-11. Executors: sequential stop vs concurrent completion; preserved results.
T10 = [turn(tu("t1", "plain"), tu("t2", "ask"), tu("t3", "plain")), turn(text("end"))]
TOOLS10 = [tool("plain", ret("p")), tool("ask", intr("q", "?"), ret("a"))]
MSG10 = [
    user("run"),
    asst(*T10[0]["content"]),
    results(ok("t1", [], "p"), ok("t2", ["yes"], "a"), ok("t3", [], "p")),
    asst(text("end")),
]
vector(
    "sequential-stop",
    "Sequential executor: the cycle stops at the first interrupted tool",
    [
        R.EXEC_SEQUENTIAL,
        R.EXEC_SEQ_ORDER,
        R.EXEC_SEQ_PRESERVED,
        R.EXEC_SEQ_CONTINUE,
        R.PRESERVED,
        R.AFTER_TOOLS_CONTENT,
        R.AFTER_TOOLS_ONCE,
        R.RESUME_SKIPS_MODEL,
    ],
    ["core", "sequential-executor"],
    agent("sequential", T10, TOOLS10),
    [
        step(
            {"prompt": "run"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "reason": "?", "source": src("tool", "t2", "ask")}],
            modelCalls=[0],
            beforeToolCall={"t1": 1, "t2": 1},
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "success"},
            afterTools=[["t1"]],
            messagesAdded=["user"],
        ),
        step(
            answer((ref("q"), "yes")),
            stopReason="end_turn",
            modelCalls=[1],
            beforeToolCall={"t2": 1, "t3": 1},
            toolStarts={"t2": 1, "t3": 1},
            afterToolCall={"t2": "success", "t3": "success"},
            afterTools=[["t1", "t2", "t3"]],
            messages=MSG10,
        ),
    ],
    "pinned 10, 17",
)
vector(
    "concurrent-completion",
    "Concurrent executor: every tool that is not interrupted runs to completion",
    [
        R.EXEC_CONCURRENT,
        R.EXEC_CONC_ORDER,
        R.PRESERVED,
        R.AFTER_TOOLS_CONTENT,
        R.AFTER_TOOLS_ORDER,
        R.RESULT_ORDER,
    ],
    ["core", "concurrent-executor"],
    agent("concurrent", T10, TOOLS10),
    [
        step(
            {"prompt": "run"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "reason": "?", "source": src("tool", "t2", "ask")}],
            modelCalls=[0],
            beforeToolCall={"t1": 1, "t2": 1, "t3": 1},
            toolStarts={"t1": 1, "t2": 1, "t3": 1},
            afterToolCall={"t1": "success", "t3": "success"},
            afterTools=[["t1", "t3"]],
        ),
        step(
            answer((ref("q"), "yes")),
            stopReason="end_turn",
            modelCalls=[1],
            beforeToolCall={"t2": 1},
            toolStarts={"t2": 1},
            afterToolCall={"t2": "success"},
            afterTools=[["t1", "t2", "t3"]],
            messages=MSG10,
        ),
    ],
    "seeds/000 rules; pinned 10, 11, 17",
)

# 12. Resume input validation, in order, and nothing changes on rejection.
T12 = [turn(tu("t1", "ask")), turn(text("end"))]
vector(
    "resume-validation-errors",
    "Input of the wrong shape for an interrupted agent is rejected with its code and changes nothing",
    [
        R.RESUME_PROMPT,
        R.RESUME_ONLY_RESPONSES,
        R.RESUME_EMPTY,
        R.RESUME_UNCHANGED,
        R.RESUME_NOTHING_RUNS,
        R.ERROR_VALUES,
        R.ERROR_CODE_DEFINED,
        R.ERROR_MESSAGE,
        R.RESUME_ACCEPT,
    ],
    ["core"],
    agent("sequential", T12, [tool("ask", intr("q"), ret("a"))]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
        ),
        step({"prompt": "hello"}, error="INTERRUPT_PENDING", **REJECTED),
        step({"content": [text("hi")]}, error="INTERRUPT_PENDING", **REJECTED),
        step(
            {"content": [text("hi"), {"interruptResponse": {"interruptId": "whatever", "response": "y"}}]},
            error="INTERRUPT_PENDING",
            **REJECTED,
        ),
        step({"interruptResponses": []}, error="INVALID_RESUME", **REJECTED),
        # Faults in the responses themselves (an id twice, null, no response, a bad id) each have a vector of
        # their own (resume-rejects-*): an implementation that takes one of them as an answer finishes the
        # batch, and every later step here would then be judged against an idle agent.
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"t1": 1},
            messages=[user("p"), asst(tu("t1", "ask")), results(ok("t1", ["y"], "a")), asst(text("end"))],
        ),
    ],
    "pinned 12, 19",
)

# 13. Presence, not truthiness.
FALSY = [False, 0, "", {}, []]
T13 = [turn(*[tu(f"t{i}", "ask") for i in range(5)]), turn(text("end"))]
vector(
    "falsy-answers-are-answers",
    'false, 0, "", {} and [] are answers and reach the tool',
    [R.RESUME_PRESENCE, R.REPLAY_ANSWER, R.NO_CLASH_TOOL, R.BY_ID],
    ["core", "concurrent-executor"],
    agent("concurrent", T13, [tool("ask", intr("q"), ret())]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", f"t{i}", "ask")} for i in range(5)],
        ),
        step(
            answer(*[(ref("q", f"t{i}"), v) for i, v in enumerate(FALSY)]),
            stopReason="end_turn",
            toolStarts={f"t{i}": 1 for i in range(5)},
            messages=[
                user("p"),
                asst(*T13[0]["content"]),
                results(*[ok(f"t{i}", [v], None) for i, v in enumerate(FALSY)]),
                asst(text("end")),
            ],
        ),
    ],
    "pinned 12",
)

# 14. Not interrupted.
vector(
    "not-interrupted",
    "Interrupt responses to an agent that is not interrupted are rejected",
    [R.NOT_INTERRUPTED, R.RESUME_UNCHANGED],
    ["core"],
    agent("sequential", [turn(text("hello there"))], []),
    [
        step(
            {"interruptResponses": [{"interruptId": "x", "response": "y"}]},
            error="NOT_INTERRUPTED",
            **REJECTED,
        ),
        step(
            {"content": [text("hi")]},
            stopReason="end_turn",
            interrupts=[],
            message=asst(text("hello there")),
            modelCalls=[0],
            messagesAdded=["user", "assistant"],
            messages=[user("hi"), asst(text("hello there"))],
        ),
    ],
    "pinned 13",
)

# 15. Consumption while another interrupt is pending, then after completion.
T15 = [turn(tu("t1", "ask")), turn(tu("t2", "ask")), turn(text("end"))]
vector(
    "consumed-answer-resent",
    "A consumed answer executes nothing again: UNKNOWN_INTERRUPT, then NOT_INTERRUPTED",
    [
        R.CONSUMED,
        R.CONSUMED_UNKNOWN,
        R.CONSUMED_NOT_INTERRUPTED,
        R.CONSUMED_NOT_DELIVERED,
        R.ID_NOT_REUSED,
        R.TOOL_BATCH,
    ],
    ["core"],
    agent("sequential", T15, [tool("ask", intr("q"), ret("a"))]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
        ),
        step(
            answer((ref("q", "t1"), "y")),
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t2", "ask")}],
            modelCalls=[1],
            toolStarts={"t1": 1, "t2": 1},
            afterTools=[["t1"], []],
            messagesAdded=["assistant", "user"],
        ),
        step(answer((ref("q", "t1"), "y")), error="UNKNOWN_INTERRUPT", **REJECTED),
        step(answer((ref("q", "t2"), "z")), stopReason="end_turn", modelCalls=[2], toolStarts={"t2": 1}),
        step(answer((ref("q", "t2"), "z")), error="NOT_INTERRUPTED", **REJECTED),
    ],
    "pinned 15",
)

# 16. Direct tool calls.
vector(
    "direct-tool-call",
    "Direct calls run plain tools, cannot interrupt, and are refused while interrupted",
    [R.DIRECT_INTERRUPT, R.DIRECT_PENDING, R.DIRECT_IDLE, R.DIRECT_NO_MODEL],
    ["core"],
    agent("sequential", T12, [tool("ask", intr("q"), ret("a")), tool("plain", ret("p"))]),
    [
        step(
            {"directToolCall": {"name": "plain", "input": {}}},
            toolResult={"status": "success", "content": [{"json": {"answers": [], "value": "p"}}]},
            modelCalls=[],
        ),
        step({"directToolCall": {"name": "ask", "input": {}}}, error="DIRECT_CALL_INTERRUPT", modelCalls=[]),
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
        ),
        step({"directToolCall": {"name": "plain", "input": {}}}, error="INTERRUPT_PENDING", **REJECTED),
        step(answer((ref("q"), "y")), stopReason="end_turn", toolStarts={"t1": 1}),
    ],
    "seeds/000 Tools; pinned 16",
)

# 17. An interrupt outranks cancel_tool from another callback in the same pass.
vector(
    "interrupt-outranks-cancel",
    "BeforeToolCall: one callback cancels, another interrupts; the interrupt wins",
    [R.BTC_OUTRANKS_CANCEL, R.BTC_INTERRUPT, R.CANCEL_TOOL, R.CANCEL_NOT_CARRIED],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret(1))],
        [hook("BeforeToolCall", {"cancel": {"message": "blocked"}}), hook("BeforeToolCall", intr("approve"))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "approve", "source": src("before_tool_call", "t1", "x")}],
            toolStarts={},
            afterToolCall={},
            afterTools=[[]],
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1},
        ),
        step(
            answer((ref("approve"), "y")),
            stopReason="end_turn",
            toolStarts={},
            afterToolCall={"t1": "error"},
            afterTools=[["t1"]],
            messages=[user("p"), asst(tu("t1", "x")), results(err("t1", "blocked")), asst(text("end"))],
        ),
    ],
    "pinned 6, 8",
)

# 18. One interrupt at a time per unit.
vector(
    "one-at-a-time",
    "A tool asks q1, then (once answered) q2; both answers reach it in order",
    [R.ONE_AT_A_TIME, R.FURTHER_INTERRUPT, R.MULTI_ANSWERS, R.REPLAY_RERUN, R.PARTIAL_KEPT],
    ["core"],
    agent("sequential", T12, [tool("ask", intr("q1", "first?"), intr("q2", "second?"), ret("both"))]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q1", "reason": "first?", "source": src("tool", "t1", "ask")}],
            toolStarts={"t1": 1},
        ),
        step(
            answer((ref("q1"), "a")),
            stopReason="interrupt",
            interrupts=[{"name": "q2", "reason": "second?", "source": src("tool", "t1", "ask")}],
            toolStarts={"t1": 1},
            modelCalls=[],
            afterTools=[[]],
        ),
        step(
            answer((ref("q2"), "b")),
            stopReason="end_turn",
            toolStarts={"t1": 1},
            modelCalls=[1],
            messages=[
                user("p"),
                asst(tu("t1", "ask")),
                results(ok("t1", ["a", "b"], "both")),
                asst(text("end")),
            ],
        ),
    ],
    "seeds/000 rules; pinned 3",
)

# 19. AfterTools / AfterToolCall callbacks per cycle.
T19 = [turn(tu("t1", "plain"), tu("t2", "ask")), turn(text("end"))]
vector(
    "after-events-per-cycle",
    "AfterTools fires once per cycle; AfterToolCall once per tool that got a result",
    [R.AFTER_TOOLS_ONCE, R.AFTER_TOOLS_CONTENT, R.AFTER_TOOL_CALL],
    ["core", "hooks", "concurrent-executor"],
    agent(
        "concurrent",
        T19,
        [tool("plain", ret(0)), tool("ask", intr("q"), ret(1))],
        [hook("AfterTools"), hook("AfterToolCall")],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            afterTools=[["t1"]],
            afterToolCall={"t1": "success"},
            hookCallbacks={"AfterTools#0": 1, "AfterToolCall#1#t1": 1},
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            afterTools=[["t1", "t2"]],
            afterToolCall={"t2": "success"},
            hookCallbacks={"AfterTools#0": 1, "AfterToolCall#1#t2": 1},
        ),
    ],
    "seeds/000 rules; pinned 9",
)

# 20. Failing tool preserved across an interrupt.
vector(
    "failed-result-preserved",
    "A tool that failed in an interrupted cycle is not run again",
    [R.PRESERVED, R.TOOL_FAIL, R.AFTER_TOOL_CALL],
    ["core", "concurrent-executor"],
    agent(
        "concurrent",
        [turn(tu("t1", "broken"), tu("t2", "ask")), turn(text("end"))],
        [tool("broken", {"fail": {"message": "boom"}}), tool("ask", intr("q"), ret("a"))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "error"},
            afterTools=[["t1"]],
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            toolStarts={"t2": 1},
            afterToolCall={"t2": "success"},
            messages=[
                user("p"),
                asst(tu("t1", "broken"), tu("t2", "ask")),
                results(err("t1", "boom"), ok("t2", ["y"], "a")),
                asst(text("end")),
            ],
        ),
    ],
    "pinned 10",
)

# 21. Multi-turn: no model call after an interrupt; deferred append.
T21 = [turn(tu("t1", "plain")), turn(tu("t2", "ask")), turn(text("end"))]
vector(
    "no-model-call-after-interrupt",
    "A completed cycle is appended; the interrupted one is not; no model call follows",
    [
        R.STOP_NO_MODEL_CALL,
        R.TRANSCRIPT,
        R.NO_DANGLING,
        R.MESSAGE_ADDED,
        R.RESUME_SKIPS_MODEL,
        R.RESULT_INTERRUPTS_IFF,
    ],
    ["core"],
    agent("sequential", T21, [tool("plain", ret(0)), tool("ask", intr("q"), ret(1))]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            modelCalls=[0, 1],
            toolStarts={"t1": 1, "t2": 1},
            afterTools=[["t1"], []],
            messagesAdded=["user", "assistant", "user"],
            messages=[user("p"), asst(tu("t1", "plain")), results(ok("t1", [], 0))],
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            modelCalls=[2],
            messagesAdded=["assistant", "user", "assistant"],
        ),
    ],
    "pinned 1, 11",
)

# 22. cancel_tool without an interrupt.
vector(
    "cancel-tool",
    "cancel_tool gives an error result with the message and AfterToolCall still fires",
    [R.CANCEL_TOOL, R.CANCEL_MESSAGE, R.CANCEL_COMPLETES, R.AFTER_TOOL_CALL],
    ["core", "hooks"],
    agent(
        "sequential",
        [turn(tu("t1", "x"), tu("t2", "y")), turn(text("end"))],
        [tool("x", ret(1)), tool("y", ret(2))],
        [hook("BeforeToolCall", {"cancel": {"message": "nope"}}, tool_name="x")],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="end_turn",
            toolStarts={"t2": 1},
            afterToolCall={"t1": "error", "t2": "success"},
            hookCallbacks={"BeforeToolCall#0#t1": 1},
            messages=[
                user("p"),
                asst(tu("t1", "x"), tu("t2", "y")),
                results(err("t1", "nope"), ok("t2", [], 2)),
                asst(text("end")),
            ],
        )
    ],
    "pinned 8",
)

# 23. BeforeTools interrupt with a later per-tool interrupt (two rounds, AfterTools pairing).
vector(
    "batch-then-tool-interrupt",
    "A BeforeTools interrupt, then a tool interrupt in the next round",
    [R.BT_INTERRUPT, R.AFTER_TOOLS_NOT_ON_BT, R.AFTER_TOOLS_ONCE, R.BT_RERUN, R.NO_CLASH_HOOK],
    ["core", "hooks"],
    agent(
        "sequential",
        [turn(tu("t1", "ask")), turn(text("end"))],
        [tool("ask", intr("q"), ret("a"))],
        [hook("BeforeTools", intr("batch"))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "batch", "source": {"kind": "before_tools"}}],
            afterTools=[],
            toolStarts={},
        ),
        step(
            answer((ref("batch"), "ok")),
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
            hookCallbacks={"BeforeTools#0": 1},
            afterTools=[[]],
            toolStarts={"t1": 1},
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            hookCallbacks={"BeforeTools#0": 1},
            afterTools=[["t1"]],
            toolStarts={"t1": 1},
        ),
    ],
    "pinned 7, 9",
)

# 24. Withdrawn: an unanswered interrupt its unit does not raise again is dropped.
vector(
    "withdrawn-interrupt",
    "A callback that no longer asks withdraws its interrupt; answering it is UNKNOWN_INTERRUPT",
    [R.WITHDRAWN, R.HOOK_ORDER, R.PARTIAL, R.EXEC_SEQUENTIAL],
    ["core", "hooks", "sequential-executor"],
    agent(
        "sequential",
        [turn(tu("t1", "x"), tu("t2", "ask")), turn(text("end"))],
        [tool("x", ret("x")), tool("ask", intr("q"), ret("a"))],
        [
            hook("BeforeToolCall", intr("a"), {"setState": {"key": "k", "fromAnswer": True}}, tool_name="x"),
            hook("BeforeToolCall", {"skipIfState": {"key": "k", "equals": "skip"}}, intr("b"), tool_name="x"),
        ],
        state={},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "a", "source": src("before_tool_call", "t1", "x")},
                {"name": "b", "source": src("before_tool_call", "t1", "x")},
            ],
            toolStarts={},
        ),
        step(
            answer((ref("a"), "skip")),
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t2", "ask")}],
            toolStarts={"t1": 1, "t2": 1},
            state={"k": "skip"},
        ),
        step(answer((ref("b"), "late")), error="UNKNOWN_INTERRUPT", **REJECTED),
        step(answer((ref("q"), "y")), stopReason="end_turn", toolStarts={"t2": 1}),
    ],
    "spec 03 (ROC-ANSWER-005)",
)

# 24a. Withdrawn without hooks: a tool body that no longer asks withdraws its interrupt.
vector(
    "withdrawn-by-a-tool",
    "A tool body that no longer asks withdraws its interrupt (no hooks); answering it is UNKNOWN_INTERRUPT",
    [R.WITHDRAWN, R.PARTIAL, R.EXEC_CONCURRENT],
    ["core", "concurrent-executor"],
    agent(
        "concurrent",
        [turn(tu("t1", "first"), tu("t2", "once"), tu("t3", "third")), turn(text("end"))],
        [
            tool("first", intr("a"), ret("first")),
            # asks only on its first run: the mark it leaves makes the replay skip the question
            tool(
                "once",
                {"skipIfState": {"key": "asked", "equals": True}},
                {"setState": {"key": "asked", "value": True}},
                intr("b"),
            ),
            tool("third", intr("c"), ret("third")),
        ],
        state={},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "a", "source": src("tool", "t1", "first")},
                {"name": "b", "source": src("tool", "t2", "once")},
                {"name": "c", "source": src("tool", "t3", "third")},
            ],
            toolStarts={"t1": 1, "t2": 1, "t3": 1},
        ),
        step(
            answer((ref("a", "t1"), "yes")),
            stopReason="interrupt",
            interrupts=[{"name": "c", "source": src("tool", "t3", "third")}],
            toolStarts={"t1": 1, "t2": 1, "t3": 1},
        ),
        step(answer((ref("b", "t2"), "late")), error="UNKNOWN_INTERRUPT", **REJECTED),
        step(answer((ref("c", "t3"), "yes")), stopReason="end_turn", toolStarts={"t3": 1}),
    ],
    "spec 03 (ROC-ANSWER-005 for a runtime without hooks)",
)

# 24b. Not withdrawn: an unanswered interrupt whose unit did not run stays pending and is reported again.
vector(
    "unit-not-run-keeps-interrupt",
    "A BeforeTools interrupt keeps the tools from running: their unanswered interrupts stay pending",
    [R.STILL_PENDING, R.WITHDRAWN, R.BT_INTERRUPT, R.PARTIAL, R.EXEC_CONCURRENT],
    ["core", "hooks", "concurrent-executor"],
    agent(
        "concurrent",
        [turn(tu("t1", "arm"), tu("t2", "ask")), turn(text("end"))],
        [
            tool("arm", {"setState": {"key": "armed", "value": True}}, intr("a"), ret("armed")),
            tool("ask", intr("b"), ret("asked")),
        ],
        [hook("BeforeTools", {"skipIfState": {"key": "armed", "equals": False}}, intr("gate"))],
        state={"armed": False},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "a", "source": src("tool", "t1", "arm")},
                {"name": "b", "source": src("tool", "t2", "ask")},
            ],
            toolStarts={"t1": 1, "t2": 1},
        ),
        step(
            answer((ref("a", "t1"), "yes")),
            stopReason="interrupt",
            interrupts=[
                {"name": "gate", "source": src("before_tools")},
                {"name": "b", "source": src("tool", "t2", "ask")},
            ],
            toolStarts={},
        ),
        step(
            answer((ref("gate"), "open"), (ref("b", "t2"), "yes")),
            stopReason="end_turn",
            toolStarts={"t1": 1, "t2": 1},
        ),
    ],
    "spec 03 (ROC-STOP-002, ROC-ANSWER-005: a unit that did not run withdraws nothing)",
)

# 25. The same name twice in one run of a tool body.
vector(
    "duplicate-name-in-one-run",
    "A tool body that raises the same name twice fails with DUPLICATE_INTERRUPT_NAME",
    [R.DUPLICATE_NAME_TOOL, R.ERROR_UNCHANGED],
    ["core"],
    agent("sequential", T12, [tool("ask", intr("q"), intr("q"), ret())]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
        ),
        step(answer((ref("q"), 1)), error="DUPLICATE_INTERRUPT_NAME", messages=[user("p")]),
        step({"prompt": "other"}, error="INTERRUPT_PENDING", **REJECTED),
    ],
    "pinned 5; spec ROC-TOOL-014",
)

# 26. BeforeTools: an interrupt outranks cancel; a cancel of a stopped firing does not carry over.
vector(
    "batch-interrupt-outranks-cancel",
    "BeforeTools: interrupt beats cancel, and the old cancel is forgotten",
    [R.BT_OUTRANKS_CANCEL, R.CANCEL_NOT_CARRIED, R.BT_INTERRUPT, R.HOOK_ORDER],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("ran"))],
        [
            hook("BeforeTools", intr("b"), {"setState": {"key": "k", "value": 1}}),
            hook("BeforeTools", {"skipIfState": {"key": "k", "equals": 1}}, {"cancel": {"message": "no"}}),
        ],
        state={},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "b", "source": {"kind": "before_tools"}}],
            toolStarts={},
            beforeToolCall={},
            afterTools=[],
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
        ),
        step(
            answer((ref("b"), "go")),
            stopReason="end_turn",
            toolStarts={"t1": 1},
            afterToolCall={"t1": "success"},
            state={"k": 1},
            messages=[user("p"), asst(tu("t1", "x")), results(ok("t1", [], "ran")), asst(text("end"))],
        ),
    ],
    "spec ROC-CANCEL-008, ROC-CANCEL-009",
)

# 27. Empty cancel message.
vector(
    "cancel-empty-message",
    "A cancel whose message is the empty string still cancels",
    [R.CANCEL_EMPTY_MESSAGE, R.CANCEL_MESSAGE],
    ["core", "hooks"],
    agent("sequential", T8, [tool("x", ret())], [hook("BeforeToolCall", {"cancel": {"message": ""}})]),
    [
        step(
            {"prompt": "p"},
            stopReason="end_turn",
            toolStarts={},
            afterToolCall={"t1": "error"},
            messages=[user("p"), asst(tu("t1", "x")), results(err("t1", "")), asst(text("end"))],
        )
    ],
    "spec ROC-CANCEL-004",
)

# 28. The same name twice in one run of a callback.
vector(
    "duplicate-name-in-one-callback",
    "A callback that raises the same name twice fails with DUPLICATE_INTERRUPT_NAME",
    [R.DUPLICATE_NAME_RUN, R.ERROR_UNCHANGED],
    ["core", "hooks"],
    agent("sequential", T8, [tool("x", ret())], [hook("BeforeToolCall", intr("n"), intr("n"))]),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "n", "source": src("before_tool_call", "t1", "x")}],
        ),
        step(answer((ref("n"), 1)), error="DUPLICATE_INTERRUPT_NAME", messages=[user("p")]),
    ],
    "spec ROC-HOOK-025",
)

# 29. A tool use that names no tool: an error result (its text is the implementation's); the batch goes on.
vector(
    "unknown-tool",
    "A toolUse naming no tool gets an error result and the other tools still run",
    [R.UNKNOWN_TOOL, R.AFTER_TOOL_CALL],
    ["core", "sequential-executor"],
    agent(
        "sequential",
        [turn(tu("t1", "no_such_tool"), tu("t2", "ask")), turn(text("end"))],
        [tool("ask", intr("q"), ret("a"))],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            beforeToolCall={"t1": 1, "t2": 1},
            toolStarts={"t2": 1},
            afterToolCall={"t1": "error"},
            afterTools=[["t1"]],
            interrupts=[{"name": "q", "source": src("tool", "t2", "ask")}],
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            toolStarts={"t2": 1},
            afterToolCall={"t2": "success"},
            afterTools=[["t1", "t2"]],
            modelCalls=[1],
        ),
    ],
    "spec ROC-TOOL-009",
)

# A replay passes another reason: callback 0 writes its answer into the state that callback 1 reads its
# reason from, so the re-raised b2 is raised with "second" and must still report "first".
vector(
    "reason-kept-on-replay",
    "A replayed callback raises a pending interrupt with a new reason; the first reason stays",
    [
        R.REASON_KEPT,
        R.PARTIAL,
        R.PARTIAL_SAME,
        R.ID_STABLE,
        R.BT_RERUN,
        R.REPLAY_HOOKS,
        R.STATE_KEPT,
    ],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("done"))],
        [
            hook("BeforeTools", intr("b1"), {"setState": {"key": "topic", "fromAnswer": True}}),
            hook("BeforeTools", {"interrupt": {"name": "b2", "reasonFromState": "topic"}}),
        ],
        state={"topic": "first"},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "b1", "source": {"kind": "before_tools"}},
                {"name": "b2", "reason": "first", "source": {"kind": "before_tools"}},
            ],
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            toolStarts={},
            state={"topic": "first"},
        ),
        step(
            answer((ref("b1"), "second")),
            stopReason="interrupt",
            interrupts=[{"name": "b2", "reason": "first", "source": {"kind": "before_tools"}}],
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            toolStarts={},
            modelCalls=[],
            state={"topic": "second"},
        ),
        step(
            answer((ref("b2"), "ok")),
            stopReason="end_turn",
            toolStarts={"t1": 1},
            afterTools=[["t1"]],
            modelCalls=[1],
            state={"topic": "second"},
            messages=[user("p"), asst(tu("t1", "x")), results(ok("t1", [], "done")), asst(text("end"))],
        ),
    ],
    "spec ROC-STOP-011",
)


# --- divergences seen in strands-agents 1.62 ---
# Each vector below sets up one behaviour a real SDK got wrong (conformance/fixtures/broken/ has a fixture
# behaving like it), so the finding names the requirement that behaviour breaks.

# A batch cancel whose message is "" still cancels (a truthiness test lets the tools run).
vector(
    "batch-cancel-empty-message",
    "A BeforeTools cancel whose message is the empty string still cancels the batch",
    [R.CANCEL_EMPTY_MESSAGE, R.CANCEL_BATCH, R.CANCEL_BATCH_NO_ATC],
    ["core", "hooks"],
    agent(
        "sequential",
        [turn(tu("t1", "x"), tu("t2", "x")), turn(text("end"))],
        [tool("x", ret())],
        [hook("BeforeTools", {"cancel": {"message": ""}})],
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="end_turn",
            beforeToolCall={},
            toolStarts={},
            afterToolCall={},
            afterTools=[["t1", "t2"]],
            messages=[
                user("p"),
                asst(tu("t1", "x"), tu("t2", "x")),
                results(err("t1", ""), err("t2", "")),
                asst(text("end")),
            ],
        )
    ],
    "spec ROC-CANCEL-004",
)

# A rejected resume stores nothing, also the valid answers it held before its faulty entry (an SDK that
# stores each answer while it walks the input keeps A's answer, and the next resume completes the batch).
TWO_GATES = [hook("BeforeToolCall", intr("a")), hook("BeforeToolCall", intr("b"))]
GATES_ASKED = [
    {"name": "a", "source": src("before_tool_call", "t1", "x")},
    {"name": "b", "source": src("before_tool_call", "t1", "x")},
]


# One fault per vector: an SDK that accepts one of the faulty resumes (e.g. a null response) must still be
# judged on whether the other rejection kept nothing.
def _rejected_resume_keeps_nothing(
    vid: str, title: str, reqs: list[str], bad: dict[str, Any], code: str
) -> None:
    vector(
        vid,
        title,
        [R.RESUME_UNCHANGED, R.RESUME_NOTHING_RUNS, *reqs, R.PARTIAL_SAME],
        ["core", "hooks"],
        agent("sequential", T8, [tool("x", ret("ran"))], TWO_GATES),
        [
            step({"prompt": "p"}, stopReason="interrupt", interrupts=GATES_ASKED, toolStarts={}),
            step(bad, error=code, **REJECTED),
            # Only b is answered now; a must be asked again, with its id, as if the rejected input never came.
            step(
                answer((ref("b"), "y")),
                stopReason="interrupt",
                interrupts=GATES_ASKED[:1],
                toolStarts={},
                modelCalls=[],
                messagesAdded=[],
            ),
            step(
                answer((ref("a"), "y")),
                stopReason="end_turn",
                toolStarts={"t1": 1},
                messages=[user("p"), asst(tu("t1", "x")), results(ok("t1", [], "ran")), asst(text("end"))],
            ),
        ],
        "spec ROC-RESUME-010",
    )


_rejected_resume_keeps_nothing(
    "rejected-resume-keeps-nothing",
    "A resume rejected for an unknown id in its second entry leaves the first entry's interrupt unanswered",
    [R.RESUME_UNKNOWN],
    {
        "interruptResponses": [
            {"interrupt": ref("a"), "response": "y"},
            {"interruptId": "no-such-interrupt", "response": "y"},
        ]
    },
    "UNKNOWN_INTERRUPT",
)
_rejected_resume_keeps_nothing(
    "rejected-null-resume-keeps-nothing",
    "A resume rejected for a null response in its second entry leaves the first entry's interrupt unanswered",
    [R.RESUME_NULL],
    answer((ref("a"), "y"), (ref("b"), None)),
    "INVALID_RESPONSE",
)


# An answer sent to an idle agent is NOT_INTERRUPTED also when text comes with it (an SDK whose prompt check
# runs first raises its own exception for the mix), in either order and as content.
STRAY = {"interruptResponse": {"interruptId": "no-such-interrupt", "response": "y"}}
vector(
    "mixed-input-when-idle",
    "Text mixed with an interruptResponse, sent to an agent that is not interrupted, is NOT_INTERRUPTED",
    [R.NOT_INTERRUPTED, R.RESUME_UNCHANGED, R.RESUME_NOTHING_RUNS, R.ERROR_VALUES],
    ["core"],
    agent("sequential", T12, [tool("ask", intr("q"), ret("a"))]),
    [
        step({"content": [text("hi"), STRAY]}, error="NOT_INTERRUPTED", **REJECTED),
        step({"content": [STRAY, text("hi")]}, error="NOT_INTERRUPTED", **REJECTED),
        step({"content": [STRAY]}, error="NOT_INTERRUPTED", **REJECTED),
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
            messages=[user("p")],
        ),
        step(answer((ref("q"), "y")), stopReason="end_turn", modelCalls=[1]),
        # Idle again, after a completed batch: the same inputs are refused the same way.
        step({"content": [text("more"), STRAY]}, error="NOT_INTERRUPTED", **REJECTED),
        step(
            {"content": [text("hi"), {"interruptResponse": {"interruptId": "no-such-interrupt"}}]},
            error="NOT_INTERRUPTED",
            **REJECTED,
        ),
    ],
    "spec ROC-RESUME-012, 3.4",
)


# Two callbacks of one BeforeToolCall firing share a name across cycles: callback 1 asks "n" at first;
# callback 2 asks "n" only once the answer to "m" changed the state. It must not get callback 1's answer
# (an SDK that matches hook interrupts by name hands it over).
NAME_ACROSS_CYCLES = [
    hook("BeforeToolCall", intr("m", "mode?"), {"setState": {"key": "mode", "fromAnswer": True}}),
    hook("BeforeToolCall", {"skipIfState": {"key": "mode", "equals": "strict"}}, intr("n", "first?")),
    hook("BeforeToolCall", {"skipIfState": {"key": "mode", "equals": "open"}}, intr("n", "second?")),
]
vector(
    "duplicate-name-across-cycles",
    "A callback that raises the name another callback of the same firing raised in an earlier cycle fails",
    [R.DUPLICATE_NAME, R.ERROR_UNCHANGED, R.FANOUT, R.STATE_KEPT],
    ["core", "hooks"],
    agent("sequential", T8, [tool("x", ret("ran"))], NAME_ACROSS_CYCLES, state={"mode": "open"}),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[
                {"name": "m", "reason": "mode?", "source": src("before_tool_call", "t1", "x")},
                {"name": "n", "reason": "first?", "source": src("before_tool_call", "t1", "x")},
            ],
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1, "BeforeToolCall#2#t1": 1},
            toolStarts={},
            state={"mode": "open"},
        ),
        # Callback 1 now skips and callback 2 raises "n": it must not receive the answer given to callback 1.
        step(
            answer((ref("m"), "strict"), (ref("n"), "yes")),
            error="DUPLICATE_INTERRUPT_NAME",
            toolStarts={},
            messages=[user("p")],
            state={"mode": "open"},
        ),
        # The failed invocation changed nothing: both interrupts are still pending and unanswered.
        step(answer((ref("m"), "open"), (ref("n"), "yes")), stopReason="end_turn", toolStarts={"t1": 1}),
    ],
    "spec ROC-HOOK-021",
)


# An answered interrupt of a pending batch cannot be answered again (an SDK that looks ids up among all the
# batch's interrupts overwrites the stored answer). Sequential executor, so no concurrency profile is needed.
vector(
    "answered-interrupt-answered-again",
    "Answering an interrupt that is already answered is UNKNOWN_INTERRUPT and keeps the first answer",
    [R.ANSWERED_UNKNOWN, R.PARTIAL, R.PARTIAL_KEPT, R.RESUME_UNCHANGED],
    ["core", "hooks", "sequential-executor"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("ran"))],
        [
            hook("BeforeToolCall", intr("a"), {"setState": {"key": "a", "fromAnswer": True}}),
            hook("BeforeToolCall", intr("b")),
        ],
        state={},
    ),
    [
        step({"prompt": "p"}, stopReason="interrupt", interrupts=GATES_ASKED, toolStarts={}),
        step(
            answer((ref("a"), "first")),
            stopReason="interrupt",
            interrupts=GATES_ASKED[1:],
            toolStarts={},
            state={"a": "first"},
        ),
        step(answer((ref("a"), "second")), error="UNKNOWN_INTERRUPT", state={"a": "first"}, **REJECTED),
        step(answer((ref("a"), "second"), (ref("b"), "ok")), error="UNKNOWN_INTERRUPT", **REJECTED),
        step(
            answer((ref("b"), "ok")),
            stopReason="end_turn",
            toolStarts={"t1": 1},
            state={"a": "first"},
            messages=[user("p"), asst(tu("t1", "x")), results(ok("t1", [], "ran")), asst(text("end"))],
        ),
    ],
    "spec ROC-ANSWER-004",
)


# One fault of the responses per vector, each on a fresh paused agent, then the valid answer: a fault an SDK
# takes as an answer (the last of two responses wins, null is an answer) or crashes on (no `response`
# member) is judged alone, and the final step shows the rejected input left the pending interrupt as it was.
UNKNOWN = {"interruptId": "no-such-interrupt", "response": "y"}
RESPONSE_FAULTS: list[tuple[str, str, list[dict[str, Any]], Any, list[str]]] = [
    ("unknown-id", "An id that names no interrupt", [UNKNOWN], "UNKNOWN_INTERRUPT", [R.RESUME_UNKNOWN]),
    (
        "same-id-twice",
        "The same interrupt answered twice in one resume",
        [{"interrupt": ref("q"), "response": "y"}, {"interrupt": ref("q"), "response": "n"}],
        "DUPLICATE_RESPONSE",
        [R.RESUME_DUPLICATE],
    ),
    (
        "null-response",
        "A null response",
        [{"interrupt": ref("q"), "response": None}],
        "INVALID_RESPONSE",
        [R.RESUME_NULL],
    ),
    (
        "missing-response",
        "A response block without `response`",
        [{"interrupt": ref("q")}],
        "INVALID_RESPONSE",
        [R.RESUME_NULL],
    ),
    (
        "empty-id",
        "An empty interruptId",
        [{"interruptId": "", "response": "y"}],
        "INVALID_RESUME",
        [R.RESUME_MALFORMED],
    ),
    (
        "two-faults",
        "Two faults in one resume (an unknown id with a null response)",
        [{"interruptId": "no-such-interrupt", "response": None}],
        ["INVALID_RESPONSE", "UNKNOWN_INTERRUPT"],
        [R.ERROR_ORDER, R.RESUME_NULL, R.RESUME_UNKNOWN],
    ),
]
for suffix, what, bad, code, fault_reqs in RESPONSE_FAULTS:
    vector(
        f"resume-rejects-{suffix}",
        f"{what} is rejected and changes nothing; the valid answer then completes the batch",
        [
            *fault_reqs,
            R.RESUME_UNCHANGED,
            R.RESUME_NOTHING_RUNS,
            R.ERROR_VALUES,
            R.ERROR_CODE_DEFINED,
            R.ERROR_MESSAGE,
        ],
        ["core"],
        agent("sequential", T12, [tool("ask", intr("q"), ret("a"))]),
        [
            step(
                {"prompt": "p"},
                stopReason="interrupt",
                interrupts=[{"name": "q", "source": src("tool", "t1", "ask")}],
            ),
            step({"interruptResponses": bad}, error=code, **REJECTED),
            step(
                answer((ref("q"), "y")),
                stopReason="end_turn",
                modelCalls=[1],
                toolStarts={"t1": 1},
                messages=[user("p"), asst(tu("t1", "ask")), results(ok("t1", ["y"], "a")), asst(text("end"))],
            ),
        ],
        "pinned 12, 19; spec 3.4",
    )
# --- end of divergences seen in strands-agents 1.62 ---


# --- hidden-mutant survivors ---
# Scenarios that reach rules a surviving mutant of the reference broke unseen (issue 8, section 3).

# A cancel set in a BeforeToolCall firing that stopped with an interrupt does not carry over: callback 1
# cancels until callback 0's answer is in the state, so the replayed firing sets no cancel and the tool runs.
vector(
    "cancel-not-carried-before-tool-call",
    "BeforeToolCall: the cancel of the interrupted pass is gone once the replayed pass sets none",
    [R.CANCEL_NOT_CARRIED, R.BTC_OUTRANKS_CANCEL, R.BTC_INTERRUPT, R.REPLAY_HOOKS, R.STATE_KEPT],
    ["core", "hooks"],
    agent(
        "sequential",
        T8,
        [tool("x", ret("ran"))],
        [
            hook("BeforeToolCall", intr("approve"), {"setState": {"key": "approved", "fromAnswer": True}}),
            hook(
                "BeforeToolCall",
                {"skipIfState": {"key": "approved", "equals": "y"}},
                {"cancel": {"message": "not approved yet"}},
            ),
        ],
        state={},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "approve", "source": src("before_tool_call", "t1", "x")}],
            toolStarts={},
            afterToolCall={},
            afterTools=[[]],
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1},
            state={},
        ),
        step(
            answer((ref("approve"), "y")),
            stopReason="end_turn",
            toolStarts={"t1": 1},
            afterToolCall={"t1": "success"},
            afterTools=[["t1"]],
            hookCallbacks={"BeforeToolCall#0#t1": 1, "BeforeToolCall#1#t1": 1},
            state={"approved": "y"},
            messages=[user("p"), asst(tu("t1", "x")), results(ok("t1", [], "ran")), asst(text("end"))],
        ),
    ],
    "spec ROC-CANCEL-008",
)

# A batch cancel in a resume cycle gives the tools without a result the cancel error and leaves the
# preserved result as it was: t1 completes (and moves the state on) before t2 asks, and on the resume the
# BeforeTools callback, no longer skipped, cancels the batch.
vector(
    "batch-cancel-keeps-preserved",
    "A batch cancelled on resume: only the tool uses without a preserved result get the cancel error",
    [R.CANCEL_BATCH, R.PRESERVED_UNCHANGED, R.PRESERVED, R.CANCEL_BATCH_NO_ATC, R.AFTER_TOOLS_CONTENT],
    ["core", "hooks"],
    agent(
        "sequential",
        [turn(tu("t1", "prep"), tu("t2", "ask")), turn(text("end"))],
        [
            tool("prep", {"setState": {"key": "phase", "value": "second"}}, ret("prepared")),
            tool("ask", intr("q"), ret("asked")),
        ],
        [
            hook(
                "BeforeTools",
                {"skipIfState": {"key": "phase", "equals": "first"}},
                {"cancel": {"message": "stop"}},
            )
        ],
        state={"phase": "first"},
    ),
    [
        step(
            {"prompt": "p"},
            stopReason="interrupt",
            interrupts=[{"name": "q", "source": src("tool", "t2", "ask")}],
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "success"},
            afterTools=[["t1"]],
            hookCallbacks={"BeforeTools#0": 1},
            state={"phase": "second"},
        ),
        step(
            answer((ref("q"), "y")),
            stopReason="end_turn",
            toolStarts={},
            beforeToolCall={},
            afterToolCall={},
            afterTools=[["t1", "t2"]],
            hookCallbacks={"BeforeTools#0": 1},
            messages=[
                user("p"),
                asst(tu("t1", "prep"), tu("t2", "ask")),
                results(ok("t1", [], "prepared"), err("t2", "stop")),
                asst(text("end")),
            ],
        ),
    ],
    "spec ROC-CANCEL-005, ROC-TOOL-012",
)

# A direct call whose body writes state before it asks is refused and leaves the agent as it was: the
# state write is rolled back, the history is untouched, and the agent takes a prompt.
vector(
    "direct-call-refused-unchanged",
    "A refused direct call leaves no state write, no history and no pending interrupt behind",
    [R.DIRECT_IDLE, R.DIRECT_INTERRUPT, R.DIRECT_NO_MODEL],
    ["core"],
    agent(
        "sequential",
        [turn(tu("t1", "plain")), turn(text("done")), turn(text("again"))],
        [
            tool("plain", ret("p")),
            tool("ask", {"setState": {"key": "asked", "value": True}}, intr("q"), ret("a")),
        ],
        state={"user": "u1"},
    ),
    [
        step({"prompt": "p"}, stopReason="end_turn", state={"user": "u1"}),
        step(
            {"directToolCall": {"name": "ask", "input": {}}},
            error="DIRECT_CALL_INTERRUPT",
            modelCalls=[],
            state={"user": "u1"},
            messages=[user("p"), asst(tu("t1", "plain")), results(ok("t1", [], "p")), asst(text("done"))],
        ),
        step(
            {"prompt": "next"},
            stopReason="end_turn",
            modelCalls=[2],
            state={"user": "u1"},
            messages=[
                user("p"),
                asst(tu("t1", "plain")),
                results(ok("t1", [], "p")),
                asst(text("done")),
                user("next"),
                asst(text("again")),
            ],
        ),
    ],
    "spec ROC-DIRECT-003",
)
# --- end of hidden-mutant survivors ---


# ---------------------------------------------------------------------------------------------------
# Spec 1.1, chapter 11: decisions, abandon, expiry. The texts are the chapter's (ROC-DECIDE-007,
# ROC-ABANDON-003, ROC-EXPIRY-005), typed here again rather than imported.
DECLINED = "The request was declined."
ABANDONED = "The request was abandoned."
PAST, FUTURE = "2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"


def decide(r: dict[str, Any], decision: str, message: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"interrupt": r, "decision": decision}
    if message is not None:
        body["message"] = message
    return {"interruptResponses": [body]}


def intr_with(name: str, **members: Any) -> dict[str, Any]:
    return {"interrupt": {"name": name, **members}}


# A BeforeToolCall callback that does not handle a decline: its tool is cancelled with the decline's message.
vector(
    "decline-before-tool-call",
    "A declined BeforeToolCall interrupt cancels its tool with the decline's message",
    [R.DECIDE_ACCEPT, R.DECIDE_DELIVERED, R.DECIDE_BTC, R.DECIDE_TEXT],
    ["core", "hooks", "decisions"],
    agent(
        "sequential",
        T1,
        [tool("delete_files", ret(True))],
        [hook("BeforeToolCall", intr("myapp-approval", PATHS), tool_name="delete_files")],
    ),
    [
        step(
            {"prompt": "delete old files"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "myapp-approval",
                    "reason": PATHS,
                    "source": src("before_tool_call", "t1", "delete_files"),
                }
            ],
            modelCalls=[0],
            toolStarts={},
            beforeToolCall={"t1": 1},
            afterToolCall={},
            afterTools=[[]],
            hookCallbacks={"BeforeToolCall#0#t1": 1},
            messagesAdded=["user"],
        ),
        step(
            decide(ref("myapp-approval"), "decline", "not the backups"),
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[1],
            toolStarts={},
            beforeToolCall={"t1": 1},
            afterToolCall={"t1": "error"},
            afterTools=[["t1"]],
            hookCallbacks={"BeforeToolCall#0#t1": 1},
            messagesAdded=["assistant", "user", "assistant"],
            messages=[
                user("delete old files"),
                asst(text("deleting"), tu("t1", "delete_files", PATHS)),
                results(err("t1", "not the backups")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-DECIDE-005, ROC-DECIDE-007",
)

# A tool body that does not handle a decline: its tool use gets the default text as an error result, and the
# sequential executor goes on with the next tool use.
TWO_TOOLS = [turn(tu("t1", "delete_files", PATHS), tu("t2", "list_files")), turn(text("done"))]
vector(
    "decline-tool-body",
    "A declined tool-body interrupt is that tool's error result with the default text; the batch goes on",
    [R.DECIDE_ACCEPT, R.DECIDE_DELIVERED, R.DECIDE_TOOL, R.DECIDE_TEXT],
    ["core", "decisions"],
    agent(
        "sequential",
        TWO_TOOLS,
        [tool("delete_files", intr("myapp-approval", PATHS), ret(True)), tool("list_files", ret("ok"))],
    ),
    [
        step(
            {"prompt": "tidy up"},
            stopReason="interrupt",
            interrupts=[
                {"name": "myapp-approval", "reason": PATHS, "source": src("tool", "t1", "delete_files")}
            ],
            modelCalls=[0],
            toolStarts={"t1": 1},
            messagesAdded=["user"],
        ),
        step(
            decide(ref("myapp-approval"), "decline"),
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[1],
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "error", "t2": "success"},
            afterTools=[["t1", "t2"]],
            messagesAdded=["assistant", "user", "assistant"],
            messages=[
                user("tidy up"),
                asst(tu("t1", "delete_files", PATHS), tu("t2", "list_files")),
                results(err("t1", DECLINED), ok("t2", [], "ok")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-DECIDE-004, ROC-DECIDE-007",
)

# A tool body that handles a cancel: the program takes the decision as its answer and returns.
vector(
    "cancel-handled-tool-body",
    "A tool body that handles a cancel receives its kind and message and returns a result of its own",
    [R.DECIDE_ACCEPT, R.DECIDE_DELIVERED],
    ["core", "decisions"],
    agent(
        "sequential",
        TWO_TOOLS,
        [
            tool("delete_files", intr_with("myapp-approval", reason=PATHS, handleDecision=True), ret("kept")),
            tool("list_files", ret("ok")),
        ],
    ),
    [
        step({"prompt": "tidy up"}, stopReason="interrupt", modelCalls=[0], toolStarts={"t1": 1}),
        step(
            decide(ref("myapp-approval"), "cancel", "later"),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "success", "t2": "success"},
            messages=[
                user("tidy up"),
                asst(tu("t1", "delete_files", PATHS), tu("t2", "list_files")),
                results(ok("t1", [{"decision": "cancel", "message": "later"}], "kept"), ok("t2", [], "ok")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-DECIDE-003",
)

# Abandon: t1 completed, t2 asks; the abandon keeps t1's result, gives t2 the message, runs nothing.
ABANDON_AGENT = agent(
    "sequential",
    [turn(tu("t1", "list_files"), tu("t2", "delete_files", PATHS)), turn(text("done"))],
    [tool("list_files", ret("ok")), tool("delete_files", intr("myapp-approval", PATHS), ret(True))],
)
PAUSED_AT_T2 = step(
    {"prompt": "tidy up"},
    stopReason="interrupt",
    interrupts=[{"name": "myapp-approval", "reason": PATHS, "source": src("tool", "t2", "delete_files")}],
    modelCalls=[0],
    toolStarts={"t1": 1, "t2": 1},
    afterToolCall={"t1": "success"},
    messagesAdded=["user"],
)
vector(
    "abandon-end",
    "Abandon ends the pending batch: preserved results kept, the others get the message, nothing runs",
    [R.ABANDON_ACCEPT, R.ABANDON_IDLE, R.ABANDON_RESULTS, R.ABANDON_RUNS_NOTHING, R.ABANDON_THEN],
    ["core", "abandon"],
    ABANDON_AGENT,
    [
        PAUSED_AT_T2,
        step(
            {"abandon": {"message": "gave up"}},
            stopReason="abandoned",
            message=asst(tu("t1", "list_files"), tu("t2", "delete_files", PATHS)),
            interrupts=[],
            modelCalls=[],
            toolStarts={},
            afterToolCall={},
            afterTools=[],
            hookCallbacks={},
            messagesAdded=["assistant", "user"],
            messages=[
                user("tidy up"),
                asst(tu("t1", "list_files"), tu("t2", "delete_files", PATHS)),
                results(ok("t1", [], "ok"), err("t2", "gave up")),
            ],
        ),
        step({"abandon": {}}, error="NOT_INTERRUPTED", **REJECTED),
    ],
    "spec ROC-ABANDON-002..005",
)
vector(
    "abandon-continue",
    "Abandon with continue completes the batch with the default text and calls the model next",
    [R.ABANDON_ACCEPT, R.ABANDON_RESULTS, R.ABANDON_RUNS_NOTHING, R.ABANDON_THEN],
    ["core", "abandon"],
    ABANDON_AGENT,
    [
        PAUSED_AT_T2,
        step(
            {"abandon": {"continueModel": True}},
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[1],
            toolStarts={},
            afterToolCall={},
            messagesAdded=["assistant", "user", "assistant"],
            messages=[
                user("tidy up"),
                asst(tu("t1", "list_files"), tu("t2", "delete_files", PATHS)),
                results(ok("t1", [], "ok"), err("t2", ABANDONED)),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-ABANDON-003, ROC-ABANDON-005",
)

# Expiry: two tool bodies ask at once (concurrent executor); the first one's deadline has passed. Its answer
# is EXPIRED; a resume that answers only the other resolves it by its onExpiry outcome.
vector(
    "expiry-resolved",
    "An answer too late is EXPIRED; an accepted resume resolves the expired interrupt by its onExpiry",
    [R.EXPIRY_AT, R.EXPIRY_OUTCOME, R.EXPIRY_CLOCK, R.EXPIRY_ANSWER, R.EXPIRY_RESOLVED, R.DECIDE_TOOL],
    ["core", "concurrent-executor", "decisions", "expiry"],
    agent(
        "concurrent",
        [turn(tu("t1", "delete_files", PATHS), tu("t2", "list_files")), turn(text("done"))],
        [
            tool(
                "delete_files",
                intr_with(
                    "late",
                    reason=PATHS,
                    expiresAt=PAST,
                    onExpiry={"decision": "cancel", "message": "too late"},
                ),
                ret(True),
            ),
            tool("list_files", intr_with("on-time", expiresAt=FUTURE), ret("ok")),
        ],
    ),
    [
        step(
            {"prompt": "tidy up"},
            stopReason="interrupt",
            interrupts=[
                {"name": "late", "reason": PATHS, "source": src("tool", "t1", "delete_files")},
                {"name": "on-time", "source": src("tool", "t2", "list_files")},
            ],
            modelCalls=[0],
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={},
            messagesAdded=["user"],
        ),
        step(answer((ref("late"), "y")), error="EXPIRED", **REJECTED),
        step(
            answer((ref("on-time"), "y")),
            stopReason="end_turn",
            interrupts=[],
            modelCalls=[1],
            toolStarts={"t1": 1, "t2": 1},
            afterToolCall={"t1": "error", "t2": "success"},
            messages=[
                user("tidy up"),
                asst(tu("t1", "delete_files", PATHS), tu("t2", "list_files")),
                results(err("t1", "too late"), ok("t2", ["y"], "ok")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-EXPIRY-001..005",
)

# Decisions mixed with answers, on a batch stopped by a BeforeTools callback and a tool body (concurrent): a
# malformed decision is refused; a declined BeforeTools interrupt cancels the batch with its default text once
# the other interrupt is answered; deciding it again is UNKNOWN_INTERRUPT (it counts as answered).
vector(
    "decline-before-tools",
    "A declined BeforeTools interrupt cancels the batch; a malformed or repeated decision is refused",
    [R.DECIDE_SHAPE, R.DECIDE_ACCEPT, R.DECIDE_BT, R.DECIDE_TEXT, R.DECIDE_ANSWERED, R.PARTIAL],
    ["core", "hooks", "decisions"],
    agent(
        "sequential",
        [turn(tu("t1", "delete_files", PATHS)), turn(text("done"))],
        [tool("delete_files", ret(True))],
        [hook("BeforeTools", intr("batch-approval")), hook("BeforeTools", intr("second-look"))],
    ),
    [
        step(
            {"prompt": "delete"},
            stopReason="interrupt",
            interrupts=[
                {"name": "batch-approval", "source": src("before_tools")},
                {"name": "second-look", "source": src("before_tools")},
            ],
            modelCalls=[0],
            toolStarts={},
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
        ),
        step(
            {
                "interruptResponses": [
                    {"interrupt": ref("batch-approval"), "decision": "decline", "response": "y"}
                ]
            },
            error="INVALID_RESUME",
            **REJECTED,
        ),
        step(
            decide(ref("batch-approval"), "cancel"),
            stopReason="interrupt",
            interrupts=[{"name": "second-look", "source": src("before_tools")}],
            modelCalls=[],
            toolStarts={},
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
        ),
        step(decide(ref("batch-approval"), "decline"), error="UNKNOWN_INTERRUPT", **REJECTED),
        step(
            answer((ref("second-look"), "y")),
            stopReason="end_turn",
            interrupts=[],
            modelCalls=[1],
            toolStarts={},
            afterToolCall={},
            hookCallbacks={"BeforeTools#0": 1, "BeforeTools#1": 1},
            messages=[
                user("delete"),
                asst(tu("t1", "delete_files", PATHS)),
                results(err("t1", "The request was cancelled without a decision.")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-DECIDE-002, ROC-DECIDE-006, ROC-DECIDE-008",
)

# An expired interrupt: an answer to it twice is refused (DUPLICATE_RESPONSE ranks before EXPIRED), a decline
# is accepted.
vector(
    "expired-declined",
    "A decline of an expired interrupt is accepted; EXPIRED ranks after the resume codes",
    [R.DECIDE_EXPIRED, R.EXPIRY_ORDER, R.EXPIRY_ANSWER, R.DECIDE_TOOL],
    ["core", "decisions", "expiry"],
    agent(
        "sequential",
        [turn(tu("t1", "delete_files", PATHS)), turn(text("done"))],
        [tool("delete_files", intr_with("late", expiresAt=PAST), ret(True))],
    ),
    [
        step({"prompt": "delete"}, stopReason="interrupt", modelCalls=[0], toolStarts={"t1": 1}),
        step(
            answer((ref("late"), "y"), (ref("late"), "y")),
            error=["DUPLICATE_RESPONSE", "EXPIRED"],
            **REJECTED,
        ),
        step(
            decide(ref("late"), "decline", ""),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"t1": 1},
            messages=[
                user("delete"),
                asst(tu("t1", "delete_files", PATHS)),
                results(err("t1", "")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-DECIDE-009, ROC-EXPIRY-006",
)

# A prompt to an interrupted agent: INTERRUPT_PENDING, whose details list both pending interrupts, the
# answered one with its stored answer (the driver compares details.pending with what the agent holds).
vector(
    "interrupt-pending-details",
    "INTERRUPT_PENDING lists the pending interrupts, answered and unanswered, in details.pending",
    [R.PENDING_DETAILS, R.RESUME_ONLY_RESPONSES, R.PARTIAL],
    ["core", "concurrent-executor", "pending-list"],
    agent(
        "concurrent",
        [turn(tu("t1", "delete_files", PATHS), tu("t2", "list_files")), turn(text("done"))],
        [tool("delete_files", intr("first"), ret(True)), tool("list_files", intr("second"), ret("ok"))],
    ),
    [
        step({"prompt": "tidy up"}, stopReason="interrupt", modelCalls=[0], toolStarts={"t1": 1, "t2": 1}),
        step(
            answer((ref("first"), {"approved": True})),
            stopReason="interrupt",
            interrupts=[{"name": "second", "source": src("tool", "t2", "list_files")}],
            modelCalls=[],
        ),
        step({"prompt": "hello?"}, error="INTERRUPT_PENDING", **REJECTED),
    ],
    "spec ROC-PENDING-005",
)


# ---------------------------------------------------------------------------------------------------
# Sub-agents used as tools (spec chapter 12, profile agent-as-tool). A vector refers to a propagated
# interrupt by the inner interrupt's name and raise point folded into its name, `<inner name>@<inner
# kind>:<inner toolUseId>`, with kind agent_as_tool and the OUTER toolUseId (the inner id is never
# predicted). Expectations judge the outer agent's own events; the sub-agent's run is judged by the driver.
AGENT_PROFILES = ["core", "agent-as-tool"]


def sub_agent(
    agent_id: str, executor: str, turns: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> dict[str, Any]:
    """A sub-agent's definition (an AgentSpec with an id of its own)."""
    return {**agent(executor, turns, tools), "agentId": agent_id}


def run_agent(sub: dict[str, Any], prompt: str = "find") -> dict[str, Any]:
    return {"runAgent": {"agent": sub, "prompt": prompt}}


def via(tuid: str, name: str, agent_id: str, inner: dict[str, Any]) -> dict[str, Any]:
    """ROC-AGENT-003: the source of a propagated interrupt (inner.interruptId left out: ids are opaque)."""
    return {**src("agent_as_tool", tuid, name), "inner": {"agentId": agent_id, "source": inner}}


def aref(inner_name: str, tuid: str) -> dict[str, Any]:
    """A reference to the propagated interrupt of outer tool use ``tuid`` standing for ``inner_name``."""
    return {"name": inner_name, "toolUseId": tuid, "kind": "agent_as_tool"}


# A researcher that asks for a budget once, then reports what it found.
RESEARCHER = sub_agent(
    "researcher",
    "sequential",
    [turn(tu("q1", "ask_budget")), turn(text("found it"))],
    [tool("ask_budget", intr("budget", ["b", 1]), ret("ok"))],
)
BUDGET = "budget@tool:q1"
BUDGET_SRC = src("tool", "q1", "ask_budget")
AGENT_T = [turn(tu("s1", "research")), turn(text("done"))]

vector(
    "sub-agent-asks",
    "A sub-agent's interrupt surfaces on the outer tool use; its answer resumes the sub-agent",
    [
        R.AGENT_PROPAGATE,
        R.AGENT_ID,
        R.AGENT_FIELDS,
        R.AGENT_ROUTED,
        R.AGENT_RESUMED,
        R.TOOL_INTERRUPT_NO_RESULT,
    ],
    AGENT_PROFILES,
    agent("sequential", AGENT_T, [tool("research", run_agent(RESEARCHER))]),
    [
        step(
            {"prompt": "plan"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "budget",
                    "reason": ["b", 1],
                    "source": via("s1", "research", "researcher", BUDGET_SRC),
                }
            ],
            modelCalls=[0],
            toolStarts={"s1": 1},
            afterToolCall={},
            afterTools=[[]],
            messagesAdded=["user"],
            messages=[user("plan")],
        ),
        step(
            answer((aref(BUDGET, "s1"), 1000)),
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[1],
            toolStarts={"s1": 1},
            afterToolCall={"s1": "success"},
            afterTools=[["s1"]],
            messages=[
                user("plan"),
                asst(tu("s1", "research")),
                results(ok("s1", ["found it"])),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-AGENT-001..005",
)

# Depth 2: the outer tool runs a planner whose own tool runs the researcher; every level propagates, and the
# answer travels down two levels. Across restores too (ROC-AGENT-008: a snapshot carries the kept tree).
PLANNER = sub_agent(
    "planner",
    "sequential",
    [turn(tu("m1", "research")), turn(text("planned"))],
    [tool("research", run_agent(RESEARCHER))],
)
NESTED_SRC = via("s1", "plan", "planner", via("m1", "research", "researcher", BUDGET_SRC))
NESTED_T = [turn(tu("s1", "plan")), turn(text("done"))]
NESTED_STEPS = [
    step(
        {"prompt": "plan"},
        stopReason="interrupt",
        interrupts=[{"name": "budget", "reason": ["b", 1], "source": NESTED_SRC}],
        modelCalls=[0],
        toolStarts={"s1": 1},
        afterToolCall={},
        messages=[user("plan")],
    ),
    step(
        answer((aref(f"{BUDGET}@agent_as_tool:m1", "s1"), 1000)),
        stopReason="end_turn",
        message=asst(text("done")),
        interrupts=[],
        modelCalls=[1],
        toolStarts={"s1": 1},
        afterToolCall={"s1": "success"},
        messages=[user("plan"), asst(tu("s1", "plan")), results(ok("s1", ["planned"])), asst(text("done"))],
    ),
]
vector(
    "sub-agent-nested",
    "A sub-agent's sub-agent asks: the interrupt surfaces two levels up, the answer travels two levels down",
    [R.AGENT_PROPAGATE, R.AGENT_ID, R.AGENT_FIELDS, R.AGENT_ROUTED, R.AGENT_RESUMED],
    AGENT_PROFILES,
    agent("sequential", NESTED_T, [tool("plan", run_agent(PLANNER))]),
    NESTED_STEPS,
    "spec 12 (the rules apply at every level)",
)
vector(
    "sub-agent-nested-across-restore",
    "A snapshot carries the kept sub-agents at every depth; the restored agent resumes them",
    [R.AGENT_SNAPSHOT, R.AGENT_ID, R.AGENT_RESUMED, R.SESSION_RESTORE],
    [*AGENT_PROFILES, "sessions"],
    agent("sequential", NESTED_T, [tool("plan", run_agent(PLANNER))]),
    [NESTED_STEPS[0], {"restore": True}, NESTED_STEPS[1]],
    "spec ROC-AGENT-008",
)

# Partial answers at both levels: a sub-agent with two interrupts gets one answer, is resumed and stops again
# with the other (same id); then a resume that only answers a sibling tool's interrupt gives it nothing new:
# it is not resumed and its interrupt is reported again.
SURVEYOR = sub_agent(
    "surveyor",
    "concurrent",
    [turn(tu("q1", "ask_budget"), tu("q2", "ask_scope")), turn(text("surveyed"))],
    [tool("ask_budget", intr("budget"), ret("b")), tool("ask_scope", intr("scope"), ret("s"))],
)
SCOPE_SRC = via("s1", "survey", "surveyor", src("tool", "q2", "ask_scope"))
SIBLING_T = [turn(tu("s1", "survey"), tu("t2", "confirm")), turn(text("done"))]
vector(
    "sub-agent-partial-answers",
    "A partly answered sub-agent stops again; with nothing new it is not resumed and asks the same again",
    [R.AGENT_RESUMED, R.AGENT_NOT_RESUMED, R.AGENT_ID, R.AGENT_PROPAGATE, R.PARTIAL, R.PRESERVED],
    [*AGENT_PROFILES, "concurrent-executor"],
    agent(
        "concurrent",
        SIBLING_T,
        [tool("survey", run_agent(SURVEYOR)), tool("confirm", intr("confirm"), ret(True))],
    ),
    [
        step(
            {"prompt": "survey"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "budget",
                    "source": via("s1", "survey", "surveyor", src("tool", "q1", "ask_budget")),
                },
                {"name": "scope", "source": SCOPE_SRC},
                {"name": "confirm", "source": src("tool", "t2", "confirm")},
            ],
            modelCalls=[0],
            toolStarts={"s1": 1, "t2": 1},
            afterToolCall={},
            afterTools=[[]],
        ),
        step(
            answer((aref("budget@tool:q1", "s1"), 500)),
            stopReason="interrupt",
            interrupts=[
                {"name": "scope", "source": SCOPE_SRC},
                {"name": "confirm", "source": src("tool", "t2", "confirm")},
            ],
            modelCalls=[],
            toolStarts={"s1": 1, "t2": 1},
            afterToolCall={},
            afterTools=[[]],
            messagesAdded=[],
        ),
        step(
            answer((ref("confirm", "t2"), "yes")),
            stopReason="interrupt",
            interrupts=[{"name": "scope", "source": SCOPE_SRC}],
            modelCalls=[],
            toolStarts={"s1": 1, "t2": 1},
            afterToolCall={"t2": "success"},
            afterTools=[["t2"]],
            messagesAdded=[],
        ),
        step(
            answer((aref("scope@tool:q2", "s1"), "all")),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"s1": 1},
            afterToolCall={"s1": "success"},
            afterTools=[["s1", "t2"]],
            messages=[
                user("survey"),
                asst(*SIBLING_T[0]["content"]),
                results(ok("s1", ["surveyed"]), ok("t2", ["yes"], True)),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-AGENT-005, ROC-AGENT-006, 3.5",
)

# A body that runs a sub-agent, then asks its own question: when the body replays, its sub-agent call
# returns the completed sub-agent's result and the sub-agent does not run again.
vector(
    "sub-agent-completed-not-rerun",
    "A completed sub-agent is not run again when its body replays for the body's own question",
    [R.AGENT_COMPLETED, R.AGENT_RESUMED, R.REPLAY_RERUN],
    AGENT_PROFILES,
    agent(
        "sequential", AGENT_T, [tool("research", run_agent(RESEARCHER), intr("confirm", "spend?"), ret("v"))]
    ),
    [
        step(
            {"prompt": "plan"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "budget",
                    "reason": ["b", 1],
                    "source": via("s1", "research", "researcher", BUDGET_SRC),
                }
            ],
            modelCalls=[0],
            toolStarts={"s1": 1},
        ),
        step(
            answer((aref(BUDGET, "s1"), 1000)),
            stopReason="interrupt",
            interrupts=[{"name": "confirm", "reason": "spend?", "source": src("tool", "s1", "research")}],
            modelCalls=[],
            toolStarts={"s1": 1},
            afterToolCall={},
            messagesAdded=[],
        ),
        step(
            answer((ref("confirm", "s1"), "yes")),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"s1": 1},
            afterToolCall={"s1": "success"},
            messages=[
                user("plan"),
                asst(tu("s1", "research")),
                results(ok("s1", ["found it", "yes"], "v")),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-AGENT-007",
)

# The same sub-agent definition in two tool uses of one concurrent batch: two instances, two propagated
# interrupts of the same name told apart by their tool use, each answered and completed on its own.
TWO_T = [turn(tu("s1", "research"), tu("s2", "research")), turn(text("done"))]
vector(
    "sub-agent-two-instances",
    "Two tool uses running one sub-agent definition are paused, answered and completed each on its own",
    [R.AGENT_OWN_INSTANCE, R.AGENT_ID, R.AGENT_ROUTED, R.AGENT_NOT_RESUMED, R.EXEC_CONCURRENT],
    [*AGENT_PROFILES, "concurrent-executor"],
    agent("concurrent", TWO_T, [tool("research", run_agent(RESEARCHER))]),
    [
        step(
            {"prompt": "plan"},
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "budget",
                    "reason": ["b", 1],
                    "source": via("s1", "research", "researcher", BUDGET_SRC),
                },
                {
                    "name": "budget",
                    "reason": ["b", 1],
                    "source": via("s2", "research", "researcher", BUDGET_SRC),
                },
            ],
            modelCalls=[0],
            toolStarts={"s1": 1, "s2": 1},
            afterToolCall={},
        ),
        step(
            answer((aref(BUDGET, "s1"), 10)),
            stopReason="interrupt",
            interrupts=[
                {
                    "name": "budget",
                    "reason": ["b", 1],
                    "source": via("s2", "research", "researcher", BUDGET_SRC),
                }
            ],
            modelCalls=[],
            toolStarts={"s1": 1, "s2": 1},
            afterToolCall={"s1": "success"},
            afterTools=[["s1"]],
        ),
        step(
            answer((aref(BUDGET, "s2"), 20)),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"s2": 1},
            afterToolCall={"s2": "success"},
            messages=[
                user("plan"),
                asst(*TWO_T[0]["content"]),
                results(ok("s1", ["found it"]), ok("s2", ["found it"])),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-AGENT-010",
)

# A body with two sub-agent calls fails like any body: an error result, no interrupt (the text is the
# runtime's, so the history is not pinned).
QUICK = sub_agent("quick", "sequential", [turn(text("quick answer"))], [])
vector(
    "sub-agent-second-call-fails",
    "A second sub-agent call in one body run fails the body: an error result and no interrupt",
    [R.AGENT_ONE_CALL, R.TOOL_FAIL],
    AGENT_PROFILES,
    agent(
        "sequential",
        [turn(tu("s1", "twice")), turn(text("done"))],
        [tool("twice", run_agent(QUICK), run_agent(QUICK), ret("v"))],
    ),
    [
        step(
            {"prompt": "go"},
            stopReason="end_turn",
            message=asst(text("done")),
            interrupts=[],
            modelCalls=[0, 1],
            toolStarts={"s1": 1},
            afterToolCall={"s1": "error"},
        ),
    ],
    "spec ROC-AGENT-011",
)

# A rejected resume of a propagated interrupt (the same interrupt twice; a good answer with an unknown id)
# runs nothing at any level and keeps nothing: the next good answer resumes the sub-agent as the first would.
vector(
    "sub-agent-rejected-resume",
    "A rejected resume of propagated interrupts runs nothing and leaves the kept sub-agent as it was",
    [R.AGENT_VALIDATED, R.AGENT_ROUTED, R.AGENT_RESUMED],
    AGENT_PROFILES,
    agent("sequential", AGENT_T, [tool("research", run_agent(RESEARCHER))]),
    [
        step({"prompt": "plan"}, stopReason="interrupt", modelCalls=[0], toolStarts={"s1": 1}),
        step(
            answer((aref(BUDGET, "s1"), 1), (aref(BUDGET, "s1"), 2)),
            error="DUPLICATE_RESPONSE",
            **REJECTED,
        ),
        step(
            {
                "interruptResponses": [
                    {"interrupt": aref(BUDGET, "s1"), "response": 1},
                    {"interruptId": "no-such-interrupt", "response": "y"},
                ]
            },
            error="UNKNOWN_INTERRUPT",
            **REJECTED,
        ),
        step(
            answer((aref(BUDGET, "s1"), 3)),
            stopReason="end_turn",
            modelCalls=[1],
            toolStarts={"s1": 1},
            messages=[
                user("plan"),
                asst(tu("s1", "research")),
                results(ok("s1", ["found it"])),
                asst(text("done")),
            ],
        ),
    ],
    "spec ROC-AGENT-012, ROC-RESUME-014",
)


def rendered() -> dict[str, str]:
    """File name -> exact file text of every vector (the committed files must equal this)."""
    return {f"{v['id']}.json": json.dumps(v, indent=2, ensure_ascii=False) + "\n" for v in VECTORS}


if __name__ == "__main__":
    for name, body in rendered().items():
        (OUT / name).write_text(body, encoding="utf-8")
    print(f"wrote {len(VECTORS)} vectors to {OUT}")
