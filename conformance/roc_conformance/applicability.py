"""Requirements whose situation cannot arise under some claims (spec 1.4, "does not arise").

A rule such as ROC-ANSWER-005 speaks about a situation (two unanswered interrupts in one batch, one of them
withdrawn) that some combinations of profiles make impossible: it then holds for every run, and no check can
exercise it. The suite reports it SKIPPED with the reason below, and the profile verdict does not wait for
it. The list is short and each entry says why; a missing capability never belongs here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class CannotArise:
    when: Callable[[frozenset[str]], bool]  # the claimed profiles under which the situation is impossible
    why: str


CANNOT_ARISE: dict[str, CannotArise] = {
    "ROC-ANSWER-005": CannotArise(
        lambda claimed: not claimed & {"hooks", "concurrent-executor"},
        "with neither `hooks` nor the concurrent executor, the sequential executor stops at the first "
        "interrupt and a resume must answer it, so a batch never holds an unanswered interrupt whose unit "
        "runs again without raising it",
    ),
    "ROC-DECIDE-005": CannotArise(
        lambda claimed: "hooks" not in claimed,
        "without `hooks` no BeforeToolCall callback can raise an interrupt, so none can leave a decision "
        "unhandled",
    ),
    "ROC-DECIDE-006": CannotArise(
        lambda claimed: "hooks" not in claimed,
        "without `hooks` no BeforeTools callback can raise an interrupt, so none can leave a decision "
        "unhandled",
    ),
    "ROC-DECIDE-009": CannotArise(
        lambda claimed: "expiry" not in claimed,
        "without `expiry` no interrupt carries an `expiresAt`, so none can have expired",
    ),
    "ROC-EXPIRY-005": CannotArise(
        lambda claimed: not claimed & {"hooks", "concurrent-executor"},
        "with neither `hooks` nor the concurrent executor, a batch stops at its first interrupt and a resume "
        "must decide that one, so no accepted resume leaves an expired interrupt undecided",
    ),
    "ROC-PENDING-004": CannotArise(
        lambda claimed: "sessions" not in claimed,
        "without `sessions` there is no snapshot document to list",
    ),
    "ROC-RESEND-003": CannotArise(
        lambda claimed: "sessions" not in claimed,
        "without `sessions` there is no snapshot to keep the record of consumed decisions in",
    ),
}


def cannot_arise(requirement_id: str, claimed: Iterable[str]) -> str | None:
    """Why ``requirement_id`` cannot arise under the ``claimed`` profiles, or None when it can."""
    entry = CANNOT_ARISE.get(requirement_id)
    if entry is None or not entry.when(frozenset(claimed)):
        return None
    return entry.why
