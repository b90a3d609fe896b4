"""The committed vectors are exactly what conformance/vectors/tools/write_v1.py writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "vectors"


def test_committed_vectors_equal_the_generator_output() -> None:
    spec = importlib.util.spec_from_file_location("write_v1", VECTORS / "tools" / "write_v1.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines VECTORS; writes nothing unless run as a script
    expected = module.rendered()
    committed = {p.name: p.read_text(encoding="utf-8") for p in (VECTORS / "v1").glob("*.json")}
    assert sorted(committed) == sorted(expected), "run conformance/vectors/tools/write_v1.py"
    stale = [name for name, body in expected.items() if committed[name] != body]
    assert stale == [], f"stale vectors (re-run write_v1.py): {stale}"
