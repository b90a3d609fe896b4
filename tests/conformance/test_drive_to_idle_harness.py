"""Every way the reference can be interrupted, driven to idle through the harness (gRPC, harness protocol 4)
with each way of ending a pause: an answer, a decline, a cancel, an abandon (end and continue) and an expiry.

The Python-API counterpart is tests/reference/test_decisions.py; this one goes through the adapter, so what
the suite sends is what the runtime acts on. Each case ends idle (a prompt is accepted and appended) and the
asked-about tool ran exactly when the person answered.
"""

from __future__ import annotations

from typing import Any

import pytest
from roc_conformance.scenarios import (
    abandon,
    agent_spec,
    answer,
    cancel_interrupt,
    decline,
    hook,
    interrupt,
    resume,
    returns,
    text,
    tool,
    tool_use,
    turn,
)
from roc_reference import ABANDON_TEXT, CANCEL_TEXT, DECLINE_TEXT, EXPIRY_TEXT

PAST = "2000-01-01T00:00:00Z"
FUTURE = "2999-01-01T00:00:00Z"
LAYERS = ("tool", "BeforeToolCall", "BeforeTools")
ENDINGS = ("answer", "decline", "cancel", "abandon", "abandon-continue", "expiry")


def _scenario(layer: str, executor: str, ending: str) -> dict[str, Any]:
    """One tool use ``t1`` whose layer asks ``approve``. For an expiry, ``approve`` has long expired and,
    where the executor lets two questions stand in one cycle, a second question ``other`` (not expiring)
    comes with it, so that a resume answering ``other`` leaves the expired one to resolve (ROC-EXPIRY-005)."""
    expiring = ending == "expiry"
    ask = interrupt("approve", {"layer": layer}, expires_at=PAST if expiring else None)
    other = interrupt("other", expires_at=FUTURE)
    two = expiring and (layer == "BeforeTools" or executor == "concurrent")
    uses = [tool_use("t1", "act", {"n": 1})] + (
        [tool_use("t2", "act2", {"n": 2})] if two and layer != "BeforeTools" else []
    )
    if layer == "tool":
        tools = [tool("act", ask, returns("ran")), tool("act2", other, returns("ran"))]
        hooks: list[dict[str, Any]] = []
    else:
        tools = [tool("act", returns("ran")), tool("act2", returns("ran"))]
        hooks = [hook(layer, ask, tool_name="act")]
        if two:
            hooks.append(
                hook(layer, other) if layer == "BeforeTools" else hook(layer, other, tool_name="act2")
            )
    return agent_spec(
        f"idle-{layer}-{executor}-{ending}",
        executor=executor,
        turns=[turn(text("working"), *uses), turn(text("done")), turn(text("again"))],
        tools=tools,
        hooks=hooks,
    )


def _tool_results(out: dict[str, Any]) -> dict[str, tuple[str | None, Any]]:
    """toolUseId -> (status, first text) of the tool results in the history."""
    found = [
        b["toolResult"] for m in out.get("messages", []) for b in m.get("content", []) if "toolResult" in b
    ]
    return {r["toolUseId"]: (r.get("status"), (r.get("content") or [{}])[0].get("text")) for r in found}


@pytest.mark.req("ROC-DECIDE-001", "ROC-DECIDE-004", "ROC-DECIDE-005", "ROC-DECIDE-006", "ROC-DECIDE-007")
@pytest.mark.req("ROC-ABANDON-001", "ROC-ABANDON-003", "ROC-ABANDON-005", "ROC-EXPIRY-004", "ROC-EXPIRY-005")
@pytest.mark.req("ROC-DECIDE-009")
@pytest.mark.parametrize("executor", ["sequential", "concurrent"])
@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("ending", ENDINGS)
def test_every_pause_ends_idle(client, layer: str, executor: str, ending: str) -> None:
    agent = client.create_agent(_scenario(layer, executor, ending))
    first = client.invoke(agent, {"prompt": "go"})
    ids = {i["name"]: i["id"] for i in first["result"]["interrupts"]}
    iid = ids["approve"]
    inputs = {
        "answer": resume(answer(iid, "y")),
        "decline": resume(decline(iid)),
        "cancel": resume(cancel_interrupt(iid)),
        "abandon": abandon(),
        "abandon-continue": abandon(continue_model=True),
    }
    if ending == "expiry":
        late = client.invoke(agent, resume(answer(iid, "y")))
        assert late["error"]["code"] == "EXPIRED", late  # ROC-EXPIRY-004: too late to act on
        # With a second question the expired one resolves by itself (ROC-EXPIRY-005); alone, the caller
        # declines it, which is accepted although it expired (ROC-DECIDE-009).
        out = client.invoke(
            agent, resume(answer(ids["other"], "y")) if "other" in ids else resume(decline(iid))
        )
    else:
        out = client.invoke(agent, inputs[ending])
    assert out["result"]["stopReason"] == ("abandoned" if ending == "abandon" else "end_turn"), out
    refused = {
        "decline": DECLINE_TEXT,
        "cancel": CANCEL_TEXT,
        "abandon": ABANDON_TEXT,
        "abandon-continue": ABANDON_TEXT,
        "expiry": EXPIRY_TEXT if "other" in ids else DECLINE_TEXT,
    }
    results = _tool_results(out)
    if ending == "answer":
        assert results["t1"] == ("success", None)
    else:
        assert results["t1"] == ("error", refused[ending]), results
    if "t2" in results:
        assert results["t2"][0] == "success"
    idle = client.invoke(agent, {"prompt": "more"})
    assert idle["result"]["stopReason"] == "end_turn", idle
    assert idle["messages"][-2]["content"] == [{"text": "more"}]
