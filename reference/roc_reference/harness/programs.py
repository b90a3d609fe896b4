"""The step interpreter now lives in the adapter kit (``roc_conformance.adapter.programs``); re-exported."""

from __future__ import annotations

from roc_conformance.adapter.programs import (
    DEFAULT_CANCEL,
    HOOK_OPS,
    PASSIVE_HOOK_OPS,
    TOOL_OPS,
    ProgramRun,
    ScenarioError,
    StateView,
    Step,
    json_equal,
    parse_steps,
    run_program,
)

__all__ = [
    "DEFAULT_CANCEL",
    "HOOK_OPS",
    "PASSIVE_HOOK_OPS",
    "TOOL_OPS",
    "ProgramRun",
    "ScenarioError",
    "StateView",
    "Step",
    "json_equal",
    "parse_steps",
    "run_program",
]
