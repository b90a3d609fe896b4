"""Where the adapter under test lives: an address to dial, or a process the runner starts (and restarts).

``--target reference`` starts ``python -m roc_reference.cli serve --port 0``; ``--target cmd:<command line>``
starts any adapter the same way (the command line is split like a POSIX shell would, without running one).
The runner reads the address from the process's first ``ROC-HARNESS-LISTENING host:port`` line (so the
adapter must listen on a free port and print it, as ``roc_conformance.adapter.serve`` does), and restarts
the process when it dies mid-run, so one crash costs one check, not the rest of the run.
``--target HOST:PORT`` dials an adapter someone else started.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from roc_conformance.errors import HarnessUnavailable

LISTENING_PREFIX = "ROC-HARNESS-LISTENING "
"""First stdout line of an adapter started with ``--port 0``: the prefix, then ``host:port``."""


@dataclass
class Target:
    """An adapter address; ``managed`` targets are processes this runner started."""

    address: str
    label: str
    command: list[str] | None = None
    process: subprocess.Popen[str] | None = field(default=None, repr=False)
    restarts: int = 0

    @property
    def managed(self) -> bool:
        return self.command is not None

    def alive(self) -> bool:
        return self.process is None or self.process.poll() is None

    def restart(self) -> None:
        """Start the managed process again (after a crash)."""
        if self.command is None:
            raise HarnessUnavailable("restart", f"{self.label} is not managed by the runner")
        self.stop()
        self.process, self.address = _spawn(self.command)
        self.restarts += 1

    def stop(self) -> None:
        """Stop the managed process and everything it started.

        The adapter runs in its own process group: a launcher such as ``npx`` may exit on SIGTERM without
        passing it on, and its children would then keep the stdout pipe open (and the runner waiting) for
        ever. So the whole group is terminated, then killed.
        """
        proc = self.process
        if proc is None:
            return
        self.process = None
        _signal_group(proc, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        _signal_group(proc, signal.SIGKILL)  # whatever of the group is left, the leader included
        proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()


def _signal_group(proc: subprocess.Popen[str], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(proc.pid, signum)


def reference_command() -> list[str]:
    """The command line of the reference adapter on a free port."""
    return [sys.executable, "-m", "roc_reference.cli", "serve", "--host", "127.0.0.1", "--port", "0"]


def _spawn(command: list[str], *, timeout: float = 30.0) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    try:
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=None, text=True, env=env, start_new_session=True
        )
    except OSError as exc:  # no such program, not executable: a cmd: target's typo is the usual cause
        raise HarnessUnavailable("start", f"cannot start {command[0]!r}: {exc}") from exc
    assert proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True, name="roc-adapter-stdout").start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None and lines.empty():
            raise HarnessUnavailable("start", f"adapter exited with code {proc.returncode} before listening")
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        if line.startswith(LISTENING_PREFIX):
            return proc, line[len(LISTENING_PREFIX) :].strip()
    _signal_group(proc, signal.SIGKILL)
    proc.wait(timeout=5)
    raise HarnessUnavailable("start", f"adapter did not report its address within {timeout:g}s")


def start_managed(command: list[str], label: str) -> Target:
    """Start an adapter process and wait until it listens."""
    proc, address = _spawn(command)
    return Target(address=address, label=label, command=command, process=proc)


CMD_PREFIX = "cmd:"


def command_of(spec: str) -> list[str]:
    """The argv of a ``cmd:<command line>`` target; ``ValueError`` when it is empty or badly quoted."""
    try:
        command = shlex.split(spec[len(CMD_PREFIX) :])
    except ValueError as exc:
        raise ValueError(f"target {spec!r}: cannot split the command line: {exc}") from exc
    if not command:
        raise ValueError(f"target {spec!r} names no command")
    return command


def resolve(spec: str) -> Target:
    """``reference`` -> a managed reference adapter; ``cmd:<command line>`` -> a managed adapter process;
    ``HOST:PORT`` -> an address to dial."""
    if spec == "reference":
        return start_managed(reference_command(), "reference")
    if spec.startswith(CMD_PREFIX):
        command = command_of(spec)
        return start_managed(command, spec.strip())  # the label is a --target that starts it again
    if ":" not in spec:
        raise ValueError(f"target must be 'reference', cmd:<command line> or HOST:PORT, got {spec!r}")
    return Target(address=spec, label=spec)
