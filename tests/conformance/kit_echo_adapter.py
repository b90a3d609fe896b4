"""A minimal adapter on the kit, over a runtime that only calls its model: ``python kit_echo_adapter.py``.

Used by test_adapter_kit.py to check ``serve``/``main`` and ``--target cmd:...`` end to end. It claims
nothing the suite could certify; it answers Describe, CreateAgent and prompt Invokes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from roc_conformance.adapter import (
    AdapterInfo,
    InvokeInput,
    RuntimeAdapter,
    Scenario,
    ScriptedModel,
    Trace,
    main,
)


@dataclass
class EchoAgent:
    model: ScriptedModel
    messages: list[dict[str, Any]] = field(default_factory=list)


class EchoAdapter(RuntimeAdapter[EchoAgent]):
    def info(self) -> AdapterInfo:
        return AdapterInfo(name="echo", version="0.0.1", adapter="kit-echo 0.0.1", profiles=("core",))

    def create(self, scenario: Scenario, trace: Trace) -> EchoAgent:
        return EchoAgent(ScriptedModel(scenario.turns, trace))

    def invoke(self, agent: EchoAgent, inp: InvokeInput) -> dict[str, Any]:
        agent.messages.append({"role": "user", "content": [{"text": str(inp.value)}]})
        reply = agent.model.next_reply()
        message = {"role": "assistant", "content": reply.content}
        agent.messages.append(message)
        return {"stopReason": "end_turn", "message": message, "interrupts": []}

    def messages(self, agent: EchoAgent) -> list[Any]:
        return list(agent.messages)

    def state(self, agent: EchoAgent) -> dict[str, Any]:
        return {}


if __name__ == "__main__":
    sys.exit(main(EchoAdapter, prog="kit-echo"))
