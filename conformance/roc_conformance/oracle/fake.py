"""An in-process implementation built on the oracle engine, for testing the suite itself.

It speaks the harness JSON (Invoke input/output, trace events, snapshots) so the machine, the vectors and
the broken fixtures can run without gRPC. It is *not* evidence that the oracle is right — the static
vectors (hand-written expectations) are.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

from .engine import (
    MISSING,
    Abandon,
    Direct,
    Input,
    Key,
    Mixed,
    OracleAgent,
    Prompt,
    Ref,
    Response,
    Resume,
    UnknownRef,
)
from .scenario import JSON, parse_spec
from .subagents import interrupt_name


@dataclass(frozen=True)
class FakeDescription:
    profiles: frozenset[str]
    implementation: dict[str, JSON]


ALL_PROFILES = ("core", "hooks", "sequential-executor", "concurrent-executor", "sessions")


def to_input(inp: dict[str, JSON], resolve: Any) -> Input:
    """Harness Invoke input -> oracle input; ``resolve(id) -> Ref`` maps interrupt ids to keys."""
    if "directToolCall" in inp:
        call = inp["directToolCall"]
        return Direct(str(call.get("name")), call.get("input"))
    if "abandon" in inp:
        body = inp["abandon"]
        return Abandon(body.get("message", MISSING), "continue" if body.get("continueModel") else "end")
    if "interruptResponses" in inp:
        blocks = [{"interruptResponse": r} for r in inp["interruptResponses"]]
    elif "content" in inp:
        blocks = list(inp["content"])
    else:
        return Prompt([{"text": str(inp.get("prompt", ""))}])
    responses = [b for b in blocks if isinstance(b, dict) and "interruptResponse" in b]
    if responses and len(responses) != len(blocks):
        return Mixed(blocks)
    if not blocks:
        return Resume(())
    if not responses:
        return Prompt(blocks, content_form=True)
    out: list[Response] = []
    for b in responses:
        r = b["interruptResponse"]
        iid = r.get("interruptId") if isinstance(r, dict) else None
        ref: Ref
        if (
            not isinstance(r, dict)
            or not isinstance(iid, str)
            or not iid
            or set(r) - {"interruptId", "response", "decision", "message"}
            or set(b) != {"interruptResponse"}  # a member beside the body: malformed too (spec §3.4)
        ):
            ref = UnknownRef(repr(iid), malformed=True)
        else:
            ref = resolve(iid)
        body = r if isinstance(r, dict) else {}
        out.append(
            Response(
                ref,
                body.get("response", MISSING),
                body.get("decision", MISSING),
                body.get("message", MISSING),
            )
        )
    return Resume(tuple(out))


class FakeImplementation:
    """Satisfies roc_conformance.machine.Implementation in process."""

    name = "oracle-fake"
    agent_factory: type[OracleAgent] = OracleAgent

    def __init__(self, profiles: tuple[str, ...] = ALL_PROFILES) -> None:
        self.profiles = frozenset(profiles)
        self._agents: dict[str, OracleAgent] = {}
        self._stash: dict[str, OracleAgent] = {}
        self._seq = itertools.count(1)

    # ids: deterministic in the batch and the key, so they are stable across replay and restore and
    # never reused by a later batch (ROC-MODEL-008).
    def mint_id(self, agent: OracleAgent, key: Key) -> str:
        return f"roc-fake:{agent.batch_index()}:{key[0]}:{key[1] or '-'}:{key[2]}"

    def source_of(self, agent: OracleAgent, key: Key, source: dict[str, JSON]) -> dict[str, JSON]:
        """The source as reported: a propagated interrupt's ``inner`` gets an id at each level (spec 12)."""
        out = copy.deepcopy(source)
        level, name = out, key[2]
        while isinstance(level.get("inner"), dict):
            name = name.rsplit("@", 1)[0]  # the key of the level below (subagents.propagated_key)
            level["inner"]["interruptId"] = (
                f"roc-fake-inner:{agent.batch_index()}:{level.get('toolUseId')}:{name}"
            )
            level = level["inner"]["source"]
        return out

    def resolve_id(self, agent: OracleAgent, iid: str) -> Ref:
        for key in agent.known_keys():
            if self.mint_id(agent, key) == iid:
                return key
        return UnknownRef(iid)

    def describe(self) -> FakeDescription:
        return FakeDescription(self.profiles, {"name": self.name})

    def create_agent(self, spec: dict[str, JSON]) -> str:
        handle = f"agent-{next(self._seq)}"
        self._agents[handle] = self.agent_factory(parse_spec(spec), self.profiles)
        return handle

    def dispose_agent(self, agent: str) -> None:
        self._agents.pop(agent, None)

    def invoke(self, agent: str, inp: dict[str, JSON], *, stream: bool = False) -> dict[str, JSON]:
        # ``stream`` (profile streaming, when a vector claims it): an invocation is the same either way; the
        # fake streams every interrupt of its result when it stops, the latest a runtime may (spec 17.2).
        a = self._agents[agent]
        outcome = a.invoke(to_input(inp, lambda iid: self.resolve_id(a, iid)))
        doc: dict[str, JSON] = {
            "trace": copy.deepcopy(outcome.trace),
            "messages": copy.deepcopy(a.messages),
            "state": copy.deepcopy(a.state),
        }
        if outcome.is_error:
            doc["error"] = {"code": sorted(outcome.codes)[0], "message": "rejected"}
            if "pending-list" in self.profiles and doc["error"]["code"] == "INTERRUPT_PENDING":
                doc["error"]["details"] = {"pending": self._pending(a)}
            return doc
        if outcome.kind == "direct":
            doc["toolResult"] = copy.deepcopy(outcome.direct_result)
            return doc
        interrupts = []
        for i in outcome.interrupts:
            source = self.source_of(a, i.key, i.source)
            item: dict[str, JSON] = {"id": self.mint_id(a, i.key), "name": i.name, "source": source}
            if i.reason is not MISSING:
                item["reason"] = i.reason
            item.update(copy.deepcopy(i.extra))
            interrupts.append(item)
        message = outcome.message if outcome.message is not None else copy.deepcopy(a.pending_assistant)
        doc["result"] = {"stopReason": outcome.stop_reason, "message": message, "interrupts": interrupts}
        if stream:
            events = [{"kind": "streamed_interrupt", "interrupt": copy.deepcopy(i)} for i in interrupts]
            doc["trace"] = [*doc["trace"], *events]
        return doc

    def _pending(self, a: OracleAgent) -> list[dict[str, JSON]]:
        out: list[dict[str, JSON]] = []
        for key, stored in a.pending_list().items():
            reg = a.interrupts[key]
            source = self.source_of(a, key, reg.source)
            item: dict[str, JSON] = {
                "id": self.mint_id(a, key),
                "name": interrupt_name(key),
                "source": source,
            }
            if reg.reason is not MISSING:
                item["reason"] = copy.deepcopy(reg.reason)
            item.update(copy.deepcopy(reg.extra))
            if stored is not MISSING:
                item["answer"] = copy.deepcopy(stored)
            out.append(item)
        return out

    def take_snapshot(self, agent: str) -> dict[str, JSON]:
        a = self._agents[agent]
        ref = f"snap-{next(self._seq)}"
        self._stash[ref] = a.copy()
        return {"snapshot": self._snapshot_doc(a, ref)}

    def _snapshot_doc(self, a: OracleAgent, ref: str) -> dict[str, JSON]:
        return {
            "schemaVersion": "2.0",
            "specVersion": "1.0",
            "createdAt": "2026-01-01T00:00:00Z",
            "revision": 0,
            "agent": {
                "agentId": a.spec.agent_id,
                "messages": copy.deepcopy(a.messages),
                "state": copy.deepcopy(a.state),
            },
            "interruptState": {
                "activated": a.activated,
                "interrupts": [
                    {
                        "id": self.mint_id(a, k),
                        "name": interrupt_name(k),
                        "source": r.source,
                        **({"response": r.response} if r.answered else {}),
                    }
                    for k, r in a.interrupts.items()
                ],
                "pendingToolExecution": None
                if a.pending_assistant is None
                else {
                    "assistantMessage": copy.deepcopy(a.pending_assistant),
                    "completedToolResults": list(copy.deepcopy(a.completed).values()),
                },
            },
            "x-fake": ref,
        }

    def restore_agent(
        self, snapshot: dict[str, JSON] | str, spec: dict[str, JSON], *, model_turn_offset: int = 0
    ) -> dict[str, JSON]:
        assert isinstance(snapshot, dict)
        handle = f"agent-{next(self._seq)}"
        self._agents[handle] = self._stash[str(snapshot["x-fake"])].copy()
        return {"agent": handle}
