"""A small world for the RoC 1.1 tests: two tool uses, two interrupts, raised by one of three layers.

``World(layer, executor)`` builds an agent whose first model turn asks for tools ``t1`` and ``t2`` and whose
second turn ends. Two interrupts are raised: by each tool body (``layer="tool"``), by a BeforeToolCall
callback for each tool use (``"before_tool_call"``), or by two BeforeTools callbacks (``"before_tools"``).
A unit that receives a decision does not handle it, so the default outcome of its layer applies. The clock
is injected and moves only when a test moves it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from refsupport import Tracer, text, use
from roc_reference import (
    Agent,
    AgentResult,
    BeforeToolCallEvent,
    BeforeToolsEvent,
    ConcurrentExecutor,
    HookRegistry,
    Interrupt,
    ScriptedModel,
    SequentialExecutor,
    TextBlock,
    Tool,
    ToolContext,
    tool,
)

Layer = Literal["tool", "before_tool_call", "before_tools"]
LAYERS: tuple[Layer, ...] = ("tool", "before_tool_call", "before_tools")
EXECUTORS = ("sequential", "concurrent")
START = datetime(2030, 1, 1, tzinfo=UTC)
EXPIRES_AT = "2030-01-02T00:00:00Z"
LATE_OUTCOME = {"decision": "cancel", "message": "too late"}
"""The second interrupt's onExpiry; the first has none (a decline with EXPIRY_TEXT)."""


def ask(raise_: Any, name: str, reason: Any, index: int, *, expiring: bool) -> Any:
    """Raise through ``raise_``; an expiring interrupt gets EXPIRES_AT, and the second (``index`` 1) also
    LATE_OUTCOME as its onExpiry."""
    extra: dict[str, Any] = {}
    if expiring:
        extra["expires_at"] = EXPIRES_AT
        if index == 1:
            extra["on_expiry"] = dict(LATE_OUTCOME)
    return raise_(name, reason, **extra)


class Clock:
    """The agent's clock: a fixed instant a test moves on purpose."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def pass_expiry(self) -> None:
        self.now = START + timedelta(days=2)


class World:
    def __init__(self, layer: Layer, executor: str = "sequential", *, expiring: bool = False) -> None:
        self.layer = layer
        self.executor_name = executor
        self.expiring = expiring
        self.clock = Clock()
        self.tracer = Tracer()
        self.completed: Counter[str] = Counter()  # tool use id -> completed body runs
        self.handled: list[str] = []

    # --- the units -----------------------------------------------------------------------------

    def _ask(self, raise_: Any, name: str, index: int) -> Any:
        return ask(raise_, name, {"q": name}, index, expiring=self.expiring)

    def tools(self) -> list[Tool]:
        world = self

        @tool(name="act")
        def act(n: int, tool_context: ToolContext) -> str:
            if world.layer == "tool":
                world._ask(tool_context.interrupt, "ok", n)
            world.completed[tool_context.tool_use.tool_use_id] += 1
            return "done"

        return [act]

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        if self.layer == "before_tool_call":

            def per_tool(event: BeforeToolCallEvent) -> None:
                self._ask(event.interrupt, "ok", int(event.tool_use.input["n"]))

            registry.add_callback(BeforeToolCallEvent, per_tool)
        if self.layer == "before_tools":
            for index, name in enumerate(("a", "b")):

                def per_batch(event: BeforeToolsEvent, name: str = name, index: int = index) -> None:
                    self._ask(event.interrupt, name, index)

                registry.add_callback(BeforeToolsEvent, per_batch)

    # --- agents --------------------------------------------------------------------------------

    def model(self) -> ScriptedModel:
        return ScriptedModel([[use("t1", "act", n=0), use("t2", "act", n=1)], [text("finished")]])

    def executor(self) -> SequentialExecutor | ConcurrentExecutor:
        return SequentialExecutor() if self.executor_name == "sequential" else ConcurrentExecutor()

    def agent(self) -> Agent:
        return Agent(
            self.model(),
            tools=self.tools(),
            hooks=[self.tracer, self],
            executor=self.executor(),
            clock=self.clock,
        )

    def restore(self, doc: dict[str, Any]) -> Agent:
        return Agent.from_snapshot(
            doc,
            model=self.model(),
            tools=self.tools(),
            hooks=[self.tracer, self],
            executor=self.executor(),
            clock=self.clock,
        )

    # --- expectations --------------------------------------------------------------------------

    def expected_results(self, outcomes: list[str | None]) -> list[tuple[str, str]]:
        """``(status, text)`` per tool use when interrupt ``i`` got ``outcomes[i]`` (None = approved)."""
        if self.layer == "before_tools":
            # ROC-DECIDE-006: each undecided callback sets cancel; the later callback's text stands
            texts = [o for o in outcomes if o is not None]
            if texts:
                return [("error", texts[-1])] * 2
            return [("success", "done")] * 2
        # ROC-DECIDE-004 (body), ROC-DECIDE-005 (BeforeToolCall): per tool use
        return [("success", "done") if o is None else ("error", o) for o in outcomes]


def index_of(interrupt: Interrupt) -> int:
    """Which of the two interrupts this is: t1's / callback "a"'s is 0, t2's / callback "b"'s is 1."""
    if interrupt.source.kind == "before_tools":
        return 0 if interrupt.name == "a" else 1
    return 0 if interrupt.source.tool_use_id == "t1" else 1


Plan = Callable[[int, Interrupt], "dict[str, Any] | None"]


def drive(agent: Agent, result: AgentResult, plan: Plan) -> AgentResult:
    """Resume until the agent stops for something else, sending ``plan``'s block for each interrupt.

    A sequential executor stops at the first interrupted tool use, so the second interrupt may come in a
    later stop; ``plan`` sees each interrupt with its index whenever it is reported.
    """
    for _ in range(6):
        if result.stop_reason != "interrupt":
            return result
        blocks = [b for i in result.interrupts if (b := plan(index_of(i), i)) is not None]
        result = agent(blocks)
    raise AssertionError("the agent did not come to an end")


def decide(interrupt_id: str, decision: str, message: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"interruptId": interrupt_id, "decision": decision, **extra}
    if message is not None:
        body["message"] = message
    return {"interruptResponse": body}


def results_of(agent: Agent) -> list[tuple[str, str]]:
    """``(status, text)`` of the tool results of the one completed batch in the history."""
    found = []
    for message in agent.messages:
        for result in message.tool_results():
            block = result.content[0]
            found.append((result.status, block.text if isinstance(block, TextBlock) else repr(block)))
    return found
