"""The harness-only JSON shapes on top of the one JSON <-> proto mapping (``roc_conformance.pb.jsonmap``).

Every message, of the data model (``roc.v1``) and of the harness (``roc.conformance.v1``), goes through
``jsonmap``. The Invoke input is the one place where the harness deliberately does *not* use typed
messages: since harness protocol 2, ``content`` and ``interruptResponses`` travel as raw JSON
(``google.protobuf.ListValue``), so the suite can hand the runtime a malformed block or a response body
with a missing, non-string or extra member and judge the runtime's own validation (ROC-RESUME-004/005).
``{"interruptResponses": [body, ...]}`` lists the ``InterruptResponse`` *bodies*; the adapter wraps each as
``{"interruptResponse": body}`` (conformance/README.md, "Invoke input JSON").
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, cast

from google.protobuf.message import Message

from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb

INPUT_KINDS = ("prompt", "content", "interruptResponses", "directToolCall", "abandon")
_REQUEST = "roc.conformance.v1.InvokeRequest"


def agent_spec_to_proto(spec: dict[str, Any]) -> hpb.AgentSpec:
    """The proto of an AgentSpec; a fresh message each call (the caller may change it).

    The state machine sends one scenario's spec again with every RestoreAgent, and the pure-Python
    ProtoJSON parser made that a large share of the suite's time; so the message is built once per
    distinct spec and copied. The key is the spec's exact JSON text (member order and ``1`` / ``1.0`` /
    ``true`` all kept apart), so only an identical document reuses a message; a spec that cannot be
    mapped is never remembered and raises every time.
    """
    try:
        key = json.dumps(spec, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        key = None
    cached = _SPECS.get(key) if key is not None else None
    if cached is None:
        cached = cast(hpb.AgentSpec, jsonmap.to_proto("AgentSpec", spec))
        if key is not None:
            if len(_SPECS) >= _MAX_SPECS:
                _SPECS.clear()
            _SPECS[key] = cached
    out = hpb.AgentSpec()
    out.CopyFrom(cached)
    return out


_SPECS: dict[str, hpb.AgentSpec] = {}
_MAX_SPECS = 4096
"""Distinct specs remembered by ``agent_spec_to_proto`` before it starts afresh."""


def agent_spec_from_proto(spec: hpb.AgentSpec) -> dict[str, Any]:
    return cast(dict[str, Any], jsonmap.from_proto(spec))


def invoke_request(agent: str, inp: dict[str, Any]) -> hpb.InvokeRequest:
    """An ``InvokeRequest`` from the JSON input ``{"prompt": ...} | {"content": [...]} | ...``."""
    if not isinstance(inp, dict) or len(inp) != 1 or next(iter(inp)) not in INPUT_KINDS:
        raise JsonMappingError(f"invoke input must have exactly one of {INPUT_KINDS}, got {inp!r}")
    (kind, value), *_ = inp.items()
    if kind in ("content", "interruptResponses") and not isinstance(value, list):
        raise JsonMappingError(f"{kind} must be a list")
    if kind == "directToolCall" and not (isinstance(value, dict) and isinstance(value.get("input"), dict)):
        raise JsonMappingError("directToolCall input must be a JSON object")
    if kind == "abandon" and not isinstance(value, dict):
        raise JsonMappingError("abandon must be an object {\"message\"?, \"continueModel\"?}")
    return cast(hpb.InvokeRequest, jsonmap.to_proto(_REQUEST, {"agent": agent, **inp}))


def invoke_input(req: hpb.InvokeRequest) -> dict[str, Any]:
    """The JSON input of an ``InvokeRequest`` (the inverse of ``invoke_request``)."""
    doc = cast(dict[str, Any], jsonmap.from_proto(req))
    doc.pop("agent", None)
    doc.pop("stream", None)  # how to run the input, not the input (harness protocol 6, profile streaming)
    if len(doc) != 1:
        raise JsonMappingError("invoke request carries no input")
    return doc


def resume_blocks(bodies: list[Any]) -> list[dict[str, Any]]:
    """The runtime's resume input for the harness's list of response bodies: each body wrapped, unchecked."""
    return [{"interruptResponse": body} for body in bodies]



def many_to_proto(type_name: str, docs: list[Any]) -> list[Message]:
    """The protos of a list of JSON values of one type, each built once per distinct value; the caller copies
    them (``extend`` of a repeated field does).

    Every Invoke reply carries the agent's whole history and a trace of events much like the ones before,
    which a certify run sends thousands of times with a few hundred distinct values, and the pure-Python
    ProtoJSON parser made mapping them again the largest share of the adapter kit's time. Keyed, like
    ``agent_spec_to_proto``, by the exact JSON text; a value that cannot be mapped raises every time.
    """
    out = []
    for doc in docs:
        key = _json_key(type_name, doc)
        cached = _TO_PROTO.get(key) if key is not None else None
        if cached is None:
            cached = jsonmap.to_proto(type_name, doc)
            if key is not None:
                _remember(_TO_PROTO, key, cached)
        out.append(cached)
    return out


def many_from_proto(messages: Iterable[Message]) -> list[Any]:
    """The JSON of a list of protos (the inverse of ``many_to_proto``), each mapped once per distinct message
    and copied, so the caller owns what it gets. Keyed by the message type and its serialized bytes: equal
    bytes parse to equal messages, with their map entries in the same order."""
    out = []
    for message in messages:
        key = (message.DESCRIPTOR.full_name, message.SerializeToString())
        cached = _FROM_PROTO.get(key)
        if cached is None:
            cached = jsonmap.from_proto(message)
            _remember(_FROM_PROTO, key, cached)
        out.append(_json_copy(cached))
    return out


_TO_PROTO: dict[tuple[str, str], Message] = {}
_FROM_PROTO: dict[tuple[str, bytes], Any] = {}


def _json_key(type_name: str, doc: Any) -> tuple[str, str] | None:
    try:
        return type_name, json.dumps(doc, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    if len(memo) >= _MAX_SPECS:
        memo.clear()
    memo[key] = value


def _json_copy(value: Any) -> Any:
    if type(value) is dict:
        return {key: _json_copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_json_copy(item) for item in value]
    return value
