"""Graph and swarm orchestration of agents (profile ``multi-agent``, spec chapter 13).

``Graph`` runs agent nodes along edges, ``Swarm`` lets the running node hand the task to another. Both stop
when a node's ``BeforeNodeCall`` callbacks or its agent interrupt, report the interrupts under ids of their
own, and resume exactly the paused units: completed nodes never run again, a paused node agent is resumed,
never prompted again. In-process only: an orchestrator has no snapshot.
"""

from ..hooks import AfterNodeCallEvent, BeforeNodeCallEvent
from .base import Orchestrator, node_prompt, result_text
from .graph import Graph, GraphResult
from .ids import node_interrupt
from .swarm import HANDOFF_TOOL, NodeResult, Swarm, SwarmResult

__all__ = [
    "HANDOFF_TOOL",
    "AfterNodeCallEvent",
    "BeforeNodeCallEvent",
    "Graph",
    "GraphResult",
    "NodeResult",
    "Orchestrator",
    "Swarm",
    "SwarmResult",
    "node_interrupt",
    "node_prompt",
    "result_text",
]
