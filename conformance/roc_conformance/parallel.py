"""Run the state-machine checks of one area side by side against the one adapter.

The two state machines (one per executor) are most of a certify run, and each spends its time alternately in
the suite (Hypothesis, the oracle) and waiting on the adapter. Run one after the other they leave a core
idle; run at once they overlap. Threads would share the GIL, so every machine but the last runs in a child
process (its own client, the same adapter address: the adapter isolates agents by handle), while this
process runs the last one. Each child runs the check exactly as the runner would (``runner._attempt``), with
the same settings and examples, and sends back its result, its harness fault and what its replies told the
wire-schema observer; the results are then taken in check order, so the report is the one a serial run gives.

A child that hit a harness fault (a crashed or hung adapter) is not trusted for the checks after it in the
area: those are left to the runner, which restarts the adapter and runs them one by one, as always.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roc_conformance.checks.base import Check, CheckContext, CheckResult, Status
from roc_conformance.client import Description, HarnessClient, Timeouts
from roc_conformance.errors import HarnessFault
from roc_conformance.settings import RunSettings

SERIAL_ENV = "ROC_CONFORMANCE_SERIAL"
"""Set (to anything but empty or 0) to run every check in this process, one after the other."""

ObserverState = tuple[int, list[str], list[str], list[str]]
"""What a wire-schema observer holds: values observed, problems, stop-reason problems, trace problems."""

FaultState = tuple[type[HarnessFault], tuple[Any, ...], dict[str, Any]]


@dataclass
class Outcome:
    """One check run elsewhere: its result and fault as the runner's ``_attempt`` returns them."""

    result: CheckResult
    fault: HarnessFault | None
    rpc_count: int
    observed: ObserverState


@dataclass
class SideBySide:
    """The checks already run, by name; ``rpc_count`` counts the RPCs the child processes sent."""

    done: dict[str, tuple[CheckResult, HarnessFault | None]] = field(default_factory=dict)
    rpc_count: int = 0

    def take(self, name: str) -> tuple[CheckResult, HarnessFault | None] | None:
        return self.done.pop(name, None)


def enabled() -> bool:
    return os.environ.get(SERIAL_ENV, "") in ("", "0")


def _machine_check(name: str) -> Check | None:
    from roc_conformance.checks.stateful import machine_checks

    return next((c for c in machine_checks() if c.name == name), None)


def eligible(chk: Check) -> bool:
    """A state-machine check a child process can rebuild by name (the very check, not a look-alike)."""
    if chk.kind != "machine":
        return False
    same = _machine_check(chk.name)
    return same is not None and same.requirements == chk.requirements and same.profiles == chk.profiles


def observer_state(observer: Any) -> ObserverState:
    return (
        int(observer.observed),
        list(observer.problems),
        list(observer.stop_reason_problems),
        list(observer.trace_problems),
    )


def absorb(observer: Any, state: ObserverState) -> None:
    """Add what another observer saw to ``observer``, as if it had seen those replies itself (same limit)."""
    observed, problems, stop_reasons, traces = state
    observer.observed += observed
    for into, more in (
        (observer.problems, problems),
        (observer.stop_reason_problems, stop_reasons),
        (observer.trace_problems, traces),
    ):
        into.extend(more[: max(0, observer.limit - len(into))])


def _fault_state(fault: HarnessFault | None) -> FaultState | None:
    # A HarnessFault does not survive pickling (its __init__ takes more than its args): send its parts.
    return None if fault is None else (type(fault), fault.args, dict(fault.__dict__))


def _rebuild_fault(state: FaultState | None) -> HarnessFault | None:
    if state is None:
        return None
    cls, args, attrs = state
    fault = cls.__new__(cls)
    fault.args = args
    fault.__dict__.update(attrs)
    return fault


_CONSTANT_KINDS = ("integers", "floats", "bytes", "strings")
Constants = dict[str, list[Any]]


def hypothesis_constants() -> Constants | None:
    """The literals Hypothesis has collected from this process's local modules, by kind.

    Hypothesis mixes such constants into the values it draws (now and then, from its own random stream), and
    collects them from the modules of the working tree *loaded in the process*. A child process loads other
    modules than the runner, so it would draw other examples from the same derandomized seed; it adopts the
    runner's collection instead (``adopt_constants``), and draws exactly the examples of a serial run. This
    reaches into Hypothesis internals: when they are not there, None, and the children use their own.
    """
    try:
        from hypothesis.internal.conjecture import providers

        found = providers._get_local_constants()
        return {kind: sorted(getattr(found, kind), key=repr) for kind in _CONSTANT_KINDS}
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another Hypothesis version
        return None


def adopt_constants(constants: Constants | None) -> bool:
    """Make ``constants`` this process's collection, as if its modules were the runner's (see above)."""
    if constants is None:
        return False
    try:
        from hypothesis.internal.conjecture import providers

        mine = providers._local_constants
        for kind in _CONSTANT_KINDS:
            into = getattr(mine, kind)
            into.clear()  # keeps the container (and the sort key of the floats)
            into.update(constants[kind])
        # Modules loaded here are taken as seen; modules imported later add theirs, as in the runner.
        providers._seen_modules.update(id(m) for m in list(sys.modules.values()))
        providers._sys_modules_len = len(sys.modules)
        providers.CONSTANTS_CACHE.cache.clear()
    except (ImportError, AttributeError, KeyError):  # pragma: no cover - another Hypothesis version
        return False
    return True


ChildReply = tuple[CheckResult, FaultState | None, int, ObserverState]


def _child(
    name: str,
    address: str,
    description: Description,
    settings: RunSettings,
    timeouts: Timeouts,
    deadline: float | None,
    constants: Constants | None,
) -> ChildReply:
    """In the child process: run the named machine check against ``address`` as the runner would."""
    from roc_conformance.checks.wire_schema import SchemaObserver
    from roc_conformance.runner import _attempt

    adopt_constants(constants)
    chk = _machine_check(name)
    if chk is None:  # pragma: no cover - eligible() checked this in the parent
        raise LookupError(f"no state-machine check {name!r}")
    client = HarnessClient.connect(address, timeouts=timeouts)
    client.deadline = deadline  # time.monotonic() is one clock for every process of the machine
    observer = SchemaObserver()
    client.observers.append(observer)
    try:
        ctx = CheckContext(client=client, description=description, settings=settings)
        res, fault = _attempt(chk, ctx)
    finally:
        client.close()
    return res, _fault_state(fault), client.rpc_count, observer_state(observer)


def child_main(job: str) -> int:
    """Entry point of a child process: ``job`` is a pickle of ``_child``'s arguments; the reply goes to
    ``job + ".reply"``. (A plain interpreter, not multiprocessing: that would re-run the parent's main
    script in the child, which a script without a ``__main__`` guard does not survive.)"""
    with open(job, "rb") as f:
        args = pickle.load(f)
    reply = _child(*args)
    with open(job + ".reply.tmp", "wb") as f:
        pickle.dump(reply, f)
    os.replace(job + ".reply.tmp", job + ".reply")
    return 0


@dataclass
class _Child:
    name: str
    job: Path
    process: subprocess.Popen[bytes]

    def reply(self) -> ChildReply | None:
        """The child's reply once it exited; None when it died without one."""
        self.process.wait()
        try:
            with open(str(self.job) + ".reply", "rb") as f:
                got: ChildReply = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        return got

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _start(name: str, directory: Path, args: tuple[Any, ...]) -> _Child:
    job = directory / f"{name.replace(':', '_')}.job"
    with open(job, "wb") as f:
        pickle.dump(args, f)
    command = [
        sys.executable,
        "-c",
        "import sys; from roc_conformance.parallel import child_main; sys.exit(child_main(sys.argv[1]))",
        str(job),
    ]
    return _Child(name, job, subprocess.Popen(command, stdin=subprocess.DEVNULL))


def run_side_by_side(
    run: Any, checks: list[Check], client: HarnessClient, observer: Any, peer: HarnessClient | None
) -> SideBySide:
    """Run ``checks`` (those of one area the runner would run now) at once when they are state machines.

    ``run`` is the runner's run state (target, settings, timeouts, deadline; ``stopped`` is set on Ctrl-C).
    Returns what was run; whatever it leaves out the runner runs itself, one by one.
    """
    from roc_conformance.checks.wire_schema import SchemaObserver
    from roc_conformance.runner import _attempt

    out = SideBySide()
    if not enabled() or len(checks) < 2 or type(client) is not HarnessClient:
        return out
    if not all(eligible(c) for c in checks) or run.stopped is not None or not run.target.alive():
        return out
    *elsewhere, here = checks
    assert run.description is not None
    local = SchemaObserver()
    constants = hypothesis_constants()
    outcomes: dict[str, Outcome] = {}
    children: list[_Child] = []
    with tempfile.TemporaryDirectory(prefix="roc-side-by-side-") as tmp:
        try:
            for chk in elsewhere:
                args = (
                    chk.name,
                    run.target.address,
                    run.description,
                    run.settings,
                    run.timeouts,
                    run.deadline,
                    constants,
                )
                children.append(_start(chk.name, Path(tmp), args))
            # The last check runs here, meanwhile, its replies observed apart (merged in order below).
            client.observers[client.observers.index(observer)] = local
            try:
                ctx = CheckContext(
                    client=client, description=run.description, settings=run.settings, peer=peer
                )
                res, fault = _attempt(here, ctx)
            finally:
                client.observers[client.observers.index(local)] = observer
            outcomes[here.name] = Outcome(res, fault, 0, observer_state(local))
            for child in children:
                got = child.reply()
                if got is not None:  # else the child died: the runner runs its check itself
                    res_c, fault_c, rpcs, seen = got
                    outcomes[child.name] = Outcome(res_c, _rebuild_fault(fault_c), rpcs, seen)
        except KeyboardInterrupt:
            run.stopped = "the run was interrupted"
            return out
        finally:
            for child in children:
                child.kill()
    out.rpc_count = sum(o.rpc_count for o in outcomes.values())
    for chk in checks:
        taken = outcomes.get(chk.name)
        if taken is None:
            break
        out.done[chk.name] = (taken.result, taken.fault)
        absorb(observer, taken.observed)
        if taken.fault is not None or taken.result.status is Status.ERROR:
            break  # the adapter may have died under the later ones: the runner runs them itself
    return out
