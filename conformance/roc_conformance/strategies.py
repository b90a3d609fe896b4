"""Hypothesis strategies for RoC scenarios (AgentSpec JSON) and for the answers a caller sends.

Scenarios stay inside what the oracle models exactly: interrupts from tool bodies and from both
interruptible hook events, cancel decisions, sequential and concurrent executors, agent state only
where its order is pinned (sequential executor, or a single callback), including reasons read from that
state (``reasonFromState``). Under the profile ``agent-as-tool`` some tools run a sub-agent (a ``runAgent``
step, spec 12) whose own scripted tools interrupt, nested up to two levels, now and then three.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

JSON = Any
FALSY: tuple[JSON, ...] = (False, 0, "", {}, [])
CANCEL_MESSAGE = "cancelled by policy"

answers: st.SearchStrategy[JSON] = st.one_of(
    st.sampled_from(["y", "n", "t", True, {"approved": True}, {"approved": False}, 1, "yes"]),
    st.sampled_from(FALSY),
    st.integers(-3, 3),
    st.text(max_size=4),
    st.lists(st.integers(0, 2), max_size=2),
)
"""Answers a caller sends: the approval vocabulary of the scenarios, the falsy values, small JSON."""

reasons: st.SearchStrategy[JSON] = st.one_of(
    st.none(),
    st.text(max_size=6),
    st.integers(0, 9),
    st.fixed_dictionaries({"paths": st.lists(st.text(max_size=3), max_size=2)}),
)
"""A reason, or None for an interrupt raised without one."""


def _interrupt(name: str, reason: JSON) -> dict[str, JSON]:
    return {"interrupt": {"name": name} if reason is None else {"name": name, "reason": reason}}


# The only deadlines the suite uses: long past and far ahead of any clock (ROC-EXPIRY-003's tolerance).
PAST = "2000-01-01T00:00:00Z"
FUTURE = "2999-01-01T00:00:00Z"
DECISION_MESSAGES: tuple[str, ...] = ("not now", "")


@dataclass
class Plan:
    """How one scenario's interrupt steps treat decisions and deadlines, in the order they are generated.

    One choice per scenario, not per step: independent draws per step rarely mix (an expired and a live
    interrupt pending together, the situation of ROC-EXPIRY-005; a handled and an unhandled decision), since
    Hypothesis' examples tend to draw the same value for every step. ``alternate`` mixes them in turn.
    """

    handle: str = "alternate"  # never, always, alternate (the first step does not handle its decision)
    # none, past, future, alternate (future first: the simplest partial resume, which names the first
    # pending interrupt, then leaves a past one)
    deadlines: str = "none"
    count: int = 0

    def next(self) -> tuple[bool, str | None]:
        """Whether the next interrupt step handles a decision, and its deadline."""
        self.count += 1
        first = self.count % 2 == 1
        handle = {"never": False, "always": True}.get(self.handle, not first)
        if self.deadlines == "alternate":
            return handle, FUTURE if first else PAST
        return handle, {"past": PAST, "future": FUTURE}.get(self.deadlines)


def plans(declared: frozenset[str]) -> st.SearchStrategy[Plan]:
    modes = ["alternate", "none", "past", "future"] if "expiry" in declared else ["none"]
    return st.builds(Plan, st.sampled_from(["alternate", "never", "always"]), st.sampled_from(modes))


def _decorate(draw: st.DrawFn, steps: list[dict[str, JSON]], plan: Plan | None) -> None:
    """Spec 1.1 members on the interrupt steps, only under the profiles that define them.

    Without ``decisions`` (and so without ``expiry``) nothing is drawn here, so an implementation that claims
    neither sees exactly the scenarios it saw before these profiles existed.
    """
    if plan is None:
        return
    for step in steps:
        args = step.get("interrupt")
        if args is None:
            continue
        handle, deadline = plan.next()
        if handle:
            args["handleDecision"] = True
        if deadline is not None:
            args["expiresAt"] = deadline
            if draw(st.booleans()):
                outcome: dict[str, JSON] = {"decision": draw(st.sampled_from(["decline", "cancel"]))}
                if draw(st.booleans()):
                    outcome["message"] = "too late"
                args["onExpiry"] = outcome


@st.composite
def tool_programs(draw: st.DrawFn, tool: str, plan: Plan | None = None) -> list[dict[str, JSON]]:
    """0-2 interrupts (one at a time), then return, fail, or fall off the end."""
    steps = [_interrupt(f"{tool}-q{i}", draw(reasons)) for i in range(draw(st.integers(0, 2)))]
    _decorate(draw, steps, plan)
    end = draw(st.sampled_from(["return", "return", "fail", "none"]))
    if end == "return":
        steps.append(
            {"return": {"value": draw(st.one_of(st.none(), st.integers(0, 5), st.text(max_size=3)))}}
        )
    elif end == "fail":
        steps.append({"fail": {"message": f"{tool} failed"}})
    return steps


MAX_DEPTH = 3
"""The deepest sub-agent drawn (a sub-agent's sub-agent's sub-agent); depth 3 only now and then."""


@st.composite
def sub_agents(draw: st.DrawFn, agent_id: str, depth: int, executors: list[str]) -> dict[str, JSON]:
    """A sub-agent's AgentSpec (profile agent-as-tool): 1-2 tool turns of 1-2 tool uses, then text.

    Kept small, since every level multiplies the events of a step. Its toolUseIds never repeat across its
    turns (the oracle names a propagated interrupt by the inner raise point, see oracle/subagents.py); its
    tools interrupt, return or fail, and below the deepest level one of them may run a sub-agent again.
    """
    prefix = f"{agent_id}-"
    tools = [{"name": "ask", "steps": draw(tool_programs(f"{prefix}ask"))}]
    names = ["ask"]
    # Every choice of a sub-agent shrinks towards none (Hypothesis shrinks integers towards 0), so a shrunk
    # counterexample holds a sub-agent only when the failure needs one.
    deeper = depth < 2 or (depth < MAX_DEPTH and draw(st.integers(0, 4)) == 4)
    if deeper and draw(st.integers(0, 2)) == 2:
        tools.append({"name": "deeper", "steps": draw(agent_programs(f"{agent_id}x", depth + 1, executors))})
        names.append("deeper")
    elif draw(st.booleans()):
        tools.append({"name": "check", "steps": draw(tool_programs(f"{prefix}check"))})
        names.append("check")
    turns: list[dict[str, JSON]] = []
    for t in range(draw(st.integers(1, 2))):
        uses = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2))
        content = [
            {"toolUse": {"toolUseId": f"{prefix}{t}-{k}", "name": n, "input": {}}} for k, n in enumerate(uses)
        ]
        turns.append({"content": content})
    turns.append({"content": [{"text": f"{agent_id} done"}]})
    return {
        "agentId": agent_id,
        "executor": draw(st.sampled_from(executors)),
        "model": {"turns": turns},
        "tools": tools,
        "hooks": [],
        "state": {},
    }


@st.composite
def agent_programs(draw: st.DrawFn, agent_id: str, depth: int, executors: list[str]) -> list[dict[str, JSON]]:
    """A tool program that runs a sub-agent (``runAgent``), then returns; now and then it calls a second
    sub-agent in the same run, which fails the body (ROC-AGENT-011)."""
    steps: list[dict[str, JSON]] = [
        {"runAgent": {"agent": draw(sub_agents(agent_id, depth, executors)), "prompt": "work on it"}}
    ]
    extra = draw(st.integers(0, 5))
    if extra == 5:
        steps.append(
            {"runAgent": {"agent": draw(sub_agents(f"{agent_id}b", MAX_DEPTH, executors)), "prompt": "again"}}
        )
    elif extra >= 3:
        # An interrupt after the sub-agent completed: the body replays and must get the kept result
        # (ROC-AGENT-007), not run the sub-agent again.
        steps.append(_interrupt(f"{agent_id}-after", None))
    if draw(st.booleans()):
        steps.append({"return": {"value": draw(st.one_of(st.none(), st.integers(0, 5)))}})
    return steps


@st.composite
def hook_programs(
    draw: st.DrawFn,
    index: int,
    event: str,
    *,
    stateful: bool,
    duplicate: bool,
    plan: Plan | None = None,
) -> list[dict[str, JSON]]:
    if event in ("AfterToolCall", "AfterTools"):
        if stateful and draw(st.booleans()):
            return [{"setState": {"key": f"seen{index}", "value": True}}]
        return []
    steps: list[dict[str, JSON]] = []
    if stateful and draw(st.integers(0, 3)) == 0:
        steps.append({"skipIfState": {"key": f"trust{index}", "equals": "t"}})
    kind = draw(st.sampled_from(["ask", "ask", "ask-cancel", "ask-twice", "cancel", "none"]))
    name = "shared" if duplicate else f"h{index}-a"
    if kind.startswith("ask"):
        if stateful and index > 0 and draw(st.integers(0, 3)) == 0:
            # The reason is what an earlier callback stored from its answer, so a replay after that answer
            # raises this name with another reason; the first one must stay (ROC-STOP-011).
            key = f"trust{draw(st.integers(0, index - 1))}"
            steps.append({"interrupt": {"name": name, "reasonFromState": key}})
        else:
            steps.append(_interrupt(name, draw(reasons)))
        if kind == "ask-cancel":
            steps.append(
                {
                    "cancelIf": {
                        "answerNotIn": ["y", "t", True, {"approved": True}],
                        "message": draw(st.sampled_from([CANCEL_MESSAGE, ""])),
                    }
                }
            )
        if kind == "ask-twice":
            steps.append(_interrupt(f"h{index}-b", draw(reasons)))
        if stateful and draw(st.booleans()):
            steps.append({"setState": {"key": f"trust{index}", "fromAnswer": True}})
    elif kind == "cancel":
        steps.append({"cancel": {"message": draw(st.sampled_from([CANCEL_MESSAGE, ""]))}})
    _decorate(draw, steps, plan)
    return steps


@st.composite
def scenarios(
    draw: st.DrawFn, profiles: Iterable[str] = ("core", "hooks", "sequential-executor", "concurrent-executor")
) -> dict[str, JSON]:
    """An AgentSpec within the declared profiles: 1-4 tool turns of 1-6 tool uses, 0-3 hooks."""
    declared = set(profiles)
    executors = [e for e in ("sequential", "concurrent") if f"{e}-executor" in declared] or ["sequential"]
    executor = draw(st.sampled_from(executors))
    n_tools = draw(st.integers(1, 4))
    # Every name stays within client.TOOL_NAME (^[a-zA-Z0-9_-]{1,64}$, both Strands SDKs' limit), also the
    # unknown tool below: an adapter must be able to register or at least look up each name as given.
    tool_names = [f"tool{i}" for i in range(n_tools)]
    new = frozenset(declared & {"decisions", "expiry"})
    # Without `decisions` nothing is drawn for the plan (see _decorate).
    plan = draw(plans(new)) if "decisions" in new else None
    tools = [{"name": n, "steps": draw(tool_programs(n, plan))} for n in tool_names]
    if "agent-as-tool" in declared:
        # Some tools run a sub-agent (spec 12); two tool uses of one batch may run the same definition.
        for i, tool in enumerate(tools):
            if draw(st.integers(0, 3)) >= 2:  # shrinks towards a tool without a sub-agent
                tool["steps"] = draw(agent_programs(f"sub{i}", 1, executors))
    turns: list[dict[str, JSON]] = []
    for t in range(draw(st.integers(1, 4))):
        # Now and then a tool use names no tool (ROC-TOOL-009: an error result, the batch goes on).
        names = [*tool_names, "no_such_tool"] if draw(st.integers(0, 9)) == 0 else tool_names
        uses = draw(st.lists(st.sampled_from(names), min_size=1, max_size=6))
        content: list[dict[str, JSON]] = [{"text": f"turn {t}"}] if draw(st.booleans()) else []
        content += [
            {"toolUse": {"toolUseId": f"t{t}-{k}", "name": n, "input": {"k": k}}} for k, n in enumerate(uses)
        ]
        turns.append({"content": content})
    turns.append({"content": [{"text": "done"}]})
    hooks: list[dict[str, JSON]] = []
    if "hooks" in declared:
        n_hooks = draw(st.integers(0, 3))
        # One scenario in ~6 shares an interrupt name between two callbacks of one event (a clash).
        dup_event = (
            draw(st.sampled_from(["BeforeToolCall", "BeforeTools"]))
            if (n_hooks >= 2 and draw(st.integers(0, 5)) == 0)
            else None
        )
        for i in range(n_hooks):
            event = draw(
                st.sampled_from(
                    ["BeforeToolCall", "BeforeToolCall", "BeforeTools", "AfterToolCall", "AfterTools"]
                )
            )
            duplicate = dup_event is not None and i < 2
            if dup_event is not None and duplicate:
                event = dup_event
            # State in hooks only where its order is pinned: the sequential executor runs units in order.
            stateful = executor == "sequential"
            hook: dict[str, JSON] = {
                "event": event,
                "steps": draw(hook_programs(i, event, stateful=stateful, duplicate=duplicate, plan=plan)),
            }
            if event in ("BeforeToolCall", "AfterToolCall") and not duplicate and draw(st.booleans()):
                hook["toolName"] = draw(st.sampled_from(tool_names))
            hooks.append(hook)
    return {
        "agentId": "a1",
        "executor": executor,
        "model": {"turns": turns},
        "tools": tools,
        "hooks": hooks,
        "state": {},
    }


def subsets(items: list[Any], *, proper: bool) -> st.SearchStrategy[list[Any]]:
    """A non-empty (proper, if asked and possible) subset, in input order."""
    if not items:
        return st.just([])
    hi = len(items) - 1 if proper and len(items) > 1 else len(items)
    return st.lists(st.sampled_from(range(len(items))), min_size=1, max_size=hi, unique=True).map(
        lambda idx: [items[i] for i in sorted(idx)]
    )


wrong_ids: st.SearchStrategy[str] = st.one_of(
    st.just("no-such-interrupt"), st.text(min_size=1, max_size=8).map(lambda s: f"x-{s}")
)
"""Ids no implementation minted."""
