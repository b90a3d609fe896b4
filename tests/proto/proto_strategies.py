"""Hypothesis strategies for schema-valid JSON documents of the RoC data model, and schema helpers.

The strategies follow spec/schema/v1 by hand (hypothesis-jsonschema does not read 2020-12), so the
property tests also assert that every generated document validates: a strategy that drifts from
the schema fails loudly instead of testing the wrong thing.
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

REPO = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO / "spec" / "schema" / "v1"
EXAMPLES_DIR = REPO / "spec" / "examples"
MAX_SAFE_INTEGER = 2**53 - 1

# ---------------------------------------------------------------------------------------------
# Schemas


@cache
def registry() -> Registry[Any]:
    """Every schema of spec/schema/v1 under its $id, so cross-file $refs resolve offline."""
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def validator(schema_file: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=registry())


def schema_errors(schema_file: str, doc: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(schema_file).iter_errors(doc)
    ]


# ---------------------------------------------------------------------------------------------
# JSON values

# Unicode scalar values only: a lone surrogate is not representable in proto (or in UTF-8 JSON).
_chars = st.characters(exclude_categories=("Cs",))
texts = st.text(_chars, max_size=12)
non_empty_texts = st.text(_chars, min_size=1, max_size=12)
ids = st.text(string.ascii_letters + string.digits + ":-_", min_size=1, max_size=16)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)
json_objects = st.dictionaries(texts, json_values, max_size=4)
non_null_json = json_values.filter(lambda v: v is not None)


def _optional(draw: st.DrawFn, doc: dict[str, Any], key: str, strategy: st.SearchStrategy[Any]) -> None:
    if draw(st.booleans()):
        doc[key] = draw(strategy)


# ---------------------------------------------------------------------------------------------
# Interrupts

_TOOL_BOUND = ("tool", "before_tool_call", "agent_as_tool")
_NODE_BOUND = ("before_node_call", "node")
_PROPAGATED = ("agent_as_tool", "node")  # spec 1.2: they carry ``inner``


@st.composite
def interrupt_sources(draw: st.DrawFn, spec_1_2: bool = True, depth: int = 2) -> dict[str, Any]:
    """A source of any kind; ``spec_1_2`` False keeps to the kinds a 2.0 or 2.1 snapshot can hold. A
    propagated source nests ``inner`` sources up to ``depth`` levels."""
    kinds = ["tool", "before_tool_call", "before_tools"]
    if spec_1_2:
        kinds += ["before_node_call", *(_PROPAGATED if depth > 0 else ())]
    kind = draw(st.sampled_from(kinds))
    source: dict[str, Any] = {"kind": kind}
    if kind in _TOOL_BOUND:  # ROC-MODEL-004: these name the tool use and the tool
        source["toolUseId"] = draw(ids)
        source["toolName"] = draw(ids)
    if kind in _NODE_BOUND:
        source["nodeId"] = draw(ids)
    if kind in _PROPAGATED:
        inner_source = draw(interrupt_sources(spec_1_2=True, depth=depth - 1))
        source["inner"] = {"agentId": draw(ids), "interruptId": draw(ids), "source": inner_source}
    return source


@st.composite
def date_times(draw: st.DrawFn, utc_only: bool = False) -> str:
    """RFC 3339 text in the shapes the schemas accept (fraction optional, Z or an offset)."""
    d = draw(st.datetimes())
    moment = f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    fraction = draw(st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=6).map(".".__add__)))
    zone = "Z" if utc_only else draw(st.sampled_from(["Z", "+00:00", "-05:30", "+14:00"]))
    return f"{moment}{fraction}{zone}"


@st.composite
def expiry_outcomes(draw: st.DrawFn) -> dict[str, Any]:
    """An onExpiry (spec 1.1): decline or cancel, optionally with a message."""
    doc: dict[str, Any] = {"decision": draw(st.sampled_from(["decline", "cancel"]))}
    _optional(draw, doc, "message", texts)
    return doc


@st.composite
def interrupts(
    draw: st.DrawFn, stored: bool = False, spec_1_1: bool = True, spec_1_2: bool = True
) -> dict[str, Any]:
    """An Interrupt; with ``stored``, the snapshot form (optional response or decision, and inputDigest).
    ``spec_1_1`` False leaves out the members a 2.0 snapshot must not carry (onExpiry, decision);
    ``spec_1_2`` False those a 2.1 snapshot must not carry (the sources of spec 1.2)."""
    doc: dict[str, Any] = {
        "id": draw(ids),
        "name": draw(non_empty_texts),
        "source": draw(interrupt_sources(spec_1_2=spec_1_2)),
    }
    _optional(draw, doc, "reason", non_null_json)  # ROC-MODEL-007: a reason is never null
    _optional(draw, doc, "responseSchema", json_objects)
    _optional(draw, doc, "expiresAt", date_times())
    _optional(draw, doc, "metadata", json_objects)  # the extension point (spec 2.1)
    if spec_1_1:
        _optional(draw, doc, "onExpiry", expiry_outcomes())
    if stored:
        kinds = ["none", "response", "decision"] if spec_1_1 else ["none", "response"]
        stored_as = draw(st.sampled_from(kinds))
        if stored_as == "response":
            doc["response"] = draw(non_null_json)
        elif stored_as == "decision":  # never together with response (snapshot format 2.1)
            doc.update(draw(expiry_outcomes()))
        digests = st.text("0123456789abcdef", min_size=64, max_size=64).map("sha256:".__add__)
        if "toolUseId" in doc["source"]:  # ROC-SNAP-013: a tool-bound stored interrupt carries its digest
            doc["inputDigest"] = draw(digests)
        else:
            _optional(draw, doc, "inputDigest", digests)
    return doc


# ---------------------------------------------------------------------------------------------
# Content blocks and messages

text_blocks = st.builds(lambda t: {"text": t}, texts)
tool_use_blocks = st.builds(
    lambda i, n, inp: {"toolUse": {"toolUseId": i, "name": n, "input": inp}},
    ids,
    non_empty_texts,
    json_objects,
)
result_items = st.one_of(
    st.builds(lambda t: {"text": t}, texts), st.builds(lambda v: {"json": v}, json_values)
)
tool_results = st.builds(
    lambda i, s, c: {"toolUseId": i, "status": s, "content": c},
    ids,
    st.sampled_from(["success", "error"]),
    st.lists(result_items, max_size=3),
)
tool_result_blocks = st.builds(lambda r: {"toolResult": r}, tool_results)
_answers = st.one_of(
    non_null_json.map(lambda r: {"response": r}),
    non_null_json.map(lambda r: {"decision": "answer", "response": r}),
    expiry_outcomes(),  # spec 1.1: a decline or cancel, optionally with a message, never with a response
)
interrupt_response_blocks = st.builds(
    lambda i, a, m: {"interruptResponse": {"interruptId": i, **a, **m}},
    ids,
    _answers,
    st.one_of(st.just({}), json_objects.map(lambda meta: {"metadata": meta})),  # spec 2.2 extension point
)
content_blocks = st.one_of(text_blocks, tool_use_blocks, tool_result_blocks, interrupt_response_blocks)
resume_inputs = st.lists(interrupt_response_blocks, min_size=1, max_size=4)


@st.composite
def messages(draw: st.DrawFn, role: str | None = None, with_tool_use: bool = False) -> dict[str, Any]:
    role = role or draw(st.sampled_from(["user", "assistant"]))
    block = tool_use_blocks if role == "assistant" else tool_result_blocks
    content = draw(st.lists(st.one_of(text_blocks, block), min_size=1, max_size=4))
    if with_tool_use:
        content.insert(draw(st.integers(0, len(content))), draw(tool_use_blocks))
    doc: dict[str, Any] = {"role": role, "content": content}
    _optional(draw, doc, "metadata", json_objects)
    return doc


# ---------------------------------------------------------------------------------------------
# Results, errors, snapshots

STOP_REASONS = [
    "end_turn", "tool_use", "max_tokens", "stop_sequence",
    "content_filtered", "guardrail_intervened", "interrupt", "cancelled", "abandoned",
]  # fmt: skip
ERROR_CODES = [
    "INTERRUPT_PENDING", "NOT_INTERRUPTED", "UNKNOWN_INTERRUPT", "DUPLICATE_RESPONSE",
    "INVALID_RESPONSE", "INVALID_RESUME", "DUPLICATE_INTERRUPT_NAME", "DIRECT_CALL_INTERRUPT",
    "INVALID_REASON", "SNAPSHOT_INVALID", "SNAPSHOT_VERSION_UNSUPPORTED", "SNAPSHOT_INTEGRITY",
    "SESSION_CONFLICT", "EXPIRED", "INVALID_INPUT", "INTERNAL",
]  # fmt: skip


@st.composite
def agent_results(draw: st.DrawFn) -> dict[str, Any]:
    stop = draw(st.sampled_from(STOP_REASONS))
    pending = draw(st.lists(interrupts(), min_size=1, max_size=3)) if stop == "interrupt" else []
    return {"stopReason": stop, "message": draw(messages()), "interrupts": pending}


@st.composite
def errors(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {"code": draw(st.sampled_from(ERROR_CODES)), "message": draw(non_empty_texts)}
    _optional(draw, doc, "details", json_objects)
    return doc


_DIGESTS = st.text("0123456789abcdef", min_size=64, max_size=64).map("sha256:".__add__)


@st.composite
def interrupt_states(
    draw: st.DrawFn, spec_1_1: bool = True, spec_1_2: bool = True, depth: int = 1
) -> dict[str, Any]:
    doc = draw(_interrupt_states(spec_1_1, spec_1_2))
    if spec_1_1 and draw(st.booleans()):
        # At least one entry: an empty record has no proto form apart from an absent one (rule 7), and
        # ``consumed: []`` would come back without the member.
        record = st.builds(lambda i, d: {"interruptId": i, "answerDigest": d}, ids, _DIGESTS)
        doc["consumed"] = draw(st.lists(record, min_size=1, max_size=2))
    if spec_1_2 and depth > 0 and draw(st.integers(0, 3)) == 0:
        # Format 2.2: kept sub-agents (a map; at least one, as for consumed), nesting their own states.
        kept = st.fixed_dictionaries(
            {"agent": snapshot_agents(), "interruptState": interrupt_states(depth=depth - 1)},
            optional={"result": agent_results()},
        )
        doc["children"] = draw(st.dictionaries(ids, kept, min_size=1, max_size=2))
    return doc


@st.composite
def snapshot_agents(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "agentId": draw(ids),
        "messages": draw(st.lists(messages(), max_size=3)),
        "state": draw(json_objects),
    }


@st.composite
def _interrupt_states(draw: st.DrawFn, spec_1_1: bool, spec_1_2: bool) -> dict[str, Any]:
    if not draw(st.booleans()):
        return {"activated": False, "interrupts": [], "pendingToolExecution": None}
    pending = None
    if draw(st.booleans()):
        pending = {
            "assistantMessage": draw(messages(role="assistant", with_tool_use=True)),
            "completedToolResults": draw(st.lists(tool_results, max_size=2)),
        }
    return {
        "activated": True,
        "interrupts": draw(
            st.lists(interrupts(stored=True, spec_1_1=spec_1_1, spec_1_2=spec_1_2), min_size=1, max_size=3)
        ),
        "pendingToolExecution": pending,
    }


_B64URL = string.ascii_letters + string.digits + "-_"


@st.composite
def snapshots(draw: st.DrawFn) -> dict[str, Any]:
    version = draw(st.sampled_from(["2.0", "2.1", "2.2", "2.12"]))
    doc: dict[str, Any] = {
        "schemaVersion": version,
        "specVersion": draw(st.sampled_from(["1.0", "1.3"])),
        "createdAt": draw(date_times(utc_only=True)),
        "revision": draw(st.integers(0, 2**32 - 1)),  # uint32 (spec 2.7): exact, a JSON number
        "agent": draw(snapshot_agents()),
        "interruptState": draw(
            interrupt_states(spec_1_1=version != "2.0", spec_1_2=version not in ("2.0", "2.1"))
        ),
    }
    if draw(st.booleans()):
        doc["integrity"] = {
            "alg": "HMAC-SHA256",
            "keyId": draw(ids),
            "mac": draw(st.text(_B64URL, min_size=43, max_size=43)),
        }
    return doc


@st.composite
def pending_interrupts(draw: st.DrawFn) -> dict[str, Any]:
    """A PendingInterrupt (spec 1.1): an Interrupt as reported, optionally with what is stored for it."""
    doc = draw(interrupts())
    answers = non_null_json.map(lambda r: {"decision": "answer", "response": r})
    answer = draw(st.one_of(st.none(), answers, expiry_outcomes()))
    if answer is not None:
        doc["answer"] = answer
    return doc


@st.composite
def abandon_inputs(draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {}
    _optional(draw, body, "message", texts)
    _optional(draw, body, "then", st.sampled_from(["end", "continue"]))
    return {"abandon": body}


def has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(has_float(v) for v in value)
    if isinstance(value, dict):
        return any(has_float(v) for v in value.values())
    return False


def canonical(doc: Any) -> bytes:
    """The spec's canonical JSON (integrity tags and input digests are computed over it)."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
