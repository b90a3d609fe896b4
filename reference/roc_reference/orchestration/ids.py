"""Interrupt ids and sources of an orchestrator (spec chapter 13): gate raise points, node interrupts.

Both kinds are minted with ``interrupt_id`` like every RoC id, with the node's visit in the batch slot and
the node id as the scope::

    roc1:before_node_call:<visit>:<node id>:<callback index>:<name>
    roc1:node:<visit>:<node id>:agent:<the node agent's interrupt id>

The node id and the visit name one node run of one orchestrator, and a node agent's ids are unique among its
own pending interrupts, so two nodes never share an id, even when their agents mint the same inner id
(ROC-GRAPH-008). Nothing here depends on the clock or on the order nodes completed in, so a replayed gate or
a node interrupt reported again keeps its id.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..interrupts import RaisePoint, interrupt_id, propagated_interrupt
from ..types import Interrupt, InterruptSource


@dataclass(frozen=True)
class NodePoint(RaisePoint):
    """The raise point of one ``BeforeNodeCall`` event instance: the node and its visit (ROC-GRAPH-003).

    ``batch_ordinal`` holds the visit; the scope is the node id, so the callbacks of two nodes, or of two
    visits of one node, never share a name scope.
    """

    node_id: str = ""

    def source(self) -> InterruptSource:
        return InterruptSource(kind=self.kind, node_id=self.node_id)

    def scope(self) -> tuple[str, ...]:
        return (self.node_id,)


def gate_point(node_id: str, visit: int) -> NodePoint:
    return NodePoint("before_node_call", visit, node_id=node_id)


def node_interrupt(node_id: str, visit: int, agent_id: str, inner: Interrupt) -> Interrupt:
    """The orchestrator's interrupt for one pending interrupt of a node's agent (ROC-GRAPH-007).

    Name, reason, metadata and expiry are copied unchanged, so a UI never parses the id; ``source.inner``
    says which agent asked and where (recursively, when the node's agent itself propagated the interrupt).
    """
    minted = interrupt_id("node", visit, (node_id,), "agent", inner.id)  # ROC-GRAPH-008
    return propagated_interrupt(inner, agent_id, minted, "node", node_id=node_id)
