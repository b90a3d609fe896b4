"""Where an adapter keeps its session stores (profile ``session-store``): one directory per store name.

A scenario names a store (``session.store``); agents bound to the same name share it, which is how the
suite checks that one agent's saved session is what the next one loads. The directories live under one
temporary root, made on first use and removed by ``close``.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from pathlib import Path


class StoreDirectories:
    """One directory per store name, under a temporary root; thread-safe."""

    def __init__(self, prefix: str = "roc-harness-stores-") -> None:
        self._prefix = prefix
        self._root: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        """The directory of store ``name`` (not created: the runtime's store does that).

        The name is hashed: it comes from the scenario and must never choose where on disk it lands.
        """
        with self._lock:
            if self._root is None:
                self._root = tempfile.TemporaryDirectory(prefix=self._prefix)
            digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:24]
            return Path(self._root.name) / digest

    def close(self) -> None:
        """Remove every store."""
        with self._lock:
            if self._root is not None:
                self._root.cleanup()
                self._root = None
