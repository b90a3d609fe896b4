"""Canonical JSON, input digests and snapshot integrity tags: the one implementation (spec 8.2, 10.3).

The canonical form (spec 8.2) is RFC 8785, the JSON Canonicalization Scheme: keys sorted by UTF-16 code
units, no whitespace, numbers as IEEE 754 doubles written as ECMAScript writes them, UTF-8. The maintained
``rfc8785`` package computes it; a fast path (``json.dumps``) serves every member for which its output is
the same bytes, which a Hypothesis property test checks (tests/reference/test_integrity.py). Input digests
bind a stored answer to the tool input it was given for; the HMAC-SHA256 tag, named by a key id, lets a
reader notice a snapshot edited at rest. The tag covers the canonical form of the snapshot with its
``integrity`` member removed, so every other bit of meaning in the document.

In the canonical form of a snapshot ``agent.messages`` comes first, right after ``agentId`` (``agent``
sorts before every other member). So the HMAC state after the messages can be kept (``MacPrefix``) and a
later tag of the same history plus new messages only feeds the new ones: signing costs what a save adds,
not the whole history.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

from .errors import SnapshotIntegrityError, SnapshotInvalidError

ALG = "HMAC-SHA256"
# An HMAC-SHA256 tag is 32 bytes: 43 base64url characters without padding.
_MAC = re.compile(r"[A-Za-z0-9_-]{43}")
# RFC 8785 numbers are IEEE 754 doubles; integers up to this magnitude are exact in one.
_MAX_SAFE = 2**53 - 1
_FIRST_ASTRAL = "\U00010000"
# One encoder for every fast-path call: json.dumps with these options would build a new one each time,
# which costs more than encoding a short member in the split path.
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def _fast_path_fits(value: Any) -> bool:
    """Whether ``json.dumps`` with sorted keys writes ``value`` exactly as RFC 8785 does.

    The two differ only in some floats, integers beyond the exact range of a double (RFC 8785 writes the
    nearest double), and key order when a key holds a code point above U+FFFF (RFC 8785 compares UTF-16
    code units, ``sort_keys`` code points). Everything else, string escapes included, is written the same
    way. Iterative, so any depth is walked.

    A float that is not integral and whose magnitude is in [1e-4, 1e16) fits: ``repr`` writes it with
    the shortest round-trip digits and no exponent, which is the ECMAScript form RFC 8785 prescribes
    (and what ``rfc8785`` writes, from the same ``repr``). Integral floats (``1.0``, ``-0.0``), smaller
    ones (``1e-05``) and larger ones (``1e+16``) are written differently, so they leave the fast path.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) or item is None:
            continue
        if isinstance(item, int):  # bool included: in range
            if not -_MAX_SAFE <= item <= _MAX_SAFE:
                return False
        elif isinstance(item, dict):
            for key in item:
                if not isinstance(key, str) or not (key.isascii() or max(key, default="") < _FIRST_ASTRAL):
                    return False
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, float):  # NaN and the infinities fail the range test
            if not 1e-4 <= abs(item) < 1e16 or item.is_integer():
                return False
        else:  # anything that is not JSON (the slow path reports it)
            return False
    return True


def _big_ints_as_doubles(value: Any) -> Any:
    # Spec 8.2: an integer beyond +-(2**53 - 1) is canonicalised as its nearest double, which is what a
    # JavaScript implementation holds after parsing the same text (float(int) rounds to nearest, ties to
    # even, as parsers do). Too large for a double (OverflowError) is not JSON.
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)
    if isinstance(value, dict):
        return {k: _big_ints_as_doubles(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_big_ints_as_doubles(v) for v in value]
    return value


def _canonical(value: Any) -> bytes:
    if _fast_path_fits(value):
        return _ENCODE(value).encode("utf-8")
    # RFC 8785 is compositional: a container's form is its members' forms joined. Splitting here keeps the
    # fast path for every member that fits, so one float in one message does not slow the whole history.
    if isinstance(value, list | tuple):
        return b"[" + b",".join(_canonical(item) for item in value) + b"]"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("object keys must be strings")
        # RFC 8785 3.2.3: names compared as UTF-16 code units (a lone surrogate raises UnicodeEncodeError).
        names = sorted(value, key=lambda key: key.encode("utf-16-be"))
        # A name alone is a string, which both write alike.
        members = (_ENCODE(k).encode("utf-8") + b":" + _canonical(value[k]) for k in names)
        return b"{" + b",".join(members) + b"}"
    return rfc8785.dumps(_big_ints_as_doubles(value))


def canonical_value(value: Any) -> bytes:
    """The canonical form (spec 8.2, RFC 8785) of any JSON value, as UTF-8 bytes.

    Raises ``SnapshotInvalidError`` when the value is not JSON (NaN, infinities, integers beyond the range
    of a double, non-string keys, lone surrogates, objects of other types).
    """
    try:
        return _canonical(value)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        # ValueError covers rfc8785's CanonicalizationError and UnicodeEncodeError (lone surrogates).
        raise SnapshotInvalidError(f"snapshot is not a JSON document: {exc}") from None


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_text_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in a JSON text, found without parsing it.

    Strings are cut out first (they may hold brackets), then the running count of openers minus closers is
    followed. Linear and iterative, so a 100,000-deep text is measured, not recursed into.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # ROC-SNAP-015: a JSON text with a repeated member name is not RoC JSON. json.loads would keep the last
    # value silently, and another language's parser may keep the first, so two readers would disagree.
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate member name {key[:80]!r}")
            seen.add(key)
    return obj


def _finite_number(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e400: too large for a double, so not a JSON number RoC can carry
        raise ValueError(f"number {text[:40]} is out of the range of a double")
    return number


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # json.loads would accept NaN and Infinity


def parse_json_text(text: str | bytes | bytearray, max_depth: int) -> Any:
    """Parse a JSON text that comes from outside; ``SnapshotInvalidError`` for anything but RoC JSON.

    ROC-SEC-014: the depth is checked before parsing (``json.loads`` recurses once per level), and every
    failure of the parser (bad syntax, invalid UTF-8, an integer too long for ``int``) is a RoC error.
    ROC-SNAP-015: a repeated member name, ``NaN``, ``Infinity`` and numbers beyond a double are refused.
    """
    try:
        if isinstance(text, bytes | bytearray):
            text = bytes(text).decode("utf-8")
        if json_text_depth(text) > max_depth:
            raise SnapshotInvalidError(f"JSON text nested deeper than {max_depth} levels")
        return json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_float=_finite_number,
            parse_constant=_no_constants,
        )
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise SnapshotInvalidError(f"not a JSON text: {exc}") from None


def canonical_json(doc: Mapping[str, Any]) -> bytes:
    """The canonical form of a snapshot: ``doc`` without its ``integrity`` member."""
    return canonical_value({k: v for k, v in doc.items() if k != "integrity"})


def input_digest(tool_input: Any) -> str:
    """``sha256:<hex>`` of the canonical form of a tool input (binds an answer to what was approved)."""
    return "sha256:" + hashlib.sha256(canonical_value(tool_input)).hexdigest()


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def compute_mac(doc: Mapping[str, Any], key: bytes) -> str:
    """The base64url (unpadded) HMAC-SHA256 of ``doc``'s canonical form, in one pass."""
    return _b64url(hmac.new(key, canonical_json(doc), hashlib.sha256).digest())


@dataclass(frozen=True)
class MacPrefix:
    """An HMAC state fed with a snapshot's canonical bytes up to the end of its first ``count`` messages."""

    key_id: str
    agent_id: str
    count: int
    state: Any  # hmac.HMAC; copied before every use, never fed in place


def _splittable(doc: Mapping[str, Any]) -> bool:
    agent = doc.get("agent")
    return (
        isinstance(agent, Mapping)
        and set(agent) == {"agentId", "messages", "state"}
        and isinstance(agent["agentId"], str)
        and isinstance(agent["messages"], list)
        and all(isinstance(k, str) and k > "agent" for k in doc if k not in ("agent", "integrity"))
    )


def mac_with_prefix(
    doc: Mapping[str, Any], key_id: str, key: bytes, prefix: MacPrefix | None = None
) -> tuple[bytes, MacPrefix | None]:
    """The raw HMAC of ``doc``'s canonical form and the prefix state to reuse for its next version.

    ``prefix`` must come from a document whose first ``prefix.count`` messages are those of ``doc`` (the
    caller checks that); it is used only when it matches the key and agent id. Documents of another shape
    (members a later minor version adds) are tagged in one pass and give no prefix.
    """
    if not _splittable(doc):
        return hmac.new(key, canonical_json(doc), hashlib.sha256).digest(), None
    agent = doc["agent"]
    messages: list[Any] = agent["messages"]
    usable = prefix is not None and (prefix.key_id, prefix.agent_id) == (key_id, agent["agentId"])
    if prefix is not None and usable and prefix.count <= len(messages):
        state = prefix.state.copy()
        start = prefix.count
    else:
        state = hmac.new(
            key, b'{"agent":{"agentId":' + canonical_value(agent["agentId"]) + b',"messages":[', "sha256"
        )
        start = 0
    for index in range(start, len(messages)):
        if index:
            state.update(b",")
        state.update(canonical_value(messages[index]))
    new_prefix = MacPrefix(key_id, agent["agentId"], len(messages), state.copy())
    rest = canonical_json({k: v for k, v in doc.items() if k != "agent"})  # "{...}" of the later members
    state.update(b'],"state":' + canonical_value(agent["state"]) + b"}")
    state.update(b"," + rest[1:] if rest != b"{}" else b"}")
    return state.digest(), new_prefix


def integrity_tag(
    doc: Mapping[str, Any], key_id: str, key: bytes, prefix: MacPrefix | None = None
) -> tuple[dict[str, str], MacPrefix | None]:
    """The ``integrity`` member for ``doc`` (see ``mac_with_prefix``) and the prefix for the next tag."""
    if not isinstance(key_id, str) or not key_id:
        raise ValueError("key_id must be a non-empty string")
    if not key:
        raise ValueError("key must not be empty")
    raw, new_prefix = mac_with_prefix(doc, key_id, key, prefix)
    return {"alg": ALG, "keyId": key_id, "mac": _b64url(raw)}, new_prefix


def sign(doc: Mapping[str, Any], key_id: str, key: bytes) -> dict[str, Any]:
    """A copy of ``doc`` carrying ``integrity: {alg, keyId, mac}``; an existing tag is replaced."""
    tag, _ = integrity_tag(doc, key_id, key)
    signed = {k: v for k, v in doc.items() if k != "integrity"}
    signed["integrity"] = tag
    return signed


def verify(doc: Mapping[str, Any], keys: Mapping[str, bytes]) -> MacPrefix | None:
    """Check ``doc``'s integrity tag against ``keys`` (key id -> key; several ids allow key rotation).

    Raises ``SnapshotIntegrityError`` when the tag is missing or malformed, names another algorithm or an
    unknown key id, or does not match; ``SnapshotInvalidError`` when the document is not JSON at all.
    Returns the MAC prefix of the verified document (see ``mac_with_prefix``), for a writer to reuse.
    """
    tag = doc.get("integrity")
    if tag is None:
        raise SnapshotIntegrityError("snapshot has no integrity tag but one is required")
    if not isinstance(tag, Mapping):
        raise SnapshotIntegrityError("snapshot integrity tag is not an object")
    alg, key_id, mac = tag.get("alg"), tag.get("keyId"), tag.get("mac")
    if alg != ALG:
        raise SnapshotIntegrityError(f"unsupported integrity algorithm {alg!r}", details={"alg": str(alg)})
    if not isinstance(key_id, str) or key_id not in keys:
        raise SnapshotIntegrityError(f"unknown integrity key id {key_id!r}", details={"keyId": str(key_id)})
    if not isinstance(mac, str):
        raise SnapshotIntegrityError("snapshot integrity mac is not a string", details={"keyId": key_id})
    # Checked before comparing: compare_digest refuses non-ASCII text with a TypeError.
    if not _MAC.fullmatch(mac):
        raise SnapshotIntegrityError(
            "snapshot integrity mac is not base64url (43 characters, no padding)", details={"keyId": key_id}
        )
    expected, prefix = mac_with_prefix(doc, key_id, keys[key_id])
    # Compared as text: the writer's encoding is the only one (no other trailing bits, no padding).
    if not hmac.compare_digest(mac.encode("ascii"), _b64url(expected).encode("ascii")):
        raise SnapshotIntegrityError("snapshot integrity mac does not match", details={"keyId": key_id})
    return prefix
