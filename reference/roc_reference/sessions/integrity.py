"""Snapshot integrity (spec 10.3): an HMAC-SHA256 tag over the snapshot's canonical form, named by a key id.

The tag lets a reader notice a snapshot edited at rest (a forged stored answer, an injected message). The
canonical form (spec 8.2) is sorted keys, no whitespace, UTF-8, numbers with an integral value written as
integers, and the ``integrity`` member removed, so the tag covers every other bit of meaning in the document.

In the canonical form of a 1.0 snapshot ``agent.messages`` comes first, right after ``agentId``
(``agent`` sorts before every other member). So the HMAC state after the messages can be kept (``MacPrefix``)
and a later tag of the same history plus new messages only feeds the new ones: signing costs what a save
adds, not the whole history.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roc_reference.errors import SnapshotIntegrityError, SnapshotInvalidError, SnapshotVersionUnsupportedError
from roc_reference.snapshot import SUPPORTED_MAJOR

ALG = "HMAC-SHA256"


def _integral_floats_as_ints(value: Any) -> Any:
    # JSON parsers elsewhere do not keep 1.0 apart from 1, so the canonical form writes both as 1 (spec 8.2).
    # Python's float repr already gives the spec's form for the other numbers: shortest round-trip digits,
    # positional from 1e-4 up (non-integral floats are below 2**53 < 1e16), "1e-05" style below.
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else value
    if isinstance(value, dict):
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_integral_floats_as_ints(v) for v in value]
    return value


def canonical_value(value: Any) -> bytes:
    """The canonical form (spec 8.2) of any JSON value.

    Raises ``SnapshotInvalidError`` when the value is not JSON (NaN, infinities, non-string keys, lone
    surrogates, objects of other types).
    """
    try:
        text = json.dumps(
            _integral_floats_as_ints(value),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
        return text.encode("utf-8")
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise SnapshotInvalidError(f"snapshot is not a JSON document: {exc}") from None


def canonical_json(doc: Mapping[str, Any]) -> bytes:
    """The canonical form of a snapshot: ``doc`` without its ``integrity`` member."""
    return canonical_value({k: v for k, v in doc.items() if k != "integrity"})


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64url(text: str) -> bytes:
    # Strict: the alphabet without padding; anything else is not a mac this module wrote.
    if not text or any(c not in _B64URL for c in text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def compute_mac(doc: Mapping[str, Any], key: bytes) -> str:
    """The base64url (unpadded) HMAC-SHA256 of ``doc``'s canonical JSON."""
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
    try:
        given = _unb64url(mac)
    except (ValueError, binascii.Error):
        raise SnapshotIntegrityError(
            "snapshot integrity mac is not base64url", details={"keyId": key_id}
        ) from None
    expected, prefix = mac_with_prefix(doc, key_id, keys[key_id])
    if not hmac.compare_digest(given, expected):
        raise SnapshotIntegrityError("snapshot integrity mac does not match", details={"keyId": key_id})
    return prefix


_VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


def check_version(doc: Mapping[str, Any]) -> None:
    """The loader's first check (ROC-VER-004/005/006), which comes before the tag is verified (ROC-SEC-004).

    A malformed ``specVersion`` is left to the shape checks that follow the tag: only the major of a
    well-formed one decides readability, so a tampered document is still reported as tampered.
    """
    version = doc.get("schemaVersion")
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise SnapshotInvalidError("schemaVersion must be a '<major>.<minor>' string")
    if int(match[1]) != SUPPORTED_MAJOR:
        raise SnapshotVersionUnsupportedError(
            f"snapshot schemaVersion {version} is not readable (major {SUPPORTED_MAJOR} only)",
            details={"schemaVersion": version},
        )
    spec_version = doc.get("specVersion")
    spec_match = _VERSION.fullmatch(spec_version) if isinstance(spec_version, str) else None
    if spec_match is not None and int(spec_match[1]) != SUPPORTED_MAJOR:
        raise SnapshotVersionUnsupportedError(
            f"snapshot written for spec {spec_version}; this runtime implements {SUPPORTED_MAJOR}.x",
            details={"specVersion": spec_version},
        )


def verify_snapshot(doc: Mapping[str, Any], keys: Mapping[str, bytes]) -> MacPrefix | None:
    """What a reader configured with keys does first: the version check, then the tag (spec order)."""
    check_version(doc)
    return verify(doc, keys)
