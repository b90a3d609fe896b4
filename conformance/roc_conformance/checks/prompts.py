"""Prompts to an idle agent: appended as one user message (ROC-TOOL-016), malformed ones refused with
INVALID_INPUT (ROC-ERR-010).

Both rules hold for every runtime, with or without hooks, so the checks read only what any adapter reports:
the reply's outcome, the history and the trace kinds of an adapter without a hook API. Each malformed case
gets a fresh agent, and after the refusal the same agent must still take a good prompt: a refusal that broke
the agent is a second finding, not a hidden one.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.checks.base import Check, CheckContext
from roc_conformance.checks.snapshot_support import error_code, fail_if, units_ran
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.errors import AdapterError
from roc_conformance.oracle.check import crash_text

APPENDED = "ROC-TOOL-016"
MALFORMED_PROMPT = "ROC-ERR-010"
UNCHANGED = "ROC-ERR-006"
NO_CRASH = "ROC-ERR-001"

# Each is schema-invalid as a prompt input (spec/schema/v1/prompt-input.schema.json): no runtime may take it.
MALFORMED: tuple[tuple[str, list[Any]], ...] = (
    ("an empty array", []),
    ("a block with no member", [{}]),
    ("a text block holding a number", [{"text": 5}]),
    ("a block with two members", [{"text": "a", "note": "b"}]),
    ("a block that is not an object", ["plain"]),
    ("a toolUse block", [{"toolUse": {"toolUseId": "t1", "name": "ask", "input": {}}}]),
    ("an unknown block kind", [{"video": "clip.mp4"}]),
)


def _idle_agent(ctx: CheckContext, name: str) -> str:
    spec = sc.agent_spec(
        f"prompt-{name}", executor=sc.executor_for(ctx.profiles), turns=[sc.turn(sc.text("hello"))] * 4
    )
    return ctx.client.create_agent(spec)


def check_prompt_appended(ctx: CheckContext) -> None:
    """A string prompt and a prompt of text blocks each enter the history as one user message, ahead of the
    model's reply."""
    wrong: dict[str, list[str]] = {}
    for label, wire, blocks in (
        ("a string prompt", {"prompt": "go"}, [{"text": "go"}]),
        (
            "a prompt of two text blocks",
            {"content": [{"text": "a"}, {"text": "b"}]},
            [{"text": "a"}, {"text": "b"}],
        ),
    ):
        agent = _idle_agent(ctx, "appended")
        out = ctx.client.invoke(agent, wire)
        if "result" not in out:
            wrong.setdefault(APPENDED, []).append(
                f"{label} was not run: {out.get('error') or out.get('crash')}"
            )
            continue
        history = out.get("messages") or []
        roles = [m.get("role") for m in history]
        if history[:1] != [{"role": "user", "content": blocks}] or roles != ["user", "assistant"]:
            wrong.setdefault(APPENDED, []).append(f"{label}: the history is {history}")
    fail_if(wrong)


def check_malformed_prompt(ctx: CheckContext) -> None:
    """Each malformed prompt to an idle agent is INVALID_INPUT, runs nothing, changes nothing.

    A case whose reply the adapter cannot give (e.g. a runtime that took a text block holding a number
    into its history, which the harness reply cannot carry) is not judged, and the others still are: the
    check FAILs on their evidence, and is an ERROR only when they show nothing wrong.
    """
    wrong: dict[str, list[str]] = {}
    faults: list[AdapterError] = []
    for observer in ctx.client.observers:
        if isinstance(observer, SchemaObserver):
            for _, content in MALFORMED:
                observer.expect_echo({"role": "user", "content": content})
    for label, content in MALFORMED:
        agent = _idle_agent(ctx, "malformed")
        try:
            out = ctx.client.invoke(agent, {"content": content})
        except AdapterError as fault:
            if not fault.message.startswith("harness_error:"):
                raise  # not an answer of a working adapter: nothing more can be judged
            # The adapter answered and said why it could not reply: the next case gets a fresh agent.
            ctx.client.reset_latch()
            faults.append(fault)
            ctx.note(f"{label}: not judged, the adapter could not reply: {fault}"[:400])
            continue
        if "crash" in out:
            wrong.setdefault(NO_CRASH, []).append(f"{label}: crashed: {crash_text(out['crash'])}")
            continue
        code = error_code(out)
        if code != "INVALID_INPUT":
            got = code or f"accepted ({(out.get('result') or {}).get('stopReason')})"
            wrong.setdefault(MALFORMED_PROMPT, []).append(f"{label}: {got}, expected INVALID_INPUT")
            continue
        ran = units_ran(out)
        if ran or out.get("messages"):
            wrong.setdefault(UNCHANGED, []).append(
                f"{label}: refused, yet {ran} ran and the history is {out.get('messages')}"
            )
        after = ctx.client.invoke(agent, {"prompt": "go"})
        if (after.get("result") or {}).get("stopReason") != "end_turn":
            wrong.setdefault(UNCHANGED, []).append(f"{label}: a good prompt after the refusal gave {after}")
    fail_if(wrong)
    if faults:
        raise faults[0]


def prompt_checks() -> list[Check]:
    profiles = ("core",)
    return [
        Check(
            name="explicit:prompt-appended",
            requirements=(APPENDED,),
            run=check_prompt_appended,
            profiles=profiles,
            description="a prompt enters the history as one user message",
        ),
        Check(
            name="explicit:malformed-prompt",
            requirements=(MALFORMED_PROMPT, UNCHANGED),
            run=check_malformed_prompt,
            profiles=profiles,
            description="a malformed prompt to an idle agent is INVALID_INPUT and changes nothing",
        ),
    ]
