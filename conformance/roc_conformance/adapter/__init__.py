"""The Python adapter kit: everything a RoC conformance adapter does that does not depend on the runtime.

An adapter author subclasses ``RuntimeAdapter`` (build an agent from a ``Scenario`` recording into a
``Trace``; invoke it; read its messages and state; optionally snapshot, restore, inspect) and serves it
with ``serve`` or ``main``. The kit parses the AgentSpec, interprets the tool and hook step programs, plays
the scripted model, writes the trace events, holds handles and locks, maps errors and speaks gRPC.
Guide: docs/adapters/python-kit.md.

Stability: the names in ``__all__`` are the kit's public API. They follow ``KIT_VERSION`` (semantic
versioning): a minor version adds names, parameters with defaults or optional ``RuntimeAdapter`` methods; a
major version is the only one that removes or changes them. Everything else (names starting with ``_``,
module attributes not listed here, ``LiveAgent``) may change in any version. The kit speaks the harness
protocol of ``roc_conformance.client.HARNESS_PROTOCOL_VERSION``; a new protocol version that needs
adapters to change comes with a new major kit version.
"""

from __future__ import annotations

from roc_conformance.adapter.model import (
    EXHAUSTED_TEXT,
    ModelReply,
    ScriptedModel,
    assistant_turns,
    uses_tools,
)
from roc_conformance.adapter.orchestration import (
    HANDOFF_TOOL,
    NodeHookProgram,
    NodeProgram,
    OrchestratorScenario,
    parse_orchestrator,
)
from roc_conformance.adapter.programs import (
    DecisionOf,
    ProgramRun,
    RunAgent,
    ScenarioError,
    StateView,
    Step,
    ToolFailure,
    json_equal,
    run_program,
    tool_result_content,
)
from roc_conformance.adapter.scenario import (
    HOOK_EVENTS,
    HookProgram,
    IntegrityKey,
    Scenario,
    SessionBinding,
    ToolProgram,
    parse_scenario,
)
from roc_conformance.adapter.serve import main, make_server, serve
from roc_conformance.adapter.service import (
    MAX_LIVE_AGENTS,
    AdapterError,
    AdapterInfo,
    DirectToolCall,
    HarnessService,
    InvokeInput,
    Refused,
    RuntimeAdapter,
    Unsupported,
    callback_stream,
)
from roc_conformance.adapter.stores import StoreDirectories
from roc_conformance.adapter.trace import Trace, run_hook

KIT_VERSION = "1.3.0"

__all__ = [
    "EXHAUSTED_TEXT",
    "HANDOFF_TOOL",
    "HOOK_EVENTS",
    "KIT_VERSION",
    "MAX_LIVE_AGENTS",
    "AdapterError",
    "AdapterInfo",
    "DecisionOf",
    "DirectToolCall",
    "HarnessService",
    "HookProgram",
    "IntegrityKey",
    "InvokeInput",
    "ModelReply",
    "NodeHookProgram",
    "NodeProgram",
    "OrchestratorScenario",
    "ProgramRun",
    "Refused",
    "RunAgent",
    "RuntimeAdapter",
    "Scenario",
    "ScenarioError",
    "ScriptedModel",
    "SessionBinding",
    "StateView",
    "Step",
    "StoreDirectories",
    "ToolFailure",
    "ToolProgram",
    "Trace",
    "Unsupported",
    "assistant_turns",
    "callback_stream",
    "json_equal",
    "main",
    "make_server",
    "parse_orchestrator",
    "parse_scenario",
    "run_hook",
    "run_program",
    "serve",
    "tool_result_content",
    "uses_tools",
]
