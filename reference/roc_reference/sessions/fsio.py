"""Durable file primitives for the session store: atomic replace, directory fsync, advisory locks.

Each write that must survive a crash is ordered: data fsynced before the name that points to it changes,
and the directory fsynced after a rename so the new name itself is durable.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

TMP_SUFFIX = ".tmp"


def fsync_dir(directory: Path) -> None:
    """Make renames, creations and unlinks inside ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a single write may be short)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: readers and crashes see the old file or the new one, never a mix.

    The temporary file lives in the same directory (``os.replace`` is atomic only within one file system)
    and is named with a leading dot and ``.tmp`` so a later cleanup can recognise leftovers of a crash.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def remove_stale_temporaries(directory: Path) -> None:
    """Delete temporaries left by writers killed mid-write; call only while holding the exclusive lock."""
    for entry in directory.iterdir():
        if entry.name.startswith(".") and entry.name.endswith(TMP_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()


@contextlib.contextmanager
def locked(lock_path: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold an advisory ``flock`` on ``lock_path`` (created if missing) for the duration of the block.

    ``flock`` locks belong to the open file description, so two processes (or two managers in one process)
    exclude each other, and the kernel releases the lock when a holder dies, even by SIGKILL.
    """
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing the description releases the lock
