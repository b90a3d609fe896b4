"""The closed set of RoC error codes (spec chapter "Errors") as exception values.

Every rejected input raises one of these; the runtime guarantees the agent is unchanged afterwards.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """ROC-ERR: the closed code set. Adding a code is a spec change, never a silent one."""

    INTERRUPT_PENDING = "INTERRUPT_PENDING"
    NOT_INTERRUPTED = "NOT_INTERRUPTED"
    UNKNOWN_INTERRUPT = "UNKNOWN_INTERRUPT"
    DUPLICATE_RESPONSE = "DUPLICATE_RESPONSE"
    INVALID_RESPONSE = "INVALID_RESPONSE"
    INVALID_RESUME = "INVALID_RESUME"
    DUPLICATE_INTERRUPT_NAME = "DUPLICATE_INTERRUPT_NAME"
    DIRECT_CALL_INTERRUPT = "DIRECT_CALL_INTERRUPT"
    INVALID_REASON = "INVALID_REASON"
    SNAPSHOT_INVALID = "SNAPSHOT_INVALID"
    SNAPSHOT_VERSION_UNSUPPORTED = "SNAPSHOT_VERSION_UNSUPPORTED"
    SNAPSHOT_INTEGRITY = "SNAPSHOT_INTEGRITY"
    SESSION_CONFLICT = "SESSION_CONFLICT"
    EXPIRED = "EXPIRED"
    INVALID_INPUT = "INVALID_INPUT"
    INTERNAL = "INTERNAL"


class RocError(Exception):
    """Base of every error the runtime reports; carries the spec's code and optional JSON details."""

    code: ErrorCode

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        """The spec's Error object: ``{code, message, details?}``."""
        doc: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.details is not None:
            doc["details"] = self.details
        return doc


class InterruptPendingError(RocError):
    """Input other than interrupt responses reached an interrupted agent."""

    code = ErrorCode.INTERRUPT_PENDING


class NotInterruptedError(RocError):
    """Interrupt responses reached an agent that is not interrupted."""

    code = ErrorCode.NOT_INTERRUPTED


class UnknownInterruptError(RocError):
    """A response names an interrupt id that is not pending."""

    code = ErrorCode.UNKNOWN_INTERRUPT


class DuplicateResponseError(RocError):
    """The same interrupt id appears twice in one resume input."""

    code = ErrorCode.DUPLICATE_RESPONSE


class InvalidResponseError(RocError):
    """A response is null (or otherwise not an acceptable answer)."""

    code = ErrorCode.INVALID_RESPONSE


class InvalidResumeError(RocError):
    """The resume input is malformed, e.g. an empty list."""

    code = ErrorCode.INVALID_RESUME


class DuplicateInterruptNameError(RocError):
    """Two interrupts with one name were raised in the same scope."""

    code = ErrorCode.DUPLICATE_INTERRUPT_NAME


class DirectCallInterruptError(RocError):
    """A tool called directly tried to raise an interrupt."""

    code = ErrorCode.DIRECT_CALL_INTERRUPT


class InvalidReasonError(RocError):
    """An interrupt reason (or name) is not acceptable, e.g. not JSON-serializable."""

    code = ErrorCode.INVALID_REASON


class SnapshotInvalidError(RocError):
    """A snapshot is malformed or internally inconsistent."""

    code = ErrorCode.SNAPSHOT_INVALID


class SnapshotVersionUnsupportedError(RocError):
    """A snapshot declares a major schema version this runtime does not read."""

    code = ErrorCode.SNAPSHOT_VERSION_UNSUPPORTED


class SnapshotIntegrityError(RocError):
    """A snapshot's integrity tag does not verify."""

    code = ErrorCode.SNAPSHOT_INTEGRITY


class SessionConflictError(RocError):
    """A session was saved by someone else since it was loaded (stale revision)."""

    code = ErrorCode.SESSION_CONFLICT


class ExpiredError(RocError):
    """An answer arrived after its interrupt's expiresAt."""

    code = ErrorCode.EXPIRED


class InvalidInputError(RocError):
    """An input RoC gives no other code to, e.g. a malformed prompt to an idle agent (spec 2.2)."""

    code = ErrorCode.INVALID_INPUT


class InternalError(RocError):
    """A model or provider failure, or an unexpected fault of the runtime."""

    code = ErrorCode.INTERNAL


ERROR_TYPES: dict[ErrorCode, type[RocError]] = {cls.code: cls for cls in RocError.__subclasses__()}
