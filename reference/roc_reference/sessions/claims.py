"""Invocation claims of the file session store: at most one invocation runs on a stored revision.

The save an agent makes before it runs anything (ROC-SESSION-011) is the *claim*: it stores the next
revision with a compare-and-set and, in the same critical section, records in ``claim.json`` that this
revision is taken — by whom, with which input (the answers or the prompt), and, as tools of the claimed
batch complete, their results. A second agent, whether it loaded the revision before the claim or after
it, gets SESSION_CONFLICT at its own claim, before it runs anything (ROC-SESSION-018). The save that ends
the invocation removes the claim (ROC-SESSION-019).

Files in the session directory, beside the store's own::

    claim.lock   flock mutex of every claim operation (taken before the store's lock, never the reverse)
    claim.json   the claim record, replaced atomically; absent when no invocation holds the session
    claim.live   flock held by the claimant for as long as its invocation runs

Liveness is the kernel's, not a clock's: the claimant holds an exclusive ``flock`` on ``claim.live`` for
the whole invocation, and the kernel releases it when the process ends, also by SIGKILL. A claim whose
``claim.live`` can be locked by someone else is therefore *stale*: its invocation is over without having
completed. This is the lease of the embedded store — it never expires under a slow tool and expires at
once when the claimant dies — and it holds for processes of one machine (``flock`` on a network file
system is not to be trusted; a store shared between machines needs a lease with a time bound instead).

A stale claim is not taken over silently: an invocation that meets it fails with SESSION_CONFLICT (details
say ``"live": false``), and the application calls the explicit recovery (``Agent.recover``) which takes the
claim over and finishes the claimed invocation without running again any tool whose result the claim
recorded (ROC-SESSION-020, ROC-SESSION-021).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from roc_reference.errors import SessionConflictError, SnapshotInvalidError
from roc_reference.sessions.fsio import atomic_write_at, open_regular_at, read_exactly_at

if TYPE_CHECKING:
    from roc_reference.sessions.store import FileSessionManager

CLAIM_FORMAT = "roc-file-claim/1"
CLAIM_FILE = "claim.json"
CLAIM_MUTEX = "claim.lock"
CLAIM_LIVE = "claim.live"


def _open(dir_fd: int, name: str) -> int:
    """A claim file, opened relative to the pinned session directory: never through a link, never a FIFO
    or a directory in its place (ROC-SEC-007; the store reports those as SNAPSHOT_INVALID)."""
    return open_regular_at(dir_fd, name, os.O_RDWR | os.O_CREAT)


class ClaimLedger:
    """The claim of one session, as seen by one agent (its ``owner`` id is fresh for every ledger)."""

    def __init__(self, manager: FileSessionManager) -> None:
        self._manager = manager
        self.owner = uuid.uuid4().hex
        self._live_fd: int | None = None
        self._record_lock = threading.Lock()  # results of concurrently running tools are recorded in turn

    def _pinned(self) -> contextlib.AbstractContextManager[int]:
        return self._manager.pinned()

    @property
    def holding(self) -> bool:
        """True while this ledger's invocation holds the claim."""
        return self._live_fd is not None

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """The claim mutex: claim checks, the store save and the claim record change together."""
        with self._pinned() as dir_fd:  # the store's save inside runs on the same pinned directory
            fd = _open(dir_fd, CLAIM_MUTEX)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    # -- under guard() ---------------------------------------------------------------------------

    def current(self) -> dict[str, Any] | None:
        """The claim record, or ``None``."""
        with self._pinned() as dir_fd:
            try:
                raw = read_exactly_at(dir_fd, CLAIM_FILE) or b""
            except FileNotFoundError:
                return None
        try:
            record = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise SnapshotInvalidError("the session's claim record is not JSON") from None
        if not isinstance(record, dict) or record.get("format") != CLAIM_FORMAT:
            raise SnapshotInvalidError(f"the session's claim record is not {CLAIM_FORMAT!r}")
        return record

    def is_live(self, record: dict[str, Any]) -> bool:
        """Whether the claimant's invocation still runs (it holds ``claim.live``)."""
        if record.get("owner") == self.owner and self.holding:
            return True
        with self._pinned() as dir_fd:
            fd = _open(dir_fd, CLAIM_LIVE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return True
            raise
        finally:
            os.close(fd)  # also releases the probe's lock
        return False

    def refuse_if_claimed(self, expected_revision: int | None) -> None:
        """ROC-SESSION-018: SESSION_CONFLICT when a claim stands on the revision this agent builds on.

        A claim on an older revision than ``expected_revision`` is the leftover of a claimant that died
        after its end save committed and before it removed the claim: that invocation is complete, so the
        leftover is dropped.
        """
        record = self.current()
        if record is None:
            return
        revision = record.get("revision")
        if isinstance(revision, int) and expected_revision is not None and revision < expected_revision:
            self._remove()
            return
        live = self.is_live(record)
        raise SessionConflictError(
            f"session {self._manager.session_id!r} revision {revision} is claimed by another invocation"
            + ("" if live else " that ended without completing; recover it explicitly"),
            details={
                "sessionId": self._manager.session_id,
                "claimedRevision": revision,
                "live": live,
                "answered": [a[0] for a in record.get("input", {}).get("answers", [])],
            },
        )

    def acquire(self, revision: int, claim_input: dict[str, Any], results: list[Any] | None = None) -> None:
        """Record the claim on ``revision`` (just stored) and hold ``claim.live`` until ``release``."""
        with self._pinned() as dir_fd:
            fd = _open(dir_fd, CLAIM_LIVE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._write(
                {
                    "format": CLAIM_FORMAT,
                    "owner": self.owner,
                    "pid": os.getpid(),
                    "acquiredAt": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                    "revision": revision,
                    "input": claim_input,
                    "results": list(results or []),
                }
            )
        except BlockingIOError:
            os.close(fd)
            raise SessionConflictError(
                f"session {self._manager.session_id!r} is held by a running invocation",
                details={"sessionId": self._manager.session_id, "live": True},
            ) from None
        except BaseException:
            os.close(fd)
            raise
        self._live_fd = fd

    def take_over(self) -> dict[str, Any] | None:
        """ROC-SESSION-021: the stale claim's record, now owned by this ledger; conflict if it is live."""
        record = self.current()
        if record is None:
            return None
        if self.is_live(record):
            raise SessionConflictError(
                f"session {self._manager.session_id!r} is held by a running invocation",
                details={"sessionId": self._manager.session_id, "live": True},
            )
        revision = record.get("revision")
        if not isinstance(revision, int):
            raise SnapshotInvalidError("the session's claim record has no revision")
        self.acquire(revision, record.get("input", {}), record.get("results", []))
        return record

    def release(self) -> None:
        """ROC-SESSION-019: the end save committed (or nothing ran): remove this ledger's claim."""
        record = self.current()
        if record is not None and record.get("owner") == self.owner:
            self._remove()
        self.abandon()

    def abandon(self) -> None:
        """Stop holding the claim and leave its record: the invocation is over, its outcome unsaved."""
        if self._live_fd is not None:
            os.close(self._live_fd)
            self._live_fd = None

    # -- while holding ---------------------------------------------------------------------------

    def record_result(self, result: dict[str, Any]) -> None:
        """ROC-SESSION-020: durably add a completed tool result of the claimed batch to the claim."""
        with self._record_lock, self.guard():
            record = self.current()
            if record is None or record.get("owner") != self.owner:
                raise SessionConflictError(
                    f"session {self._manager.session_id!r}: this invocation no longer holds its claim",
                    details={"sessionId": self._manager.session_id},
                )
            record["results"] = [*record.get("results", []), result]
            self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        data = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        with self._pinned() as dir_fd:
            atomic_write_at(dir_fd, CLAIM_FILE, data.encode("utf-8"))

    def _remove(self) -> None:
        with self._pinned() as dir_fd, contextlib.suppress(FileNotFoundError):
            os.unlink(CLAIM_FILE, dir_fd=dir_fd)
        # The removal need not be durable: a claim that reappears after a crash is on an older revision
        # than the committed one and is dropped by refuse_if_claimed.


def ledger_for(session: object) -> ClaimLedger | None:
    """The claim ledger of a file-store session; ``None`` for other session managers."""
    from roc_reference.sessions.store import FileSessionManager

    return ClaimLedger(session) if isinstance(session, FileSessionManager) else None
