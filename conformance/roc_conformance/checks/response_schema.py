"""Response schema checks (profile response-schema, spec chapter 14): the schema reported and kept, raises
outside the portable subset refused, answers validated before anything is stored, with the normalized errors
of the shared vectors (spec/examples/response-schema/vectors.json), decisions not validated, and restored
interrupts validated alike. One check per requirement; every expectation comes from the spec's vectors and the
scenario, never from the implementation's own output.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from roc_conformance import scenarios as sc
from roc_conformance.canonical import canonical_text
from roc_conformance.checks.base import Check, CheckContext, ExplicitSpec, explicit_checks_of
from roc_conformance.checks.decision_support import (
    PAST,
    decide,
    followed,
    ids_by_name,
    interrupts,
    one_tool,
    pause,
    resume,
    shown,
    tool_results,
)
from roc_conformance.checks.snapshot_support import (
    error_code,
    fail_if,
    own_snapshot_refused,
    strip_volatile,
    take_snapshot,
)
from roc_conformance.errors import ConformanceViolation

SCHEMA_REPORTED = "ROC-SCHEMA-001"
SCHEMA_SUBSET = "ROC-SCHEMA-002"
SCHEMA_ACCEPTED = "ROC-SCHEMA-003"
SCHEMA_REFUSED = "ROC-SCHEMA-004"
SCHEMA_DETAILS = "ROC-SCHEMA-005"
SCHEMA_DECISIONS = "ROC-SCHEMA-006"
SCHEMA_RESTORED = "ROC-SCHEMA-007"
SCHEMA_RANK = "ROC-SCHEMA-009"
SCHEMA_FOREIGN = "ROC-SCHEMA-010"

FORM: dict[str, Any] = {
    "type": "object",
    "title": "Deploy",
    "properties": {
        "env": {"type": "string", "enum": ["staging", "prod"]},
        "replicas": {"type": "integer", "minimum": 1},
    },
    "required": ["env", "replicas"],
    "additionalProperties": False,
}
GOOD = {"env": "prod", "replicas": 3}
BAD = {"env": "dev", "note": "x"}
BAD_ERRORS = [
    {"path": "/env", "keyword": "enum"},
    {"path": "/note", "keyword": "additionalProperties"},
    {"path": "/replicas", "keyword": "required"},
]
"""What spec 14.4's rules give for ``BAD`` against ``FORM``."""


@cache
def vectors() -> tuple[dict[str, Any], ...]:
    """The shared vectors of spec 14.5, found next to the suite (a source checkout or an installed copy that
    ships spec/)."""
    for directory in Path(__file__).resolve().parents:
        candidate = directory / "spec" / "examples" / "response-schema" / "vectors.json"
        if candidate.is_file():
            return tuple(json.loads(candidate.read_text(encoding="utf-8"))["vectors"])
    raise RuntimeError(
        "spec/examples/response-schema/vectors.json is not available to this suite installation"
    )


def _same(a: Any, b: Any) -> bool:
    return canonical_text(a) == canonical_text(b)


def ask(schema: dict[str, Any], name: str = "q") -> dict[str, Any]:
    """An interrupt step that raises with ``schema`` (harness protocol 6, ``responseSchema``)."""
    return {"interrupt": {"name": name, "reason": {"fill": "the form"}, "responseSchema": schema}}


def _asker(ctx: CheckContext, agent_id: str, schema: dict[str, Any], *, asks: int = 1) -> dict[str, Any]:
    """Tool ``ask`` raises ``q`` with ``schema`` and returns its answer, ``asks`` times in a row (one tool use
    per model turn), then the model says done."""
    return one_tool(agent_id, ctx, ask(schema), sc.returns("ok"), extra_turns=asks - 1)


def _answer(iid: str, response: Any) -> dict[str, Any]:
    return resume({"interruptId": iid, "response": response})


def _received(out: dict[str, Any], tool_use_id: str) -> Any:
    """The answers tool use ``tool_use_id``'s program returned (the scenario language's ``return``)."""
    content = (tool_results(out).get(tool_use_id) or {}).get("content") or [{}]
    body = content[0].get("json") if isinstance(content[0], dict) else None
    return body.get("answers") if isinstance(body, dict) else "<no returned answers>"


def _errors_of(out: dict[str, Any]) -> Any:
    details = (out.get("error") or {}).get("details")
    return details.get("errors", "<absent>") if isinstance(details, dict) else "<no details>"


# ---------------------------------------------------------------------------------------------


def check_schema_reported(ctx: CheckContext) -> None:
    """The result reports the raiser's schema JSON-equal; with sessions, the snapshot keeps it and a restored
    agent's snapshot still has it."""
    wrong: list[str] = []
    spec = _asker(ctx, "schema-reported", FORM)
    agent, first = pause(ctx, spec)
    got = interrupts(first)[0].get("responseSchema", "<absent>")
    if not _same(got, FORM):
        wrong.append(f"the result reported responseSchema {got}, the raiser gave {FORM}")
    if not wrong and "sessions" in ctx.profiles:
        taken = take_snapshot(ctx, agent)
        stored = ((taken.get("interruptState") or {}).get("interrupts") or [{}])[0].get("responseSchema")
        if not _same(stored, FORM):
            wrong.append(f"the snapshot stored responseSchema {stored}")
        else:
            restored = ctx.client.restore_agent(taken, spec, model_turn_offset=1)
            handle = restored.get("agent")
            if handle is not None:
                again = take_snapshot(ctx, handle)
                kept = ((again.get("interruptState") or {}).get("interrupts") or [{}])[0].get(
                    "responseSchema"
                )
                if not _same(kept, FORM):
                    wrong.append(f"a snapshot of the restored agent stored responseSchema {kept}")
    fail_if({SCHEMA_REPORTED: wrong})


def check_subset_refused(ctx: CheckContext) -> None:
    """Every refused schema of the vectors that the harness can carry (an object) fails the raise with
    INVALID_REASON."""
    wrong: list[str] = []
    for vector in vectors():
        if not vector.get("refused") or not isinstance(vector["schema"], dict):
            continue
        agent = ctx.client.create_agent(_asker(ctx, "schema-subset", vector["schema"]))
        out = ctx.client.invoke(agent, {"prompt": "go"})
        if error_code(out) != "INVALID_REASON":
            wrong.append(f"{vector['description']}: the raise gave {shown(out)}, not INVALID_REASON")
    fail_if({SCHEMA_SUBSET: wrong})


def check_valid_answers(ctx: CheckContext) -> None:
    """Each valid answer of the vectors is accepted and reaches the unit JSON-equal."""
    wrong: list[str] = []
    for vector in vectors():
        valid = [] if vector.get("refused") else vector["valid"]
        if not valid:
            continue
        agent, out = pause(ctx, _asker(ctx, "schema-valid", vector["schema"], asks=len(valid)))
        for n, answer in enumerate(valid, start=1):
            iid = str(interrupts(out)[0].get("id")) if interrupts(out) else "<none>"
            out = ctx.client.invoke(agent, _answer(iid, answer))
            label = f"{vector['description']}: answer {json.dumps(answer, ensure_ascii=False)}"
            if "result" not in out:
                wrong.append(f"{label} gave {shown(out)}")
                break
            if not _same(_received(out, f"t{n}"), [answer]):
                wrong.append(f"{label} reached the unit as {_received(out, f't{n}')}")
                break
    fail_if({SCHEMA_ACCEPTED: wrong})


def check_invalid_refused(ctx: CheckContext) -> None:
    """An invalid answer is INVALID_RESPONSE and nothing of the input is stored: the agent still waits, and
    with two interrupts (concurrent executor) the valid answer given with the invalid one was not kept."""
    wrong: list[str] = []
    agent, first = pause(ctx, _asker(ctx, "schema-refused", FORM))
    iid = str(interrupts(first)[0].get("id"))
    out = ctx.client.invoke(agent, _answer(iid, BAD))
    if error_code(out) != "INVALID_RESPONSE":
        wrong.append(f"an answer that fails its schema gave {shown(out)}, not INVALID_RESPONSE")
    else:
        after = ctx.client.invoke(agent, _answer(iid, GOOD))
        if "result" not in after or not _same(_received(after, "t1"), [GOOD]):
            wrong.append(f"after the refusal a valid answer gave {shown(after)}, {_received(after, 't1')}")
    if not wrong and "concurrent-executor" in ctx.profiles:
        spec = sc.agent_spec(
            "schema-all-or-nothing",
            executor="concurrent",
            turns=[sc.turn(sc.tool_use("t1", "a"), sc.tool_use("t2", "b")), sc.turn(sc.text("done"))],
            tools=[
                sc.tool("a", ask({"type": "integer"}, "a"), sc.returns("a")),
                sc.tool("b", sc.interrupt("b"), sc.returns("b")),
            ],
        )
        agent, first = pause(ctx, spec)
        ids = ids_by_name(first)
        if set(ids) != {"a", "b"}:
            raise ConformanceViolation("ROC-STOP-001", f"expected interrupts a and b, got {shown(first)}")
        both = ctx.client.invoke(
            agent,
            resume({"interruptId": ids["b"], "response": "fine"}, {"interruptId": ids["a"], "response": "x"}),
        )
        if error_code(both) != "INVALID_RESPONSE":
            wrong.append(
                f"a valid and an invalid answer in one input gave {shown(both)}, not INVALID_RESPONSE"
            )
        else:
            partial = ctx.client.invoke(agent, _answer(ids["a"], 7))
            if sorted(ids_by_name(partial)) != ["b"]:
                wrong.append(
                    "the rejected input's valid answer to b was kept: answering a alone then gave "
                    + shown(partial)
                )
    fail_if({SCHEMA_REFUSED: wrong})


def check_error_details(ctx: CheckContext) -> None:
    """Each invalid answer of the vectors (and spec 14.4's example) is refused with details
    ``{interruptId, path, errors}``: the vectors' errors exactly, ``path`` the first one's."""
    wrong: list[str] = []
    cases = [
        (v["description"], v["schema"], c) for v in vectors() if not v.get("refused") for c in v["invalid"]
    ]
    cases.append(("spec 14.4's example", FORM, {"answer": BAD, "errors": BAD_ERRORS}))
    agents: dict[str, tuple[str, str]] = {}
    unrefused: list[str] = []
    for description, schema, case in cases:
        if description not in agents:
            agent, first = pause(ctx, _asker(ctx, "schema-details", schema))
            agents[description] = (agent, str(interrupts(first)[0].get("id")))
        agent, iid = agents[description]
        out = ctx.client.invoke(agent, _answer(iid, case["answer"]))
        label = f"{description}: answer {json.dumps(case['answer'], ensure_ascii=False)}"
        if error_code(out) != "INVALID_RESPONSE":
            unrefused.append(f"{label} gave {shown(out)}")  # ROC-SCHEMA-004's finding; no details to judge
            agents.pop(description)  # the answer may have been taken: a fresh agent for the next one
            continue
        details = (out.get("error") or {}).get("details")
        expected = {"interruptId": iid, "path": case["errors"][0]["path"], "errors": case["errors"]}
        if not isinstance(details, dict) or not all(_same(details.get(k), v) for k, v in expected.items()):
            wrong.append(f"{label}: details {details}, expected {expected}")
    if unrefused:
        followed(ctx, SCHEMA_DETAILS, "; ".join(unrefused), after=SCHEMA_REFUSED)
    fail_if({SCHEMA_DETAILS: wrong})


def check_decisions_not_validated(ctx: CheckContext) -> None:
    wrong: list[str] = []
    for decision in ("decline", "cancel"):
        agent, first = pause(ctx, _asker(ctx, "schema-decided", FORM))
        out = ctx.client.invoke(agent, resume(decide(str(interrupts(first)[0].get("id")), decision)))
        if "result" not in out:
            wrong.append(f"a {decision} of an interrupt with a response schema gave {shown(out)}")
    fail_if({SCHEMA_DECISIONS: wrong})


def check_restored_validated(ctx: CheckContext) -> None:
    """A restored agent refuses an invalid answer as the agent that raised the interrupt does (same code, same
    ``details.errors``), leaves its state unchanged, and accepts a valid answer. Judged against the same
    runtime's own refusal, so a wrong error set is ROC-SCHEMA-005's finding alone."""
    wrong: list[str] = []
    spec = _asker(ctx, "schema-restored", FORM)
    agent, first = pause(ctx, spec)
    iid = str(interrupts(first)[0].get("id"))
    taken = take_snapshot(ctx, agent)
    own = ctx.client.invoke(agent, _answer(iid, BAD))
    if error_code(own) != "INVALID_RESPONSE":
        message = f"an invalid answer before any restore gave {shown(own)}"
        followed(ctx, SCHEMA_RESTORED, message, after=SCHEMA_REFUSED)
        return
    restored = ctx.client.restore_agent(taken, spec, model_turn_offset=1)
    handle = restored.get("agent")
    if handle is None:
        return  # a refused own snapshot is ROC-SESSION-002's finding (explicit:session-round-trip)
    out = ctx.client.invoke(handle, _answer(iid, BAD))
    if error_code(out) != "INVALID_RESPONSE" or not _same(_errors_of(out), _errors_of(own)):
        wrong.append(
            f"after a restore an invalid answer gave {shown(out)}, errors {_errors_of(out)}; before the "
            f"restore: errors {_errors_of(own)}"
        )
    elif not _same(strip_volatile(take_snapshot(ctx, handle)), strip_volatile(taken)):
        wrong.append("after a restore the refused answer changed the agent's snapshot")
    else:
        done = ctx.client.invoke(handle, _answer(iid, GOOD))
        if "result" not in done:
            wrong.append(f"after a restore a valid answer gave {shown(done)}")
    fail_if({SCHEMA_RESTORED: wrong})


def check_schema_rank(ctx: CheckContext) -> None:
    """An input whose failing answer comes with a fault of ROC-RESUME-014 gets that fault's code; with expiry
    claimed, a failing answer to an expired interrupt gets INVALID_RESPONSE, not EXPIRED."""
    wrong: list[str] = []
    agent, first = pause(ctx, _asker(ctx, "schema-rank", {"type": "integer"}))
    iid = str(interrupts(first)[0].get("id"))
    probes = [
        ("an unknown id", [{"interruptId": "no-such-id", "response": 1}], "UNKNOWN_INTERRUPT"),
        ("the same id twice", [{"interruptId": iid, "response": 1}], "DUPLICATE_RESPONSE"),
    ]
    for label, more, code in probes:
        out = ctx.client.invoke(agent, resume({"interruptId": iid, "response": "x"}, *more))
        if error_code(out) != code:
            wrong.append(f"a failing answer with {label} gave {shown(out)}, not {code}")
    plain = ctx.client.invoke(agent, _answer(iid, "x"))
    if error_code(plain) != "INVALID_RESPONSE":
        followed(ctx, SCHEMA_RANK, f"a failing answer alone gave {shown(plain)}", after=SCHEMA_REFUSED)
    elif "expiry" in ctx.profiles:
        step = {"interrupt": {"name": "q", "responseSchema": {"type": "integer"}, "expiresAt": PAST}}
        agent, first = pause(ctx, one_tool("schema-rank-expired", ctx, step, sc.returns("ok")))
        out = ctx.client.invoke(agent, _answer(str(interrupts(first)[0].get("id")), "x"))
        if error_code(out) != "INVALID_RESPONSE":
            wrong.append(f"a failing answer to an expired interrupt gave {shown(out)}, not INVALID_RESPONSE")
    fail_if({SCHEMA_RANK: wrong})


FOREIGN: dict[str, Any] = {
    "type": "object",
    "properties": {"env": {"type": "string", "pattern": "^p", "format": "hostname"}},
    "anyOf": [{"required": ["env"]}, {"required": ["zone"]}],
    "x-acme-form": "deploy",
}
"""A schema outside the portable subset, as a runtime without the profile may store it (ROC-MODEL-009)."""


def check_foreign_schema(ctx: CheckContext) -> None:
    """A snapshot whose interrupt stores a schema outside the subset is restored, reports the schema unchanged
    and takes an answer that schema would refuse."""
    wrong: list[str] = []
    spec = _asker(ctx, "schema-foreign", FORM)
    agent, first = pause(ctx, spec)
    iid = str(interrupts(first)[0].get("id"))
    doc = copy.deepcopy(take_snapshot(ctx, agent))
    stored = (doc.get("interruptState") or {}).get("interrupts") or []
    if len(stored) != 1 or not isinstance(stored[0], dict):
        return  # what a snapshot stores is judged by the snapshot checks
    stored[0]["responseSchema"] = FOREIGN
    restored = ctx.client.restore_agent(doc, spec, model_turn_offset=1)
    handle = restored.get("agent")
    if handle is None:
        if not own_snapshot_refused(ctx, take_snapshot(ctx, agent), spec, SCHEMA_FOREIGN, "refused"):
            wrong.append(
                f"a snapshot storing a schema outside the subset was refused: {restored.get('error')}"
            )
        fail_if({SCHEMA_FOREIGN: wrong})
        return
    again = ((take_snapshot(ctx, handle).get("interruptState") or {}).get("interrupts") or [{}])[0]
    if not _same(again.get("responseSchema"), FOREIGN):
        wrong.append(f"the restored agent stores responseSchema {again.get('responseSchema')}, not {FOREIGN}")
    out = ctx.client.invoke(handle, _answer(iid, {"env": "staging"}))  # refused by FOREIGN and FORM
    if "result" not in out:
        wrong.append(f"an answer that the stored schema would refuse gave {shown(out)}")
    fail_if({SCHEMA_FOREIGN: wrong})


_SPECS: tuple[ExplicitSpec, ...] = (
    (
        f"explicit:{SCHEMA_REPORTED}",
        (SCHEMA_REPORTED,),
        check_schema_reported,
        ("core", "response-schema"),
        "the raiser's response schema is reported unchanged and kept in snapshots",
    ),
    (
        f"explicit:{SCHEMA_SUBSET}",
        (SCHEMA_SUBSET,),
        check_subset_refused,
        ("core", "response-schema"),
        "a raise with a schema outside the portable subset fails with INVALID_REASON",
    ),
    (
        f"explicit:{SCHEMA_ACCEPTED}",
        (SCHEMA_ACCEPTED,),
        check_valid_answers,
        ("core", "response-schema"),
        "the vectors' valid answers are accepted and reach the unit unchanged",
    ),
    (
        f"explicit:{SCHEMA_REFUSED}",
        (SCHEMA_REFUSED,),
        check_invalid_refused,
        ("core", "response-schema"),
        "an answer that fails its schema rejects the whole input with INVALID_RESPONSE, storing nothing",
    ),
    (
        f"explicit:{SCHEMA_DETAILS}",
        (SCHEMA_DETAILS,),
        check_error_details,
        ("core", "response-schema"),
        "INVALID_RESPONSE details carry interruptId, path and the vectors' normalized errors exactly",
    ),
    (
        f"explicit:{SCHEMA_DECISIONS}",
        (SCHEMA_DECISIONS,),
        check_decisions_not_validated,
        ("core", "response-schema", "decisions"),
        "a decline or cancel of an interrupt with a response schema is not validated",
    ),
    (
        f"explicit:{SCHEMA_RESTORED}",
        (SCHEMA_RESTORED,),
        check_restored_validated,
        ("core", "response-schema", "sessions"),
        "answers to a restored interrupt are validated against its response schema",
    ),
    (
        f"explicit:{SCHEMA_RANK}",
        (SCHEMA_RANK,),
        check_schema_rank,
        ("core", "response-schema"),
        "a failing response schema ranks after every code of ROC-RESUME-014 and before EXPIRED",
    ),
    (
        f"explicit:{SCHEMA_FOREIGN}",
        (SCHEMA_FOREIGN,),
        check_foreign_schema,
        ("core", "response-schema", "sessions"),
        "a restored schema outside the portable subset is kept and informs only",
    ),
)


def response_schema_checks() -> list[Check]:
    return explicit_checks_of(_SPECS)
