"""Audit (profile audit, spec 10.7): who answered an interrupt and when, as response metadata.

The caller says who answered and when in the ``metadata`` of an ``interruptResponse`` block, under the
registered keys ``answeredBy`` and ``answeredAt`` (spec B.8). The runtime checks their form (ROC-AUDIT-001,
ROC-AUDIT-002), keeps the whole ``metadata`` with the stored answer or decision (ROC-AUDIT-003) and shows it
to the resume guard (ROC-AUDIT-005); it never grants or refuses anything on it by itself (ROC-AUDIT-006):
the application authenticates the caller, and its guard decides.
"""

from __future__ import annotations

from typing import Any

from .types import parse_rfc3339

ANSWERED_BY = "answeredBy"
ANSWERED_AT = "answeredAt"
MAX_ANSWERED_BY = 256
"""The longest ``answeredBy``, in Unicode code points (ROC-AUDIT-001)."""


def audit_problem(metadata: dict[str, Any]) -> tuple[str, str] | None:
    """The JSON Pointer (within the block body) of the first malformed registered key of an answer's
    ``metadata`` and why, or ``None``. Other keys are the caller's and are not looked at."""
    if ANSWERED_BY in metadata:  # ROC-AUDIT-001
        who = metadata[ANSWERED_BY]
        if not isinstance(who, str) or not who or len(who) > MAX_ANSWERED_BY:
            return f"/metadata/{ANSWERED_BY}", f"a non-empty string of at most {MAX_ANSWERED_BY} characters"
    if ANSWERED_AT in metadata:  # ROC-AUDIT-002
        when = metadata[ANSWERED_AT]
        try:
            parse_rfc3339(when)
        except ValueError:
            return f"/metadata/{ANSWERED_AT}", "an RFC 3339 date-time with a time zone"
    return None
