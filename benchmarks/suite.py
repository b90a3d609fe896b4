"""The suite's own speed: scenarios judged per second over gRPC and in-process, the grpcio floor, certify.

A *scenario* is measured in its two kinds, each run as the runner runs it (``runner.run_check`` with the
wire-schema observer on the client, agents disposed after each check):

* a **static vector**: one ``vector:*`` check (a fixed agent spec and its steps, every step judged against
  the oracle and the vector's expectations);
* a **state-machine example**: one example Hypothesis draws in ``machine:sequential`` (a drawn agent spec,
  then up to 20 drawn steps, each judged against the oracle), at the certify settings but fewer examples.

Over gRPC the reference adapter runs in a child process (``roc_reference.cli serve``, what ``--target
reference`` starts); in-process the same servicer class is called directly by a stub that hands it the
request message (no serialization, no HTTP/2, no thread hop), behind the same ``HarnessClient``. The floor
is a raw grpcio unary round trip to a child process that echoes bytes. Certify is ``roc-conformance run
--target reference --peer reference`` as a subprocess, its stage times read from its report.json.

``python -m benchmarks.suite --profile`` writes a pyinstrument profile of ``machine:sequential`` run
in-process (suite and adapter in one thread, so both show) under ``reports/``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
from roc_conformance.checks.base import Check, CheckContext, Status
from roc_conformance.checks.stateful import machine_checks
from roc_conformance.checks.vectors import vector_checks
from roc_conformance.checks.wire_schema import SchemaObserver
from roc_conformance.client import HarnessClient, Timeouts
from roc_conformance.runner import run_check
from roc_conformance.settings import CERTIFY, RunSettings
from roc_conformance.target import LISTENING_PREFIX, Target, reference_command, start_managed

from benchmarks.common import Column, Scale, Section, Stats, Table, interleaved, ratio
from benchmarks.common import Target as Goal

ROOT = Path(__file__).resolve().parents[1]
MACHINE = "machine:sequential"
"""The state-machine check timed: the sequential executor's (the concurrent one draws alike, see notes)."""
ECHO_METHOD = "/bench.Echo/Call"


@dataclass(frozen=True)
class Plan:
    vectors: int | None  # how many vector checks (None: all)
    vector_repeats: int
    machine_examples: int
    machine_repeats: int
    floor_calls: int
    floor_repeats: int
    certify: bool


PLANS: dict[str, Plan] = {
    "full": Plan(None, 3, 40, 3, 2000, 3, True),
    "quick": Plan(4, 2, 2, 2, 50, 2, False),
}

GOAL_RATE = 100.0
GOAL_CERTIFY_SECONDS = 60.0


# -- the in-process stub --------------------------------------------------------------------------------


class _Context:
    """The little of ``grpc.ServicerContext`` a servicer may touch; the reference's uses none of it."""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise RuntimeError(f"servicer aborted: {code} {details}")

    def is_active(self) -> bool:
        return True


class DirectStub:
    """The harness service's unary methods, calling a servicer in this process with the request message."""

    def __init__(self, servicer: Any) -> None:
        self._servicer = servicer
        self._context = _Context()

    def __getattr__(self, rpc: str) -> Callable[..., Any]:
        method = getattr(self._servicer, rpc)

        def call(request: Any, timeout: float | None = None) -> Any:
            return method(request, self._context)

        return call


class CountingStub:
    """Counts the calls per RPC on the way to another stub (the same thin layer on both sides)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.counts: dict[str, int] = {}

    def __getattr__(self, rpc: str) -> Callable[..., Any]:
        method = getattr(self._inner, rpc)

        def call(request: Any, timeout: float | None = None) -> Any:
            self.counts[rpc] = self.counts.get(rpc, 0) + 1
            return method(request, timeout=timeout)

        return call


@dataclass
class Side:
    """One way of reaching the adapter: its client (with the runner's schema observer) and its counter."""

    client: HarnessClient
    counter: CountingStub
    close: Callable[[], None]

    def context(self, settings: RunSettings) -> CheckContext:
        return CheckContext(self.client, self.client.describe(), settings)


def grpc_side(address: str) -> Side:
    from roc_conformance.client import MAX_REPLY_BYTES
    from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc

    channel = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", MAX_REPLY_BYTES)])
    counter = CountingStub(hgrpc.HarnessServiceStub(channel))  # type: ignore[no-untyped-call]
    client = HarnessClient(channel, target=address, timeouts=Timeouts(), stub=counter)
    client.observers.append(SchemaObserver())
    return Side(client, counter, client.close)


def direct_side() -> Side:
    from roc_reference.harness.server import HarnessServicer

    servicer = HarnessServicer()
    counter = CountingStub(DirectStub(servicer))
    client = HarnessClient(None, target="in-process", stub=counter)
    client.observers.append(SchemaObserver())
    return Side(client, counter, servicer.close)


@contextmanager
def reference_adapter() -> Iterator[Target]:
    """The reference adapter in a child process, as ``--target reference`` starts it."""
    target = start_managed(reference_command(), "reference")
    try:
        yield target
    finally:
        target.stop()


# -- scenarios ------------------------------------------------------------------------------------------


@dataclass
class Workload:
    """A list of checks and the settings they run with; one run judges ``scenarios`` scenarios."""

    kind: str
    checks: list[Check]
    settings: RunSettings
    scenarios: int

    def runner(self, side: Side, statuses: list[str], rpcs: list[int]) -> Callable[[], float]:
        ctx = side.context(self.settings)

        def once() -> float:
            before = sum(side.counter.counts.values())
            started = time.perf_counter()
            for chk in self.checks:
                statuses.append(run_check(chk, ctx).status)
            elapsed = time.perf_counter() - started
            rpcs.append(sum(side.counter.counts.values()) - before)
            return elapsed

        return once


def workloads(plan: Plan) -> list[Workload]:
    vectors = [c for c in vector_checks()]
    if plan.vectors is not None:
        vectors = vectors[: plan.vectors]
    machine = [c for c in machine_checks() if c.name == MACHINE]
    settings = replace(CERTIFY, max_examples=plan.machine_examples)
    return [
        Workload("static vector", vectors, CERTIFY, len(vectors)),
        Workload("state-machine example", machine, settings, plan.machine_examples),
    ]


def measure_scenarios(plan: Plan, address: str) -> list[dict[str, Any]]:
    rows = []
    remote, local = grpc_side(address), direct_side()
    try:
        for work in workloads(plan):
            statuses: dict[str, list[str]] = {"grpc": [], "in-process": []}
            rpcs: dict[str, list[int]] = {"grpc": [], "in-process": []}
            sides = {
                "grpc": work.runner(remote, statuses["grpc"], rpcs["grpc"]),
                "in-process": work.runner(local, statuses["in-process"], rpcs["in-process"]),
            }
            for run_once in sides.values():  # warm-up: imports and caches, outside the timing
                run_once()
            for listed in statuses.values():
                listed.clear()
            for counted in rpcs.values():
                counted.clear()
            repeats = plan.vector_repeats if work.kind == "static vector" else plan.machine_repeats
            stats = interleaved(sides, repeats)
            rows.append(_scenario_row(work, stats, statuses, rpcs))
    finally:
        remote.close()
        local.close()
    return rows


def _scenario_row(
    work: Workload, stats: dict[str, Stats], statuses: dict[str, list[str]], rpcs: dict[str, list[int]]
) -> dict[str, Any]:
    over, inproc = stats["grpc"], stats["in-process"]
    rpcs_per_run = rpcs["grpc"][0]
    return {
        "kind": work.kind,
        "scenarios": work.scenarios,
        "rpcs_per_scenario": rpcs_per_run / work.scenarios,
        "same_rpcs": len(set(rpcs["grpc"] + rpcs["in-process"])) == 1,
        "passed": all(s == Status.PASS for s in statuses["grpc"] + statuses["in-process"]),
        "repeats": over.n,
        "grpc_s": over.median,
        "grpc_min_s": over.min,
        "grpc_max_s": over.max,
        "inproc_s": inproc.median,
        "inproc_min_s": inproc.min,
        "inproc_max_s": inproc.max,
        "grpc_rate": work.scenarios / over.median,
        "inproc_rate": work.scenarios / inproc.median,
        "ratio": ratio(over.median, inproc.median),
        "overhead_us_per_rpc": (over.median - inproc.median) / rpcs_per_run * 1e6,
    }


# -- the grpcio floor -----------------------------------------------------------------------------------


def _echo_server() -> int:
    """Serve ``ECHO_METHOD`` (bytes in, the same bytes out) on a free loopback port until killed."""

    def echo(request: bytes, context: grpc.ServicerContext) -> bytes:
        return request

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Call": grpc.unary_unary_rpc_method_handler(echo)}
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(f"{LISTENING_PREFIX}127.0.0.1:{port}", flush=True)
    server.wait_for_termination()
    return 0


def measure_floor(plan: Plan, payload: int = 64) -> Stats:
    """Seconds per raw grpcio unary round trip (``payload`` bytes each way) to a child process."""
    target = start_managed([sys.executable, "-m", "benchmarks.suite", "--echo-server"], "echo")
    try:
        with grpc.insecure_channel(target.address) as channel:
            call = channel.unary_unary(ECHO_METHOD)
            body = b"x" * payload
            for _ in range(100):  # connection set-up and warm-up
                call(body, timeout=10)

            def batch() -> float:
                started = time.perf_counter()
                for _ in range(plan.floor_calls):
                    call(body, timeout=10)
                return (time.perf_counter() - started) / plan.floor_calls

            return interleaved({"floor": batch}, plan.floor_repeats)["floor"]
    finally:
        target.stop()


# -- certify ----------------------------------------------------------------------------------------------


def measure_certify() -> dict[str, Any]:
    """One ``roc-conformance run --target reference --peer reference`` (what ``make run`` does)."""
    with tempfile.TemporaryDirectory(prefix="roc-bench-certify-") as tmp:
        command = [sys.executable, "-m", "roc_conformance.cli", "run", "--target", "reference"]
        command += ["--peer", "reference", "--quiet", "--report-dir", tmp]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        path = Path(tmp) / "report.json"
        if not path.is_file():
            raise RuntimeError(f"certify wrote no report (exit {done.returncode}): {done.stderr[-2000:]}")
        report = json.loads(path.read_text(encoding="utf-8"))
    return certify_row(report, wall, done.returncode)


def certify_row(report: dict[str, Any], wall: float, exit_code: int) -> dict[str, Any]:
    by_kind: dict[str, float] = {}
    for chk in report["checks"]:
        by_kind[chk["kind"]] = by_kind.get(chk["kind"], 0.0) + chk["durationSeconds"]
    machines = {c["name"]: c["durationSeconds"] for c in report["checks"] if c["kind"] == "machine"}
    return {
        "wall_s": wall,
        "run_s": report["durationSeconds"],
        "exit": exit_code,
        "verdict": report["verdict"],
        "rpcs": report["rpcCount"],
        "checks": len(report["checks"]),
        "machine_max_s": max(machines.values(), default=0.0),
        "machine_sum_s": by_kind.get("machine", 0.0),
        "vector_s": by_kind.get("vector", 0.0),
        "explicit_s": by_kind.get("explicit", 0.0),
        "machines": machines,
    }


# -- the section ------------------------------------------------------------------------------------------

METHOD = """\
**Scenario.** Two kinds are timed, each as the runner runs it (`runner.run_check`, the wire-schema observer on
the client, leftover agents disposed after each check): a *static vector* is one `vector:*` check (a fixed
agent spec and its steps, every step judged against the oracle and the vector's expectations); a
*state-machine example* is one example Hypothesis draws in `machine:sequential` (an agent spec and up to 20
steps, each judged against the oracle), at the certify settings with fewer examples (derandomized, so every
repeat and both sides judge the very same examples: the RPC counts are compared). The target is judged on
the state-machine example: it is what a certify run spends nine tenths of its time on, so it is the rate a
user waits for; the vectors are shown beside it.

**Over gRPC vs in-process.** Over gRPC the client talks to the reference adapter in a child process
(`python -m roc_reference.cli serve --port 0`, what `--target reference` starts). In-process, the same
`HarnessClient` is given a stub that calls a `HarnessServicer` of this process with the request message
itself, so the difference is the transport: serialization, HTTP/2 on loopback, the server's thread hop, and
the second process. A thin counting layer sits in front of both stubs (it counts the RPCs). Each side runs
the whole list once as a warm-up, then the two alternate A B A B (`interleaved`); medians with min/max.
`overhead per RPC` is (gRPC - in-process) / RPCs.

**Floor.** A raw grpcio unary round trip (64 bytes each way, a generic handler that echoes them) to a child
process on loopback, timed over batches of calls; floor x RPCs per scenario is what the transport costs at
the least.

**Certify.** One `roc-conformance run --target reference --peer reference --quiet` as a subprocess (what `make
run` does), its wall time, and from its report.json the checks' durations by kind. The two state machines
run side by side (one in a child process), so the state-machine stage takes about the longer of the two.
"""


def run(scale: Scale) -> Section:
    plan = PLANS[scale]
    with reference_adapter() as adapter:
        rows = measure_scenarios(plan, adapter.address)
    floor = measure_floor(plan)
    for row in rows:
        row["floor_share"] = floor.median * row["rpcs_per_scenario"] * row["scenarios"] / max(
            row["grpc_s"] - row["inproc_s"], 1e-9
        )
    certify = measure_certify() if plan.certify else None
    return section(rows, floor, certify)


def section(rows: list[dict[str, Any]], floor: Stats, certify: dict[str, Any] | None) -> Section:
    scenario_table = Table(
        "Scenarios judged per second",
        [
            Column("kind", "scenario"),
            Column("scenarios", "per run", "{:,}"),
            Column("rpcs_per_scenario", "RPCs / scenario", "{:.1f}"),
            Column("grpc_rate", "gRPC /s", "{:.1f}"),
            Column("inproc_rate", "in-process /s", "{:.1f}"),
            Column("ratio", "gRPC / in-process time", "{:.2f}x"),
            Column("grpc_s", "gRPC s (median)", "{:.3f}"),
            Column("grpc_min_s", "min", "{:.3f}"),
            Column("grpc_max_s", "max", "{:.3f}"),
            Column("inproc_s", "in-process s (median)", "{:.3f}"),
            Column("inproc_min_s", "min", "{:.3f}"),
            Column("inproc_max_s", "max", "{:.3f}"),
            Column("overhead_us_per_rpc", "overhead / RPC (us)", "{:.0f}"),
            Column("floor_share", "floor share of overhead", "{:.0%}"),
            Column("same_rpcs", "same RPCs each run"),
            Column("passed", "all PASS"),
        ],
        rows,
    )
    floor_us = floor.scaled(1e6)
    floor_table = Table(
        "Raw grpcio unary round trip (loopback, 64 bytes each way)",
        [
            Column("median_us", "median (us)", "{:.0f}"),
            Column("min_us", "min (us)", "{:.0f}"),
            Column("max_us", "max (us)", "{:.0f}"),
            Column("batches", "batches"),
        ],
        [{"median_us": floor_us.median, "min_us": floor_us.min, "max_us": floor_us.max, "batches": floor.n}],
    )
    tables = [scenario_table, floor_table]
    machine = next(r for r in rows if r["kind"] == "state-machine example")
    targets = [
        Goal(
            f">= {GOAL_RATE:.0f} scenarios (state-machine examples) judged per second over gRPC",
            f"{machine['grpc_rate']:.1f}/s over gRPC, {machine['inproc_rate']:.1f}/s in-process "
            f"({machine['rpcs_per_scenario']:.1f} RPCs each)",
            machine["grpc_rate"] >= GOAL_RATE,
        )
    ]
    if certify is None:
        targets.append(Goal(f"certify < {GOAL_CERTIFY_SECONDS:.0f} s", "not run at quick scale", None))
    else:
        tables.append(
            Table(
                "Certify run (reference against reference)",
                [
                    Column("wall_s", "wall s", "{:.1f}"),
                    Column("run_s", "report durationSeconds", "{:.1f}"),
                    Column("verdict", "verdict"),
                    Column("rpcs", "RPCs", "{:,}"),
                    Column("machine_max_s", "state machines (longer)", "{:.1f}"),
                    Column("machine_sum_s", "state machines (sum)", "{:.1f}"),
                    Column("vector_s", "vectors", "{:.1f}"),
                    Column("explicit_s", "explicit checks", "{:.1f}"),
                ],
                [{k: v for k, v in certify.items() if k != "machines"}],
            )
        )
        targets.append(
            Goal(
                f"certify < {GOAL_CERTIFY_SECONDS:.0f} s on this machine",
                f"{certify['wall_s']:.1f} s ({certify['verdict']}, exit {certify['exit']})",
                certify["wall_s"] < GOAL_CERTIFY_SECONDS and certify["exit"] == 0,
            )
        )
    return Section("suite", "The suite's own speed", METHOD, tables, targets, list(NOTES))


NOTES: tuple[str, ...] = (
    'A state-machine example is judged step by step through 30 to 40 RPCs, 60 to 80 % of them snapshot + '
    'restore cycles (TakeSnapshot, DisposeAgent, RestoreAgent, a rule without arguments that the machine '
    'draws often), so its rate is bound by the RPC round trip: the grpcio floor alone is most of a '
    'millisecond on this machine, and the rate is far from 100 examples/s even in-process. A static '
    'vector needs about 6 RPCs.',
    'Profile (2026-12-02, `python -m benchmarks.suite --profile`, machine:sequential in-process, 100 '
    "examples, self time by layer): protobuf's ProtoJSON and the suite's JSON <-> proto mapping 32 %, the"
    ' standard library (json, copies, threading) 24 %, Hypothesis 20 %, the oracle 10 %, the reference '
    'runtime 7 %, jsonschema 4 %. Over gRPC (the runner profiled alone, one machine, serial) the suite '
    'process waited in the channel 37 % of its wall time, and suite CPU 15.4 s + adapter CPU 11.1 s '
    'filled only 26.5 s of the 45 s: the rest is per-RPC wake-ups on a loaded 2-core machine.',
    'Fix from the profile: every Invoke reply repeats the history and much of the trace of the one '
    'before, and both ends mapped all of it through ProtoJSON again; they now map each distinct event and'
    ' message once (adapter kit `_invoke_reply`, client `_decode_invoke`, `wire.many_to_proto` / '
    "`many_from_proto`). Invoke's share of the mapping fell from 2.0 s to 0.7 s of the profile; in-"
    'process A/B (60 examples, 4 rounds) CPU 4.18 -> 3.91 s. Certify A B A B at load 3.9-4.8: before 67.7'
    ' / 71.5 s wall (state machines 55.5 / 63.4 s), after 49.8 / 67.3 s (38.5 / 58.9 s); same verdicts '
    'and the same rpcCount (14167).',
    "Left as they are: InspectAgent replies (now the largest mapping cost), the reference's snapshot "
    'parsing on RestoreAgent (14 % of the in-process profile), and the share of snapshot + restore steps '
    "in the machine's draws (changing it changes the examples).",
)


# -- profile -----------------------------------------------------------------------------------------------


def profile(out_dir: Path, examples: int) -> list[Path]:
    """A pyinstrument profile of ``machine:sequential`` in-process at the certify settings: the HTML, the
    text tree and a flat summary (where the time goes by layer, and the top frames)."""
    from pyinstrument import Profiler

    side = direct_side()
    check = next(c for c in machine_checks() if c.name == MACHINE)
    ctx = side.context(replace(CERTIFY, max_examples=examples))
    profiler = Profiler(interval=0.001)
    try:
        with profiler:
            status = run_check(check, ctx).status
    finally:
        side.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"suite-profile{suffix}" for suffix in (".html", ".txt", "-flat.txt")]
    paths[0].write_text(profiler.output_html(), encoding="utf-8")
    paths[1].write_text(profiler.output_text(unicode=True, color=False), encoding="utf-8")
    rpcs = sum(side.counter.counts.values())
    counts = dict(sorted(side.counter.counts.items()))
    head = f"{MACHINE}: {status}, {examples} examples, {rpcs} RPCs {counts}"
    session = profiler.last_session
    assert session is not None  # the profiler ran
    paths[2].write_text(head + "\n" + flat_summary(session.root_frame()), encoding="utf-8")
    return paths


LAYERS = (
    ("adapter kit", "roc_conformance/adapter/"),
    ("JSON <-> proto", "roc_conformance/pb/"),
    ("suite: oracle", "roc_conformance/oracle/"),
    ("suite", "roc_conformance/"),
    ("reference runtime", "roc_reference/"),
    ("hypothesis", "hypothesis/"),
    ("protobuf", "google/protobuf/"),
    ("jsonschema", "jsonschema/"),
)


def flat_summary(root: Any, top: int = 40) -> str:
    """Self time by layer, then the frames with the most inclusive time (each counted once per stack)."""
    total = root.time or 1e-9
    inclusive: dict[str, float] = {}
    own: dict[str, float] = {}
    by_layer: dict[str, float] = {}

    def walk(frame: Any, above: frozenset[str]) -> None:
        if frame.is_synthetic:
            return
        path = frame.file_path or ""
        key = f"{frame.function}  {frame.file_path_short}"
        if key not in above:
            inclusive[key] = inclusive.get(key, 0.0) + frame.time
        layer = next((name for name, part in LAYERS if part in path), "other")
        by_layer[layer] = by_layer.get(layer, 0.0) + frame.total_self_time
        own[key] = own.get(key, 0.0) + frame.total_self_time
        for child in frame.children:
            walk(child, above | {key})

    walk(root, frozenset())
    lines = [f"total {total:.2f} s", "self time by layer:"]
    layers = sorted(by_layer.items(), key=lambda x: -x[1])
    lines += [f"  {t / total:6.1%}  {t:7.2f} s  {name}" for name, t in layers]
    lines.append("inclusive time, top frames:")
    ranked = sorted(inclusive.items(), key=lambda x: -x[1])[:top]
    lines += [f"  {t / total:6.1%}  {t:7.2f} s  {key}" for key, t in ranked]
    lines.append("self time, top frames:")
    ranked = sorted(own.items(), key=lambda x: -x[1])[:top]
    lines += [f"  {t / total:6.1%}  {t:7.2f} s  {key}" for key, t in ranked]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.suite", description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="write a pyinstrument profile under reports/")
    parser.add_argument("--examples", type=int, default=CERTIFY.max_examples, help="examples to profile")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="the smallest scale")
    args = parser.parse_args(argv)
    if args.echo_server:
        return _echo_server()
    if args.profile:
        for path in profile(ROOT / "reports", args.examples):
            print(path)
        return 0
    print(json.dumps(run("quick" if args.quick else "full").to_json(), indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main(sys.argv[1:]))
