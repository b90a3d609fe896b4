"""The committed stubs in conformance/roc_conformance/pb are fresh, complete and importable."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "proto" / "generate.py"
PB_DIR = REPO / "conformance" / "roc_conformance" / "pb"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("roc_proto_generate", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return _generator()


@pytest.fixture(scope="module")
def tree(generator: ModuleType) -> dict[str, str]:
    """A fresh generation into a temporary directory (the generator's own temp dir)."""
    return generator.render()


def _check(out: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(GENERATOR), "--check", "--out", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)


def test_committed_stubs_are_fresh(generator: ModuleType, tree: dict[str, str]):
    problems = generator.stale(tree, PB_DIR)
    assert problems == [], "stale stubs; run: python proto/generate.py\n" + "\n".join(problems)


def test_check_command_passes_on_committed_stubs():
    done = _check(PB_DIR)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("damage", ["edit", "delete", "extra"])
def test_check_command_fails_on_stale_stubs(tmp_path: Path, damage: str):
    copy = tmp_path / "pb"
    shutil.copytree(PB_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / "roc" / "v1" / "message_pb2.py"
    if damage == "edit":
        target.write_text(target.read_text(encoding="utf-8") + "# drift\n", encoding="utf-8")
    elif damage == "delete":
        target.unlink()
    else:
        (copy / "roc" / "v1" / "leftover_pb2.py").write_text("", encoding="utf-8")
    done = _check(copy)
    assert done.returncode == 1
    assert "roc/v1/" in done.stderr


def test_other_tools_version_still_detects_changed_sources(
    generator: ModuleType, tree: dict[str, str], tmp_path
):
    """With a different grpcio-tools the text comparison is skipped, but source digests still count."""
    out = tmp_path / "pb"
    generator.write(tree, out)
    manifest = json.loads((out / "_manifest.json").read_text(encoding="utf-8"))
    manifest["grpcioTools"] = "0.0.0"
    (out / "_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert generator.stale(tree, out) == []
    manifest["sources"]["roc/v1/message.proto"] = "0" * 64
    (out / "_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert any("sources changed" in p for p in generator.stale(tree, out))


def test_generation_is_deterministic(generator: ModuleType, tree: dict[str, str]):
    assert generator.render() == tree


def test_every_proto_file_is_compiled(generator: ModuleType, tree: dict[str, str]):
    sources = generator.proto_sources()
    assert "roc/v1/snapshot.proto" in sources
    for source in sources:
        stem = source.removesuffix(".proto")
        assert {f"{stem}_pb2.py", f"{stem}_pb2.pyi"} <= set(tree), source
    # grpc stubs exactly for files with a service
    grpc = {rel.removesuffix("_pb2_grpc.py") for rel in tree if rel.endswith("_pb2_grpc.py")}
    with_service = {
        s.removesuffix(".proto")
        for s in sources
        if re.search(r"^service ", (REPO / "proto" / s).read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert grpc == with_service


def test_imports_are_package_relative(tree: dict[str, str]):
    for rel, text in tree.items():
        assert not re.search(r"^\s*(from|import) roc\.", text, re.MULTILINE), rel
    assert "from roc_conformance.pb.roc.v1 import resume_pb2" in tree["roc/v1/message_pb2.py"]


def test_every_generated_module_imports():
    modules = sorted(
        p.relative_to(PB_DIR.parent.parent).with_suffix("").as_posix().replace("/", ".")
        for p in PB_DIR.rglob("*.py")
        if p.name != "__init__.py"
    )
    assert "roc_conformance.pb.roc.v1.snapshot_pb2" in modules
    for name in modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and hasattr(value, "DESCRIPTOR") and name.endswith("_pb2"):
                assert value.__module__ == name  # pickling finds the class where it lives


def test_hand_written_modules_survive_generation(generator: ModuleType, tree: dict[str, str], tmp_path: Path):
    out = tmp_path / "pb"
    out.mkdir()
    (out / "jsonmap.py").write_text("KEEP = 1\n", encoding="utf-8")
    (out / "old_pb2.py").write_text("", encoding="utf-8")
    changed = generator.write(tree, out)
    assert (out / "jsonmap.py").read_text(encoding="utf-8") == "KEEP = 1\n"
    assert not (out / "old_pb2.py").exists()
    assert "removed old_pb2.py" in changed
    assert generator.write(tree, out) == []  # idempotent
    assert "jsonmap.py" in generator.HAND_WRITTEN
    assert (PB_DIR / "jsonmap.py").is_file()
