"""The resume guard (ROC-SEC-001): the application's look at a resume input before any answer is stored.

The guard gets the interrupts the input answers and the input's blocks as ``InterruptResponse`` values, each
with its ``response`` or ``decision`` (and ``message``) and its ``metadata`` (ROC-AUDIT-005). A guard that
takes a third positional parameter also gets the answers and decisions already stored for the pending batch,
with the metadata kept with them, so it can judge the input in the light of who answered before (a second
approver, say). A guard of two parameters keeps working as in RoC 1.0. The runtime never grants or refuses
on metadata by itself (ROC-AUDIT-006): refusing is the guard's call, by raising.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .decisions import Decision
from .types import Interrupt, InterruptResponse, json_copy

ResumeGuard = (
    Callable[[list[Interrupt], list[InterruptResponse]], None]
    | Callable[[list[Interrupt], list[InterruptResponse], list[InterruptResponse]], None]
)
"""Sees the interrupts a resume input answers and its blocks (and, with a third parameter, the answers kept
for the pending batch); raises to refuse the input."""


def response_of(interrupt_id: str, value: Any, metadata: Mapping[str, Any] | None) -> InterruptResponse:
    """The block that gave ``value`` (an answer, or a ``Decision``) with its ``metadata``, as the guard sees
    it (private copies: the guard cannot change what is stored, ROC-SEC-016)."""
    fields: dict[str, Any] = {"interrupt_id": interrupt_id}
    if isinstance(value, Decision):
        fields["decision"] = value.kind
        if value.message is not None:
            fields["message"] = value.message
    else:
        fields["response"] = json_copy(value)
    if metadata is not None:
        fields["metadata"] = metadata  # copied by the model's validator
    return InterruptResponse(**fields)


def takes_kept(guard: Callable[..., Any]) -> bool:
    """Whether ``guard`` accepts a third positional argument (the kept answers)."""
    try:
        parameters = list(inspect.signature(guard).parameters.values())
    except (TypeError, ValueError):  # a callable without a signature: call it the RoC 1.0 way
        return False
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return True
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional for p in parameters) >= 3


def run_guard(
    guard: ResumeGuard,
    interrupts: list[Interrupt],
    blocks: list[InterruptResponse],
    kept: Sequence[InterruptResponse],
) -> None:
    """Call ``guard`` with what it takes; whatever it raises refuses the input."""
    if takes_kept(guard):
        guard(interrupts, blocks, list(kept))  # type: ignore[call-arg]
    else:
        guard(interrupts, blocks)  # type: ignore[call-arg]
