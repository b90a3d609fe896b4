"""Sessions against history length: the reference file store against strands-agents' ``FileSessionManager``.

For each history length H an idle agent restored from a stored session of H messages runs cycles of one
invocation that adds two messages (a prompt and a text answer, from a model that answers in constant time).
Measured per side: the time spent persisting one cycle, the whole invocation, the restore of an agent from
the stored session, the bytes a cycle writes, and the peak RSS of a process holding the restored agent. Up to
1,000 messages the sides run interleaved in this process (the peak RSS in a fresh child per side); from
10,000, where one restore takes seconds, each side restores once and runs its cycles in a fresh child.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from roc_reference import Agent, MessageAddedEvent
from roc_reference.integrity import sign
from roc_reference.models import ModelTurn
from roc_reference.sessions.store import FileSessionManager, FileSessionStore
from roc_reference.types import Message, TextBlock

from benchmarks import strands_peer
from benchmarks.common import Column, Scale, Section, Stats, Table, Target, interleaved, ratio

SIZES: dict[Scale, tuple[int, ...]] = {"full": (10, 1_000, 10_000, 100_000), "quick": (10, 1_000)}
# Lengths whose restores take seconds: each side restores once, in a fresh child process that also runs its
# cycles (the peak RSS, the first save and the cycles come from that process); below, in-process, interleaved.
CHILD_SIZES: dict[Scale, tuple[int, ...]] = {"full": (10_000, 100_000), "quick": (1_000,)}
CYCLES: dict[Scale, int] = {"full": 30, "quick": 3}
# Repeats by history length (the entry of the largest listed length not above it). In-process restores
# only (a child restores once); a strands invocation at 100,000 messages takes seconds, so strands runs
# fewer cycles there; the reference's cycles are milliseconds and run CYCLES times at every length.
RESTORES: dict[Scale, dict[int, int]] = {"full": {0: 5}, "quick": {0: 1}}
STRANDS_CYCLES: dict[Scale, dict[int, int]] = {"full": {0: 30, 10_000: 3, 100_000: 1}, "quick": {0: 3}}
# The store-signed variant needs its own session and restore; up to this length (see the notes for 100,000).
SIGNED_UP_TO: dict[Scale, int] = {"full": 10_000, "quick": 1_000}
# Agent-signed saves canonicalize the whole history twice a cycle, O(history) by nature: one length and a
# few cycles show it.
AGENT_SIGNED_AT: dict[Scale, int] = {"full": 1_000, "quick": 1_000}
AGENT_SIGNED_CYCLES: dict[Scale, int] = {"full": 3, "quick": 1}
# Strands message files written through its repository API, the rest directly (see _Strands.build).
STRANDS_API_BUILD: dict[Scale, int] = {"full": 1_000, "quick": 500}
BUILD_IN_PARALLEL = (50_000, 2)  # from this length the direct files are written by this many processes
# Cycles per length in the flat-save comparison (both lengths restored in one process, see flat_check).
FLAT_CYCLES: dict[Scale, int] = {"full": 60, "quick": 3}
FLAT_GOAL = 0.10  # the reference's save per cycle at the largest H at most 10 % above H = 10
LINEAR_GOAL = 2.0  # restore time per message at the largest H within this factor of H = 10,000 (1,000 quick)
AGENT_ID = "bench"
PROMPT = "Next step, please."
ANSWER = "Done; the next batch is ready."
KEY_ID, KEY = "bench-key", b"k" * 32
NOT_INSTALLED = "strands-agents not installed (make bench installs it)"


class BenchmarkError(RuntimeError):
    """A sample did not do the work it claims to measure."""


# --- the history -------------------------------------------------------------------------------------------


def _message(index: int) -> dict[str, Any]:
    """Turns of a realistic mix, four at a time: a prompt, a tool use, its result, an answer."""
    tool_use_id = f"tooluse_{index // 4:06d}"
    kind = index % 4
    if kind == 0:
        return {
            "role": "user",
            "content": [{"text": f"Please tidy the folder reports/{index} and keep a log."}],
        }
    if kind == 1:
        paths = [f"reports/{index}/file_{k}.txt" for k in range(3)]
        use = {"toolUseId": tool_use_id, "name": "inspect_files", "input": {"paths": paths}}
        return {
            "role": "assistant",
            "content": [{"text": "I will inspect the files first."}, {"toolUse": use}],
        }
    if kind == 2:
        files = [{"path": f"reports/{index}/file_{k}.txt", "ageDays": k * 3} for k in range(3)]
        result = {"toolUseId": tool_use_id, "status": "success", "content": [{"json": {"files": files}}]}
        return {"role": "user", "content": [{"toolResult": result}]}
    return {
        "role": "assistant",
        "content": [{"text": f"Done with batch {index}; two files are older than 5 days."}],
    }


def history(size: int) -> list[dict[str, Any]]:
    """``size`` messages (even): groups of four, then prompt and answer pairs (no tool use left open)."""
    whole = size - size % 4
    tail = [_message(4 * (k // 2) + (0 if k % 2 == 0 else 3)) for k in range(size - whole)]
    return [_message(k) for k in range(whole)] + tail


# --- the reference side ------------------------------------------------------------------------------------


class _Answer:
    """The model: the same text answer to any history, in constant time (no scan of the history)."""

    turn = ModelTurn(Message(role="assistant", content=[TextBlock(text=ANSWER)]), "end_turn")

    def call(self, messages: object) -> ModelTurn:
        return self.turn


class Cycle(NamedTuple):
    """One measured invocation, in seconds."""

    save: float  # wall time inside the session store's calls
    # CPU time of the calling thread inside them: what the store computes, without disk waits, and without
    # what other threads of the process (a peer's event loop, idle pools) happen to run meanwhile
    save_cpu: float
    total: float  # wall time of the whole invocation


@dataclass
class _Timer:
    """Wall and CPU seconds spent inside wrapped calls since the last ``take``, and how many calls."""

    seconds: float = 0.0
    cpu: float = 0.0
    calls: int = 0

    def wrap(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            started, started_cpu = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.cpu += time.thread_time() - started_cpu
                self.calls += 1

        return timed_call

    def take(self, total: float) -> tuple[Cycle, int]:
        taken = Cycle(self.seconds, self.cpu, total), self.calls
        self.seconds, self.cpu, self.calls = 0.0, 0.0, 0
        return taken


@dataclass
class _Reference:
    """One reference agent restored from a file-store session, its save calls timed."""

    root: Path
    session_id: str
    signing: str | None = None  # None, "store" (the store tags) or "agent" (the agent tags every snapshot)
    timer: _Timer = field(default_factory=_Timer)
    agent: Agent | None = None
    session: FileSessionManager | None = None  # the manager of the agent last restored
    added: int = 0  # messages the agent appended (a hook counts them: no O(history) look at the transcript)

    def manager(self) -> FileSessionManager:
        key = (KEY_ID, KEY) if self.signing == "store" else None
        return FileSessionStore(self.root).manager(self.session_id, signing_key=key)

    def build(self, messages: list[dict[str, Any]]) -> None:
        doc = Agent(_Answer(), agent_id=AGENT_ID).take_snapshot()
        doc["agent"]["messages"] = messages
        if self.signing == "agent":
            doc = sign(doc, KEY_ID, KEY)
        self.manager().save(doc, expected_revision=None)

    def restore(self) -> Agent:
        agent_keys = {KEY_ID: KEY} if self.signing == "agent" else None
        self.session = self.manager()
        return Agent(
            _Answer(),
            session=self.session,
            agent_id=AGENT_ID,
            integrity_keys=agent_keys,
            signing_key_id=KEY_ID if agent_keys else None,
        )

    def open(self, *, restored: bool = False) -> float:
        """Get the agent to run cycles on (restore it unless ``restored``); the save seconds of its first
        cycle, which is the first save after a restore."""
        agent = self.agent = self.agent if restored and self.agent is not None else self.restore()
        agent.hooks.add_callback(MessageAddedEvent, self._count)
        session = self.session
        assert session is not None
        session.save = self.timer.wrap(session.save)  # type: ignore[method-assign]
        return self.cycle().save

    def _count(self, event: MessageAddedEvent) -> None:
        self.added += 1

    def cycle(self) -> Cycle:
        """One invocation, its saves timed."""
        assert self.agent is not None
        before, revision = self.added, self.agent.revision
        started = time.perf_counter()
        result = self.agent.invoke(PROMPT)
        cycle, calls = self.timer.take(time.perf_counter() - started)
        # Two saves (the claim and the end) of two new revisions, and two appended messages.
        if result.stop_reason != "end_turn" or calls != 2 or self.agent.revision != revision + 2:
            raise BenchmarkError(f"reference cycle: {result.stop_reason}, {calls} saves")
        if self.added != before + 2:
            raise BenchmarkError(f"reference cycle appended {self.added - before} messages, not 2")
        return cycle

    def session_dir(self) -> Path:
        return self.root / self.session_id


# --- the strands side --------------------------------------------------------------------------------------


_strands = strands_peer.package


def _write_messages(batch: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Write strands message files as its repository does: the indented JSON of each ``SessionMessage``."""
    from strands.types.session import SessionMessage  # type: ignore[import-not-found]

    for path, index, message in batch:
        record = SessionMessage.from_message(message, index)
        Path(path).write_text(json.dumps(record.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")


def _write_in_workers(batch: list[tuple[str, int, dict[str, Any]]], workers: int) -> None:
    """``_write_messages`` split between fresh interpreters, each reading its part as JSON on stdin (a
    separate interpreter whatever the caller's main module is)."""
    code = "import json, sys; from benchmarks import sessions; sessions._write_messages(json.load(sys.stdin))"
    repo = Path(__file__).resolve().parents[1]
    part = -(-len(batch) // workers)
    running = []
    for start in range(0, len(batch), part):
        worker = subprocess.Popen([sys.executable, "-c", code], cwd=repo, stdin=subprocess.PIPE)
        assert worker.stdin is not None
        worker.stdin.write(json.dumps(batch[start : start + part]).encode())
        worker.stdin.close()
        running.append(worker)
    if any([worker.wait(timeout=900) != 0 for worker in running]):  # wait for every one
        raise BenchmarkError("a worker writing strands message files failed")


@dataclass
class _Strands:
    """One strands agent restored from a ``FileSessionManager`` session, its session calls timed."""

    root: Path
    session_id: str
    timer: _Timer = field(default_factory=_Timer)
    agent: Any = None
    session: Any = None  # the manager of the agent last restored

    def restore(self) -> Any:
        from strands import Agent as StrandsAgent  # type: ignore[import-not-found]
        from strands.agent.conversation_manager import NullConversationManager  # type: ignore[import-not-found]
        from strands.models import Model  # type: ignore[import-not-found]
        from strands.session.file_session_manager import (  # type: ignore[import-not-found]
            FileSessionManager as StrandsFileSessionManager,
        )

        # The null conversation manager keeps the whole history, as a RoC agent does (the default sliding
        # window would drop all but the last 40 messages from memory).
        self.session = StrandsFileSessionManager(session_id=self.session_id, storage_dir=str(self.root))
        return StrandsAgent(
            model=strands_peer.scripted_model(Model, lambda messages: [{"text": ANSWER}]),
            session_manager=self.session,
            conversation_manager=NullConversationManager(),
            agent_id=AGENT_ID,
            callback_handler=None,
        )

    def build(self, messages: list[dict[str, Any]], through_api: int | None = None, workers: int = 1) -> None:
        """An agent with an empty session, then the messages through the repository API, one file each.

        Past ``through_api`` messages (all when ``None``) the files are written directly with the bytes the
        repository writes (its JSON of the same ``SessionMessage``), skipping its per-file temporary and
        rename, by ``workers`` processes when more than one: most of a file's cost is building its JSON in
        Python, and at 100,000 messages one process spends most of a minute on it (none of this is measured;
        a worker process needs seconds to start, worth it only at that scale).
        """
        from strands.types.session import SessionMessage

        self.restore()
        manager = self.session
        api = len(messages) if through_api is None else min(through_api, len(messages))
        for index in range(api):
            manager.create_message(
                self.session_id, AGENT_ID, SessionMessage.from_message(messages[index], index)
            )
        rest = [
            (manager._get_message_path(self.session_id, AGENT_ID, index), index, messages[index])
            for index in range(api, len(messages))
        ]
        if workers == 1:
            _write_messages(rest)
        else:
            _write_in_workers(rest, workers)

    def open(self, *, restored: bool = False) -> float:
        self.agent = self.agent if restored and self.agent is not None else self.restore()
        manager = self.session
        # Every session call the agent makes in a cycle: one per appended message, one sync per message and
        # one after the invocation (the hooks look these up on the manager at call time).
        manager.append_message = self.timer.wrap(manager.append_message)
        manager.sync_agent = self.timer.wrap(manager.sync_agent)
        return self.cycle().save

    def cycle(self) -> Cycle:
        before = len(self.agent.messages)
        started = time.perf_counter()
        result = self.agent(PROMPT)
        cycle, calls = self.timer.take(time.perf_counter() - started)
        if str(result.stop_reason) != "end_turn" or len(self.agent.messages) != before + 2 or calls < 2:
            raise BenchmarkError(f"strands cycle: {result.stop_reason}, {calls} session calls")
        return cycle

    def session_dir(self) -> Path:
        return self.root / f"session_{self.session_id}"


# --- bytes written -----------------------------------------------------------------------------------------

_Tree = dict[str, tuple[int, int, int]]


def _tree(root: Path) -> _Tree:
    """Every file under ``root``: (inode, size, mtime ns)."""
    files: _Tree = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with_stat = os.lstat(path)
            files[path] = (with_stat.st_ino, with_stat.st_size, with_stat.st_mtime_ns)
    return files


def _written(before: _Tree, after: _Tree) -> int:
    """Bytes a change wrote: new or replaced files whole, appended files their growth.

    Neither store rewrites a file in place (both replace or append), so a file of the same inode and size
    counts nothing even when its time changed (truncating to the same length touches it, writing nothing).
    """
    total = 0
    for path, (inode, size, _) in after.items():
        old = before.get(path)
        if old is None or old[0] != inode:
            total += size
        elif size > old[1]:
            total += size - old[1]
    return total


def _bytes_of_cycle(side: _Reference | _Strands, calls: list[str]) -> tuple[int, Cycle]:
    """Run one cycle with the files diffed around each session call (a file replaced twice in a cycle
    counts twice): its bytes, and the cycle itself as a timed sample. The diffs walk the session directory
    outside the timed store calls (the timer wraps the call inside the diff), and their seconds are taken
    off the invocation's wall time, so the sample times what the other cycles time."""
    target: Any = side.session
    root = side.session_dir()
    written = [0]
    walking = [0.0]
    originals = {name: getattr(target, name) for name in calls}

    def diffed(call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            before = _tree(root)
            walking[0] += time.perf_counter() - started
            try:
                return call(*args, **kwargs)
            finally:
                started = time.perf_counter()
                written[0] += _written(before, _tree(root))
                walking[0] += time.perf_counter() - started

        return run

    for name, call in originals.items():
        setattr(target, name, diffed(call))
    try:
        cycle = side.cycle()
    finally:
        for name, call in originals.items():
            setattr(target, name, call)
    return written[0], cycle._replace(total=cycle.total - walking[0])


# --- peak RSS ----------------------------------------------------------------------------------------------


def _peak_kib() -> int:
    """This process's peak resident set size in KiB: ``VmHWM``, the high-water mark of its own address space.

    Not ``ru_maxrss``: Linux carries that over from the parent across fork and exec, so in a child of a
    benchmark holding 100,000 messages it starts at the parent's size and shows no growth at all.
    """
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # no procfs: the best there is


def _warm_up(side: str) -> None:
    """Restore an agent from a 10-message session and run one cycle, then drop both: the measured restore
    is then not the process's first (a first call imports lazily, compiles and fills caches), as in-process
    the median of repeated restores leaves the first out. Its peak counts in the baseline, like the imports.
    """
    with tempfile.TemporaryDirectory(prefix="roc-bench-warm-") as tmp:
        warm = _Reference(Path(tmp), "warm") if side == "reference" else _Strands(Path(tmp), "warm")
        warm.build(history(10))
        warm.open()


def _rss_child(side: str, root: str, session_id: str) -> None:
    """In a fresh process: warm up, note the peak resident set size, restore the agent and hold it, and
    print how much the peak grew, in KiB. The warm-up's own peak is the baseline, so one child per
    measurement."""
    _warm_up(side)
    imported = _peak_kib()
    holder = _Reference(Path(root), session_id) if side == "reference" else _Strands(Path(root), session_id)
    holder.agent = holder.restore()
    print(_peak_kib() - imported)


def _peak_rss_mib(side: str, root: Path, session_id: str) -> float:
    code = f"from benchmarks.sessions import _rss_child; _rss_child({side!r}, {str(root)!r}, {session_id!r})"
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True, timeout=900
    )
    return int(done.stdout.split()[-1]) / 1024


# --- the run -----------------------------------------------------------------------------------------------


@dataclass
class Row:
    """Everything measured at one history length (``None``: the side was not measured)."""

    messages: int
    save: Stats
    save_cpu: Stats
    save_store_signed: Stats | None
    save_agent_signed: Stats | None
    first_save: float
    invocation: Stats
    restore: Stats
    written: int
    rss_mib: float | None
    strands_save: Stats | None = None
    strands_save_cpu: Stats | None = None
    strands_first_save: float | None = None
    strands_invocation: Stats | None = None
    strands_restore: Stats | None = None
    strands_written: int | None = None
    strands_rss_mib: float | None = None
    strands_build_s: float | None = None
    wall_s: float | None = None  # this length's whole measurement, building and deleting its sessions

    def to_json(self) -> dict[str, Any]:
        def ms(stats: Stats | None, part: str = "median") -> float | None:
            return None if stats is None else float(getattr(stats, part)) * 1000

        def us_per_message(stats: Stats | None) -> float | None:
            return None if stats is None else stats.median * 1e6 / self.messages

        return {
            "messages": self.messages,
            "save_ms": ms(self.save),
            "save_min_ms": ms(self.save, "min"),
            "save_max_ms": ms(self.save, "max"),
            "save_cpu_ms": ms(self.save_cpu),
            "store_signed_ms": ms(self.save_store_signed),
            "agent_signed_ms": ms(self.save_agent_signed),
            "first_save_ms": self.first_save * 1000,
            "invocation_ms": ms(self.invocation),
            "strands_save_ms": ms(self.strands_save),
            "strands_save_min_ms": ms(self.strands_save, "min"),
            "strands_save_max_ms": ms(self.strands_save, "max"),
            "strands_save_cpu_ms": ms(self.strands_save_cpu),
            "strands_first_save_ms": None
            if self.strands_first_save is None
            else self.strands_first_save * 1000,
            "strands_invocation_ms": ms(self.strands_invocation),
            "save_ratio": ratio(ms(self.strands_save), ms(self.save)),
            "restore_ms": ms(self.restore),
            "restore_us_per_message": us_per_message(self.restore),
            "strands_restore_ms": ms(self.strands_restore),
            "strands_restore_us_per_message": us_per_message(self.strands_restore),
            "restore_ratio": ratio(ms(self.strands_restore), ms(self.restore)),
            "written": self.written,
            "strands_written": self.strands_written,
            "rss_mib": self.rss_mib,
            "strands_rss_mib": self.strands_rss_mib,
        }


class _Measured(NamedTuple):
    """One side's cycles after its restore: the first save, the timed cycles, the bytes of one cycle."""

    first_save: float
    cycles: list[Cycle]
    written: int | None  # None: not counted (the signed variants)

    def to_json(self) -> dict[str, Any]:
        return {
            "first_save": self.first_save,
            "cycles": [list(c) for c in self.cycles],
            "written": self.written,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> _Measured:
        return cls(data["first_save"], [Cycle(*c) for c in data["cycles"]], data["written"])


def _reference_sides(scale: Scale, size: int, work: Path) -> dict[str, _Reference]:
    """The reference sessions at ``size``: plain, and the signed variants where they run."""
    root = work / "roc"
    sides = {"reference": _Reference(root, f"plain-{size}")}
    if size <= SIGNED_UP_TO[scale]:
        sides["store-signed"] = _Reference(root, f"store-signed-{size}", signing="store")
    if size == AGENT_SIGNED_AT[scale]:
        sides["agent-signed"] = _Reference(root, f"agent-signed-{size}", signing="agent")
    return sides


def _strands_side(size: int, work: Path) -> _Strands:
    return _Strands(work / "strands", f"s{size}")


def _after_restore(scale: Scale, size: int, sides: dict[str, _Reference | _Strands]) -> dict[str, _Measured]:
    """Run the cycles of every side given, its ``reference`` and ``strands`` agents already restored.

    Each side's first cycle after its restore is timed apart (the store has not yet seen the agent's
    lineage); then the cycles run interleaved, a side with fewer cycles in the first rounds only, the others
    going on alone (still alternating). The last cycle of the plain sides also counts the bytes it writes.
    """
    counts = {"reference": CYCLES[scale], "store-signed": CYCLES[scale]}
    counts["strands"] = min(CYCLES[scale], _repeats(STRANDS_CYCLES[scale], size))
    calls = {"reference": ["save"], "strands": ["append_message", "sync_agent"]}
    firsts = {name: side.open(restored=name in calls) for name, side in sides.items() if name in counts}
    cycles_of: dict[str, list[Cycle]] = {name: [] for name in firsts}

    def cycle_of(name: str) -> Callable[[], float]:
        def run_cycle() -> float:
            cycle = sides[name].cycle()
            cycles_of[name].append(cycle)
            return cycle.save

        return run_cycle

    # The plain sides' last cycle is the bytes-counting one below.
    rounds = {name: counts[name] - (name in calls) for name in firsts}
    done = 0
    for stop in sorted(set(rounds.values())):
        if stop > done:
            interleaved({name: cycle_of(name) for name in firsts if rounds[name] >= stop}, stop - done)
        done = stop
    measured: dict[str, _Measured] = {}
    for name in firsts:
        written = None
        if name in calls:
            written, cycle = _bytes_of_cycle(sides[name], calls[name])
            cycles_of[name].append(cycle)
        measured[name] = _Measured(firsts[name], cycles_of[name], written)
    if "agent-signed" in sides:
        # Agent-signed saves canonicalize the whole history twice a cycle: alone, a few cycles.
        agent_signed = sides["agent-signed"]
        first = agent_signed.open()
        cycles = [agent_signed.cycle() for _ in range(AGENT_SIGNED_CYCLES[scale])]
        measured["agent-signed"] = _Measured(first, cycles, None)
    return measured


def _child(side: str, work: str, size: int, scale: Scale) -> None:
    """In a fresh process, everything of one side at one length: warm up (``_warm_up``), note the peak
    resident set size, restore the agent (timed) and note how much the peak grew, then run its cycles
    (``_after_restore``). Prints the measurements as one JSON line."""
    _warm_up(side)
    imported = _peak_kib()
    sides: dict[str, _Reference | _Strands] = (
        dict(_reference_sides(scale, size, Path(work)))
        if side == "reference"
        else {"strands": _strands_side(size, Path(work))}
    )
    restore = _restore_into(sides[side])
    grown = _peak_kib() - imported
    measured = _after_restore(scale, size, sides)
    print(
        json.dumps(
            {"restore": restore, "rss_kib": grown, "sides": {n: m.to_json() for n, m in measured.items()}}
        )
    )


def _in_child(side: str, work: Path, size: int, scale: Scale) -> tuple[float, float, dict[str, _Measured]]:
    """``_child`` in a fresh interpreter: the restore's seconds, the peak RSS growth in MiB, the cycles."""
    code = f"from benchmarks.sessions import _child; _child({side!r}, {str(work)!r}, {size!r}, {scale!r})"
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True, timeout=900
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    sides = {name: _Measured.from_json(value) for name, value in data["sides"].items()}
    return float(data["restore"]), int(data["rss_kib"]) / 1024, sides


def _measure_size(scale: Scale, size: int, work: Path, strands: Any | None, rss: bool) -> Row:
    started = time.perf_counter()
    messages = history(size)
    sides: dict[str, _Reference | _Strands] = dict(_reference_sides(scale, size, work))
    for side in sides.values():
        side.build(messages)
    plain = sides["reference"]
    build_s = None
    if strands is not None:
        peer = sides["strands"] = _strands_side(size, work)
        build_started = time.perf_counter()
        workers = BUILD_IN_PARALLEL[1] if size >= BUILD_IN_PARALLEL[0] else 1
        peer.build(messages, through_api=STRANDS_API_BUILD[scale], workers=workers)
        build_s = time.perf_counter() - build_started
    del messages

    rss_mib = strands_rss = None
    if size in CHILD_SIZES[scale]:
        # One restore per side: everything of a side in one fresh process, the sides one after the other.
        restore_s, rss_mib, measured = _in_child("reference", work, size, scale)
        restores = {"reference": Stats.of([restore_s])}
        if strands is not None:
            restore_s, strands_rss, of_strands = _in_child("strands", work, size, scale)
            restores["strands"] = Stats.of([restore_s])
            measured.update(of_strands)
    else:
        # Restores, interleaved; the agents of the last round run the cycles.
        restore_sides: dict[str, Callable[[], float]] = {
            name: _restore_timer(sides[name]) for name in ("reference", "strands") if name in sides
        }
        restores = interleaved(restore_sides, _repeats(RESTORES[scale], size))
        if rss:
            rss_mib = _peak_rss_mib("reference", plain.root, plain.session_id)
            if strands is not None:
                strands_rss = _peak_rss_mib("strands", sides["strands"].root, sides["strands"].session_id)
        measured = _after_restore(scale, size, sides)

    ref = measured["reference"]
    assert ref.written is not None
    row = Row(
        messages=size,
        save=_stats(ref.cycles, "save"),
        save_cpu=_stats(ref.cycles, "save_cpu"),
        save_store_signed=_stats(measured["store-signed"].cycles, "save")
        if "store-signed" in measured
        else None,
        save_agent_signed=_stats(measured["agent-signed"].cycles, "save")
        if "agent-signed" in measured
        else None,
        first_save=ref.first_save,
        invocation=_stats(ref.cycles, "total"),
        restore=restores["reference"],
        written=ref.written,
        rss_mib=rss_mib,
    )
    if strands is not None:
        peer_measured = measured["strands"]
        row.strands_save = _stats(peer_measured.cycles, "save")
        row.strands_save_cpu = _stats(peer_measured.cycles, "save_cpu")
        row.strands_first_save = peer_measured.first_save
        row.strands_invocation = _stats(peer_measured.cycles, "total")
        row.strands_restore = restores["strands"]
        row.strands_written = peer_measured.written
        row.strands_rss_mib = strands_rss
        row.strands_build_s = build_s
    row.wall_s = time.perf_counter() - started
    return row


def _stats(cycles: list[Cycle], part: str) -> Stats:
    return Stats.of([getattr(cycle, part) for cycle in cycles])


def _repeats(by_size: dict[int, int], size: int) -> int:
    """The repeats for ``size``: the entry of the largest listed size not above it."""
    return by_size[max(k for k in by_size if k <= size)]


def _restore_into(side: _Reference | _Strands) -> float:
    started = time.perf_counter()
    side.agent = side.restore()
    return time.perf_counter() - started


def _restore_timer(side: _Reference | _Strands) -> Callable[[], float]:
    return lambda: _restore_into(side)


def measure(scale: Scale, strands: Any | None) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="roc-bench-sessions-") as tmp:
        for index, size in enumerate(SIZES[scale]):
            work = Path(tmp) / str(size)
            row = _measure_size(scale, size, work, strands, rss=scale == "full" or index == 0)
            started = time.perf_counter()
            # 100,000 strands message files are not kept for the next size. Deleting them once they are on
            # the disk takes tens of seconds, part of this length's cost to the run.
            shutil.rmtree(work)
            if row.wall_s is not None:
                row.wall_s += time.perf_counter() - started
            rows.append(row)
    return rows


@dataclass
class FlatCheck:
    """The reference's saves at the shortest and the longest history, measured in one process, interleaved."""

    sizes: tuple[int, int]
    cpu: tuple[Stats, Stats]
    wall: tuple[Stats, Stats]


def flat_check(scale: Scale) -> FlatCheck:
    """Cycles of two agents restored side by side, one per end of ``SIZES``, alternating A B A B.

    The table's rows come from different processes at different moments (a child per side from 10,000 on), so
    their difference mixes the history length with the machine's load and each process's state; the
    flat-save target compares like with like instead: same process, same moments, only the length differs.
    """
    sizes = (SIZES[scale][0], SIZES[scale][-1])
    cycles: dict[str, list[Cycle]] = {}
    with tempfile.TemporaryDirectory(prefix="roc-bench-flat-") as tmp:
        sides = {}
        for size in sizes:
            side = _Reference(Path(tmp), f"flat-{size}")
            side.build(history(size))
            side.agent = side.restore()
            side.open(restored=True)  # the first save after the restore compares once; not part of this

            def run_cycle(name: str = str(size), side: _Reference = side) -> float:
                cycle = side.cycle()
                cycles.setdefault(name, []).append(cycle)
                return cycle.save

            sides[str(size)] = run_cycle
        interleaved(sides, FLAT_CYCLES[scale])
    short, long = (cycles[str(size)] for size in sizes)
    return FlatCheck(
        sizes,
        (_stats(short, "save_cpu"), _stats(long, "save_cpu")),
        (_stats(short, "save"), _stats(long, "save")),
    )


def _targets(rows: list[Row], flat_run: FlatCheck, strands_installed: bool) -> list[Target]:
    last = rows[-1]
    (short, long), (cpu_short, cpu_long) = flat_run.sizes, flat_run.cpu
    cpu = cpu_long.median / cpu_short.median - 1
    wall = flat_run.wall[1].median / flat_run.wall[0].median - 1
    wall_min = flat_run.wall[1].min / flat_run.wall[0].min - 1
    flat = Target(
        goal=f"reference store: save time per cycle flat, at most +{FLAT_GOAL:.0%} from {short:,} to "
        f"{long:,} messages (CPU time of the saving thread, medians; both lengths in one process, "
        "interleaved)",
        measured=f"CPU {cpu:+.1%} ({cpu_short.median * 1e3:.3f} -> {cpu_long.median * 1e3:.3f} ms, "
        f"{cpu_long.n} cycles each); wall median {wall:+.1%}, wall minimum {wall_min:+.1%}",
        met=cpu <= FLAT_GOAL,
    )
    base = rows[-2] if len(rows) > 2 else rows[0]
    per = [r.restore.median / r.messages for r in (base, last)]
    linear = Target(
        goal=f"reference store: restore linear (time per message at {last.messages:,} within "
        f"{LINEAR_GOAL:g}x of that at {base.messages:,})",
        measured=f"{per[0] * 1e6:.1f} -> {per[1] * 1e6:.1f} us/message ({per[1] / per[0]:.2f}x)",
        met=per[1] / per[0] <= LINEAR_GOAL,
    )
    if not strands_installed:
        peer = Target("strands-agents FileSessionManager measured in the same run", NOT_INSTALLED, None)
    else:
        ratios = []
        for row in rows:
            data = row.to_json()
            ratios.append(
                f"{row.messages:,}: save {data['save_ratio']:.2f}x, restore {data['restore_ratio']:.2f}x"
            )
        peer = Target(
            "strands-agents FileSessionManager measured in the same run (strands / reference, medians)",
            "; ".join(ratios),
            True,
        )
    return [flat, linear, peer]


METHOD = f"""\
For each history length H a session of H messages (groups of a prompt, a tool use with its input, its
JSON tool result and an answer) is written through each side's own store: the reference's
`FileSessionManager.save` of one snapshot; for strands-agents an `Agent` with its `FileSessionManager`
creates the session, the first {STRANDS_API_BUILD["full"]:,} messages go through `create_message` (one
file each) and the rest are written as the same JSON files directly (from {BUILD_IN_PARALLEL[0]:,}
messages by {BUILD_IN_PARALLEL[1]} processes: the API's temporary file and rename per message would dominate
the run). An agent is then restored from each session (reference: `Agent(model, session=manager)`; strands:
`Agent(session_manager=FileSessionManager(...), conversation_manager=NullConversationManager())`, which keeps
the whole history in memory as a RoC agent does) and runs cycles: one invocation with a prompt and a model
that answers the same text in constant time, so each cycle adds 2 messages on both sides.

* **Save per cycle**: the seconds inside the session store during one invocation, summed. Reference: its
  `FileSessionManager.save` (two calls: the claim before the run and the end save, each a compare-and-set
  with fsyncs). Strands: `append_message` (one file per message) and `sync_agent` (agent.json), every call
  its hooks make. The claim ledger's own files (reference) are outside this column and inside the next.
  Beside the wall time, the CPU time of the thread making those calls (`time.thread_time`): what the
  store computes, without the shared disk's fsync waits. The flat-save target is judged on it, from a
  separate run of the shortest and the longest history restored side by side in this process, their
  cycles alternating (`flat_check`): the rows above come from different processes and moments.
* **Invocation**: the whole `invoke` / `agent(prompt)` call.
* Cycles run interleaved reference, reference with a store-signing key, strands (rotating order; where
  strands runs fewer cycles the reference sides go on alone, still alternating), median and min/max over
  the cycles; H is the length when the cycles start (each adds 2). Reference {CYCLES["full"]} cycles at every
  length; strands {CYCLES["full"]} up to 1,000, {STRANDS_CYCLES["full"][10_000]} at 10,000,
  {STRANDS_CYCLES["full"][100_000]} at 100,000 (an invocation there takes seconds).
* **First save**: the save seconds of the first cycle after the restore, reported separately (one sample).
* **Store-signed**: up to {SIGNED_UP_TO["full"]:,} messages. **Agent-signed** (the agent tags every snapshot
  itself, `signing_key_id`): at {AGENT_SIGNED_AT["full"]:,} messages only, {AGENT_SIGNED_CYCLES["full"]}
  cycles after the others.
* **Restore**: building the agent from the stored session, median; also per message.
* **Bytes per cycle**: the last cycle of each side also counts what it writes, with the session files
  diffed around every store call (new or replaced files count whole, appended files their growth). The
  directory walks stay outside the timed store calls and their seconds are taken off that cycle's
  invocation time.
* **Peak RSS**: in a fresh process, how much the peak resident set (`VmHWM`) grows from after a warm-up
  (the imports, and a restore and a cycle on a 10-message session, then dropped) to after restoring the
  agent and holding it (the peak includes what the restore parses on the way).

**Where each number comes from.** Up to 1,000 messages everything but the peak RSS runs in the benchmark
process: the restores interleaved ({RESTORES["full"][0]} rounds), then the cycles; the peak RSS comes from a
fresh child per side. At 10,000 and 100,000 messages a restore takes seconds (tens at 100,000), so each side
restores once: a fresh child process per side, after the same warm-up, times that restore (one sample),
measures the peak RSS, then runs the first save, that side's cycles and the bytes cycle. The two sides'
children run one after the other, so at these two lengths the sides are not interleaved.

Strands' file store writes each file with `os.replace` but never fsyncs; the reference fsyncs every log
append, state document and directory change, so the save columns favour strands in durability.
"""


def _tables(rows: list[Row]) -> list[Table]:
    data = [r.to_json() for r in rows]
    saves = Table(
        "Persisting one cycle (2 messages): ms per invocation, medians",
        [
            Column("messages", "messages", "{:,}"),
            Column("save_ms", "reference save", "{:.3f}"),
            Column("save_min_ms", "min", "{:.3f}"),
            Column("save_max_ms", "max", "{:.3f}"),
            Column("save_cpu_ms", "reference save CPU", "{:.3f}"),
            Column("store_signed_ms", "store-signed", "{:.3f}"),
            Column("agent_signed_ms", "agent-signed", "{:.3f}"),
            Column("first_save_ms", "first after restore", "{:.3f}"),
            Column("strands_save_ms", "strands session", "{:.3f}"),
            Column("strands_save_min_ms", "min", "{:.3f}"),
            Column("strands_save_max_ms", "max", "{:.3f}"),
            Column("strands_save_cpu_ms", "strands CPU", "{:.3f}"),
            Column("save_ratio", "strands / reference", "{:.1f}x"),
            Column("invocation_ms", "reference invocation", "{:.3f}"),
            Column("strands_invocation_ms", "strands invocation", "{:.3f}"),
        ],
        data,
    )
    restore = Table(
        "Restoring an agent from the stored session",
        [
            Column("messages", "messages", "{:,}"),
            Column("restore_ms", "reference ms", "{:.1f}"),
            Column("restore_us_per_message", "reference us/message", "{:.1f}"),
            Column("strands_restore_ms", "strands ms", "{:.1f}"),
            Column("strands_restore_us_per_message", "strands us/message", "{:.1f}"),
            Column("restore_ratio", "strands / reference", "{:.1f}x"),
        ],
        data,
    )
    space = Table(
        "Bytes written per cycle and peak RSS of a restored idle agent",
        [
            Column("messages", "messages", "{:,}"),
            Column("written", "reference B/cycle", "{:,}"),
            Column("strands_written", "strands B/cycle", "{:,}"),
            Column("rss_mib", "reference MiB", "{:.1f}"),
            Column("strands_rss_mib", "strands MiB", "{:.1f}"),
        ],
        data,
    )
    return [saves, restore, space]


PROFILE_NOTES = (
    "Why the reference's save does not grow with the history: the agent serializes each message once, "
    "when it is appended (`roc_reference.history`), and lends that append-only JSON list, tagged with its"
    " lineage, to the file store, which appends the new lines to the log of the lineage it committed "
    "without comparing the stored prefix. Any other list (another caller's, a history cut back by a "
    "rollback) is compared in full as before, so what is stored still equals the agent's state "
    "(ROC-SESSION-013). A profile (cProfile) of steady-state cycles at 100,000 messages shows the two "
    "saves spending their time in fsync and file replacement; no call in them walks the history.",
    "The first save after a restore compares the stored messages with the restored agent's once (the "
    "store has not yet seen the agent's lineage): O(history), the 'first after restore' column, a "
    "fraction of the restore itself.",
    "Store-signed: the store tags each snapshot reusing the HMAC state of the committed prefix, so it "
    "stays flat. Agent-signed (`signing_key_id`): the agent tags the whole snapshot in one pass at each "
    "save, O(history) by nature. Store-signed runs up to 10,000 messages (it needs its own session and "
    "restore); agent-signed at 1,000 only, since its growth with the history is known by construction and "
    "one length shows its cost beside the plain save.",
    "Outside the saves a reference invocation still grows slightly with the history: the loop hands the "
    "model a tuple copy of the history at each model call (a pointer copy).",
    "Strands: `sync_agent` runs three times a cycle and each call walks the whole history to prune its "
    "held records, so its save grows with the history; its invocation grows faster, from deep copies of "
    "the history per model call in the event loop and the telemetry tracer serializing every message "
    "(cProfile at 3,000 messages).",
)


def run(scale: Scale) -> Section:
    strands = _strands()
    rows = measure(scale, strands)
    flat_run = flat_check(scale)
    notes = list(PROFILE_NOTES)
    if strands is None:
        notes.append(f"The strands columns are empty: {NOT_INSTALLED}.")
    else:
        built = ", ".join(f"{r.messages:,}: {r.strands_build_s:.1f} s" for r in rows if r.strands_build_s)
        notes.append(f"Writing the strands sessions took {built}.")
    walls = ", ".join(f"{r.messages:,}: {r.wall_s:.0f} s" for r in rows if r.wall_s is not None)
    notes.append(
        f"This run's wall time by history length, building and deleting the sessions included: {walls}."
    )
    return Section(
        key="sessions",
        title="Sessions against history length",
        method=METHOD,
        tables=_tables(rows),
        targets=_targets(rows, flat_run, strands is not None),
        notes=notes,
    )
