"""Session storage for the reference runtime: the embedded file store, session ids, snapshot integrity."""

from roc_reference.sessions.ids import MAX_SESSION_ID_LENGTH, InvalidSessionIdError, validate_session_id
from roc_reference.sessions.integrity import canonical_json, check_version, sign, verify, verify_snapshot
from roc_reference.sessions.store import FileSessionManager, FileSessionStore

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
