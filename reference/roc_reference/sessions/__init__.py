"""Session storage for the reference runtime: the embedded file store, session ids, snapshot integrity.

Canonical JSON and tags live in ``roc_reference.integrity``, the version check in ``roc_reference.snapshot``;
they are re-exported here for the store's callers."""

from roc_reference.integrity import canonical_json, sign, verify
from roc_reference.sessions.ids import MAX_SESSION_ID_LENGTH, InvalidSessionIdError, validate_session_id
from roc_reference.sessions.store import FileSessionManager, FileSessionStore
from roc_reference.snapshot import check_version, verify_snapshot

__all__ = [
    "MAX_SESSION_ID_LENGTH",
    "FileSessionManager",
    "FileSessionStore",
    "InvalidSessionIdError",
    "canonical_json",
    "check_version",
    "sign",
    "validate_session_id",
    "verify",
    "verify_snapshot",
]
