"""A reference adapter process that crashes (exits) on its first Invoke: ``python fault_adapter.py``.

Used to check that the runner reports ERROR, restarts a managed adapter, and still writes its report.
"""

from __future__ import annotations

import os
import sys
import threading

import grpc
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb
from roc_reference.harness.server import HarnessServicer, make_server


class CrashingServicer(HarnessServicer):
    def Invoke(self, request: hpb.InvokeRequest, context: grpc.ServicerContext) -> hpb.InvokeResponse:
        os._exit(3)


def main() -> int:
    server, port = make_server("127.0.0.1", 0, servicer=CrashingServicer())
    server.start()
    print(f"ROC-HARNESS-LISTENING 127.0.0.1:{port}", flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
