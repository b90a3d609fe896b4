"""``roc-reference``: command line of the reference runtime.

    roc-reference serve [--host 127.0.0.1] [--port 50051]   serve the runtime over the conformance harness

With ``--port 0`` the OS picks a free port; the first stdout line is always
``ROC-HARNESS-LISTENING host:port`` so a runner that started the process knows where to dial.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _serve(host: str, port: int, workers: int) -> int:
    # Imported here: the runtime core never needs gRPC, only this subcommand does.
    from roc_conformance.adapter import serve

    from roc_reference.harness.server import HarnessServicer

    return serve(HarnessServicer(), host, port, workers=workers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="roc-reference", description="The RoC reference runtime.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="serve the reference runtime over the conformance harness (gRPC)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=50051, help="port (0: pick a free one; default 50051)")
    serve.add_argument("--workers", type=int, default=8, help="gRPC worker threads (default 8)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port, args.workers)
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
