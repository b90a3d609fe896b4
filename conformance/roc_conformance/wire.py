"""The harness-only JSON shapes on top of the one JSON <-> proto mapping (``roc_conformance.pb.jsonmap``).

Every message, of the data model (``roc.v1``) and of the harness (``roc.conformance.v1``), goes through
``jsonmap``. The one shape it does not know is the harness's resume input: ``{"interruptResponses":
[{"interruptId", "response"}, ...]}`` lists the ``InterruptResponse`` bodies, while the data model's
``ResumeInput`` lists ``{"interruptResponse": {...}}`` blocks (conformance/README.md, "Invoke input JSON").
"""

from __future__ import annotations

from typing import Any, cast

from roc_conformance.pb import jsonmap
from roc_conformance.pb.jsonmap import JsonMappingError
from roc_conformance.pb.roc.conformance.v1 import harness_pb2 as hpb

INPUT_KINDS = ("prompt", "content", "interruptResponses", "directToolCall")
_REQUEST = "roc.conformance.v1.InvokeRequest"


def agent_spec_to_proto(spec: dict[str, Any]) -> hpb.AgentSpec:
    return cast(hpb.AgentSpec, jsonmap.to_proto("AgentSpec", spec))


def agent_spec_from_proto(spec: hpb.AgentSpec) -> dict[str, Any]:
    return cast(dict[str, Any], jsonmap.from_proto(spec))


def invoke_request(agent: str, inp: dict[str, Any]) -> hpb.InvokeRequest:
    """An ``InvokeRequest`` from the JSON input ``{"prompt": ...} | {"content": [...]} | ...``."""
    if not isinstance(inp, dict) or len(inp) != 1 or next(iter(inp)) not in INPUT_KINDS:
        raise JsonMappingError(f"invoke input must have exactly one of {INPUT_KINDS}, got {inp!r}")
    doc = {"agent": agent, **inp}
    if "interruptResponses" in doc:
        responses = doc["interruptResponses"]
        if not isinstance(responses, list):
            raise JsonMappingError("interruptResponses must be a list")
        doc["interruptResponses"] = [{"interruptResponse": r} for r in responses]
    return cast(hpb.InvokeRequest, jsonmap.to_proto(_REQUEST, doc))


def invoke_input(req: hpb.InvokeRequest) -> dict[str, Any]:
    """The JSON input of an ``InvokeRequest`` (the inverse of ``invoke_request``)."""
    doc = cast(dict[str, Any], jsonmap.from_proto(req))
    doc.pop("agent", None)
    if len(doc) != 1:
        raise JsonMappingError("invoke request carries no input")
    if "interruptResponses" in doc:
        blocks = doc["interruptResponses"]
        if any("interruptResponse" not in b for b in blocks):
            raise JsonMappingError("an interruptResponses item carries no interruptResponse")
        doc["interruptResponses"] = [b["interruptResponse"] for b in blocks]
    return doc
