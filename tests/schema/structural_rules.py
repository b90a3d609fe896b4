"""Cross-member rules of the RoC data model that JSON Schema cannot express.

Pure functions over documents that already validate against their schema. Each returns the violations it
finds as (rule, JSON path) pairs; an empty list means the document obeys every rule checked here. The rule
names are the ones the example manifests (spec/examples/<Type>/README.md) cite in their "rejected by" column.
A runtime enforces the same rules when it loads or receives such a document (SNAPSHOT_INVALID,
SNAPSHOT_INTEGRITY, DUPLICATE_RESPONSE, ...); these functions let the tests show the examples break them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

# Sources whose interrupt belongs to one tool use of the pending assistant message.
TOOL_BOUND_KINDS = frozenset({"tool", "before_tool_call", "agent_as_tool"})


@dataclass(frozen=True)
class Violation:
    rule: str
    path: str


def canonical_json(doc: Any) -> bytes:
    """The spec's canonical JSON (spec 8.2: RFC 8785), used for inputDigest and the integrity MAC."""
    return rfc8785.dumps(doc)


def input_digest(tool_input: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(tool_input)).hexdigest()


def snapshot_mac(snapshot: Mapping[str, Any], key: bytes) -> str:
    body = {k: v for k, v in snapshot.items() if k != "integrity"}
    tag = hmac.new(key, canonical_json(body), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(tag).rstrip(b"=").decode("ascii")


def _duplicates(items: list[tuple[str, str]], rule: str) -> Iterator[Violation]:
    """Yield a violation at every occurrence of a value after its first (items are (value, path))."""
    seen: set[str] = set()
    for value, path in items:
        if value in seen:
            yield Violation(rule, path)
        seen.add(value)


def _tool_use_ids(message: Mapping[str, Any]) -> list[str]:
    return [block["toolUse"]["toolUseId"] for block in message["content"] if "toolUse" in block]


def transcript_violations(messages: list[Mapping[str, Any]], base: str) -> list[Violation]:
    """A toolUse is answered by the next message (a user message with its toolResult); every toolResult
    answers a toolUse of the message just before it."""
    found: list[Violation] = []
    for i, message in enumerate(messages):
        uses = _tool_use_ids(message)
        if uses:
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = (
                {b["toolResult"]["toolUseId"] for b in following["content"] if "toolResult" in b}
                if following is not None and following["role"] == "user"
                else set()
            )
            if not set(uses) <= answered:
                found.append(Violation("dangling-tool-use", f"{base}[{i}]"))
        previous_uses = set(_tool_use_ids(messages[i - 1])) if i > 0 else set()
        for j, block in enumerate(message["content"]):
            if "toolResult" in block and block["toolResult"]["toolUseId"] not in previous_uses:
                found.append(Violation("orphan-tool-result", f"{base}[{i}].content[{j}]"))
    return found


def snapshot_violations(doc: Mapping[str, Any], keys: Mapping[str, bytes] | None = None) -> list[Violation]:
    """Cross-member rules of a schema-valid snapshot. keys maps keyId to HMAC key; without a key for the
    snapshot's keyId the integrity tag is not checked."""
    found = transcript_violations(doc["agent"]["messages"], "$.agent.messages")
    state = doc["interruptState"]
    interrupts: list[Mapping[str, Any]] = state["interrupts"]
    base = "$.interruptState.interrupts"
    found += _duplicates(
        [(it["id"], f"{base}[{j}].id") for j, it in enumerate(interrupts)], "duplicate-interrupt-id"
    )

    # A propagated interrupt's raise point is its inner interrupt, not its name (spec 12.1).
    points = [
        (
            (
                it["source"]["kind"],
                it["source"].get("toolUseId"),
                it["source"].get("inner", {}).get("interruptId", it["name"]),
            ),
            f"{base}[{j}]",
        )
        for j, it in enumerate(interrupts)
    ]
    found += _duplicates([(json.dumps(point), path) for point, path in points], "duplicate-raise-point")

    pending = state["pendingToolExecution"]
    if state["activated"]:
        # RoC 1.0: every interrupt lies inside a tool batch, and an interrupted agent waits for an answer.
        if pending is None:
            found.append(
                Violation("activated-without-pending-tool-execution", "$.interruptState.pendingToolExecution")
            )
        if all("response" in it or "decision" in it for it in interrupts):  # a decided one is answered
            found.append(Violation("activated-without-unanswered-interrupt", "$.interruptState.interrupts"))
    uses: dict[str, Any] = {}
    completed: list[Mapping[str, Any]] = []
    if pending is not None:
        for block in pending["assistantMessage"]["content"]:
            if "toolUse" in block:
                uses[block["toolUse"]["toolUseId"]] = block["toolUse"]["input"]
        completed = pending["completedToolResults"]
    unanswered_tools: set[str] = set()
    for j, interrupt in enumerate(interrupts):
        source = interrupt["source"]
        if source["kind"] not in TOOL_BOUND_KINDS or pending is None:
            continue  # without a pending batch the missing pendingToolExecution is the one fault to report
        tool_use_id = source["toolUseId"]
        if tool_use_id not in uses:
            found.append(Violation("interrupt-unknown-tool-use", f"{base}[{j}].source.toolUseId"))
            continue
        if "inputDigest" in interrupt and interrupt["inputDigest"] != input_digest(uses[tool_use_id]):
            found.append(Violation("input-digest-mismatch", f"{base}[{j}].inputDigest"))
        if "response" not in interrupt and "decision" not in interrupt:  # format 2.1: a decision answers
            unanswered_tools.add(tool_use_id)
    results = "$.interruptState.pendingToolExecution.completedToolResults"
    found += _duplicates(
        [(r["toolUseId"], f"{results}[{j}].toolUseId") for j, r in enumerate(completed)],
        "duplicate-completed-result",
    )
    for j, result in enumerate(completed):
        if result["toolUseId"] not in uses:
            found.append(Violation("completed-result-unknown-tool-use", f"{results}[{j}].toolUseId"))
        elif result["toolUseId"] in unanswered_tools:
            found.append(Violation("completed-result-for-interrupted-tool-use", f"{results}[{j}].toolUseId"))

    found += _kept_sub_agent_violations(state, uses, {r["toolUseId"] for r in completed})

    integrity = doc.get("integrity")
    if integrity is not None and keys is not None and integrity["alg"] != "HMAC-SHA256":
        # Spec 10.3: a reader with keys refuses an algorithm it does not implement (SNAPSHOT_INTEGRITY).
        found.append(Violation("integrity-unknown-alg", "$.integrity.alg"))
    elif integrity is not None and keys is not None and integrity["keyId"] in keys:
        expected = snapshot_mac(doc, keys[integrity["keyId"]])
        if not hmac.compare_digest(expected, integrity["mac"]):
            found.append(Violation("integrity-mac-mismatch", "$.integrity.mac"))
    return found


def _kept_sub_agent_violations(
    state: Mapping[str, Any], uses: Mapping[str, Any], completed: set[str]
) -> list[Violation]:
    """Format 2.2 (spec 12.3, ROC-AGENT-009): kept sub-agents belong to running tool uses of the pending batch
    and follow the snapshot rules themselves; an unanswered propagated interrupt has its kept sub-agent
    waiting on the inner interrupt."""
    found: list[Violation] = []
    children: Mapping[str, Any] = state.get("children", {})
    for tool_use_id, kept in children.items():
        path = f"$.interruptState.children.{tool_use_id}"
        if tool_use_id not in uses or tool_use_id in completed:
            found.append(Violation("kept-sub-agent-unknown-tool-use", path))
        found += [Violation(v.rule, path + v.path.removeprefix("$")) for v in snapshot_violations(kept)]
    for j, interrupt in enumerate(state["interrupts"]):
        inner = interrupt["source"].get("inner")
        if interrupt["source"]["kind"] != "agent_as_tool" or inner is None:
            continue
        if interrupt["source"]["toolUseId"] in completed:
            continue  # its tool use has a result and keeps no sub-agent
        kept = children.get(interrupt["source"]["toolUseId"])
        waiting = [
            it["id"]
            for it in (kept or {}).get("interruptState", {}).get("interrupts", [])
            if "response" not in it and "decision" not in it
        ]
        answered = "response" in interrupt or "decision" in interrupt
        if (
            kept is None
            or kept["agent"]["agentId"] != inner["agentId"]
            or not (answered or inner["interruptId"] in waiting)
        ):
            found.append(Violation("propagated-without-kept-sub-agent", f"$.interruptState.interrupts[{j}]"))
    return found


def resume_input_violations(doc: list[Mapping[str, Any]]) -> list[Violation]:
    ids = [
        (block["interruptResponse"]["interruptId"], f"$[{j}].interruptResponse.interruptId")
        for j, block in enumerate(doc)
    ]
    return list(_duplicates(ids, "duplicate-interrupt-id"))


def agent_result_violations(doc: Mapping[str, Any]) -> list[Violation]:
    ids = [(it["id"], f"$.interrupts[{j}].id") for j, it in enumerate(doc["interrupts"])]
    return list(_duplicates(ids, "duplicate-interrupt-id"))


def agent_spec_violations(doc: Mapping[str, Any]) -> list[Violation]:
    names = [(tool["name"], f"$.tools[{j}].name") for j, tool in enumerate(doc.get("tools", []))]
    use_ids = [
        (block["toolUse"]["toolUseId"], f"$.model.turns[{i}].content[{k}].toolUse.toolUseId")
        for i, turn in enumerate(doc["model"]["turns"])
        for k, block in enumerate(turn["content"])
        if "toolUse" in block
    ]
    return [*_duplicates(names, "duplicate-tool-name"), *_duplicates(use_ids, "duplicate-tool-use-id")]


# The public example key of spec/examples/Snapshot (README there); for tests only, never a real secret.
EXAMPLE_KEYS: dict[str, bytes] = {"roc-examples-2026": b"roc-example-key-not-secret"}


def example_snapshot_violations(doc: Mapping[str, Any]) -> list[Violation]:
    return snapshot_violations(doc, EXAMPLE_KEYS)


# Example type (spec/examples/<Type>) -> its structural check; types without one have no cross-member rules.
def question_violations(question: Mapping[str, Any], base: str = "$") -> list[Violation]:
    """A question's labels are unique (spec 15.1, ROC-ASK-002)."""
    labels = [(o["label"], f"{base}.options[{i}].label") for i, o in enumerate(question["options"])]
    return list(_duplicates(labels, "unique-labels"))


def ask_user_input_violations(doc: Mapping[str, Any]) -> list[Violation]:
    """Every question of an ask_user input obeys the question rules (spec 15.4, ROC-ASK-008)."""
    return [v for i, q in enumerate(doc["questions"]) for v in question_violations(q, f"$.questions[{i}]")]


CHECKS: dict[str, Callable[[Any], list[Violation]]] = {
    "Snapshot": example_snapshot_violations,
    "ResumeInput": resume_input_violations,
    "AgentResult": agent_result_violations,
    "AgentSpec": agent_spec_violations,
    "Question": question_violations,
    "AskUserInput": ask_user_input_violations,
}
