"""A managed adapter is stopped together with everything it started (process group)."""

from __future__ import annotations

import os
import shlex
import sys
import time

import pytest
from roc_conformance.target import resolve


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_stop_ends_a_launcher_and_the_adapter_it_started() -> None:
    # A launcher that ignores SIGTERM and keeps its child (the adapter) running, as `npx tsx ...` does:
    # stopping only the launcher would leave the adapter holding the stdout pipe, and the runner waiting.
    serve = shlex.join(
        [sys.executable, "-m", "roc_reference.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    )
    script = "trap '' TERM; " + serve + " & wait"
    target = resolve("cmd:sh -c " + shlex.quote(script))
    assert target.process is not None
    group = target.process.pid
    os.killpg(group, 0)  # the group exists while the adapter runs
    target.stop()
    # Killed members of the group linger as zombies until init reaps them: wait for that, not for work.
    deadline = time.monotonic() + 30
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(group)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
