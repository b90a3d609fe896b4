"""RoC reference runtime: an exact, readable implementation of the Return of Control 1.1 rules.

A tour, in reading order: ``types`` (the data model as spec JSON), ``decisions`` (decline and cancel,
``InterruptDeclined``, the texts of default outcomes, expiry outcomes), ``interrupts`` (ids, stored answers
and decisions, resume validation, activation, consumption, the pending list), ``hooks`` (events, registry,
fan-out), ``tools`` (``@tool``, ``ToolContext.interrupt``, direct calls), ``executors`` (sequential,
concurrent), ``loop`` (the tool cycle with deferred append), ``agent`` (invoke/resume, abandon, snapshots,
sessions), ``snapshot`` (the portable format and its validation), ``integrity`` (canonical JSON, input
digests, HMAC tags).
The core imports no gRPC.

    @tool
    def delete_files(paths: list[str], tool_context: ToolContext) -> bool:
        if tool_context.interrupt("approve", reason={"paths": paths}) != "y":
            return False
        ...
        return True

    agent = Agent(model, tools=[delete_files])
    result = agent("delete old files")
    while result.stop_reason == "interrupt":
        result = agent([{"interruptResponse": {"interruptId": i.id, "response": ask_a_person(i)}}
                        for i in result.interrupts])
"""

SPEC_VERSION = "1.3"
SPEC_VERSIONS = ("1.0", "1.1", "1.2", "1.3")
"""The spec versions this runtime implements: 1.1, 1.2 and 1.3 add profiles and optional members to 1.0."""
IMPLEMENTATION_NAME = "roc-reference"
PROFILES = (
    "core",
    "hooks",
    "sequential-executor",
    "concurrent-executor",
    "sessions",
    "portable-snapshot",
    "direct-tool-call",
    "session-store",
    "snapshot-integrity",
    "decisions",
    "abandon",
    "expiry",
    "pending-list",
    "idempotent-resume",
    "agent-as-tool",
    "multi-agent",
    "response-schema",
    "questions",
    "approval",
    "streaming",
    "audit",
)
"""The profiles this runtime claims (ROC-CONF-001..005); reserved profiles are not claimed."""

from .agent import Agent, PromptInput  # noqa: E402 - SPEC_VERSION first: agent.py imports it
from .approval import ApprovalHook  # noqa: E402
from .decisions import (  # noqa: E402
    ABANDON_TEXT,
    CANCEL_TEXT,
    DECLINE_TEXT,
    EXPIRY_TEXT,
    InterruptDeclined,
)
from .errors import ErrorCode, RocError  # noqa: E402
from .executors import ConcurrentExecutor, Executor, SequentialExecutor, ToolOutcome  # noqa: E402
from .guard import ResumeGuard  # noqa: E402
from .hooks import (  # noqa: E402
    AfterInvocationEvent,
    AfterModelCallEvent,
    AfterToolCallEvent,
    AfterToolsEvent,
    BeforeInvocationEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    HookEvent,
    HookProvider,
    HookRegistry,
    InterruptibleEvent,
    MessageAddedEvent,
)
from .integrity import input_digest  # noqa: E402
from .integrity import sign as sign_snapshot  # noqa: E402
from .interrupts import interrupt_id, pending_interrupts_of  # noqa: E402
from .models import Model, ModelTurn, ScriptedModel  # noqa: E402
from .orchestration import (  # noqa: E402
    AfterNodeCallEvent,
    BeforeNodeCallEvent,
    Graph,
    GraphResult,
    NodeResult,
    Swarm,
    SwarmResult,
)
from .questions import answer_schema, ask_user  # noqa: E402
from .snapshot import SCHEMA_VERSION, parse_snapshot  # noqa: E402
from .state import AgentState  # noqa: E402
from .tools import Tool, ToolContext, tool  # noqa: E402
from .types import (  # noqa: E402
    AgentResult,
    ContentBlock,
    InnerInterrupt,
    Interrupt,
    InterruptResponse,
    InterruptResponseBlock,
    InterruptSource,
    JsonContent,
    Message,
    StopReason,
    TextBlock,
    ToolResult,
    ToolResultBlock,
    ToolUse,
    ToolUseBlock,
)

__all__ = [
    "ABANDON_TEXT",
    "CANCEL_TEXT",
    "DECLINE_TEXT",
    "EXPIRY_TEXT",
    "IMPLEMENTATION_NAME",
    "PROFILES",
    "SCHEMA_VERSION",
    "SPEC_VERSION",
    "SPEC_VERSIONS",
    "AfterInvocationEvent",
    "AfterModelCallEvent",
    "AfterNodeCallEvent",
    "AfterToolCallEvent",
    "AfterToolsEvent",
    "Agent",
    "AgentResult",
    "AgentState",
    "ApprovalHook",
    "BeforeInvocationEvent",
    "BeforeModelCallEvent",
    "BeforeNodeCallEvent",
    "BeforeToolCallEvent",
    "BeforeToolsEvent",
    "ConcurrentExecutor",
    "ContentBlock",
    "ErrorCode",
    "Executor",
    "Graph",
    "GraphResult",
    "HookEvent",
    "HookProvider",
    "HookRegistry",
    "InnerInterrupt",
    "Interrupt",
    "InterruptDeclined",
    "InterruptResponse",
    "InterruptResponseBlock",
    "InterruptSource",
    "InterruptibleEvent",
    "JsonContent",
    "Message",
    "MessageAddedEvent",
    "Model",
    "ModelTurn",
    "NodeResult",
    "PromptInput",
    "ResumeGuard",
    "RocError",
    "ScriptedModel",
    "SequentialExecutor",
    "StopReason",
    "Swarm",
    "SwarmResult",
    "TextBlock",
    "Tool",
    "ToolContext",
    "ToolOutcome",
    "ToolResult",
    "ToolResultBlock",
    "ToolUse",
    "ToolUseBlock",
    "answer_schema",
    "ask_user",
    "input_digest",
    "interrupt_id",
    "parse_snapshot",
    "pending_interrupts_of",
    "sign_snapshot",
    "tool",
]
