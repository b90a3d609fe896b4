"""Session id validation (ROC-SEC-006): an id becomes a directory name under the store's root, so it must
never name anything outside it.

The closed error code set has no code for a bad session id; the spec reports it like a malformed snapshot,
``SNAPSHOT_INVALID``, raised before the store reads or writes anything.
"""

from __future__ import annotations

import re

from roc_reference.errors import SnapshotInvalidError

MAX_SESSION_ID_LENGTH = 128

# The spec's pattern: portable file-name characters only, the first one alphanumeric, so an id is never
# ".", "..", a hidden file (".x"), an option-like name ("-x"), a path (no separators) or a control character.
SESSION_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class InvalidSessionIdError(SnapshotInvalidError, ValueError):
    """A session id that does not match the spec's pattern (code ``SNAPSHOT_INVALID``).

    Also a ``ValueError``: the id is usually an argument, and callers catching that keep working.
    """

    def __init__(self, session_id: object, rule: str) -> None:
        shown = repr(session_id)
        if len(shown) > 80:  # never echo a huge hostile id in full
            shown = shown[:77] + "..."
        super().__init__(f"invalid session id {shown}: {rule}", details={"sessionId": shown, "rule": rule})
        self.session_id = session_id
        self.rule = rule


def validate_session_id(session_id: object) -> str:
    """Return ``session_id`` unchanged if it matches ``^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$``.

    Otherwise raise ``InvalidSessionIdError`` naming the first rule it breaks.
    """
    if not isinstance(session_id, str):
        raise InvalidSessionIdError(session_id, "must be a string")
    if not session_id:
        raise InvalidSessionIdError(session_id, "must not be empty")
    if len(session_id) > MAX_SESSION_ID_LENGTH:
        raise InvalidSessionIdError(session_id, f"must be at most {MAX_SESSION_ID_LENGTH} characters")
    if "\x00" in session_id:
        raise InvalidSessionIdError(session_id, "must not contain NUL")
    if "/" in session_id or "\\" in session_id:
        raise InvalidSessionIdError(session_id, "must not contain a path separator")
    if SESSION_ID_PATTERN.fullmatch(session_id) is None:
        raise InvalidSessionIdError(
            session_id, "must use only A-Z, a-z, 0-9, '.', '_', '-' and start with a letter or digit"
        )
    return session_id
