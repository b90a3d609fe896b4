"""Static vectors: hand-written scenarios with expected observations (conformance/vectors/v1/*.json).

A vector is checked two ways: against the oracle (the hand-written expectations and the model must agree,
so neither drifts silently) and against an implementation (observations must match both the hand-written
expectations and the oracle's finer checks). The format: conformance/vectors/vector.schema.json.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .check import Violation, check_messages, without_inner_ids
from .driver import Driver, Implementation
from .engine import MISSING, Decided, Input, Key, OracleAgent, Outcome, Ref, Response, Resume, UnknownRef
from .fake import to_input
from .scenario import JSON, canonical, parse_spec

VECTOR_DIR = Path(__file__).resolve().parents[2] / "vectors"
SCHEMA_PATH = VECTOR_DIR / "vector.schema.json"


def load_vectors(version: str = "v1") -> list[dict[str, JSON]]:
    out = []
    for path in sorted((VECTOR_DIR / version).glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc.setdefault("id", path.stem)
        out.append(doc)
    return out


def facts(observed: dict[str, JSON]) -> dict[str, JSON]:
    """The comparable facts of one invocation, in the vector's ``expect`` vocabulary."""
    # The agent's own events: a sub-agent's (agentPath, spec 12) interleave with its siblings' under the
    # concurrent executor, and the driver's checks judge them per agentPath.
    trace: list[dict[str, JSON]] = [e for e in observed.get("trace") or [] if not e.get("agentPath")]
    f: dict[str, JSON] = {}
    err = observed.get("error")
    if err:
        f["error"] = err.get("code")
    elif "toolResult" in observed:
        f["toolResult"] = {k: v for k, v in (observed["toolResult"] or {}).items() if k != "toolUseId"}
    else:
        res = observed.get("result") or {}
        f["stopReason"] = res.get("stopReason")
        f["message"] = res.get("message")
        f["interrupts"] = sorted(
            (
                {
                    "name": i.get("name"),
                    # inner ids (spec 12) are bound by the driver, never expected
                    "source": without_inner_ids(
                        {k: v for k, v in (i.get("source") or {}).items() if v is not None}
                    ),
                    **({"reason": i["reason"]} if i.get("reason") is not None else {}),
                }
                for i in res.get("interrupts") or []
            ),
            key=canonical,
        )

    def count(kind: str, *keys: str) -> dict[str, int]:
        c: Counter[str] = Counter()
        for e in trace:
            if e.get("kind") == kind:
                c["#".join(str(e.get(k)) for k in keys if e.get(k) is not None)] += 1
        return dict(c)

    f["modelCalls"] = [e.get("turn") for e in trace if e.get("kind") == "model_call"]
    f["toolStarts"] = count("tool_start", "toolUseId")
    f["beforeToolCall"] = count("before_tool_call", "toolUseId")
    f["afterToolCall"] = {
        str(e.get("toolUseId")): e.get("status") for e in trace if e.get("kind") == "after_tool_call"
    }
    f["afterToolCallCount"] = count("after_tool_call", "toolUseId")
    f["afterTools"] = [
        sorted(map(str, e.get("toolUseIds") or [])) for e in trace if e.get("kind") == "after_tools"
    ]
    f["hookCallbacks"] = count("hook_callback", "event", "hookIndex", "toolUseId")
    f["messagesAdded"] = [e.get("role") for e in trace if e.get("kind") == "message_added"]
    return f


def outcome_as_observed(outcome: Outcome, pending: dict[str, JSON] | None) -> dict[str, JSON]:
    """The oracle's prediction in the harness's output shape (ids left out)."""
    if outcome.is_error:
        return {"error": {"code": sorted(outcome.codes)[0]}, "trace": outcome.trace}
    if outcome.kind == "direct":
        return {"toolResult": outcome.direct_result, "trace": outcome.trace}
    ints = [
        {"name": i.name, "source": i.source, **({} if i.reason is MISSING else {"reason": i.reason})}
        for i in outcome.interrupts
    ]
    return {
        "result": {
            "stopReason": outcome.stop_reason,
            "interrupts": ints,
            "message": outcome.message if outcome.message is not None else pending,
        },
        "trace": outcome.trace,
    }


# Expectations about hook events: judged only for implementations that claim `hooks` (spec 4.1).
HOOK_FACTS = frozenset(
    {"beforeToolCall", "afterToolCall", "afterToolCallCount", "afterTools", "hookCallbacks", "messagesAdded"}
)


def compare_expect(
    expect: dict[str, JSON], got: dict[str, JSON], codes: frozenset[str] | None = None
) -> list[str]:
    """Differences between hand-written expectations and facts (only the fields the vector states)."""
    diffs: list[str] = []
    for k, want in expect.items():
        if k in ("messages", "state", "note"):
            continue
        have = got.get(k)
        if k == "error":
            allowed = {want} if isinstance(want, str) else set(want)
            if have not in allowed and not (codes is not None and codes <= allowed):
                diffs.append(f"error: expected {sorted(allowed)}, got {have!r}")
            continue
        if k == "interrupts":
            want = sorted(
                (
                    {
                        "name": i["name"],
                        "source": i.get("source", {}),
                        **({"reason": i["reason"]} if "reason" in i else {}),
                    }
                    for i in want
                ),
                key=canonical,
            )
            have_l = [
                {**i, "source": {s: v for s, v in i["source"].items() if s in _src_keys(want, i)}}
                for i in (have or [])
            ]
            have = sorted(have_l, key=canonical)
        if k == "afterTools":
            want = [sorted(x) for x in want]
        if canonical(want) != canonical(have):
            diffs.append(f"{k}: expected {canonical(want)}, got {canonical(have)}")
    return diffs


def _src_keys(want: list[dict[str, Any]], item: dict[str, Any]) -> set[str]:
    for w in want:
        if w["name"] == item.get("name"):
            return set(w.get("source", {}))
    return set()


@dataclass
class VectorRun:
    """Resolution of symbolic interrupt references while a vector runs."""

    seen: dict[Key, str | None] = field(default_factory=dict)  # key -> last observed id (None for the oracle)

    def remember(self, keys: list[Key], ids: list[str | None]) -> None:
        for k, i in zip(keys, ids, strict=True):
            self.seen[k] = i

    def find(self, ref: dict[str, JSON]) -> Key:
        hits = [
            k
            for k in self.seen
            if k[2] == ref["name"]
            and ("toolUseId" not in ref or k[1] == ref["toolUseId"])
            and ("kind" not in ref or k[0] == ref["kind"])
        ]
        if len(hits) != 1:
            raise ValueError(f"vector reference {ref} matches {hits}")
        return hits[0]


def _value(r: dict[str, JSON]) -> JSON:
    """A block's response, or its decision members (spec 11.1) as a ``Decided``."""
    if "decision" in r or "message" in r:
        return Decided(r.get("decision", MISSING), r.get("message", MISSING), r.get("response", MISSING))
    return r.get("response", MISSING)


def _refs(inp: dict[str, JSON], run: VectorRun) -> list[tuple[Ref | str, JSON]]:
    return [
        (run.find(r["interrupt"]) if "interrupt" in r else str(r.get("interruptId")), _value(r))
        for r in inp["interruptResponses"]
    ]


def _response(ref: Ref | str, value: JSON) -> Response:
    oref = UnknownRef(ref, malformed=not ref) if isinstance(ref, str) else ref
    if isinstance(value, Decided):
        return Response(oref, value.response, value.decision, value.message)
    return Response(oref, value)


def oracle_input(inp: dict[str, JSON], run: VectorRun) -> Input:
    if "interruptResponses" not in inp:
        return to_input(inp, UnknownRef)
    return Resume(tuple(_response(ref, value) for ref, value in _refs(inp, run)))


def vector_profiles(vector: dict[str, JSON]) -> frozenset[str]:
    return frozenset(str(p) for p in vector.get("profiles") or ())


def check_vector_against_oracle(vector: dict[str, JSON]) -> list[str]:
    """Every disagreement between the vector's hand-written expectations and the oracle."""
    agent = OracleAgent(parse_spec(vector["agent"]), vector_profiles(vector))
    run = VectorRun()
    problems: list[str] = []
    for n, step in enumerate(vector["steps"]):
        if "restore" in step:
            agent = agent.copy()
            continue
        outcome = agent.invoke(oracle_input(step["invoke"], run))
        run.remember([i.key for i in outcome.interrupts], [None] * len(outcome.interrupts))
        expect = step.get("expect", {})
        got = facts(outcome_as_observed(outcome, agent.pending_assistant))
        problems += [
            f"step {n}: {d}" for d in compare_expect(expect, got, outcome.codes if outcome.is_error else None)
        ]
        if "messages" in expect and canonical(expect["messages"]) != canonical(agent.messages):
            problems.append(
                f"step {n}: messages: expected {canonical(expect['messages'])}, "
                f"oracle {canonical(agent.messages)}"
            )
        if "state" in expect and canonical(expect["state"]) != canonical(agent.state):
            problems.append(
                f"step {n}: state: expected {canonical(expect['state'])}, oracle {canonical(agent.state)}"
            )
    return problems


def run_vector(
    vector: dict[str, JSON], impl: Implementation, *, hook_events: bool = True, inspect: bool = False
) -> tuple[list[Violation], Driver]:
    """Run one vector against an implementation; every finding names the vector's requirements too.

    ``hook_events``: the implementation claims `hooks` (otherwise its trace is judged on core kinds only).
    ``inspect``: its adapter can read the interrupt state (checked after each refused input).
    """
    requirement_ids: list[str] = list(vector.get("requirements", []))
    driver = Driver(
        impl, vector["agent"], hook_events=hook_events, inspect=inspect, profiles=vector_profiles(vector)
    )
    run = VectorRun()
    found: list[Violation] = []
    try:
        for n, step in enumerate(vector["steps"]):
            ctx = f"vector {vector['id']} step {n}"
            if "restore" in step:
                found += [v.with_context(ctx) for v in driver.restore()]  # primary findings only
                if driver.dead:
                    break
                continue
            inp = step["invoke"]
            wire: dict[str, JSON]
            oinp: Input
            if "interruptResponses" in inp:
                wire, oinp = driver.resume_input(_refs(inp, run), omit_response=False)
                for item, r in zip(wire["interruptResponses"], inp["interruptResponses"], strict=True):
                    if "response" not in r and "decision" not in r and "message" not in r:
                        item.pop("response", None)
                oinp = oracle_input(inp, run)
            else:
                wire, oinp = inp, to_input(inp, UnknownRef)
            pristine = not driver.primaries
            step_found = driver.invoke(wire, oinp, ctx, stream=step.get("stream"))
            found += step_found
            outcome = driver.last_outcome
            assert outcome is not None
            run.remember(
                [i.key for i in outcome.interrupts], [driver.id_for(i.key) for i in outcome.interrupts]
            )
            observed = driver.log[-1].response
            # The oracle's findings name precise requirements; the hand-written expectations are a second
            # opinion, reported under the vector's requirements only while the oracle has seen nothing wrong
            # in this run (after a divergence, only the re-synchronised oracle can say what must happen).
            if pristine and not driver.primaries:
                expect = step.get("expect", {})
                if not hook_events:
                    expect = {k: v for k, v in expect.items() if k not in HOOK_FACTS}
                for d in compare_expect(expect, facts(observed)):
                    found.append(Violation(requirement_ids, f"{ctx}: {d}"))
                exp_msgs = step.get("expect", {}).get("messages")
                if exp_msgs is not None and "messages" in observed:
                    for v in check_messages(
                        exp_msgs, observed.get("messages"), free=driver.oracle.free_content
                    ):
                        if v.level == "MUST":
                            found.append(Violation(requirement_ids, f"{ctx}: {v.message}"))
                        else:
                            driver.warnings.append(v.with_context(ctx))
            if driver.dead:
                break
    finally:
        driver.dispose()
    return found, driver


_PROMOTED = (
    "error",
    "stopReason",
    "interrupts",
    "modelCalls",
    "toolStarts",
    "afterToolCall",
    "afterTools",
    "hookCallbacks",
    "messagesAdded",
)


def driver_to_vector(
    driver: Driver, vid: str, title: str, requirements: list[str], profiles: list[str]
) -> dict[str, JSON]:
    """A static vector replaying what a driver did, with the oracle's expectations (review before
    committing: the expectations must be re-checked by hand, as for every vector)."""
    steps: list[dict[str, JSON]] = []
    for symbolic, outcome, pending in driver.steps:
        if symbolic is None or outcome is None:
            steps.append({"restore": True})
            continue
        got = facts(outcome_as_observed(outcome, pending))
        expect = {k: got[k] for k in _PROMOTED if k in got}
        if outcome.is_error:
            # A failure mid-run (trace_checked False: units ran before it) pins only the outcome.
            pinned = ("modelCalls", "toolStarts", "messagesAdded") if outcome.trace_checked else ()
            expect = {k: v for k, v in expect.items() if k in pinned}
            expect["error"] = sorted(outcome.codes) if len(outcome.codes) > 1 else sorted(outcome.codes)[0]
        else:
            expect["messages"] = []  # placeholder replaced below
        steps.append({"invoke": symbolic, "expect": expect})
    # History after each accepted step, replayed on a fresh oracle.
    replay = OracleAgent(parse_spec(driver.spec_doc), driver.profiles)
    run = VectorRun()
    for step in steps:
        if "restore" in step:
            replay = replay.copy()
            continue
        outcome = replay.invoke(oracle_input(step["invoke"], run))
        run.remember([i.key for i in outcome.interrupts], [None] * len(outcome.interrupts))
        if "messages" in step["expect"]:
            if replay.messages_known:
                step["expect"]["messages"] = copy.deepcopy(replay.messages)
            else:
                del step["expect"]["messages"]
    return {
        "id": vid,
        "title": title,
        "source": "promoted counterexample",
        "requirements": requirements,
        "profiles": profiles,
        "agent": driver.spec_doc,
        "steps": steps,
    }
