"""The contract between an Agent and a session store (spec chapter "Sessions").

The agent calls ``load`` once when it is built and ``save`` at every save point (the start of an invocation
that will change state, the interrupt boundary, and the end of each completed invocation). ``save`` is a
compare-and-set on the snapshot's ``revision``: it succeeds only when the stored revision equals
``expected_revision`` (or nothing is stored and ``expected_revision`` is ``None``), so two processes resuming
one session cannot both proceed — the loser gets ``SessionConflictError`` before it runs anything.

The compare-and-set alone covers agents that loaded the same revision. An agent that loads the session after
another one's opening save would see an ordinary paused session; the file store therefore also records a
claim with that save (``roc_reference.sessions.claims``, ROC-SESSION-018..021). A manager of another kind
gets the compare-and-set only, and must add its own claim to meet those requirements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class SessionManager(Protocol):
    """Storage of one session's latest snapshot document (the spec's Snapshot JSON)."""

    def load(self) -> dict[str, Any] | None:
        """The latest stored snapshot, or ``None`` for a new session."""
        ...

    def save(self, snapshot: Mapping[str, Any], *, expected_revision: int | None) -> None:
        """Store ``snapshot`` (carrying the new revision) if the stored revision is ``expected_revision``.

        Raises ``SessionConflictError`` otherwise and stores nothing.
        """
        ...
