"""The oracle's model of sub-agents used as tools (spec chapter 12, profile agent-as-tool).

A tool program's ``runAgent`` step runs a nested oracle agent (the same ``OracleAgent`` class, so the rules
apply at every level) as the tool use's sub-agent. Per outer tool use the outer agent keeps one ``Kept``
record from the sub-agent call's first stop or completion until the outer batch completes (the spec's
"kept" sub-agent, ``interruptState.children`` of a snapshot).

Keys of propagated interrupts. Ids are opaque, so the oracle names every interrupt by a key (source kind,
toolUseId, name). A propagated interrupt's key is ``("agent_as_tool", outer toolUseId, name)`` where name is
the inner key folded in: ``<inner name>@<inner kind>:<inner toolUseId or ->``. One more level nests the same
way (``ask@tool:q1@agent_as_tool:m1``). So two inner interrupts of one sub-agent with the same name stay
distinct (their inner raise points differ), two tool uses running the same definition stay distinct (their
outer toolUseIds differ), and the checker computes the same key from an observed interrupt's ``source.inner``
chain (``check.key_of``). The inner batch is not part of the key: within one pending outer batch a scenario
must not reuse a sub-agent's raise point across the sub-agent's batches (the oracle refuses such a scenario,
and the strategies never draw one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import reqs
from .copying import deep_copy
from .scenario import JSON, NESTED_MARK, AgentSpec, ScenarioError

if TYPE_CHECKING:
    from .engine import ExpectedInterrupt, Key, OracleAgent

KIND = "agent_as_tool"


def propagated_key(tool_use_id: str, inner: Key) -> Key:
    """The key of the outer tool use's interrupt that stands for the inner interrupt ``inner``."""
    return (KIND, tool_use_id, f"{inner[2]}{NESTED_MARK}{inner[0]}:{inner[1] or '-'}")


def interrupt_name(key: Key) -> str:
    """The name an interrupt of this key carries: a propagated one, the innermost name (ROC-AGENT-003)."""
    return key[2].split(NESTED_MARK, 1)[0] if key[0] == KIND else key[2]


@dataclass
class Kept:
    """The sub-agent of one outer tool use, kept while the outer batch is pending (ROC-AGENT-008)."""

    agent: OracleAgent
    inner: dict[Key, Key] = field(default_factory=dict)  # propagated key -> the sub-agent's own key
    result: str | None = None  # the final text of a sub-agent that completed (ROC-AGENT-007)


@dataclass
class SubRun:
    """What one sub-agent call gives the body: an answer (the final text), or interrupts to propagate."""

    answer: str | None = None
    propagated: list[tuple[Key, JSON, dict[str, JSON], dict[str, JSON]]] = field(default_factory=list)
    # (key, reason, source, expiresAt / onExpiry)
    trace: list[dict[str, JSON]] = field(default_factory=list)  # the sub-agent's events, with their agentPath
    paths: dict[tuple[str, ...], str] = field(default_factory=dict)  # agentPath -> what ran there, see below


# What a sub-agent call did at an agentPath (Outcome.agent_paths): "started" (a fresh instance, prompted),
# "resumed" (answers routed to it), "not_resumed" (nothing new: reported again, nothing runs),
# "completed" (its result returned, nothing runs). The checker names by it the rule an extra event breaks.
SITUATION_REQS: dict[str, list[str]] = {
    "started": [reqs.AGENT_PROPAGATE],
    "resumed": [reqs.AGENT_RESUMED],
    "not_resumed": [reqs.AGENT_NOT_RESUMED],
    "completed": [reqs.AGENT_COMPLETED],
}

# Events of the sub-agent's own invocation that the adapter does not record for a sub-agent.
_OWN = frozenset({"invocation_start", "invocation_end"})


def run_sub_agent(
    outer: OracleAgent, spec: AgentSpec, prompt: str, tool_use_id: str, tool_name: str
) -> SubRun:
    """The sub-agent call of ``tool_use_id``'s body (spec 12.1, 12.2)."""
    from .engine import Prompt, Resume

    kept = outer.children.get(tool_use_id)
    out = SubRun()
    here = (tool_use_id,)
    if kept is not None and kept.result is not None:
        # ROC-AGENT-007: a completed sub-agent is not run again; the body gets its result.
        outer._exercised.add(reqs.AGENT_COMPLETED)
        out.paths[here] = "completed"
        out.answer = kept.result
        return out
    if kept is None:
        # ROC-AGENT-010: a fresh instance per outer tool use, of the definition as it is.
        child = type(outer)(spec, outer.profiles - {"expiry"})
        child._history_turns = True
        kept = Kept(child)
        inp: Any = Prompt([{"text": prompt}])
        out.paths[here] = "started"
        outer._exercised |= {reqs.AGENT_PROPAGATE, reqs.AGENT_OWN_INSTANCE}
    else:
        child = kept.agent
        routed = _routed(outer, kept, tool_use_id)
        if not routed:
            # ROC-AGENT-006: nothing new for it: not resumed, its interrupts reported again with the same ids.
            outer._exercised |= {reqs.AGENT_NOT_RESUMED, reqs.AGENT_ID}
            out.paths[here] = "not_resumed"
            out.propagated = [
                _wrap(outer, kept, tool_use_id, tool_name, child._expected(k)) for k in child.pending_keys()
            ]
            return out
        # ROC-AGENT-004/005: resumed with the answers and decisions given for its propagated interrupts.
        outer._exercised |= {reqs.AGENT_ROUTED, reqs.AGENT_RESUMED}
        out.paths[here] = "resumed"
        inp = Resume(tuple(routed))
    outcome = child.invoke(inp)
    if outcome.is_error:
        raise ScenarioError(
            f"the sub-agent of {tool_use_id} fails with {sorted(outcome.codes)}: not modelled"
        )
    outer.children[tool_use_id] = kept
    for event in outcome.trace:
        if event.get("kind") in _OWN:
            continue
        below = event.get("agentPath") or []
        out.trace.append({**event, "agentPath": [tool_use_id, *below]})
    for path, situation in outcome.agent_paths.items():
        out.paths[(tool_use_id, *path)] = situation
    if outcome.stop_reason == "interrupt":
        out.propagated = [_wrap(outer, kept, tool_use_id, tool_name, i) for i in outcome.interrupts]
        return out
    text = "".join(str(b["text"]) for b in (outcome.message or {}).get("content", []) if "text" in b)
    kept.result = text
    out.answer = text
    return out


def _routed(outer: OracleAgent, kept: Kept, tool_use_id: str) -> list[Any]:
    """ROC-AGENT-004: the outer answers and decisions its sub-agent does not have yet, as its responses."""
    from .engine import MISSING, Response

    waiting = set(kept.agent.pending_keys())
    out: list[Any] = []
    for key, reg in outer.interrupts.items():
        inner = kept.inner.get(key)
        if key[0] != KIND or key[1] != tool_use_id or not reg.answered or inner not in waiting:
            continue
        if reg.decision is not None:
            out.append(Response(inner, MISSING, reg.decision, deep_copy(reg.message)))
        else:
            out.append(Response(inner, deep_copy(reg.response)))
    return out


def _wrap(
    outer: OracleAgent, kept: Kept, tool_use_id: str, tool_name: str, inner: ExpectedInterrupt
) -> tuple[Key, JSON, dict[str, JSON], dict[str, JSON]]:
    """ROC-AGENT-002/003: the outer interrupt standing for ``inner`` (its id is bound when observed)."""
    key = propagated_key(tool_use_id, inner.key)
    reg = outer.interrupts.get(key)
    if reg is not None and reg.answered:
        # The sub-agent consumed that answer in an earlier batch of its own and raises the same point again.
        raise ScenarioError(
            f"the sub-agent of {tool_use_id} raises {inner.key} again after its answer: not modelled"
        )
    kept.inner[key] = inner.key
    outer._exercised |= {reqs.AGENT_ID, reqs.AGENT_FIELDS}
    source: dict[str, JSON] = {
        "kind": KIND,
        "toolUseId": tool_use_id,
        "toolName": tool_name,
        "inner": {"agentId": kept.agent.spec.agent_id, "source": deep_copy(inner.source)},
    }
    return key, deep_copy(inner.reason), source, deep_copy(inner.extra)
