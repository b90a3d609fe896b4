"""Approval interrupts as data (spec chapter 16): recognizing one, its answer's rules, the effective input.

Everything here reads stored data only (an interrupt and what answered it), never a hook: a runtime restored
from a snapshot, even one written by another implementation, applies an edit and checks digests the same
way (ROC-APPROVE-012). Kept apart from ``approval`` (the hook) so that the interrupt state and the snapshot
loader can use it without importing the hook machinery.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .integrity import canonical_value
from .types import Interrupt, InterruptSourceKind, TextBlock, ToolResult

APPROVAL_KIND = "approval"
"""``metadata.kind`` of an approval interrupt (B.8, since 1.3)."""
APPROVAL_NAME = "approval"
DECISIONS: tuple[str, ...] = ("approve", "edit", "reject")
REJECT_TEXT = "The person rejected this tool call."
"""ROC-APPROVE-007: the error result text of a reject without a message."""
EDIT_PREFIX = "The person edited the input of this tool call before it ran; it ran with: "
"""ROC-APPROVE-009: the first text block of the result of a tool that ran with an edited input."""

# ROC-APPROVE-013: interrupts of these kinds are raised by the body, which runs with the effective input.
BODY_KINDS: frozenset[InterruptSourceKind] = frozenset({"tool", "agent_as_tool"})


def is_approval(interrupt: Interrupt) -> bool:
    """ROC-APPROVE-012: an approval interrupt, told from the data alone."""
    metadata = interrupt.metadata or {}
    return interrupt.source.kind == "before_tool_call" and metadata.get("kind") == APPROVAL_KIND


def edited_input(interrupt: Interrupt, response: Any) -> dict[str, Any] | None:
    """The edited input when ``response`` answers the approval ``interrupt`` with edit, else ``None``."""
    if not is_approval(interrupt) or not isinstance(response, dict) or response.get("decision") != "edit":
        return None
    value = response.get("input")
    return value if isinstance(value, dict) else None


def edits_of(entries: Iterable[tuple[Interrupt, Any]]) -> dict[str, dict[str, Any]]:
    """toolUseId -> edited input, over stored ``(interrupt, response)`` pairs (ROC-APPROVE-012).

    A tool use has one approval interrupt (the ready hook raises one, named ``approval``); should several
    be answered with edit, the first in stored order decides, the same in every reader of the data.
    """
    edits: dict[str, dict[str, Any]] = {}
    for interrupt, response in entries:
        edited = edited_input(interrupt, response)
        tool_use_id = interrupt.source.tool_use_id
        if edited is not None and tool_use_id is not None:
            edits.setdefault(tool_use_id, edited)
    return edits


def bound_input(kind: InterruptSourceKind, proposed: Any, edited: dict[str, Any] | None) -> Any:
    """The input an interrupt of source ``kind`` is bound to (its ``inputDigest``, ROC-APPROVE-013): the
    effective input for the body's interrupts, the proposed input for BeforeToolCall's (the event is about
    the tool use the model proposed; its approval interrupt is one of them)."""
    return edited if edited is not None and kind in BODY_KINDS else proposed


def answer_rule_errors(interrupt: Interrupt, response: Any) -> list[dict[str, str]]:
    """ROC-APPROVE-004: the rules an approval answer must meet beyond its schema, as normalized errors
    (``{"path", "keyword"}``, sorted); ``[]`` when ``interrupt`` is no approval or the answer meets them."""
    if not is_approval(interrupt) or not isinstance(response, dict):
        return []  # not an object: the schema says so (ROC-APPROVE-003)
    decision = response.get("decision")
    errors: list[dict[str, str]] = []
    if decision == "edit" and "input" not in response:
        errors.append({"path": "/input", "keyword": "required"})
    if decision == "edit" and "input" in response and not isinstance(response["input"], dict):
        # a tool input is an object (spec 2.3); the approval schema says so too, this holds without one
        errors.append({"path": "/input", "keyword": "type"})
    if decision != "edit" and "input" in response:
        errors.append({"path": "/input", "keyword": "additionalProperties"})
    if decision != "reject" and "message" in response:
        errors.append({"path": "/message", "keyword": "additionalProperties"})
    return errors


def edit_prefix(edited: dict[str, Any]) -> str:
    """ROC-APPROVE-009: the fixed text followed by the canonical JSON (spec 8.2) of the edited input."""
    return EDIT_PREFIX + canonical_value(edited).decode("utf-8")


def with_edit_prefix(result: ToolResult, edited: dict[str, Any]) -> ToolResult:
    """ROC-APPROVE-009: ``result`` with the edit text block in front of its content (status unchanged)."""
    return result.model_copy(update={"content": [TextBlock(text=edit_prefix(edited)), *result.content]})


def merged_errors(*groups: list[dict[str, str]]) -> list[dict[str, str]]:
    """Normalized error lists joined (ROC-APPROVE-004): deduplicated, sorted by path then keyword compared
    as UTF-16 code units, as the schema's own errors are (spec 14)."""
    found = {(e["path"], e["keyword"]) for group in groups for e in group}
    ordered = sorted(found, key=lambda e: (_utf16(e[0]), _utf16(e[1])))
    return [{"path": path, "keyword": keyword} for path, keyword in ordered]


def _utf16(text: str) -> bytes:
    # Big-endian UTF-16 bytes compare as the sequences of code units do (RFC 8785's member order).
    return text.encode("utf-16-be", "surrogatepass")
