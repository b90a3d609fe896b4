"""``agent.state``: a JSON key-value store that lives with the agent and travels in its snapshot."""

from __future__ import annotations

import threading
from typing import Any

from .types import is_json_value, json_copy


class AgentState:
    """Keys are strings, values JSON, copied in and out: stored state changes only via ``set``."""

    def __init__(self, initial: dict[str, Any] | None = None) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {}
        for key, value in (initial or {}).items():
            self.set(key, value)

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return json_copy(self._data.get(key, default))

    def set(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError("state keys must be strings")
        if not is_json_value(value):
            raise TypeError(f"state value for {key!r} must be JSON")
        with self._lock:
            self._data[key] = json_copy(value)

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return json_copy(self._data)  # type: ignore[no-any-return]

    def replace(self, data: dict[str, Any]) -> None:
        """Restore a saved state wholesale (used by rollback and restore)."""
        with self._lock:
            self._data = json_copy(data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data
