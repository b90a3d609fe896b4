"""Decisions: decline and cancel as responses, expiry outcomes, and the texts of default outcomes (spec 11).

A caller may answer an interrupt, or decide it: ``decline`` (the request is refused) or ``cancel`` (no
decision will come). The replayed unit that reaches the raise point of a decided interrupt gets
``InterruptDeclined`` from the interrupt operation (ROC-DECIDE-003); a unit that does not handle it gets the
default outcome of its layer (ROC-DECIDE-004..006), with the decision text of ROC-DECIDE-007.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .integrity import canonical_value

DecisionKind = Literal["decline", "cancel"]
DECISION_KINDS: tuple[DecisionKind, ...] = ("decline", "cancel")

# ROC-DECIDE-007, ROC-EXPIRY-005, ROC-ABANDON-003: the texts of outcomes whose decision carries no message.
DECLINE_TEXT = "The request was declined."
CANCEL_TEXT = "The request was cancelled without a decision."
EXPIRY_TEXT = "The request expired without an answer."
ABANDON_TEXT = "The request was abandoned."


@dataclass(frozen=True)
class Decision:
    """A decline or cancel of one interrupt, with the caller's message (``None`` = no message)."""

    kind: DecisionKind
    message: str | None = None

    @property
    def text(self) -> str:
        """ROC-DECIDE-007: the message exactly when there is one (also ``""``), else the kind's text."""
        if self.message is not None:
            return self.message
        return DECLINE_TEXT if self.kind == "decline" else CANCEL_TEXT

    def to_json(self) -> dict[str, Any]:
        """The normalized form (ROC-PENDING-002): ``{"decision": kind, "message"?: M}``."""
        doc: dict[str, Any] = {"decision": self.kind}
        if self.message is not None:
            doc["message"] = self.message
        return doc


class InterruptDeclined(Exception):
    """Raised by ``interrupt(...)`` when the caller declined or cancelled that interrupt (ROC-DECIDE-003).

    An ordinary ``Exception``: a unit that catches it handles the decision and goes on. ``str(exc)`` is
    the decision text, which is also what the default outcomes report.
    """

    def __init__(self, decision: Decision, *, name: str, interrupt_id: str) -> None:
        super().__init__(decision.text)
        self.decision: DecisionKind = decision.kind
        self.message: str | None = decision.message
        self.text: str = decision.text
        self.name = name
        self.interrupt_id = interrupt_id


def normalized_answer(response: Any) -> dict[str, Any]:
    """The normalized form of an answer (ROC-PENDING-002)."""
    return {"decision": "answer", "response": response}


def answer_digest(normalized: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the RFC 8785 canonical form of a normalized answer or decision (ROC-RESEND-003)."""
    return "sha256:" + hashlib.sha256(canonical_value(dict(normalized))).hexdigest()


def on_expiry_problem(value: Any) -> str | None:
    """Why ``value`` is not an ``onExpiry`` outcome (ROC-EXPIRY-002), or ``None`` when it is one."""
    if not isinstance(value, Mapping):
        return "onExpiry must be an object"
    if not set(value) <= {"decision", "message"}:
        return f"onExpiry has members other than decision and message: {sorted(map(str, value))}"
    if value.get("decision") not in DECISION_KINDS:
        return "onExpiry.decision must be 'decline' or 'cancel'"
    if "message" in value and not isinstance(value["message"], str):
        return "onExpiry.message must be a string"
    return None


def expiry_outcome(on_expiry: Mapping[str, Any] | None) -> Decision:
    """ROC-EXPIRY-005: ``onExpiry`` as a decision; without one, a decline with the expiry text."""
    if on_expiry is None:
        return Decision("decline", EXPIRY_TEXT)
    kind: DecisionKind = "cancel" if on_expiry.get("decision") == "cancel" else "decline"
    message = on_expiry.get("message")
    return Decision(kind, message if isinstance(message, str) else EXPIRY_TEXT)
