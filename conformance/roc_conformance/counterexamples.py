"""Write the state machine's shrunk counterexamples as static vector files (``--save-counterexamples``).

Each file is a vector (conformance/vectors/vector.schema.json) named ``<first requirement>-<hash>.json``;
its ``id`` is the same name, so after a review of its expectations it can be copied into
conformance/vectors/v1/ as it is. The hash covers the vector's content, so one counterexample found twice
is written once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from roc_conformance.canonical import canonical_bytes
from roc_conformance.checks.base import CheckResult, Status


def vector_name(vector: dict[str, Any]) -> str:
    """``roc-replay-002-1a2b3c4d``: the first requirement the vector names and a short content hash."""
    body = {k: v for k, v in vector.items() if k != "id"}
    digest = hashlib.sha256(canonical_bytes(body)).hexdigest()[:8]
    return f"{str(vector['requirements'][0]).lower()}-{digest}"


def save_vector(vector: dict[str, Any], directory: Path) -> Path:
    """Write ``vector`` into ``directory`` under its name; returns the path."""
    name = vector_name(vector)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    doc = {"id": name, **{k: v for k, v in vector.items() if k != "id"}}
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def save_counterexamples(results: Iterable[CheckResult], directory: Path) -> list[Path]:
    """Save the vector of every failed check that carries one, and name the file in its result."""
    written: list[Path] = []
    for result in results:
        if result.status is Status.FAIL and result.vector is not None:
            path = save_vector(result.vector, directory)
            result.counterexample_file = str(path)
            written.append(path)
    return written


def rpcs_after_create(counterexample: str) -> int:
    """How many RPCs a state machine's counterexample sends after its CreateAgent: the transcript lines of its
    steps (an Invoke each; a snapshot + restore shows as its TakeSnapshot and its RestoreAgent)."""
    transcript, _, _ = counterexample.partition("\n\n")
    return sum(1 for line in transcript.splitlines() if line.startswith("[step "))
