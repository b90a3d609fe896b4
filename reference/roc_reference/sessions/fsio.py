"""Durable file primitives for the session store: atomic replace, directory fsync, advisory locks.

Each write that must survive a crash is ordered: data fsynced before the name that points to it changes,
and the directory fsynced after a rename so the new name itself is durable.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

TMP_SUFFIX = ".tmp"


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
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        atomic_write_at(dir_fd, path.name, data)
    finally:
        os.close(dir_fd)


# -- directory-relative primitives (ROC-SEC-007) ----------------------------------------------------------
#
# A path is looked up anew by every system call, so checking "is this a symbolic link?" and then opening the
# path leaves a window in which someone swaps a component for a link to elsewhere. The functions below work
# on an open directory file descriptor instead: the directory is pinned when it is opened (with O_NOFOLLOW,
# so opening a link fails with ELOOP), and every later name is a single component resolved inside it, again
# with O_NOFOLLOW. Swapping the directory's name afterwards changes nothing for the holder of the descriptor.


class NotRegularFileError(OSError):
    """A store file that is not a regular file (a directory, a FIFO, a device, a socket)."""


def open_dir_at(name: str, dir_fd: int | None, *, create: bool = False) -> int:
    """Open the directory ``name`` (one path component, relative to ``dir_fd``) without following a link.

    With ``create`` a missing directory is made (mode 0700) first. Raises ``FileNotFoundError`` when it is
    missing, ``OSError(ELOOP)`` when it is a symbolic link, ``NotADirectoryError`` when it is something else.
    """
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
        else:
            if dir_fd is not None:
                os.fsync(dir_fd)  # the new name in the parent is durable before anything is stored in it
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)


def open_regular_at(dir_fd: int, name: str, flags: int, mode: int = 0o600) -> int:
    """``os.open(name, flags, dir_fd=dir_fd)`` that never follows a link, never blocks, and fails with
    ``NotRegularFileError`` unless the result is a regular file.

    O_NONBLOCK keeps the open of a FIFO from waiting for a peer forever; it has no effect on regular files,
    and it is cleared again once the file is known to be one.
    """
    fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK, mode, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", name)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_exactly_at(dir_fd: int, name: str, size: int | None = None) -> bytes | None:
    """The first ``size`` bytes of the regular file ``name`` (all of it when ``size`` is None).

    Returns ``None`` when the file is shorter than ``size``. The length is checked against the file's real
    size before anything is allocated, so a recorded length that lies (10**12 bytes) costs nothing.
    """
    fd = open_regular_at(dir_fd, name, os.O_RDONLY)
    try:
        available = os.fstat(fd).st_size
        want = available if size is None else size
        if want > available:
            return None
        chunks: list[bytes] = []
        remaining = want
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                return None  # shrank while we read: a writer truncated it
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def exists_at(dir_fd: int, name: str) -> bool:
    """Whether ``name`` exists in the directory (a link counts as existing; it is never followed)."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def atomic_write_at(dir_fd: int, name: str, data: bytes) -> None:
    """``atomic_write`` of ``name`` inside the directory ``dir_fd`` (see there)."""
    tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        # rename(2) replaces a link or a regular file named ``name`` without following it; a directory
        # there makes it fail (EISDIR), which the caller reports.
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def remove_stale_temporaries_at(dir_fd: int) -> None:
    """Delete temporaries left in ``dir_fd`` by writers killed mid-write; call only while holding the
    exclusive lock."""
    for name in os.listdir(dir_fd):
        if name.startswith(".") and name.endswith(TMP_SUFFIX):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(name, dir_fd=dir_fd)


@contextlib.contextmanager
def locked_at(dir_fd: int, name: str, *, exclusive: bool) -> Iterator[None]:
    """Hold an advisory ``flock`` on ``name`` (a regular file in ``dir_fd``, made if missing) for the block.

    ``flock`` locks belong to the open file description, so two processes (or two managers in one process)
    exclude each other, and the kernel releases the lock when a holder dies, even by SIGKILL.
    """
    fd = open_regular_at(dir_fd, name, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)
