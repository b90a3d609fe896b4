"""The spec's canonical JSON (spec/08-sessions.md §8.2, RFC 8785), input digests and integrity tags.

The suite computes these itself to judge what an implementation wrote, so it cannot borrow the reference
runtime's code; both use the maintained ``rfc8785`` package for the serialization itself. The suite takes
the plain route (no fast path): it is the judge, and speed matters less here than obviousness.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from collections.abc import Mapping
from typing import Any

import rfc8785

# RFC 8785 numbers are IEEE 754 doubles; integers up to this magnitude are exact in one.
_MAX_SAFE = 2**53 - 1


class NotCanonicalJson(ValueError):
    """The value has no canonical form: NaN, an infinity, a non-string key, a lone surrogate, not JSON."""


def _as_doubles(value: Any) -> Any:
    # §8.2: an integer beyond +-(2**53 - 1) stands for its nearest double, as a JavaScript reader of the
    # same text holds it; float() rounds to nearest (ties to even) and overflows for non-JSON magnitudes.
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)
    if isinstance(value, list | tuple):
        return [_as_doubles(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    return value


def canonical_bytes(value: Any) -> bytes:
    """The canonical form of a JSON value: its RFC 8785 serialization in UTF-8."""
    try:
        return rfc8785.dumps(_as_doubles(value))
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # ValueError covers rfc8785.CanonicalizationError and UnicodeEncodeError (a lone surrogate key).
        raise NotCanonicalJson(f"not a JSON value: {exc}") from None


def canonical_text(value: Any) -> str:
    """The canonical serialization of a JSON value, as text."""
    return canonical_bytes(value).decode("utf-8")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # ROC-SNAP-015: a repeated member name is not RoC JSON
        raise NotCanonicalJson("duplicate member name in a JSON object")
    return obj


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NotCanonicalJson(f"number {text[:40]} is beyond the range of a double")
    return number


def _constant(name: str) -> Any:
    raise NotCanonicalJson(f"{name} is not JSON")


def parse_strict(text: str | bytes) -> Any:
    """Parse a JSON text as RoC reads one: repeated member names, NaN, infinities and numbers beyond a
    double are refused (``NotCanonicalJson``), as is anything that is not JSON."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(
            text, object_pairs_hook=_no_duplicates, parse_float=_finite, parse_constant=_constant
        )
    except NotCanonicalJson:
        raise
    except (ValueError, RecursionError) as exc:
        raise NotCanonicalJson(f"not a JSON text: {exc}") from None


def input_digest(tool_input: Any) -> str:
    """``sha256:<lowercase hex>`` of the canonical form of a tool input."""
    return "sha256:" + hashlib.sha256(canonical_bytes(tool_input)).hexdigest()


def snapshot_mac(doc: Mapping[str, Any], secret: str) -> str:
    """The unpadded base64url HMAC-SHA256, keyed by the UTF-8 of ``secret``, of the snapshot without
    its ``integrity`` member."""
    return mac_of(canonical_bytes({k: v for k, v in doc.items() if k != "integrity"}), secret.encode("utf-8"))


def mac_of(canonical: bytes, key: bytes) -> str:
    """The unpadded base64url HMAC-SHA256 of canonical bytes under ``key``."""
    tag = hmac.new(key, canonical, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(tag).rstrip(b"=").decode("ascii")
