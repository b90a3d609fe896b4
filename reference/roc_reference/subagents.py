"""Agent-as-tool (spec 12): a tool body runs another agent; the sub-agent's interrupts become the tool's.

``tool_context.run_agent(agent, prompt)`` is the whole of it for the tool author. Per outer tool use:

* the first run starts a fresh instance of ``agent`` (its model, tools, hooks and executor, its messages and
  state as they are) and runs ``prompt`` on it; the definition itself is never changed, so the same
  definition serves concurrent tool uses (ROC-AGENT-010);
* when the instance stops with interrupts, each unanswered one is raised by the outer tool use as an
  ``agent_as_tool`` interrupt whose id is minted from the outer raise point and the inner id (ROC-AGENT-002),
  and the instance's state is kept in ``interruptState.children`` under the outer toolUseId (ROC-AGENT-008);
* on replay the body calls ``run_agent`` again: the kept instance is restored and resumed with the answers
  and decisions stored for its propagated interrupts, translated to the inner ids (ROC-AGENT-004,
  ROC-AGENT-005) — never prompted again; an instance that received nothing new is not resumed and its
  interrupts are raised again with the same ids (ROC-AGENT-006);
* an instance that completed is recorded with its result, which a replayed call returns without running
  anything (ROC-AGENT-007).

A body runs at most one sub-agent per run (ROC-AGENT-011): the kept state is keyed by the outer tool use, and
one key per tool use is what lets every implementation route an answer without parsing ids.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import SPEC_VERSION
from .errors import SnapshotInvalidError
from .interrupts import AnswerBook, RaisePoint, UnitRun, interrupt_id, propagated_interrupt, routed_block
from .snapshot import SCHEMA_VERSION, now_rfc3339
from .types import AgentResult, Interrupt, json_copy

if TYPE_CHECKING:
    from .agent import Agent, PromptInput

ONE_CALL_TEXT = "a tool body runs at most one sub-agent per run"


class SubAgentCallError(Exception):
    """A second sub-agent call in one body run (ROC-AGENT-011): an ordinary failure of the body, which the
    tool turns into an error result like any exception (ROC-TOOL-008)."""


@dataclass
class SubAgentCall:
    """The sub-agent call of one run of one tool body."""

    point: RaisePoint
    """The outer tool use's body raise point."""
    unit: UnitRun
    book: AnswerBook
    children: MutableMapping[str, dict[str, Any]]
    """The cycle's ``interruptState.children``: read for this tool use's kept instance, written back."""
    used: bool = False

    def run(self, definition: Agent, prompt: PromptInput) -> AgentResult:
        if self.used:
            raise SubAgentCallError(ONE_CALL_TEXT)
        self.used = True
        key = self.point.tool_use_id or ""
        kept = self.children.get(key)
        if kept is not None and kept["agent"]["agentId"] != definition.agent_id:  # ROC-AGENT-009
            raise SnapshotInvalidError(
                f"the kept sub-agent is {kept['agent']['agentId']!r}, the tool runs {definition.agent_id!r}",
                details={"agentId": kept["agent"]["agentId"]},
            )
        if kept is not None and "result" in kept:  # ROC-AGENT-007: completed earlier in this batch
            return AgentResult.model_validate(json_copy(kept["result"]))
        if kept is None:
            child = definition.spawn(None)
            result = child.invoke(prompt)
        else:
            child = definition.spawn(_restorable(kept))
            routed = self._routed(child)
            if not routed:  # ROC-AGENT-006: nothing new for it; it is not resumed
                raise self.unit.propagate([self._wrap(child.agent_id, i) for i in child.interrupts])
            result = child.invoke(routed)  # ROC-AGENT-005: resumed with the answers, never re-prompted
        record = child.child_state()
        if result.stop_reason == "interrupt":
            self.children[key] = record
            raise self.unit.propagate([self._wrap(child.agent_id, i) for i in child.interrupts])
        record["result"] = result.to_json()
        self.children[key] = record  # ROC-AGENT-007: a replay of the body gets this result back
        return result

    def _routed(self, child: Agent) -> list[dict[str, Any]]:
        """ROC-AGENT-004: the outer answers and decisions the child does not have yet, as its own blocks."""
        waiting = {i.id for i in child.interrupts}
        blocks: list[dict[str, Any]] = []
        for stored in self.book.propagated(self.point.tool_use_id or ""):
            inner = stored.interrupt.source.inner
            if inner is None or inner.interrupt_id not in waiting or not stored.answered:
                continue
            value = stored.decision or stored.response
            blocks.append(routed_block(inner.interrupt_id, value, stored.response_metadata))
        return blocks

    def _wrap(self, agent_id: str, inner: Interrupt) -> Interrupt:
        """ROC-AGENT-002, ROC-AGENT-003: the outer interrupt standing for ``inner``."""
        point = self.point
        minted = interrupt_id("agent_as_tool", point.batch_ordinal, point.scope(), "body", inner.id)
        place = {"tool_use_id": point.tool_use_id or "", "tool_name": point.tool_name or ""}
        return propagated_interrupt(inner, agent_id, minted, "agent_as_tool", **place)


def _restorable(kept: dict[str, Any]) -> dict[str, Any]:
    """A kept instance as a snapshot document of its own (the outer loader validated it already)."""
    return {
        "schemaVersion": SCHEMA_VERSION,
        "specVersion": SPEC_VERSION,
        "createdAt": now_rfc3339(),
        "revision": 0,
        "agent": kept["agent"],
        "interruptState": kept["interruptState"],
    }
