"""The spec's canonical JSON (spec/08-sessions.md §8.2), input digests and integrity tags.

The suite computes these itself to judge what an implementation wrote, so it cannot borrow the
reference runtime's code. Python's ``json.dumps`` with sorted keys, no whitespace and ``ensure_ascii=False``
is the canonical serialization once integral floats are written as integers (negative zero included):
every non-integral double lies below 2**53, where ``repr`` is positional from 1e-4 up and ``d.ddde-XX``
below, exactly as §8.2 asks.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any


class NotCanonicalJson(ValueError):
    """The value has no canonical form: NaN, an infinity, a non-string key, a lone surrogate, not JSON."""


def _integral_as_int(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)  # also -0.0 -> 0
    if isinstance(value, list | tuple):
        return [_integral_as_int(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise NotCanonicalJson("object keys must be strings")  # json.dumps would stringify them
        return {key: _integral_as_int(item) for key, item in value.items()}
    return value


def canonical_text(value: Any) -> str:
    """The canonical serialization of a JSON value, as text."""
    try:
        plain = _integral_as_int(value)
    except RecursionError as exc:
        raise NotCanonicalJson(f"not a JSON value: {exc}") from None
    try:
        return json.dumps(
            plain,
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
    except (TypeError, ValueError, RecursionError) as exc:
        raise NotCanonicalJson(f"not a JSON value: {exc}") from None


def canonical_bytes(value: Any) -> bytes:
    """The canonical form of a JSON value: its canonical serialization in UTF-8."""
    try:
        return canonical_text(value).encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate
        raise NotCanonicalJson(f"not a JSON value: {exc}") from None


def input_digest(tool_input: Any) -> str:
    """``sha256:<lowercase hex>`` of the canonical form of a tool input."""
    return "sha256:" + hashlib.sha256(canonical_bytes(tool_input)).hexdigest()


def snapshot_mac(doc: Mapping[str, Any], secret: str) -> str:
    """The unpadded base64url HMAC-SHA256, keyed by the UTF-8 of ``secret``, of the snapshot without
    its ``integrity`` member."""
    body = canonical_bytes({k: v for k, v in doc.items() if k != "integrity"})
    tag = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(tag).rstrip(b"=").decode("ascii")
