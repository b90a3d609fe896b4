"""Streamed invocations in the lockstep driver (profile streaming, spec chapter 17).

When the implementation claims ``streaming``, the driver sends some of its ordinary invocations with
``stream`` (``streams``: a function of the input's content, about half of the prompts and resumes, so a
replayed or minimized counterexample streams the same steps); no invocation is added. The reply's
``streamed_interrupt`` events are taken out of its trace before the oracle compares it (they are the
stream's, not the runtime's units) and judged against the reply's own result: the oracle's usual checks
already hold the result itself to what ``invoke`` must give (ROC-STREAM-001, -004 follow from them), and what
the stream adds is judged here: each interrupt of the result streamed once and JSON-equal (ROC-STREAM-002),
no event for another (ROC-STREAM-003), and a stream whose shape breaks (the kit's ``StreamBroken`` crash:
no final event, events after it) ROC-STREAM-001.
"""

from __future__ import annotations

import zlib
from typing import Any

from . import reqs
from .check import Violation
from .scenario import JSON, canonical

PROFILE = "streaming"
STREAMED = "streamed_interrupt"
KINDS = ("prompt", "content", "interruptResponses")


def streams(profiles: frozenset[str], wire: dict[str, JSON], chosen: bool | None = None) -> bool:
    """Whether the driver sends this input with ``stream``: a claim of ``streaming``, an input the streaming
    API takes, and the caller's choice (a vector step's ``stream``) or else an odd checksum of its canonical
    text (deterministic, about half of them)."""
    if PROFILE not in profiles or not any(k in wire for k in KINDS):
        return False
    return chosen if chosen is not None else zlib.crc32(canonical(wire).encode()) % 2 == 1


def take_streamed(observed: dict[str, Any]) -> list[dict[str, Any]]:
    """Remove the top agent's ``streamed_interrupt`` events from the reply's trace; return their interrupts
    in the order the consumer received them."""
    trace = observed.get("trace") or []
    got = [e.get("interrupt") or {} for e in trace if e.get("kind") == STREAMED]
    observed["trace"] = [e for e in trace if e.get("kind") != STREAMED]
    return got


def check_stream(observed: dict[str, Any], streamed: list[dict[str, Any]]) -> list[Violation]:
    """The findings on what the stream added to a reply (the result is judged by the oracle as for invoke)."""
    crash = observed.get("crash")
    if isinstance(crash, dict) and crash.get("type") == "StreamBroken":
        return [Violation([reqs.STREAM_FINAL], f"the stream broke its shape: {crash.get('message')}")]
    result = observed.get("result")
    if not isinstance(result, dict):
        return []  # an error ends the stream: the events before it describe nothing (spec 17.2)
    reported = [i for i in result.get("interrupts") or [] if isinstance(i, dict)]
    found: list[Violation] = []
    for entry in reported:
        same = [i for i in streamed if i.get("id") == entry.get("id")]
        if len(same) != 1:
            found.append(
                Violation([reqs.STREAM_ONCE], f"interrupt {entry.get('name')!r} streamed {len(same)} times")
            )
        elif canonical(same[0]) != canonical(entry):
            found.append(
                Violation([reqs.STREAM_ONCE], f"the event of {entry.get('name')!r} differs from the result's")
            )
    ids = {i.get("id") for i in reported}
    found += [
        Violation([reqs.STREAM_ONLY], f"interrupt {i.get('name')!r} streamed but not in the result")
        for i in streamed
        if i.get("id") not in ids
    ]
    return found
