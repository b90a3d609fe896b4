"""What the agent-as-tool checks (spec chapter 12) share: requirement IDs, the scenarios (a leaf sub-agent
that asks, a middle one that runs it, an outer agent whose tool uses run them) and readers of the trace by
``agentPath`` (harness protocol 5).

Every expectation is computed from the scenario and the spec, never from the implementation's own output. A
sub-agent's scripted model answers the turn its history stands at (conformance/README.md), so a model call
with turn 0 at a sub-agent's path is that sub-agent being prompted.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import CheckContext, Finding

# Requirement IDs (spec/12-agents.md); one place for renumbering.
AGENT_PROPAGATED = "ROC-AGENT-001"
AGENT_IDS = "ROC-AGENT-002"
AGENT_CARRIED = "ROC-AGENT-003"
AGENT_ROUTED = "ROC-AGENT-004"
AGENT_RESUMED = "ROC-AGENT-005"
AGENT_UNTOUCHED = "ROC-AGENT-006"
AGENT_COMPLETED = "ROC-AGENT-007"
AGENT_KEPT = "ROC-AGENT-008"
AGENT_LOADER = "ROC-AGENT-009"
AGENT_INSTANCES = "ROC-AGENT-010"
AGENT_ONE_CALL = "ROC-AGENT-011"
AGENT_VALIDATED = "ROC-AGENT-012"

PROFILE = "agent-as-tool"
LEAF_TEXT = "leaf done"
MID_TEXT = "mid done"
TOP_TEXT = "all done"
QUICK_TEXT = "quick answer"
EXPECTED = "A"
"""The answer the leaf's ``expect`` tool accepts: with any other it fails, so which sub-agent got which
answer shows in its tool's outcome."""


def run_agent(spec: dict[str, Any], prompt: str = "go") -> dict[str, Any]:
    """A ``runAgent`` step (harness protocol 5): run ``spec`` as the tool use's sub-agent."""
    return {"runAgent": {"agent": spec, "prompt": prompt}}


def leaf(
    ctx: CheckContext,
    *ask_steps: dict[str, Any],
    agent_id: str = "leaf",
    check_answer: bool = False,
) -> dict[str, Any]:
    """A sub-agent whose one tool use ``c1`` (tool ``delete``) runs ``ask_steps`` (default: ask ``approve``),
    then returns; its closing turn says ``LEAF_TEXT``. With ``check_answer`` the tool fails unless the last
    answer is ``EXPECTED`` (so a misrouted answer shows as a failed tool at the sub-agent's path)."""
    steps = list(ask_steps) or [sc.interrupt("approve", {"path": "/tmp/x"})]
    if check_answer:
        steps += [
            {"setState": {"key": "got", "fromAnswer": True}},
            {"skipIfState": {"key": "got", "equals": EXPECTED}},
            {"fail": {"message": "not the answer this sub-agent was asked for"}},
        ]
    else:
        steps.append(sc.returns("deleted"))
    return sc.agent_spec(
        agent_id,
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("c1", "delete", {"path": "/tmp/x"})), sc.turn(sc.text(LEAF_TEXT))],
        tools=[sc.tool("delete", *steps)],
    )


def leaf_two(agent_id: str = "leaf2") -> dict[str, Any]:
    """A sub-agent (concurrent executor) whose two tool uses ``c1`` and ``c2`` each ask ``approve`` and fail
    unless answered ``EXPECTED``: two unanswered inner interrupts at once."""
    steps = [
        sc.interrupt("approve", {"path": "/tmp/x"}),
        {"setState": {"key": "got", "fromAnswer": True}},
        {"skipIfState": {"key": "got", "equals": EXPECTED}},
        {"fail": {"message": "not the answer this tool was asked for"}},
    ]
    return sc.agent_spec(
        agent_id,
        executor="concurrent",
        turns=[sc.turn(sc.tool_use("c1", "ask"), sc.tool_use("c2", "ask")), sc.turn(sc.text(LEAF_TEXT))],
        tools=[sc.tool("ask", *steps)],
    )


def inner_tool_use(item: dict[str, Any]) -> str | None:
    """The toolUseId of the sub-agent's tool use a depth-1 propagated interrupt stands for."""
    source = item.get("source")
    inner = source.get("inner") if isinstance(source, dict) else None
    raised = inner.get("source") if isinstance(inner, dict) else None
    use = raised.get("toolUseId") if isinstance(raised, dict) else None
    return use if isinstance(use, str) else None


def quick(agent_id: str = "quick") -> dict[str, Any]:
    """A sub-agent that answers at once, with no tool."""
    return sc.agent_spec(agent_id, turns=[sc.turn(sc.text(QUICK_TEXT))])


def middle(ctx: CheckContext, inner: dict[str, Any]) -> dict[str, Any]:
    """A sub-agent whose tool use ``m1`` (tool ``cleaner``) runs ``inner``: depth 3 under an outer agent."""
    return sc.agent_spec(
        "mid",
        executor=sc.executor_for(ctx.profiles),
        turns=[sc.turn(sc.tool_use("m1", "cleaner", {"prompt": "clean"})), sc.turn(sc.text(MID_TEXT))],
        tools=[sc.tool("cleaner", run_agent(inner, "clean"), sc.returns("cleaned"))],
    )


def outer(
    agent_id: str,
    executor: str,
    uses: list[tuple[str, str]],
    tools: list[dict[str, Any]],
    hooks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An outer agent: one turn with the tool uses ``(toolUseId, tool name)``, then ``TOP_TEXT``."""
    return sc.agent_spec(
        agent_id,
        executor=executor,
        turns=[sc.turn(*(sc.tool_use(tid, name) for tid, name in uses)), sc.turn(sc.text(TOP_TEXT))],
        tools=tools,
        hooks=hooks or [],
    )


def sub_tool(name: str, spec: dict[str, Any], *after: dict[str, Any]) -> dict[str, Any]:
    """A tool whose body runs ``spec`` as its sub-agent, then ``after`` (default: return ``"sub"``)."""
    return sc.tool(name, run_agent(spec), *(after or (sc.returns("sub"),)))


def executors(ctx: CheckContext) -> list[str]:
    """The executors the implementation claims, sequential first."""
    out = [e for e in ("sequential", "concurrent") if f"{e}-executor" in ctx.profiles]
    return out or [sc.executor_for(ctx.profiles)]


def concurrent(ctx: CheckContext) -> bool:
    return "concurrent-executor" in ctx.profiles


# -- reading replies -----------------------------------------------------------------------------------


def shown(out: dict[str, Any]) -> str:
    if "crash" in out:
        return f"a crash {out['crash']}"
    err = out.get("error")
    if isinstance(err, dict):
        return f"error {err.get('code')} {err.get('details') or err.get('message') or ''}".rstrip()
    result = out.get("result") or {}
    return f"stopReason {result.get('stopReason')!r}"


def interrupts(out: dict[str, Any]) -> list[dict[str, Any]]:
    result = out.get("result") or {}
    if result.get("stopReason") != "interrupt":
        return []
    return [i for i in result.get("interrupts") or [] if isinstance(i, dict)]


def by_tool_use(out: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The reported interrupts grouped by their source's toolUseId."""
    found: dict[str, list[dict[str, Any]]] = {}
    for item in interrupts(out):
        raw = item.get("source")
        source: dict[str, Any] = raw if isinstance(raw, dict) else {}
        found.setdefault(str(source.get("toolUseId")), []).append(item)
    return found


def one_id(out: dict[str, Any], tool_use_id: str) -> str | None:
    """The id of the one interrupt reported for ``tool_use_id``; ``None`` when there is not exactly one."""
    items = by_tool_use(out).get(tool_use_id) or []
    return str(items[0].get("id")) if len(items) == 1 else None


def tool_results(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool results in the reply's history, by toolUseId."""
    return {
        str(b["toolResult"].get("toolUseId")): b["toolResult"]
        for m in out.get("messages") or []
        if isinstance(m, dict)
        for b in m.get("content") or []
        if isinstance(b, dict) and isinstance(b.get("toolResult"), dict)
    }


def answers_of(result: dict[str, Any] | None) -> Any:
    """The ``answers`` a scenario tool's success result echoes (``None`` for anything else)."""
    if not isinstance(result, dict) or result.get("status") != "success":
        return None
    content = result.get("content") or []
    if len(content) != 1 or not isinstance(content[0], dict) or not isinstance(content[0].get("json"), dict):
        return None
    return content[0]["json"].get("answers")


def events_at(out: dict[str, Any], *path: str) -> list[dict[str, Any]]:
    """The trace events of the agent at ``path`` (``()``: the agent the handle names)."""
    want = list(path)
    return [e for e in out.get("trace") or [] if isinstance(e, dict) and (e.get("agentPath") or []) == want]


def under(out: dict[str, Any], *path: str) -> list[dict[str, Any]]:
    """The trace events of the sub-agent at ``path`` and of every sub-agent below it."""
    n = len(path)
    return [
        e
        for e in out.get("trace") or []
        if isinstance(e, dict) and list(e.get("agentPath") or [])[:n] == list(path) and n > 0
    ]


def ran(events: list[dict[str, Any]]) -> list[str]:
    """What these events show running: model calls (with their turn) and tool bodies."""
    shown_: list[str] = []
    for e in events:
        if e.get("kind") == "model_call":
            shown_.append(f"model turn {e.get('turn')}")
        elif e.get("kind") == "tool_start":
            shown_.append(f"tool {e.get('toolUseId')}")
    return shown_


def tool_outcomes(out: dict[str, Any], *path: str) -> dict[str, str]:
    """The last outcome of each tool body of the agent at ``path`` in this reply."""
    return {
        str(e.get("toolUseId")): str(e.get("outcome"))
        for e in events_at(out, *path)
        if e.get("kind") == "tool_end"
    }


def resumed_not_reprompted(out: dict[str, Any], path: tuple[str, ...], pending: str) -> str | None:
    """Why the sub-agent at ``path`` was not resumed the way ROC-AGENT-005 asks in this reply: a model call
    of it with turn 0 (it was prompted again), or any model call before its pending tool use ``pending``
    ended; ``None`` when it was resumed properly (or not run at all)."""
    ended = False
    for e in events_at(out, *path):
        kind = e.get("kind")
        if kind == "tool_end" and e.get("toolUseId") == pending and e.get("outcome") != "interrupted":
            ended = True
        elif kind == "model_call":
            if e.get("turn") == 0:
                return f"the sub-agent at {list(path)} was prompted again (its model answered turn 0)"
            if not ended:
                return (
                    f"the model of the sub-agent at {list(path)} was called before its pending tool use "
                    f"{pending} completed"
                )
    return None


def followed(ctx: CheckContext, requirement: str, message: str, after: str = AGENT_PROPAGATED) -> None:
    """Record what ``requirement`` could not be judged on because ``after`` failed first (never a FAIL)."""
    ctx.evidence.consequences.append(Finding((requirement,), message, after=(after,)))


def pause(
    ctx: CheckContext,
    spec: dict[str, Any],
    requirement: str,
    want: dict[str, int],
    *,
    distinct: bool = True,
) -> tuple[str, dict[str, Any]] | None:
    """Create an agent for ``spec`` and prompt it; it must stop with ``want[toolUseId]`` interrupts per outer
    tool use, with distinct ids (unless ``distinct`` is false: ROC-AGENT-002's own check). Otherwise the rule
    that broke (ROC-AGENT-001, or ROC-AGENT-002 for shared ids) is recorded as spoiling the set-up of
    ``requirement``, and ``None`` is returned."""
    agent = ctx.client.create_agent(spec)
    out = ctx.client.invoke(agent, {"prompt": "go"})
    ids = [str(i.get("id")) for i in interrupts(out)]
    if distinct and len(set(ids)) != len(ids):
        followed(ctx, requirement, f"{spec['agentId']}: the pending interrupts share ids {ids}", AGENT_IDS)
        return None
    got = {tid: len(items) for tid, items in by_tool_use(out).items()}
    if got != want:
        followed(
            ctx,
            requirement,
            f"{spec['agentId']}: the prompt gave {shown(out)} with interrupts per tool use {got}, expected "
            f"{want}",
        )
        return None
    return agent, out


def reprompted(out: dict[str, Any]) -> list[list[str]]:
    """The sub-agents a resume prompted again: those whose model answered turn 0 in this reply."""
    paths: list[list[str]] = []
    for e in out.get("trace") or []:
        path = list(e.get("agentPath") or []) if isinstance(e, dict) else []
        if path and e.get("kind") == "model_call" and e.get("turn") == 0 and path not in paths:
            paths.append(path)
    return paths


def spoiled_by_reprompt(ctx: CheckContext, requirement: str, out: dict[str, Any], label: str) -> bool:
    """Whether a resume reply prompted a kept sub-agent again (ROC-AGENT-005's failure): then what it shows
    says nothing about ``requirement``, and is recorded as a consequence of ROC-AGENT-005."""
    paths = reprompted(out)
    if not paths:
        return False
    followed(ctx, requirement, f"{label}: the resume prompted the sub-agents at {paths} again", AGENT_RESUMED)
    return True


def misrouted(
    ctx: CheckContext, requirement: str, out: dict[str, Any], path: tuple[str, ...], label: str
) -> bool:
    """Whether the leaf sub-agent at ``path`` (run with ``check_answer``), which was sent nothing, ended its
    tool in this reply, i.e. received an answer meant for another (ROC-AGENT-004's failure): recorded as a
    consequence of ROC-AGENT-004."""
    ended = {k: v for k, v in tool_outcomes(out, *path).items() if v != "interrupted"}
    if not ended:
        return False
    followed(
        ctx,
        requirement,
        f"{label}: the sub-agent at {list(path)}, sent nothing, ended its tool {ended}: it got another's "
        "answer",
        AGENT_ROUTED,
    )
    return True
