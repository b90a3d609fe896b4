"""The raiser's ``metadata`` reaches the caller unchanged, and snapshots keep it (ROC-MODEL-014).

A tool body raises with a metadata object (a UI hint and a vendor key, as an application would send). The
result must report it JSON-equal; a partial resume that leaves the interrupt unanswered must report it
again, unchanged. With `sessions` claimed, the snapshot must store it and a restored agent must report it
after its own re-raise. Interrupts raised without metadata are not judged: the rule is about what the raiser
gave.
"""

from __future__ import annotations

from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_text
from roc_conformance.checks.base import Check, CheckContext
from roc_conformance.checks.snapshot_support import fail_if

METADATA_KEPT = "ROC-MODEL-014"
META = {"ui": {"style": "confirm", "danger": True}, "x-acme-team": "ops"}


def _spec(executor: str) -> dict[str, Any]:
    raise_with_meta = {"interrupt": {"name": "approve", "reason": {"path": "a.txt"}, "metadata": META}}
    return sc.agent_spec(
        "metadata",
        executor=executor,
        turns=[sc.turn(sc.tool_use("t1", "ask"), sc.tool_use("t2", "other")), sc.turn(sc.text("done"))],
        tools=[sc.tool("ask", raise_with_meta, sc.returns("ok")), sc.tool("other", sc.interrupt("second"))],
    )


def _metadata_of(interrupts: list[Any], name: str) -> Any:
    for item in interrupts:
        if isinstance(item, dict) and item.get("name") == name:
            return item.get("metadata", "<absent>")
    return "<not reported>"


def _same(value: Any) -> bool:
    return isinstance(value, dict) and canonical_text(value) == canonical_text(META)


def check_interrupt_metadata(ctx: CheckContext) -> None:
    wrong: list[str] = []
    executor = "concurrent" if "concurrent-executor" in ctx.profiles else "sequential"
    spec = _spec(executor)
    agent = ctx.client.create_agent(spec)
    first = (ctx.client.invoke(agent, {"prompt": "go"}).get("result") or {}).get("interrupts") or []
    got = _metadata_of(first, "approve")
    if not _same(got):
        wrong.append(f"the result reported metadata {got}, the raiser gave {META}")
    elif executor == "concurrent":
        # Answer the other interrupt only: "approve" is raised again and reported again, unchanged.
        second_id = next((i.get("id") for i in first if i.get("name") == "second"), None)
        again = ctx.client.invoke(
            agent, {"interruptResponses": [{"interruptId": second_id, "response": "x"}]}
        )
        got = _metadata_of((again.get("result") or {}).get("interrupts") or [], "approve")
        if not _same(got):
            wrong.append(f"after a partial resume the result reported metadata {got}")
    if not wrong and "sessions" in ctx.profiles:
        taken = ctx.client.take_snapshot(agent).get("snapshot") or {}
        stored = _metadata_of((taken.get("interruptState") or {}).get("interrupts") or [], "approve")
        if not _same(stored):
            wrong.append(f"the snapshot stored metadata {stored}")
        else:
            restored = ctx.client.restore_agent(taken, spec, model_turn_offset=1)
            handle = restored.get("agent")
            if handle is not None:
                again = ctx.client.take_snapshot(handle).get("snapshot") or {}
                kept = _metadata_of((again.get("interruptState") or {}).get("interrupts") or [], "approve")
                if not _same(kept):
                    wrong.append(f"a snapshot of the restored agent stored metadata {kept}")
    fail_if({METADATA_KEPT: wrong})


def metadata_checks() -> list[Check]:
    return [
        Check(
            name="explicit:interrupt-metadata",
            requirements=(METADATA_KEPT,),
            run=check_interrupt_metadata,
            profiles=("core",),
            description="the raiser's metadata is reported unchanged and kept in snapshots",
        )
    ]
