"""The two kinds of bad news a check can meet, kept apart on purpose.

A ``ConformanceViolation`` is the implementation's fault: an observation contradicts a requirement. It is
reported as FAIL against the requirement IDs it names. A ``HarnessFault`` is the adapter's or the transport's
fault (a timeout, a dead process, a ``harness_error`` reply, a malformed reply): it is reported as ERROR and
never counts as the implementation's wrong answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class ConformanceViolation(AssertionError):
    """An observation broke a requirement; ``requirements`` are the ROC-* IDs the observation disproves."""

    def __init__(
        self,
        requirements: str | Iterable[str],
        message: str,
        *,
        counterexample: str | None = None,
        vector: dict[str, Any] | None = None,
        exhaustive: bool = False,
    ) -> None:
        reqs = (requirements,) if isinstance(requirements, str) else tuple(requirements)
        if not reqs:
            raise ValueError("a violation names at least one requirement")
        super().__init__(f"{', '.join(reqs)}: {message}")
        self.requirements: tuple[str, ...] = reqs
        self.message = message
        self.counterexample = counterexample
        self.vector = vector  # the same run as a static vector, when the state machine found it
        # Raised only after the check judged everything it declares, so nothing else it names is blocked.
        self.exhaustive = exhaustive


class CheckSkipped(Exception):
    """A check cannot run in this configuration (e.g. no peer adapter was given): SKIPPED with the reason."""


class HarnessFault(Exception):
    """The adapter or the transport misbehaved; the implementation's behaviour is unknown."""

    kind = "fault"

    def __init__(self, rpc: str, message: str, *, details: str | None = None) -> None:
        super().__init__(f"{rpc}: {message}")
        self.rpc = rpc
        self.message = message
        self.details = details


class HarnessTimeout(HarnessFault):
    """An RPC did not answer within its deadline (a hung adapter or implementation)."""

    kind = "timeout"


class HarnessUnavailable(HarnessFault):
    """The adapter cannot be reached (not started, crashed, or closed the connection)."""

    kind = "unavailable"


class AdapterError(HarnessFault):
    """The adapter answered with ``harness_error`` or with a reply that breaks the harness contract."""

    kind = "adapter"


class ProtocolMismatch(HarnessFault):
    """``Describe`` reported a harness protocol version this suite does not speak."""

    kind = "protocol"


def find_fault(exc: BaseException) -> HarnessFault | None:
    """The first ``HarnessFault`` inside ``exc``: itself, its cause/context chain, or an exception group."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, HarnessFault):
            return cur
        if isinstance(cur, BaseExceptionGroup):
            stack.extend(cur.exceptions)
        for nxt in (cur.__cause__, cur.__context__):
            if nxt is not None:
                stack.append(nxt)
    return None


def find_violations(exc: BaseException) -> list[ConformanceViolation]:
    """Every ``ConformanceViolation`` inside ``exc`` (Hypothesis may group several distinct failures)."""
    found: list[ConformanceViolation] = []
    stack: list[BaseException] = [exc]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ConformanceViolation):
            found.append(cur)
        elif isinstance(cur, BaseExceptionGroup):
            stack.extend(cur.exceptions)
    return found
