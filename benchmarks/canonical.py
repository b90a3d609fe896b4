"""Canonical JSON, input digests and HMAC tags on large snapshots: RFC 8785 against the previous code.

Snapshots of about 1 MB and 10 MB (``agent.messages`` of prompts, tool uses with nested inputs, tool
results with JSON and text content) are written in canonical form by every implementation in the
project's history and the library it adopted, interleaved, and each output is compared with
``rfc8785.dumps``. Then the operations built on the canonical form are timed on the same documents:
``input_digest``, ``sign``, ``verify`` and the incremental tag a store save pays (``integrity_tag`` with a
``MacPrefix`` after two new messages).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import rfc8785
from roc_conformance.canonical import canonical_bytes as suite_canonical_bytes
from roc_reference.integrity import canonical_json, input_digest, integrity_tag, sign, verify

from benchmarks.common import Column, Scale, Section, Stats, Table, Target, interleaved, ratio, timed

MB = 1_000_000
KEY_ID, KEY = "bench-key", b"k" * 32

# (target size in bytes, variants, rounds, everything). rfc8785.dumps takes seconds per round at 10 MB, so
# that size gets only the with-floats document and leaves out the two rows that cost per MB what others
# measured there cost: the suite's canonical_bytes (rfc8785.dumps plus a walk) and input_digest
# (canonical_value plus SHA-256). The 1 MB no-float document already shows the fast path alone.
_PLAN: dict[Scale, list[tuple[int, tuple[bool, ...], int, bool]]] = {
    "full": [(1 * MB, (True, False), 5, True), (10 * MB, (True,), 2, False)],
    "quick": [(50_000, (True, False), 2, True)],
}
_CHEAP_CALLS = 20  # an incremental tag takes well under a millisecond: time a batch, report the mean


def pre_rfc8785_canonical_json(doc: Mapping[str, Any]) -> bytes:
    """The project's canonical form before RFC 8785 was adopted, kept only to compare against.

    It is not RFC 8785: keys sorted by code point (not UTF-16 code units), integral floats written as
    integers even from 1e21 up (RFC 8785: ``1e+21``), other floats as Python's ``repr`` (``9.6e-05`` where
    RFC 8785 writes ``0.000096``, ``1e-07`` for ``1e-7``), integers beyond 2**53 exact (RFC 8785: the
    nearest double).

    It was replaced because a digest or tag must be computable byte for byte by an implementation in
    any language, and RFC 8785 is the published form other languages' libraries write.
    """

    def integral_floats_as_ints(value: Any) -> Any:
        if isinstance(value, float):
            return int(value) if math.isfinite(value) and value.is_integer() else value
        if isinstance(value, dict):
            return {k: integral_floats_as_ints(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [integral_floats_as_ints(v) for v in value]
        return value

    body = {k: v for k, v in doc.items() if k != "integrity"}
    text = json.dumps(
        integral_floats_as_ints(body),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    return text.encode("utf-8")


_PROMPTS = (
    "Résumé des ventes du troisième trimestre, s'il vous plaît — avec les écarts par région.",
    "Please compare the regional numbers and flag anything unusual before Friday's review.",
    "東京と大阪の売上を比較して、異常があれば教えてください。",
    'Can you check the logs for "timeout" errors since Monday?\nThanks 👍',
)
_REGIONS = ("EMEA", "APAC", "Zürich", "NA")


def _rows(index: int, floats: bool) -> list[dict[str, Any]]:
    """A sales query's answer; with ``floats`` the amounts are decimals and the first row has a p-value."""
    rows: list[dict[str, Any]] = []
    for j, region in enumerate(_REGIONS):
        row: dict[str, Any] = {"region": region, "product": f"sku-{index}-{j}", "units": 100 + 7 * j}
        if floats:
            row["revenue"] = 1234.5 + 10.25 * j + index / 100
            row["margin"] = 0.1 + j / 37
            if j == 0:
                row["pValue"] = 3.2e-05 * (1 + index % 5)  # below 1e-4: where the previous code differs
        else:
            row["revenueCents"] = 123_450 + 1_025 * j + index
            row["marginBp"] = 1_000 + 270 * j
        rows.append(row)
    return rows


def message(index: int, floats: bool) -> dict[str, Any]:
    """Message ``index`` of a history that cycles through eight kinds of turn."""
    kind, cycle = index % 8, index // 8
    tool_use_id = f"tooluse_{cycle:06d}"
    if kind in (0, 4):
        text = _PROMPTS[cycle % 4] if kind == 0 else "Open the report draft and fix the summary."
        return {"role": "user", "content": [{"text": text}]}
    if kind == 1:
        tool_input = {
            "filters": [
                {"field": "region", "op": "in", "value": list(_REGIONS)},
                {"field": "quarter", "op": "=", "value": f"2026-Q{1 + cycle % 4}"},
            ],
            "groupBy": ["region", "product"],
            "limit": 50,
            "options": {"currency": "EUR", "includeReturns": False},
        }
        return {
            "role": "assistant",
            "content": [
                {"text": "I will query the sales table."},
                {"toolUse": {"toolUseId": tool_use_id, "name": "query_sales", "input": tool_input}},
            ],
        }
    if kind == 2:
        result = {"rows": _rows(index, floats), "total": len(_REGIONS)}
        return {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": tool_use_id, "status": "success", "content": [{"json": result}]}}
            ],
        }
    if kind == 3:
        text = (
            "EMEA leads on revenue while APAC margins are thinner than last quarter; Zürich shows a spike "
            "in returns that may be a data-entry issue. "
        ) * 3
        return {"role": "assistant", "content": [{"text": text}]}
    if kind == 5:
        path = f"q3/draft-{cycle}.md"
        read = {"toolUseId": tool_use_id + "r", "name": "read_file", "input": {"path": path}}
        return {"role": "assistant", "content": [{"toolUse": read}]}
    if kind == 6:
        body = '# Q3 report\n\nRevenue grew in "EMEA" and APAC.\n\tSee table 2 — données révisées.\n' * 6
        result = {"toolUseId": tool_use_id + "r", "status": "success", "content": [{"text": body}]}
        return {"role": "user", "content": [{"toolResult": result}]}
    return {"role": "assistant", "content": [{"text": "Summary fixed; the returns spike is flagged."}]}


def snapshot(messages: list[Any]) -> dict[str, Any]:
    return {
        "schemaVersion": "2.0",
        "specVersion": "1.0",
        "createdAt": "2026-01-01T00:00:00Z",
        "revision": 7,
        "agent": {"agentId": "bench", "messages": messages, "state": {"myapp": {"theme": "dark"}}},
        "interruptState": {"activated": False, "interrupts": [], "pendingToolExecution": None},
    }


def history(target_bytes: int, floats: bool) -> list[Any]:
    """Messages until their JSON reaches ``target_bytes``."""
    messages: list[Any] = []
    size = 0
    while size < target_bytes:
        item = message(len(messages), floats)
        messages.append(item)
        size += len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + 1
    return messages


def large_tool_input(target_bytes: int, floats: bool) -> dict[str, Any]:
    """A bulk-import tool input: the rows of many query answers, with floats when ``floats``."""
    rows: list[Any] = []
    size = 0
    while size < target_bytes:
        batch = _rows(len(rows), floats)
        rows.extend(batch)
        size += len(json.dumps(batch, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return {"table": "sales_q3", "mode": "upsert", "rows": rows}


def _holds_float(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def composition(messages: list[Any], canonical: bytes) -> dict[str, float]:
    """What share of a history the RFC 8785 slow path could touch: messages holding floats, their bytes,
    and how much of the text is non-ASCII (which both paths write as raw UTF-8)."""
    with_floats = [m for m in messages if _holds_float(m)]
    float_bytes = sum(len(rfc8785.dumps(m)) for m in with_floats)
    text = canonical.decode("utf-8")
    return {
        "float_messages_pct": 100 * len(with_floats) / len(messages),
        "float_bytes_pct": 100 * float_bytes / len(canonical),
        "non_ascii_pct": 100 * (len(text) - len(text.encode("ascii", "ignore"))) / len(text),
    }


def _time_into(action: Callable[[], bytes], outputs: dict[str, bytes], name: str) -> Callable[[], float]:
    """A side for ``interleaved`` that also keeps what ``action`` wrote (compared after the timing)."""

    def side() -> float:
        result: list[bytes] = []
        seconds = timed(lambda: result.append(action()))
        outputs[name] = result[0]
        return seconds

    return side


def _mean_of(action: Callable[[], object], calls: int) -> Callable[[], float]:
    def side() -> float:
        return timed(lambda: [action() for _ in range(calls)]) / calls

    return side


_IMPLEMENTATIONS = (
    ("reference", "reference canonical_json (fast path + rfc8785)", True),
    ("rfc8785", "rfc8785.dumps alone (the maintained library)", True),
    ("suite", "suite canonical_bytes (rfc8785, no fast path)", True),
    ("previous", "previous code (pre-RFC 8785)", False),
    ("json", "json.dumps sorted, compact (floor)", False),
)


def _first_difference(ours: bytes, expected: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, expected, strict=False)) if a != b), None)
    if at is None:
        return f"lengths differ ({len(ours)} vs {len(expected)} bytes)"
    start = max(0, at - 24)
    return f"at byte {at:,}: `{ours[start : at + 16].decode(errors='replace')}` where RFC 8785 writes " + (
        f"`{expected[start : at + 16].decode(errors='replace')}`"
    )


def _canonical_rows(
    messages: list[Any], floats: bool, rounds: int, everything: bool, notes: list[str]
) -> tuple[list[dict[str, Any]], bytes]:
    doc = snapshot(messages)
    body = {k: v for k, v in doc.items() if k != "integrity"}
    actions: dict[str, Callable[[], bytes]] = {
        "reference": lambda: canonical_json(doc),
        "rfc8785": lambda: rfc8785.dumps(body),
        "suite": lambda: suite_canonical_bytes(body),
        "previous": lambda: pre_rfc8785_canonical_json(doc),
        "json": lambda: json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(),
    }
    if not everything:
        del actions["suite"]
    outputs: dict[str, bytes] = {}
    stats = interleaved({name: _time_into(act, outputs, name) for name, act in actions.items()}, rounds)
    expected = outputs["rfc8785"]
    mb = len(expected) / MB
    shares = composition(messages, expected)
    document = "with floats" if floats else "no floats"
    rows = []
    for name, label, claims_rfc8785 in _IMPLEMENTATIONS:
        if name not in actions:
            continue
        equal = outputs[name] == expected
        repeated = name == "previous" and any(n.startswith("The previous code") for n in notes)
        if not equal and (claims_rfc8785 or name == "previous" or not floats) and not repeated:
            if name == "previous":
                notes.append(
                    "The previous code writes other bytes than RFC 8785 (see the last column); the first "
                    f"difference on the {document} {mb:.2f} MB document is "
                    + _first_difference(outputs[name], expected)
                    + ". A digest or tag over them would not match one computed in another language."
                )
            else:
                notes.append(
                    f"{label} writes other bytes than RFC 8785 on the {document} {mb:.2f} MB document, "
                    + _first_difference(outputs[name], expected)
                    + " (a defect: it claims RFC 8785)."
                )
        time = stats[name]
        rows.append(
            {
                "document": document,
                "mb": mb,
                "messages": len(messages),
                **shares,
                "implementation": label,
                "key": name,
                "mbps": mb / time.median,
                "mbps_min": mb / time.max,
                "mbps_max": mb / time.min,
                "ms": time.median * 1000,
                "rounds": time.n,
                "rfc8785_bytes": equal,
                "vs_rfc8785": ratio(stats["rfc8785"].median, time.median),
            }
        )
    return rows, expected


def _tag_rows(messages: list[Any], canonical: bytes, rounds: int, everything: bool) -> list[dict[str, Any]]:
    doc = snapshot(messages)
    signed = sign(doc, KEY_ID, KEY)
    _, prefix = integrity_tag(doc, KEY_ID, KEY)
    grown = snapshot([*messages, message(len(messages), True), message(len(messages) + 1, True)])
    mb = len(canonical) / MB
    sides = {
        "hmac": _mean_of(lambda: hmac.new(KEY, canonical, hashlib.sha256).digest(), 5),
        "sign": lambda: timed(lambda: sign(doc, KEY_ID, KEY)),
        "verify": lambda: timed(lambda: verify(signed, {KEY_ID: KEY})),
        "append": _mean_of(lambda: integrity_tag(grown, KEY_ID, KEY, prefix), _CHEAP_CALLS),
    }
    tool_input_mb = 0.0
    same_tag = None  # whether the incremental tag is the full pass's (checked where a full pass is cheap)
    if everything:
        tool_input = large_tool_input(len(canonical), True)
        tool_input_mb = len(rfc8785.dumps(tool_input)) / MB
        sides["digest"] = lambda: timed(lambda: input_digest(tool_input))
        same_tag = integrity_tag(grown, KEY_ID, KEY, prefix)[0] == integrity_tag(grown, KEY_ID, KEY)[0]
    stats = interleaved(sides, rounds)
    labels = {
        "hmac": ("HMAC-SHA256 of the canonical bytes alone (floor)", mb),
        "digest": ("input_digest of a bulk-import tool input", tool_input_mb),
        "sign": ("sign: tag the whole snapshot", mb),
        "verify": ("verify: recompute and compare the tag", mb),
        "append": ("integrity_tag after 2 new messages, MacPrefix reused (a store save)", mb),
    }
    rows = []
    for key, (label, size) in labels.items():
        if key not in stats:
            continue
        time: Stats = stats[key]
        rows.append(
            {
                "snapshot_mb": mb,
                "operation": label,
                "key": key,
                "input_mb": size if key != "append" else None,  # it hashes the new messages and the tail
                "ms": time.median * 1000,
                "ms_min": time.min * 1000,
                "ms_max": time.max * 1000,
                "mbps": size / time.median if key != "append" else None,
                "vs_sign": ratio(stats["sign"].median, time.median) if key == "append" else None,
                "same_tag": same_tag if key == "append" else None,
            }
        )
    return rows


_METHOD = """\
Each document is a snapshot whose `agent.messages` cycle through eight kinds of turn: prompts (a quarter
of them French, Japanese or with an emoji), an assistant tool use with a nested input, a tool result with
JSON content (a sales query's four rows), a long assistant text, a `read_file` tool use and a text tool
result with quotes, tabs and newlines to escape. In the **with floats** document the JSON tool results
carry decimals (revenue, margin) and each has one p-value below 1e-4; in the **no floats** document
the same rows hold integers only, so the reference's fast path (`json.dumps`) serves every member. The
composition table gives the share of messages, and of canonical bytes, that hold a float.

Canonical form: every implementation writes the whole snapshot (without `integrity`) to bytes, the five
interleaved A B C D E with the order rotating every round; the time is that one call, and MB/s is the
RFC 8785 output size over it. Every output is compared with `rfc8785.dumps` after the timing. The
implementations: the reference's `canonical_json` (fast path where `json.dumps` provably writes the same
bytes, `rfc8785` for the rest), `rfc8785.dumps` alone, the suite's `canonical_bytes` (the judge takes the
plain route: `rfc8785` after a walk that turns big integers into doubles), the project's canonical code
before RFC 8785 was adopted (kept in this module only for the comparison), and `json.dumps` with sorted
keys as the floor no canonical form can beat.

Tags and digests on the with-floats document, interleaved likewise: `sign` and `verify` each canonicalise
the whole snapshot and run HMAC-SHA256 over it; the incremental tag is `integrity_tag` of the snapshot plus
two messages with the `MacPrefix` of the snapshot before them (what a signed store save pays; mean of 20
calls per round; at 1 MB its tag is also compared with a one-pass tag); `input_digest` runs on a
bulk-import tool input of about the snapshot's size (rows like the tool results', so denser in floats
than the history); the HMAC of the already canonical bytes (mean of 5) is the floor.

The 10 MB document is measured with floats only, and without the suite's `canonical_bytes` and
`input_digest`, which cost what `rfc8785.dumps` and `canonical_json` cost per MB: `rfc8785.dumps` takes
seconds there per round, and `make bench` has ten minutes for every benchmark.
"""


def run(scale: Scale) -> Section:
    canonical_rows: list[dict[str, Any]] = []
    tag_rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for target, variants, rounds, everything in _PLAN[scale]:
        for floats in variants:
            messages = history(target, floats)
            rows, canonical = _canonical_rows(messages, floats, rounds, everything, notes)
            canonical_rows += rows
            if floats:
                tag_rows += _tag_rows(messages, canonical, rounds, everything)
    reference = [r for r in canonical_rows if r["key"] == "reference"]
    equal = all(r["rfc8785_bytes"] for r in reference)
    speedups = [r["vs_rfc8785"] for r in reference]
    measured = (
        f"byte-equal to rfc8785.dumps on {sum(r['rfc8785_bytes'] for r in reference)} of {len(reference)} "
        f"documents; median {min(speedups):.1f}× to {max(speedups):.1f}× the library's throughput"
    )
    notes.append(
        "Which is used and why: the reference writes RFC 8785 (`canonical_value`), because a digest or tag "
        "must come out the same in every language and RFC 8785 is the published form their libraries "
        "write; it calls the maintained `rfc8785` package only where `json.dumps` would write other bytes "
        "(integral floats and floats outside [1e-4, 1e16), integers beyond 2**53, keys above U+FFFF), "
        "which Hypothesis tests prove byte-equal. The suite calls `rfc8785` alone, on purpose: as the "
        "judge it prefers the obvious route."
    )
    return Section(
        key="canonical",
        title="Canonical JSON, digests and HMAC tags",
        method=_METHOD,
        tables=[
            Table(
                "Documents",
                [
                    Column("document", "document"),
                    Column("mb", "MB (RFC 8785)", "{:.2f}"),
                    Column("messages", "messages", "{:,}"),
                    Column("float_messages_pct", "messages with a float", "{:.1f}%"),
                    Column("float_bytes_pct", "bytes in them", "{:.1f}%"),
                    Column("non_ascii_pct", "non-ASCII characters", "{:.2f}%"),
                ],
                [r for r in canonical_rows if r["key"] == "rfc8785"],
            ),
            Table(
                "Canonical form of a whole snapshot (MB/s; higher is faster)",
                [
                    Column("document", "document"),
                    Column("mb", "MB", "{:.2f}"),
                    Column("implementation", "implementation"),
                    Column("mbps", "MB/s median", "{:.1f}"),
                    Column("mbps_min", "slowest", "{:.1f}"),
                    Column("mbps_max", "fastest", "{:.1f}"),
                    Column("ms", "ms median", "{:,.0f}"),
                    Column("vs_rfc8785", "× rfc8785", "{:.2f}"),
                    Column("rfc8785_bytes", "RFC 8785 bytes"),
                ],
                canonical_rows,
            ),
            Table(
                "Digests and tags (with floats)",
                [
                    Column("snapshot_mb", "snapshot MB", "{:.2f}"),
                    Column("operation", "operation"),
                    Column("input_mb", "input MB", "{:.2f}"),
                    Column("ms", "ms median", "{:,.2f}"),
                    Column("ms_min", "min", "{:,.2f}"),
                    Column("ms_max", "max", "{:,.2f}"),
                    Column("mbps", "MB/s", "{:.1f}"),
                    Column("vs_sign", "× faster than sign", "{:,.0f}"),
                    Column("same_tag", "same tag as one pass"),
                ],
                tag_rows,
            ),
        ],
        targets=[
            Target(
                "The reference's canonical form is RFC 8785 and at least as fast as the maintained library "
                "alone (rfc8785.dumps) on every document",
                measured,
                equal and min(speedups) >= 1,
            )
        ],
        notes=notes,
    )
