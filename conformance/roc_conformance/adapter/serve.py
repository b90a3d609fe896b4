"""Running an adapter as a process: bind, announce the address, serve until SIGTERM or SIGINT.

The announcement is the first stdout line, ``ROC-HARNESS-LISTENING host:port``: with ``--port 0`` the
operating system picks the port, and a runner that started the process (``--target reference`` or
``--target cmd:...``) reads the line to know where to dial (``roc_conformance.target``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent import futures
from typing import Any, TextIO

import grpc

from roc_conformance.adapter.service import HarnessService, RuntimeAdapter
from roc_conformance.pb.roc.conformance.v1 import harness_pb2_grpc as hgrpc
from roc_conformance.target import LISTENING_PREFIX


def make_server(
    servicer: hgrpc.HarnessServiceServicer, host: str = "127.0.0.1", port: int = 0, *, workers: int = 8
) -> tuple[grpc.Server, int]:
    """A gRPC server for ``servicer``, bound but not started, and the port it bound."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="roc-harness"))
    hgrpc.add_HarnessServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    return server, bound


def serve(
    adapter: RuntimeAdapter[Any] | hgrpc.HarnessServiceServicer,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    workers: int = 8,
    stop: threading.Event | None = None,
    out: TextIO | None = None,
) -> int:
    """Serve ``adapter`` (or a ready servicer) until SIGTERM/SIGINT, or until ``stop`` is set; returns 0.

    Prints ``ROC-HARNESS-LISTENING host:port`` to ``out`` (stdout) once the server listens, and flushes.
    Signal handlers are installed only when called from the main thread (Python allows no other).
    """
    servicer = HarnessService(adapter) if isinstance(adapter, RuntimeAdapter) else adapter
    stop = stop if stop is not None else threading.Event()
    server, bound = make_server(servicer, host, port, workers=workers)
    server.start()
    stream = out if out is not None else sys.stdout
    print(f"{LISTENING_PREFIX}{host}:{bound}", file=stream, flush=True)
    if threading.current_thread() is threading.main_thread():

        def handle(signum: int, frame: object) -> None:
            stop.set()

        signal.signal(signal.SIGTERM, handle)
        signal.signal(signal.SIGINT, handle)
    stop.wait()
    server.stop(grace=1.0).wait()
    if isinstance(servicer, HarnessService):
        servicer.close()
    return 0


def main(
    adapter_factory: Callable[[], RuntimeAdapter[Any]],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    description: str = "Serve a RoC runtime over the conformance harness (gRPC).",
) -> int:
    """The entry point of an adapter script: ``--host``, ``--port`` (0: a free port), ``--workers``.

    ``adapter_factory`` is called after the arguments are parsed, so ``--help`` never builds a runtime.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (0: pick a free one; the default)")
    parser.add_argument("--workers", type=int, default=8, help="gRPC worker threads (default 8)")
    args = parser.parse_args(argv)
    return serve(adapter_factory(), args.host, args.port, workers=args.workers)
