"""Load a build hook of docs/_hooks/ as a module, so tests can call its functions directly."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HOOKS = Path(__file__).resolve().parents[2] / "docs" / "_hooks"


def load_hook(name: str) -> ModuleType:
    """docs/_hooks/<name>.py as the module ``roc_docs_hook_<name>`` (the hooks are not a package)."""
    spec = importlib.util.spec_from_file_location(f"roc_docs_hook_{name}", HOOKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module
