"""The reference runtime behind the RoC conformance harness (``roc.conformance.v1.HarnessService``).

This package is the only part of ``roc_reference`` that imports gRPC: it turns AgentSpec scenarios into
``roc_reference.Agent`` objects, records what they do as a trace, and serves them to the suite. It is built on
the Python adapter kit (``roc_conformance.adapter``), which does everything that is not specific to this
runtime: ``build`` puts the kit's pieces on the runtime's API, ``server.ReferenceAdapter`` implements the
kit's ``RuntimeAdapter``.
"""

from __future__ import annotations

from roc_reference import PROFILES  # the profiles the runtime claims; the adapter declares exactly those

__all__ = ["ADAPTER_NAME", "PROFILES"]

ADAPTER_NAME = "roc-reference-harness"
