"""The embedded file session store: one directory per session, crash-safe and compare-and-set.

Layout of ``<root>/<session id>/``::

    lock                  flock target, never replaced (shared for load, exclusive for save)
    state.json            the snapshot without its messages, plus where they are: replaced atomically
    messages.<gen>.jsonl  the message log: one ``{"i": index, "m": message}`` line per message

Why this shape: a save after a cycle appends only the new messages to the log and rewrites the small state
document, so its cost follows the work of the cycle, not the length of the history. The state document is
the commit point. It records how many messages (``messageCount``) and bytes (``logBytes``) of which log
generation belong to the snapshot; anything after that in the log is the torn tail of a save that died
before its commit, which loads ignore and the next save truncates. When a snapshot's messages are not an
extension of the stored ones (a history rewritten or trimmed), the whole log is written to a new generation
first and the state document then switches to it, so a crash at any point leaves the old or the new snapshot.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeGuard

from roc_reference.errors import SessionConflictError, SnapshotInvalidError
from roc_reference.history import HistoryJson, Lineage
from roc_reference.integrity import MacPrefix, canonical_value, integrity_tag, parse_json_text
from roc_reference.sessions.fsio import (
    NotRegularFileError,
    atomic_write_at,
    exists_at,
    locked_at,
    open_dir_at,
    open_regular_at,
    read_exactly_at,
    remove_stale_temporaries_at,
    write_all,
)
from roc_reference.sessions.ids import validate_session_id
from roc_reference.snapshot import verify_snapshot
from roc_reference.types import MAX_DOCUMENT_DEPTH

STORE_FORMAT = "roc-file-session/1"
STATE_FILE = "state.json"
LOCK_FILE = "lock"
_LOG_PREFIX = "messages."
_LOG_SUFFIX = ".jsonl"


def _log_name(generation: int) -> str:
    return f"{_LOG_PREFIX}{generation}{_LOG_SUFFIX}"


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep to serialize
        raise SnapshotInvalidError(f"snapshot is not a JSON document: {exc}") from None


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates survive json.dumps(ensure_ascii=False)
        raise SnapshotInvalidError(f"snapshot is not a JSON document: {exc}") from None


class FileSessionStore:
    """A directory holding many sessions, each in its own subdirectory named by its (validated) id."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def session_dir(self, session_id: str) -> Path:
        """The directory of ``session_id``; raises ``InvalidSessionIdError`` for an unsafe id."""
        return self.root / validate_session_id(session_id)

    def manager(
        self,
        session_id: str,
        *,
        signing_key: tuple[str, bytes] | None = None,
        verify_keys: Mapping[str, bytes] | None = None,
    ) -> FileSessionManager:
        """A session manager for ``session_id`` in this store."""
        return FileSessionManager(session_id, self, signing_key=signing_key, verify_keys=verify_keys)

    def create_session_dir(self, session_id: str) -> Path:
        """The directory of ``session_id``, created (mode 0700) if missing.

        A symbolic link (or anything but a directory) in its place is refused with ``SNAPSHOT_INVALID``
        (ROC-SEC-007). A path is looked up again by every later call, so a caller that must not be
        redirected by a swap made after this check works relative to a descriptor instead (see
        ``FileSessionManager._no_symlinks``).
        """
        directory = self.session_dir(session_id)
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.close(open_dir_at(directory.name, root_fd, create=True))
        except OSError as exc:
            link = exc.errno == errno.ELOOP
            with contextlib.suppress(OSError):  # O_DIRECTORY fails first on a link to a directory (ENOTDIR)
                link = link or stat.S_ISLNK(
                    os.stat(directory.name, dir_fd=root_fd, follow_symlinks=False).st_mode
                )
            what = "a symbolic link" if link else "not a directory"
            raise _corrupt(session_id, f"the session directory is {what}") from None
        finally:
            os.close(root_fd)
        return directory


@dataclass
class _Stored:
    """The parsed state document: the commit record of one save."""

    save_id: str
    revision: int
    generation: int
    message_count: int
    log_bytes: int
    snapshot: dict[str, Any]  # the snapshot with agent.messages set to null


@dataclass
class _Known:
    """What this manager knows the committed log holds, so a save can append without reading it back."""

    save_id: str
    generation: int
    log_bytes: int
    messages: list[Any]  # private JSON copies, never handed out
    mac_prefix: MacPrefix | None = None  # the signing HMAC state after these messages
    lineage: Lineage | None = None  # the agent history these messages are a prefix of, when known


def _corrupt(session_id: str, what: str) -> SnapshotInvalidError:
    return SnapshotInvalidError(
        f"stored session {session_id!r} is corrupt: {what}", details={"sessionId": session_id}
    )


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class FileSessionManager:
    """The ``SessionManager`` of one session in a ``FileSessionStore``.

    With ``signing_key=(key_id, key)`` every saved snapshot carries an HMAC integrity tag (ROC-SEC-002);
    with a signing key or ``verify_keys`` (key id -> key, for rotation) ``load`` rejects a snapshot whose
    tag is missing or wrong with ``SnapshotIntegrityError`` (ROC-SEC-003).

    Revisions follow ROC-SESSION-009: the first save stores revision 0, each later one the stored revision
    plus one; ``save`` refuses any other revision with ``SnapshotInvalidError`` before touching a file.
    """

    borrows_documents: ClassVar[bool] = True
    """``save`` only reads the snapshot it is given, during the call, and keeps no part of it (what it keeps
    are copies it parses back from the bytes it wrote), so an agent may lend its own history JSON."""

    def __init__(
        self,
        session_id: str,
        store: FileSessionStore,
        *,
        signing_key: tuple[str, bytes] | None = None,
        verify_keys: Mapping[str, bytes] | None = None,
    ) -> None:
        self.session_id = validate_session_id(session_id)
        self.store = store
        self._dir = store.session_dir(session_id)
        self._signing_key = signing_key
        keys = dict(verify_keys or {})
        if signing_key is not None and keys.setdefault(signing_key[0], signing_key[1]) != signing_key[1]:
            raise ValueError(f"verify_keys maps the signing key id {signing_key[0]!r} to another key")
        self._verify_keys = keys
        self._known: _Known | None = None
        self._dfd: int | None = None  # the session directory, open while a load or save runs

    # -- SessionManager ------------------------------------------------------------------------------

    def load(self) -> dict[str, Any] | None:
        """The latest committed snapshot, or ``None`` when nothing was ever saved."""
        with self._no_symlinks(create=False):
            if not self._exists(LOCK_FILE):
                return None  # never saved: do not create anything just to find that out
            with self._locked(exclusive=False):
                stored = self._read_state()
                if stored is None:
                    return None
                raw_lines = self._read_log_lines(stored)
        messages = self._parse_log(raw_lines)
        snapshot = stored.snapshot
        snapshot["agent"]["messages"] = messages
        mac_prefix = None
        if self._verify_keys:
            mac_prefix = verify_snapshot(snapshot, self._verify_keys)  # version, then the tag (ROC-SEC-004)
            if self._signing_key is None or mac_prefix is None or mac_prefix.key_id != self._signing_key[0]:
                mac_prefix = None  # only a prefix under the signing key helps the next save
        known = _Known(
            stored.save_id, stored.generation, stored.log_bytes, self._parse_log(raw_lines), mac_prefix
        )
        self._known = known
        return snapshot

    def save(self, snapshot: Mapping[str, Any], *, expected_revision: int | None) -> None:
        """Commit ``snapshot`` if the stored revision is ``expected_revision``; else ``SessionConflictError``.

        Nothing is written when the snapshot is rejected (conflict, not JSON, wrong revision).
        """
        messages = self._check_shape(snapshot, expected_revision)
        head = {**snapshot, "agent": {**snapshot["agent"], "messages": None}}
        _encode(_dumps(head))  # fail on a non-JSON head before taking the lock or touching a file
        with self._no_symlinks(create=True):
            self._commit(snapshot, head, messages, expected_revision)

    def _commit(
        self,
        snapshot: Mapping[str, Any],
        head: dict[str, Any],
        messages: list[Any],
        expected_revision: int | None,
    ) -> None:
        """Under the exclusive lock: check the revision, append or rewrite the log, commit the state."""
        with self._locked(exclusive=True):
            stored = self._read_state()
            stored_revision = None if stored is None else stored.revision
            if stored_revision != expected_revision:
                raise SessionConflictError(
                    f"session {self.session_id!r} is at revision {stored_revision}, not {expected_revision}",
                    details={
                        "sessionId": self.session_id,
                        "expectedRevision": expected_revision,
                        "storedRevision": stored_revision,
                    },
                )
            remove_stale_temporaries_at(self._fd())
            known = self._known_for(stored)
            if known is not None and self._keeps(messages, known):
                generation, log_bytes, added = self._append(known, messages)
                rewrote = False
            else:
                generation = 0 if stored is None else stored.generation + 1
                log_bytes, added = self._rewrite(generation, messages)
                rewrote = True
            mac_prefix = None
            if self._signing_key is not None:  # ROC-SEC-002; reuses the HMAC state of the unchanged prefix
                reuse = None if rewrote or known is None else known.mac_prefix
                tag, mac_prefix = integrity_tag(snapshot, *self._signing_key, reuse)
                head.pop("integrity", None)
                head["integrity"] = tag
            save_id = uuid.uuid4().hex
            state = {
                "format": STORE_FORMAT,
                "sessionId": self.session_id,
                "saveId": save_id,
                "messageCount": len(messages),
                "logGeneration": generation,
                "logBytes": log_bytes,
                "snapshot": head,
            }
            atomic_write_at(self._fd(), STATE_FILE, _encode(_dumps(state)))
            self._remove_other_logs(generation)
        # Committed, the log now equals ``messages``: a later snapshot of the same lineage extends it.
        lineage = messages.lineage if isinstance(messages, HistoryJson) else None
        if rewrote or known is None:
            self._known = _Known(save_id, generation, log_bytes, added, mac_prefix, lineage)
        else:
            known.messages.extend(added)
            self._known = _Known(save_id, generation, log_bytes, known.messages, mac_prefix, lineage)

    # -- helpers -------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _no_symlinks(self, *, create: bool) -> Iterator[None]:
        """Pin the session directory for one load or save and never follow a link into it (ROC-SEC-007).

        The directory is opened once, relative to the root, with O_NOFOLLOW and O_DIRECTORY, and every file
        of the session is then opened relative to that descriptor with O_NOFOLLOW: swapping the directory or
        a file for a symbolic link while a save runs cannot redirect a single write outside the root. A
        link, or a store file that is not a regular file (a directory, a FIFO), is reported as a corrupt
        stored session (``SNAPSHOT_INVALID``), never followed, crashed on or waited on. With ``create`` the
        root and the session directory are made if missing; without it a missing directory leaves no
        descriptor (a load then finds nothing). Not reentrant across threads: a manager serves one caller.
        """
        if self._dfd is not None:  # already pinned by an enclosing load or save
            yield
            return
        try:
            if create:
                self.store.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            root_fd = os.open(self.store.root, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            if create:
                raise
            yield  # no root yet: nothing was ever saved
            return
        try:
            self._dfd = open_dir_at(self._dir.name, root_fd, create=create)
        except FileNotFoundError:
            if create:
                raise
        except OSError as exc:
            failure = exc
            # O_DIRECTORY is checked before O_NOFOLLOW: a link to a directory fails with ENOTDIR, not ELOOP.
            with contextlib.suppress(OSError):
                if stat.S_ISLNK(os.stat(self._dir.name, dir_fd=root_fd, follow_symlinks=False).st_mode):
                    failure = OSError(errno.ELOOP, "symbolic link", self._dir.name)
            raise self._refused(failure) from None
        finally:
            os.close(root_fd)
        try:
            yield
        except (NotRegularFileError, IsADirectoryError, NotADirectoryError) as exc:
            raise self._refused(exc) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._refused(exc) from None
            raise
        finally:
            if self._dfd is not None:
                os.close(self._dfd)
                self._dfd = None

    @contextlib.contextmanager
    def pinned(self) -> Iterator[int]:
        """The session directory's descriptor, pinned as for a save (created if missing): what the claim
        ledger opens its files relative to, so a swapped-in link redirects none of them (ROC-SEC-007)."""
        with self._no_symlinks(create=True):
            yield self._fd()

    def _refused(self, exc: OSError) -> SnapshotInvalidError:
        """The ``SNAPSHOT_INVALID`` for a link or a non-regular file where the store expects its own file."""
        if exc.errno == errno.ELOOP:
            return _corrupt(self.session_id, "a session file or directory is a symbolic link")
        if isinstance(exc, NotADirectoryError):
            return _corrupt(self.session_id, "the session directory is not a directory")
        name = exc.filename if isinstance(exc.filename, str) else "a session file"
        return _corrupt(self.session_id, f"{name} is not a regular file")

    def _fd(self) -> int:
        """The pinned session directory; only valid inside ``_no_symlinks``."""
        if self._dfd is None:
            raise RuntimeError("session directory is not open")  # a bug of this module, not bad input
        return self._dfd

    def _exists(self, name: str) -> bool:
        return self._dfd is not None and exists_at(self._dfd, name)

    def _locked(self, *, exclusive: bool) -> contextlib.AbstractContextManager[None]:
        return locked_at(self._fd(), LOCK_FILE, exclusive=exclusive)

    @classmethod
    def _keeps(cls, messages: list[Any], known: _Known) -> bool:
        """Whether the committed messages are a prefix of ``messages``, so the save may just append.

        Known without looking at the messages for an agent's history JSON of the lineage this manager last
        committed, at least as long: a lineage's list is only ever appended to (``roc_reference.history``),
        so its first ``len(known.messages)`` items are still the ones committed. A plain list, another
        lineage or a shorter list proves nothing and gets the full comparison of ``_extends``.
        """
        if (
            isinstance(messages, HistoryJson)
            and known.lineage is not None
            and messages.lineage is known.lineage
            and len(messages) >= len(known.messages)
        ):
            return True
        return cls._extends(messages, known.messages)

    @staticmethod
    def _extends(messages: list[Any], stored: list[Any]) -> bool:
        """Whether ``stored`` is a prefix of ``messages``, value for value, so a save may just append.

        ROC-SESSION-013: what the store holds must equal the agent's state, so an append that kept a stale
        past message would break it.

        Python equality is not enough: under it 1, 1.0 and true are equal, so an edit of a past message
        from 1 to true would be dropped. Equal canonical JSON (spec 8.2; the bytes the integrity tag
        covers) is the test, so a kept prefix also keeps its HMAC state valid. Unequal under ``==``
        implies unequal canonical forms, so ``==`` first rejects the common case of a rewritten history
        cheaply; the canonical comparison then serializes the prefix, the one part of a save that grows
        with the history.
        """
        count = len(stored)
        if len(messages) < count or messages[:count] != stored:
            return False
        return canonical_value(messages[:count]) == canonical_value(stored)

    def _check_shape(self, snapshot: Mapping[str, Any], expected_revision: int | None) -> list[Any]:
        """The minimum the store needs to split a snapshot; full validation is the loader's job."""
        if not isinstance(snapshot, Mapping):
            raise SnapshotInvalidError("snapshot must be a JSON object")
        revision = snapshot.get("revision")
        if not _is_count(revision):
            raise SnapshotInvalidError("snapshot revision must be an integer >= 0")
        wanted = 0 if expected_revision is None else expected_revision + 1
        if revision != wanted:  # ROC-SESSION-009
            raise SnapshotInvalidError(
                f"snapshot revision {revision} must be {wanted} (the revision it replaces plus one)",
                details={"revision": revision, "expectedRevision": expected_revision},
            )
        agent = snapshot.get("agent")
        if not isinstance(agent, Mapping) or not isinstance(agent.get("messages"), list):
            raise SnapshotInvalidError("snapshot agent.messages must be an array")
        messages: list[Any] = agent["messages"]
        return messages

    def _read_state(self) -> _Stored | None:
        if self._dfd is None:
            return None
        try:
            raw = read_exactly_at(self._dfd, STATE_FILE)
        except FileNotFoundError:
            return None
        if raw is None:  # truncated under us: no writer does that, so the directory is damaged
            raise _corrupt(self.session_id, "state document is not JSON")
        try:
            # The state document wraps the snapshot one level deeper. The depth is measured before parsing
            # (ROC-SEC-014): a 100,000-deep file is SNAPSHOT_INVALID, not a RecursionError.
            state = parse_json_text(raw, MAX_DOCUMENT_DEPTH + 1)
        except SnapshotInvalidError:
            raise _corrupt(self.session_id, "state document is not JSON") from None
        if not isinstance(state, dict) or state.get("format") != STORE_FORMAT:
            raise _corrupt(self.session_id, f"state document format is not {STORE_FORMAT!r}")
        save_id, snapshot = state.get("saveId"), state.get("snapshot")
        count, generation, log_bytes = (state.get(k) for k in ("messageCount", "logGeneration", "logBytes"))
        if not isinstance(save_id, str) or not _is_count(count):
            raise _corrupt(self.session_id, "state document fields are malformed")
        if not _is_count(generation) or not _is_count(log_bytes):
            raise _corrupt(self.session_id, "state document fields are malformed")
        if not isinstance(snapshot, dict) or not _is_count(snapshot.get("revision")):
            raise _corrupt(self.session_id, "stored snapshot has no revision")
        agent = snapshot.get("agent")
        if not isinstance(agent, dict) or "messages" not in agent or agent["messages"] is not None:
            raise _corrupt(self.session_id, "stored snapshot has no message placeholder")
        return _Stored(save_id, snapshot["revision"], generation, count, log_bytes, snapshot)

    def _read_log_lines(self, stored: _Stored) -> list[bytes]:
        """Exactly the committed lines of the log: ``logBytes`` bytes holding ``messageCount`` lines."""
        if stored.log_bytes == 0:
            lines: list[bytes] = []
        else:
            try:
                # logBytes comes from disk: read_exactly_at checks it against the file's real size before
                # allocating, so a lying 10**12 is "shorter than committed", not a MemoryError (ROC-SEC-014:
                # a loader fails only with SNAPSHOT_INVALID, whatever it reads).
                data = read_exactly_at(self._fd(), _log_name(stored.generation), stored.log_bytes)
            except FileNotFoundError:
                raise _corrupt(self.session_id, "message log is missing") from None
            if data is None or not data.endswith(b"\n"):
                raise _corrupt(self.session_id, "message log is shorter than committed")
            lines = data.split(b"\n")[:-1]
        if len(lines) != stored.message_count:
            raise _corrupt(self.session_id, "message log line count differs from messageCount")
        return lines

    def _parse_log(self, lines: list[bytes]) -> list[Any]:
        messages: list[Any] = []
        for index, line in enumerate(lines):
            try:
                record = parse_json_text(line, MAX_DOCUMENT_DEPTH)  # ROC-SEC-014, as for the state document
            except SnapshotInvalidError:
                raise _corrupt(self.session_id, f"message log line {index} is not JSON") from None
            if not isinstance(record, dict) or record.get("i") != index or "m" not in record:
                raise _corrupt(self.session_id, f"message log line {index} is out of place")
            messages.append(record["m"])
        return messages

    def _known_for(self, stored: _Stored | None) -> _Known | None:
        """The committed log's content: from memory if this manager wrote or read it last, else from disk."""
        if stored is None:
            return None
        if self._known is not None and self._known.save_id == stored.save_id:
            return self._known
        # Someone else committed since (or this manager never loaded): read the log back once.
        messages = self._parse_log(self._read_log_lines(stored))
        return _Known(stored.save_id, stored.generation, stored.log_bytes, messages)

    @staticmethod
    def _lines(messages: list[Any], start: int) -> tuple[bytes, list[Any]]:
        """Serialized log lines for ``messages`` (indices from ``start``) and private copies of them."""
        texts = [_dumps({"i": start + k, "m": m}) for k, m in enumerate(messages)]
        data = _encode("".join(t + "\n" for t in texts))
        return data, [json.loads(t)["m"] for t in texts]

    def _append(self, known: _Known, messages: list[Any]) -> tuple[int, int, list[Any]]:
        data, added = self._lines(messages[len(known.messages) :], len(known.messages))
        if not data:  # nothing new (the claim save before a run): the committed log stays as it is, unsynced
            return known.generation, known.log_bytes, added
        name = _log_name(known.generation)
        created = not self._exists(name)
        fd = open_regular_at(self._fd(), name, os.O_RDWR | os.O_CREAT)
        try:
            if os.fstat(fd).st_size < known.log_bytes:
                raise _corrupt(self.session_id, "message log is shorter than committed")
            os.ftruncate(fd, known.log_bytes)  # drop the torn tail of a save that died before its commit
            os.lseek(fd, known.log_bytes, os.SEEK_SET)
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            os.fsync(self._fd())
        return known.generation, known.log_bytes + len(data), added

    def _rewrite(self, generation: int, messages: list[Any]) -> tuple[int, list[Any]]:
        data, added = self._lines(messages, 0)
        # The new generation is unreferenced until the state document commits, so writing it in place is safe;
        # O_TRUNC clears a leftover of an earlier rewrite that died.
        fd = open_regular_at(self._fd(), _log_name(generation), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.fsync(self._fd())
        return len(data), added

    def _remove_other_logs(self, generation: int) -> None:
        current = _log_name(generation)
        removed = False
        for name in os.listdir(self._fd()):
            if name.startswith(_LOG_PREFIX) and name.endswith(_LOG_SUFFIX) and name != current:
                # Cleanup runs after the commit: a stray directory under a log's name is left alone rather
                # than turning a committed save into a reported failure (a retry would then conflict).
                with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                    os.unlink(name, dir_fd=self._fd())
                    removed = True
        if removed:
            os.fsync(self._fd())
