"""Compare one observed invocation (the harness's JSON) with the oracle's Outcome.

Every finding is a Violation (a ConformanceViolation) naming the ROC-* requirement(s) it breaks. Where the
trace is implementation-defined (the concurrent executor's interleaving) the comparison uses multisets and
per-tool / per-cycle partial orders instead of the full sequence.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..checks.wire_schema import error_codes
from ..errors import ConformanceViolation
from . import reqs
from .engine import MISSING, Key, Outcome, Ref, UnknownRef
from .scenario import JSON, canonical, same_canonical
from .subagents import KIND as AGENT_AS_TOOL
from .subagents import SITUATION_REQS, propagated_key

TOOL_EVENTS = ("before_tool_call", "tool_start", "tool_end", "after_tool_call")
# What an adapter records for a runtime that does not claim `hooks` (spec 4.1): the adapter brackets each
# invocation, serves the scripted model and runs the tool bodies itself, so it sees these without any hook
# API. Hook events are judged only for implementations that claim `hooks`.
CORE_TRACE_KINDS = frozenset({"invocation_start", "invocation_end", "model_call", "tool_start", "tool_end"})
CYCLE_EVENTS = ("model_call", "before_tools", "after_tools")
# Findings on what an event carries, not on which units ran: the oracle can still follow the run after them
# (a wrong AfterTools payload must not keep the rest of the scenario from being judged).
EVENT_PAYLOAD = frozenset(
    {reqs.MESSAGE_ADDED, reqs.AFTER_TOOLS_CONTENT, reqs.AFTER_TOOLS_ORDER, reqs.BT_FULL_MESSAGE}
)


class Violation(ConformanceViolation):
    """One finding of the oracle's checks; SHOULD findings are warnings, not failures.

    ``facet`` says what the finding is about, so the driver can tell a first divergence from what follows
    from it within the same step: ``outcome`` (error or result, stop reason, which interrupts), ``trace``
    (which units ran), ``data`` (the history and state left behind), ``detail`` (ids, reasons, messages,
    event reports: wrong on their own, with no effect on what runs next) or ``implied`` (what another
    finding of the same step already forces, e.g. the stop reason of a result whose extra interrupts a
    specific rule forbids: never a divergence of its own).
    """

    facet = "detail"
    explains_stop = False  # an unexpected interrupt from a unit a specific rule keeps from running
    about_history = False  # a finding on the history the implementation reports (not its state)
    refusal = False  # the implementation refused an input the oracle expected it to take

    def __init__(self, requirements: Iterable[str], message: str) -> None:
        ids = tuple(dict.fromkeys(requirements))
        if any(i not in reqs.PROVISIONAL for i in ids):  # provisional IDs only when nothing else applies
            ids = tuple(i for i in ids if i not in reqs.PROVISIONAL)
        super().__init__(ids, message)
        self.level = "SHOULD" if ids and all(i in reqs.SHOULD for i in ids) else "MUST"

    def with_context(self, context: str) -> Violation:
        return self.restated(self.requirements, f"{context}: {self.message}")

    def restated(self, requirements: Iterable[str], message: str) -> Violation:
        """The same finding (facet and marks kept) under other requirements or words."""
        out = _as(self.facet, Violation(requirements, message))
        out.explains_stop, out.about_history = self.explains_stop, self.about_history
        out.refusal = self.refusal
        return out


def _as(facet: str, violation: Violation) -> Violation:
    violation.facet = facet
    return violation


def merge(
    violations: list[Violation],
    context: str = "",
    counterexample: str | None = None,
    vector: dict[str, JSON] | None = None,
) -> ConformanceViolation:
    """One violation naming every requirement the findings break (for a single raise)."""
    ids = tuple(dict.fromkeys(i for v in violations for i in v.requirements))
    detail = "\n".join(f"- [{', '.join(v.requirements)}] {v.message}" for v in violations)
    return ConformanceViolation(
        ids, f"{context}\n{detail}" if context else detail, counterexample=counterexample, vector=vector
    )


def key_of(interrupt: dict[str, JSON]) -> Key:
    """The key an observed interrupt claims by its source and name; for a propagated interrupt, by its
    ``source.inner`` chain too (subagents.propagated_key)."""
    src = interrupt.get("source") or {}
    if not isinstance(src, dict):
        src = {}
    name = str(interrupt.get("name", ""))
    inner = src.get("inner")
    if src.get("kind") == AGENT_AS_TOOL and isinstance(inner, dict):
        inner_key = key_of({"name": name, "source": inner.get("source")})
        return propagated_key(str(src.get("toolUseId") or ""), inner_key)
    return (str(src.get("kind", "")), src.get("toolUseId") or None, name)


def _inner_ids(interrupt: dict[str, JSON]) -> list[JSON]:
    """The ``inner.interruptId`` of each level of a propagated interrupt, outermost first."""
    out: list[JSON] = []
    src = interrupt.get("source")
    while isinstance(src, dict) and src.get("kind") == AGENT_AS_TOOL and isinstance(src.get("inner"), dict):
        out.append(src["inner"].get("interruptId"))
        src = src["inner"].get("source")
    return out


def without_inner_ids(source: JSON) -> JSON:
    """A source with every level's ``inner.interruptId`` left out (ids are bound, never predicted)."""
    if not isinstance(source, dict) or not isinstance(source.get("inner"), dict):
        return source
    inner = {k: v for k, v in source["inner"].items() if k != "interruptId"}
    inner["source"] = without_inner_ids(inner.get("source"))
    return {**source, "inner": inner}


def crash_text(crash: JSON) -> str:
    """A crash as its exception and where it was raised (the traceback's last frame), not the first 300
    characters of the traceback, which show only the adapter's own frames."""
    if not isinstance(crash, dict) or not crash.get("type"):
        return _short(crash)
    text = f"{crash['type']}: {_short(crash.get('message', ''), 300)}"
    frames = re.findall(r'File "([^"]+)", line (\d+)', str(crash.get("details") or ""))
    if frames:
        path, line = frames[-1]
        text += f" (raised at {_package_path(path)}:{line})"
    return text


def _package_path(path: str) -> str:
    """A source path from its package on (``.../site-packages/strands/interrupt.py`` -> ``strands/...``)."""
    marker = "site-packages/"
    return path.split(marker, 1)[1] if marker in path else path


def _short(value: JSON, limit: int = 300) -> str:
    text = canonical(value)
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class IdBinder:
    """Observed ids bound to oracle keys: stable while their batch lives, distinct, never reused."""

    current: dict[Key, str] = field(default_factory=dict)
    retired: set[str] = field(default_factory=set)
    history: dict[Key, str] = field(default_factory=dict)  # last id per key (to re-send consumed answers)
    restored: bool = False
    inner: dict[Key, list[JSON]] = field(default_factory=dict)  # a propagated key -> its inner ids, by level

    def bind_inner(self, key: Key, ids: list[JSON], out: list[Violation]) -> None:
        """ROC-AGENT-003: each level names the inner interrupt by its id, which is stable like any id while
        the interrupt is pending (ROC-REPLAY-004 at that level, ROC-AGENT-002 here)."""
        if any(not isinstance(i, str) or not i for i in ids):
            out.append(
                Violation([reqs.AGENT_FIELDS], f"interrupt {key}: source.inner without an id: {ids!r}")
            )
            return
        old = self.inner.get(key)
        if old is not None and old != ids:
            out.append(
                Violation([reqs.AGENT_ID, reqs.ID_STABLE], f"interrupt {key}: inner ids {old} -> {ids}")
            )
        self.inner[key] = ids

    def bind(self, key: Key, iid: JSON, out: list[Violation]) -> None:
        if not isinstance(iid, str) or not iid:
            out.append(Violation([reqs.INTERRUPT_FIELDS], f"interrupt {key} has no id: {iid!r}"))
            return
        old = self.current.get(key)
        # ROC-AGENT-002: a propagated id is one more id of the outer agent, unique and stable like the others.
        agent = [reqs.AGENT_ID] if key[0] == AGENT_AS_TOOL else []
        if old is not None and old != iid:
            ids = [*agent, reqs.ID_STABLE, reqs.PARTIAL_SAME] + ([reqs.SESSION_ID] if self.restored else [])
            out.append(Violation(ids, f"interrupt {key} changed id {old!r} -> {iid!r}"))
        if old is None and iid in self.retired:
            # A propagated id that comes back in a later batch is not minted from the outer raise point
            # (ROC-AGENT-002's way to unique and stable ids), e.g. the inner id passed on as it is.
            reused = Violation(
                [*agent, reqs.ID_NOT_REUSED], f"id {iid!r} of a finished batch is reused for {key}"
            )
            out.append(reused)
        for k, v in self.current.items():
            if v == iid and k != key:
                both = agent or ([reqs.AGENT_ID] if k[0] == AGENT_AS_TOOL else [])
                out.append(Violation([*both, reqs.ID_DISTINCT], f"id {iid!r} names both {k} and {key}"))
        self.current[key] = iid
        self.history[key] = iid

    def id_for(self, key: Key) -> str | None:
        return self.current.get(key) or self.history.get(key)

    def resolve(self, iid: str) -> Ref:
        """What a literal id sent by the suite refers to: a pending interrupt, or an unknown reference.

        An id of a finished batch stays a *consumed* reference even when the implementation has handed the
        same id to a pending interrupt of a later batch (which ROC-MODEL-008 forbids): the caller re-sends a
        consumed answer, and taking it as an answer to the new interrupt is exactly the fault to catch
        (ROC-ANSWER-009, ROC-ANSWER-010), so it must not be predicted as a valid resume.
        """
        if not isinstance(iid, str) or not iid:
            return UnknownRef(repr(iid), malformed=True)
        if iid in self.retired:
            return UnknownRef(iid, consumed=True, reissued=iid in self.current.values())
        for k, v in self.current.items():
            if v == iid:
                return k
        return UnknownRef(iid)

    def retire(self) -> None:
        """The batch completed: its answers are consumed and its ids are no longer pending."""
        self.retired |= set(self.current.values())
        self.current.clear()


# ---- attribution: which rule decides whether a tool use's events happen --------------------------

_EXTRA: dict[str, dict[str, list[str]]] = {
    # situation -> event kind -> requirement(s) an *unexpected* event breaks
    "preserved": {
        "tool_start": [reqs.PRESERVED],
        "before_tool_call": [reqs.PRESERVED, reqs.BTC_ONCE],
        "after_tool_call": [reqs.ATC_NOT_FOR_PRESERVED, reqs.PRESERVED],
        "hook": [reqs.PRESERVED],
    },
    "bt_interrupt": {"*": [reqs.BT_INTERRUPT]},
    "batch_cancel": {"*": [reqs.CANCEL_BATCH], "after_tool_call": [reqs.CANCEL_BATCH_NO_ATC]},
    "tool_cancel": {"*": [reqs.CANCEL_TOOL]},
    # A cancel whose message is "": a tool that runs anyway was let through by a truthiness test.
    "batch_cancel_empty": {"*": [reqs.CANCEL_EMPTY_MESSAGE]},
    "tool_cancel_empty": {"*": [reqs.CANCEL_EMPTY_MESSAGE]},
    "btc_interrupt": {"*": [reqs.BTC_INTERRUPT], "after_tool_call": [reqs.ATC_NOT_FOR_INTERRUPTED]},
    "btc_interrupt_over_cancel": {
        "*": [reqs.BTC_OUTRANKS_CANCEL, reqs.BTC_INTERRUPT],
        "after_tool_call": [reqs.BTC_OUTRANKS_CANCEL, reqs.ATC_NOT_FOR_INTERRUPTED],
    },
    "seq_skipped": {"*": [reqs.EXEC_SEQUENTIAL]},
    # An error result and AfterToolCall for a tool whose earlier, interrupted firing set a cancel.
    "cancel_not_carried": {"*": [reqs.CANCEL_NOT_CARRIED]},
    # The unit must stop again, but an answer from a rejected resume let it (and what follows) go on.
    "rejected_kept": {"*": [reqs.RESUME_UNCHANGED]},
    # A decision the unit did not handle: the default outcome keeps the tool from running (DECIDE-005/006).
    "btc_declined": {"*": [reqs.DECIDE_BTC]},
    "bt_declined": {"*": [reqs.DECIDE_BT], "after_tool_call": [reqs.DECIDE_BT, reqs.CANCEL_BATCH_NO_ATC]},
    "tool_declined": {"*": [reqs.DECIDE_TOOL]},
    "abandoned": {"*": [reqs.ABANDON_RUNS_NOTHING]},
    # A cancel set by a callback after it took a decision as its answer: a tool that runs anyway may have been
    # handed something else than the decision (ROC-DECIDE-003).
    "tool_cancel_decided": {"*": [reqs.CANCEL_TOOL, reqs.DECIDE_DELIVERED]},
}
_MISSING: dict[str, list[str]] = {
    "rerun": [reqs.REPLAY_RERUN],
    "after_bt": [reqs.BT_RERUN],
    "concurrent": [reqs.EXEC_CONCURRENT, reqs.EXEC_CONC_NO_CANCEL, reqs.EXEC_CONC_WAITS],
    "normal": [reqs.TOOL_BATCH],
    "tool_cancel": [reqs.CANCEL_TOOL],
    "cancel_not_carried": [reqs.CANCEL_NOT_CARRIED],
    "tool_cancel_empty": [reqs.CANCEL_EMPTY_MESSAGE],
    "rejected_kept": [reqs.RESUME_UNCHANGED],
    "btc_declined": [reqs.DECIDE_BTC],
    "tool_declined": [reqs.DECIDE_TOOL],
    "tool_cancel_decided": [reqs.CANCEL_TOOL, reqs.DECIDE_DELIVERED],
}


def _extra_ids(outcome: Outcome, tuid: str | None, kind: str) -> list[str]:
    situation = outcome.tool_reasons.get(str(tuid), "normal")
    if situation == "rejected_kept":
        return _EXTRA[situation]["*"]
    if kind == "after_tool_call" and tuid in outcome.interrupted:
        return [reqs.ATC_NOT_FOR_INTERRUPTED]
    table = _EXTRA.get(situation)
    if table:
        return table.get(kind) or table.get("*") or [reqs.TOOL_BATCH]
    return {
        "before_tool_call": [reqs.BTC_ONCE],
        "after_tool_call": [reqs.AFTER_TOOL_CALL],
        "hook": [reqs.BTC_ONCE],
    }.get(kind, [reqs.TOOL_BATCH])


_DECLINED = frozenset({"btc_declined", "bt_declined", "tool_declined"})


def _must_not_run(outcome: Outcome, key: Key) -> bool:
    """Whether the unit that raises ``key`` must not run in this invocation, by the rule the oracle applied to
    its tool use (``_EXTRA`` lists those rules; a BeforeToolCall callback still runs for a tool whose own
    callbacks interrupt or cancel it)."""
    situation = outcome.tool_reasons.get(str(key[1]))
    if key[0] == "before_tools" or key[1] is None or situation not in _EXTRA:
        return False
    # The callbacks of a tool use's own firing run whatever they decide (interrupt or cancel).
    return key[0] in ("tool", AGENT_AS_TOOL) or situation not in (
        "btc_interrupt",
        "btc_interrupt_over_cancel",
        "tool_cancel",
        "tool_cancel_empty",
        "rejected_kept",
        "btc_declined",
        "tool_cancel_decided",
    )


def _missing_ids(outcome: Outcome, tuid: str | None, kind: str, executor: str = "sequential") -> list[str]:
    situation = outcome.tool_reasons.get(str(tuid), "normal")
    if kind == "after_tool_call":
        if situation == "tool_cancel_empty":
            # The expected ('error') AfterToolCall is missing because the "" cancel was ignored.
            return [reqs.CANCEL_EMPTY_MESSAGE]
        if situation == "cancel_not_carried":
            return [reqs.CANCEL_NOT_CARRIED]  # an error AfterToolCall came instead: the old cancel
        if situation in ("btc_declined", "tool_cancel_decided"):
            return _MISSING[situation]
        return ([reqs.CANCEL_TOOL] if situation == "tool_cancel" else []) + [reqs.AFTER_TOOL_CALL]
    ids = _MISSING.get(situation, [reqs.TOOL_BATCH])
    if (
        executor == "concurrent"
        and kind in ("before_tool_call", "tool_start", "hook")
        and situation
        not in (
            "rerun",
            "after_bt",
            "cancel_not_carried",
        )
    ):
        # The concurrent executor processes every tool use of the cycle, whatever the others do.
        ids = [*ids, reqs.EXEC_CONCURRENT, reqs.EXEC_CONC_NO_CANCEL]
    return list(dict.fromkeys(ids))


# ---- the checks ----------------------------------------------------------------------------------


def check_error(outcome: Outcome, observed: dict[str, JSON]) -> list[Violation]:
    out: list[Violation] = []
    err = observed.get("error")
    if err is None:
        # No error at all: the rule that calls for the error is broken. ROC-ERR-006 (an invocation that *ends*
        # with an error changes nothing) is not: there was no such invocation.
        broken = [r for r in outcome.error_reqs if r != reqs.ERROR_UNCHANGED]
        out.append(
            Violation(
                broken or [reqs.ERROR_VALUES],
                f"expected error {sorted(outcome.codes)}, got {_short(observed)}",
            )
        )
        return out
    code = err.get("code") if isinstance(err, dict) else None
    if code not in error_codes():
        out.append(
            Violation([reqs.ERROR_VALUES, reqs.ERROR_CODE_DEFINED], f"error code {code!r} is not defined")
        )
    elif code not in outcome.codes:
        out.append(
            Violation(
                outcome.error_reqs or [reqs.ERROR_VALUES],
                f"expected error {sorted(outcome.codes)}, got {code}",
            )
        )
    elif outcome.preferred is not None and code != outcome.preferred:
        out.append(
            Violation([outcome.order_req], f"several faults: reported {code}, preferred {outcome.preferred}")
        )
    if not isinstance(err, dict) or not isinstance(err.get("message"), str) or not err.get("message"):
        out.append(Violation([reqs.ERROR_MESSAGE], f"error without a message: {_short(err)}"))
    if outcome.trace_checked:
        busy = [
            e.get("kind")
            for e in observed.get("trace") or []
            if e.get("kind") not in ("invocation_start", "invocation_end")
        ]
        if busy:
            out.append(
                Violation(
                    [reqs.RESUME_NOTHING_RUNS, *outcome.error_reqs], f"a rejected input still caused {busy}"
                )
            )
    return out


def _unexpected_error_ids(outcome: Outcome, code: str) -> list[str]:
    base = [reqs.RESUME_ACCEPT] if outcome.resumed else []
    partial = [reqs.PARTIAL] if reqs.PARTIAL in outcome.exercised else []
    if outcome.abandon:
        return [reqs.ABANDON_ACCEPT]  # an interrupted agent takes an abandon whatever is pending
    if code == "INVALID_RESUME" and outcome.decided:
        return [reqs.DECIDE_ACCEPT]  # a well-formed decision refused as malformed
    if code == "EXPIRED" and outcome.decided:
        return [reqs.DECIDE_EXPIRED, reqs.EXPIRY_ANSWER]  # a decision is accepted also when expired
    if code == "UNKNOWN_INTERRUPT" and set(outcome.answered) & outcome.rejected_named:
        # This resume answers an interrupt an earlier rejected resume named; the implementation calls it
        # unknown (already answered): the rejected input left its answer behind.
        return [reqs.RESUME_UNCHANGED]
    if "resumed" in outcome.agent_paths.values():
        # A resume that reaches a kept sub-agent: whatever refuses it, the sub-agent was not resumed with
        # exactly the answers given for it (ROC-AGENT-004, ROC-AGENT-005).
        return [reqs.AGENT_ROUTED, reqs.AGENT_RESUMED, *base]
    table: dict[str, list[str]] = {
        "INVALID_RESPONSE": [reqs.RESUME_PRESENCE] if reqs.RESUME_PRESENCE in outcome.exercised else base,
        # An id the implementation reported itself is unknown to it now: lost, or changed (not stable).
        "UNKNOWN_INTERRUPT": [*base, reqs.ID_STABLE, reqs.BY_ID, *partial],
        "DUPLICATE_RESPONSE": base,
        "NOT_INTERRUPTED": [*base, reqs.STOP_REASON],
        "INTERRUPT_PENDING": [reqs.CONSUMED],
        "INVALID_RESUME": base,
        "DUPLICATE_INTERRUPT_NAME": [reqs.NO_CLASH_HOOK, reqs.NO_CLASH_TOOL],
        "DIRECT_CALL_INTERRUPT": [reqs.DIRECT_INTERRUPT],
    }
    return table.get(code) or [reqs.ERROR_VALUES]


def _batch_order(outcome: Outcome) -> dict[str, int]:
    """Each tool use of the stopping cycle's batch -> its position in the assistant message."""
    cycles = [e.get("toolUseIds") for e in outcome.trace if e.get("kind") == "before_tools"]
    last = cycles[-1] if cycles and isinstance(cycles[-1], list) else []
    return {str(t): n for n, t in enumerate(last)}


def _stopped_earlier(outcome: Outcome, got: list[Any], missing: list[Key], executor: str) -> set[Key]:
    """The unexpected interrupts that explain every missing one: under the sequential executor a unit that
    must not have run (a specific rule keeps it from running) raised before every unit whose interrupt is
    missing, and the executor rightly stopped there (ROC-EXEC-002)."""
    if executor != "sequential" or not missing:
        return set()
    pos = _batch_order(outcome)
    if any(k[1] is None or str(k[1]) not in pos for k in missing):
        return set()
    expected = {i.key for i in outcome.interrupts}
    out: set[Key] = set()
    for item in got:
        key = key_of(item) if isinstance(item, dict) else None
        if key is None or key in expected or key in outcome.answered or key in outcome.withdrawn:
            continue
        if key[1] is None or str(key[1]) not in pos or not _must_not_run(outcome, key):
            continue
        if all(pos[str(k[1])] > pos[str(key[1])] for k in missing):
            out.add(key)
    return out


def check_interrupts(
    outcome: Outcome, got: list[Any], binder: IdBinder, out: list[Violation], executor: str = "concurrent"
) -> None:
    expected = {i.key: i for i in outcome.interrupts}
    answered = set(outcome.answered)
    reported = {key_of(item) for item in got if isinstance(item, dict)}
    missing_expected = any(k not in reported for k in expected)
    earlier = _stopped_earlier(outcome, got, [k for k in expected if k not in reported], executor)
    # Interrupts from units that a decision's default outcome keeps from running: that rule is the divergence,
    # and whatever interrupts the oracle expected after it (a later batch) are missing because of it.
    declined = {
        k
        for k in reported - set(expected) - answered
        if _must_not_run(outcome, k) and outcome.tool_reasons.get(str(k[1])) in _DECLINED
    }
    earlier |= declined
    seen: list[Key] = []
    ids: Counter[str] = Counter()
    for item in got:
        if not isinstance(item, dict):
            out.append(Violation([reqs.INTERRUPT_FIELDS], f"interrupt is not an object: {item!r}"))
            continue
        key = key_of(item)
        for banned in ("response", "inputDigest"):
            if banned in item:
                out.append(Violation([reqs.NO_RESPONSE_IN_RESULT], f"{key} carries {banned}"))
        exp = expected.get(key)
        if exp is None:
            ids_ = (
                [reqs.PARTIAL_KEPT, reqs.STOP_NO_ANSWERED, reqs.REPLAY_ANSWER]
                if key in answered
                else [reqs.STOP_ALL_INTERRUPTS]
            )
            specific = False
            if key in outcome.expiry_resolved:
                ids_, specific = [reqs.EXPIRY_RESOLVED], True  # expired, yet asked again
            elif key in outcome.decided:
                ids_, specific = [reqs.DECIDE_DELIVERED, reqs.DECIDE_ANSWERED], True  # asked, not told
            if key in outcome.withdrawn:
                ids_ = [reqs.WITHDRAWN]  # its unit did not raise it again: withdrawn, never reported
            elif (
                key not in answered
                and (not missing_expected or key in earlier)
                and _must_not_run(outcome, key)
            ):
                # Every expected interrupt is there, plus one from a unit that must not have run at all (its
                # tool use was cancelled, preserved, held by a batch interrupt, ...): the rule that stops the
                # unit is the one broken. (With an expected interrupt missing, the extra one may just follow
                # from that, so it stays a finding of the stop rule; unless the missing ones follow from it,
                # see _stopped_earlier.)
                body = key[0] in ("tool", AGENT_AS_TOOL)
                ids_ = _extra_ids(outcome, key[1], "tool_start" if body else "hook")
                specific = True
            if outcome.abandon and key not in outcome.decided:
                # An abandon runs no unit of the batch it completes (ROC-ABANDON-004); with "continue" the
                # next batch's interrupts are expected ones.
                ids_, specific = [reqs.ABANDON_RUNS_NOTHING], False
            if key[0] == AGENT_AS_TOOL and not specific and key not in outcome.withdrawn:
                # A sub-agent's interrupt the oracle does not expect: propagated once too often, or a
                # sub-agent that ran again and asked again (re-prompted, resumed with nothing new, or run
                # again after it completed): the rule of what its call had to do decides.
                ids_ = _unexpected_propagated(outcome, key)
                specific = (str(key[1]),) in outcome.agent_paths
            if key[0] not in ("tool", "before_tool_call", "before_tools", AGENT_AS_TOOL):
                ids_, specific = [reqs.SOURCE_KIND], False
            sub_key = next(
                (k for k in expected if k[0] == AGENT_AS_TOOL and k[1] == key[1] and k not in reported), None
            )
            if sub_key is not None and key[0] != AGENT_AS_TOOL:
                # The body went past its sub-agent call, which had to stop it with the missing propagated
                # interrupt: that finding names the rule, this one follows from it.
                implied = Violation(_missing_propagated(outcome, sub_key), f"unexpected interrupt {key}")
                out.append(_as("implied", implied))
                continue
            extra = Violation(ids_, f"unexpected interrupt {key} (expected {sorted(expected)})")
            extra.explains_stop = specific
            out.append(_as("outcome", extra))
            continue
        if key in seen:
            twice = Violation([reqs.STOP_ALL_INTERRUPTS], f"interrupt {key} reported twice")
            out.append(_as("outcome", twice))
        seen.append(key)
        if isinstance(item.get("id"), str):
            ids[item["id"]] += 1
        binder.bind(key, item.get("id"), out)
        if exp.reason is MISSING:
            if "reason" in item:
                out.append(
                    Violation(
                        [
                            reqs.NO_REASON_MEMBER,
                            *([reqs.REASON_KEPT] if key in outcome.reason_changed else []),
                        ],
                        f"{key}: raised without a reason, reported reason {_short(item.get('reason'))}",
                    )
                )
        elif not same_canonical(item.get("reason"), exp.reason):
            out.append(
                Violation(
                    [
                        reqs.INTERRUPT_FIELDS,
                        *([reqs.PARTIAL_SAME] if outcome.resumed else []),
                        *([reqs.REASON_KEPT] if key in outcome.reason_changed else []),
                    ],
                    f"{key}: reason {_short(item.get('reason'))} != {_short(exp.reason)}",
                )
            )
        for member, req in (("expiresAt", reqs.EXPIRY_AT), ("onExpiry", reqs.EXPIRY_OUTCOME)):
            if member in exp.extra and not same_canonical(item.get(member), exp.extra[member]):
                wrong = f"{key}: {member} {_short(item.get(member))} != {_short(exp.extra[member])}"
                out.append(Violation([req], wrong))
        src = item.get("source") or {}
        if key[0] == AGENT_AS_TOOL:
            # ROC-AGENT-003: the inner agent and source, level by level (ids bound, never predicted).
            binder.bind_inner(key, _inner_ids(item), out)
            if not same_canonical(without_inner_ids(src), exp.source):
                wrong = f"{key}: source {_short(without_inner_ids(src))} != {_short(exp.source)}"
                out.append(Violation([reqs.AGENT_FIELDS], wrong))
        if key[0] == "before_tools":
            if src.get("toolUseId") is not None or src.get("toolName") is not None:
                out.append(Violation([reqs.BT_SOURCE], f"{key}: before_tools source names a tool: {src}"))
        elif src.get("toolName") != exp.source.get("toolName"):
            out.append(Violation([reqs.INTERRUPT_SOURCE], f"{key}: source.toolName {src.get('toolName')!r}"))
    for key in expected:
        if key in outcome.rejected_named and key not in seen:
            # Named by a rejected resume and now not asked again: that input's answer was kept.
            missing = Violation([reqs.RESUME_UNCHANGED], f"interrupt {key} missing from the result")
            out.append(_as("outcome", missing))
        elif key not in seen and earlier:
            # Its unit comes after the one that must not have run and stopped the sequential executor.
            after = f"interrupt {key} missing from the result: the executor stopped at {sorted(earlier)}"
            out.append(_as("implied", Violation([reqs.STOP_ALL_INTERRUPTS], after)))
        elif key not in seen and outcome.abandon:
            # After an abandon with "continue", the next batch stops where the oracle says (ROC-ABANDON-005).
            out.append(
                _as("outcome", Violation([reqs.ABANDON_THEN], f"interrupt {key} missing from the result"))
            )
        elif key not in seen and key[0] == AGENT_AS_TOOL:
            out.append(
                _as("outcome", Violation(_missing_propagated(outcome, key), f"interrupt {key} missing"))
            )
        elif key not in seen:
            ids_ = [reqs.STOP_ALL_INTERRUPTS]
            if key[0] != "tool" and any(k[1] == key[1] and k[0] == key[0] and k != key for k in seen):
                ids_.append(reqs.FANOUT_ALL)  # another callback of the same firing was reported
            raised_now = {k[1] for k in expected if k[0] != "before_tools" and k[1] in outcome.interrupted}
            if key[1] in raised_now and len(raised_now) > 1:
                # Several tool uses raised in this cycle (ROC-EXEC-006). An unanswered interrupt of an earlier
                # cycle whose unit did not run now is ROC-STOP-002's alone.
                ids_.append(reqs.EXEC_CONC_REPORTED)
            out.append(_as("outcome", Violation(ids_, f"interrupt {key} missing from the result")))
    propagated_ids = {
        item.get("id") for item in got if isinstance(item, dict) and key_of(item)[0] == AGENT_AS_TOOL
    }
    for iid, n in ids.items():
        if n > 1:
            agent = [reqs.AGENT_ID] if iid in propagated_ids else []
            out.append(Violation([*agent, reqs.ID_DISTINCT_RESULT], f"id {iid!r} used by {n} interrupts"))
    order = [k for k in seen if k in expected]
    want = [i.key for i in outcome.interrupts if i.key in order]
    if order != want:
        out.append(Violation([reqs.INTERRUPT_ORDER], f"interrupts in order {order}, expected {want}"))


def _any_end(event: dict[str, JSON], free: set[tuple[tuple[str, ...], str | None]]) -> dict[str, JSON]:
    if event.get("kind") == "tool_end" and (_path(event), _tid(event)) in free:
        return {**event, "outcome": "*"}
    return event


def _unexpected_propagated(outcome: Outcome, key: Key) -> list[str]:
    """The rule an unexpected propagated interrupt breaks, by what the sub-agent call did (or must not do)."""
    situation = outcome.agent_paths.get((str(key[1]),))
    if situation in ("resumed", "not_resumed", "completed"):
        return [*SITUATION_REQS[situation], reqs.AGENT_PROPAGATE]
    return [reqs.AGENT_PROPAGATE, reqs.STOP_ALL_INTERRUPTS]


def _missing_propagated(outcome: Outcome, key: Key) -> list[str]:
    """The rule a missing propagated interrupt breaks: a sub-agent that got nothing new still asks it
    (another tool use's answer reached it, ROC-AGENT-004, or it was resumed, ROC-AGENT-006); a resumed one
    asks what its answers left open (ROC-AGENT-005 resumes it with those answers alone, ROC-AGENT-004)."""
    situation = outcome.agent_paths.get((str(key[1]),))
    if situation == "not_resumed":
        return [reqs.AGENT_ROUTED, reqs.AGENT_NOT_RESUMED]
    if situation == "resumed":
        return [reqs.AGENT_ROUTED, reqs.AGENT_RESUMED]
    return [reqs.AGENT_PROPAGATE]


# What the checks compare of a sub-agent's events: the adapter records at least these for every sub-agent
# (harness protocol 5); its hook events are judged through the propagated interrupts and the results.
NESTED_KINDS = ("model_call", "tool_start", "tool_end")


def _path(event: dict[str, JSON]) -> tuple[str, ...]:
    path = event.get("agentPath")
    return tuple(str(p) for p in path) if isinstance(path, list) else ()


def check_sub_agents(
    outcome: Outcome, expected: list[dict[str, JSON]], observed: list[dict[str, JSON]]
) -> list[Violation]:
    """The events of sub-agents, per agentPath: its model calls (turns, in order) and its tool runs."""
    out: list[Violation] = []

    def of(trace: list[dict[str, JSON]], path: tuple[str, ...], kind: str) -> list[Any]:
        events = [e for e in trace if _path(e) == path and e.get("kind") == kind]
        if kind == "model_call":
            return [e.get("turn") for e in events]
        return sorted(canonical([_tid(e), e.get("outcome")]) for e in events)

    paths = sorted({_path(e) for e in [*expected, *observed] if e.get("kind") in NESTED_KINDS})
    for path in paths:
        situation = outcome.agent_paths.get(path)
        # A path the oracle has no sub-agent call at: judged by the nearest level that has one.
        up = next(
            (
                outcome.agent_paths[path[:n]]
                for n in range(len(path), 0, -1)
                if path[:n] in outcome.agent_paths
            ),
            None,
        )
        for kind in NESTED_KINDS:
            want, have = of(expected, path, kind), of(observed, path, kind)
            if want == have:
                continue
            ids = list(SITUATION_REQS.get(situation or up or "started", [reqs.AGENT_PROPAGATE]))
            if kind == "model_call" and 0 in have and 0 not in want:
                ids = [reqs.AGENT_RESUMED]  # a kept sub-agent prompted again
                if (situation or up) == "completed":
                    ids = [reqs.AGENT_COMPLETED]
            elif kind == "model_call" and (situation or up) == "resumed" and len(have) > len(want):
                # A resumed sub-agent's model called before its batch completed: ROC-AGENT-005, and at its
                # own level the rule every resumed agent follows (the rules apply at every level).
                ids = [reqs.AGENT_RESUMED, reqs.RESUME_SKIPS_MODEL]
            if not want and path[:1] not in outcome.agent_paths and not situation:
                ids = [reqs.AGENT_PROPAGATE]  # events of a sub-agent no body runs now
            out.append(Violation(ids, f"sub-agent {list(path)}: {kind} {have}, expected {want}"))
    return out


def check_result(
    outcome: Outcome,
    observed: dict[str, JSON],
    binder: IdBinder,
    executor: str,
    appended: list[dict[str, JSON]] | None = None,
    hook_events: bool = True,
) -> list[Violation]:
    """All findings for one invocation (empty when it conforms).

    ``appended`` is what the implementation itself appended to its history in this invocation (when its
    replies show that): MessageAdded events are judged against it, not against the oracle's history, so a
    message appended at the wrong time is one history failure, not also an event failure. Without
    ``hook_events`` (the implementation does not claim `hooks`) only the ``CORE_TRACE_KINDS`` are compared.
    """
    if "crash" in observed:
        crashed = f"the implementation crashed: {crash_text(observed['crash'])}"
        crash = Violation([reqs.ERROR_VALUES, *outcome.error_reqs], crashed)
        return [_as("outcome", crash)]
    if outcome.is_error:
        return [_as("outcome", v) for v in check_error(outcome, observed)]
    out: list[Violation] = []
    if observed.get("error") is not None:
        code = str((observed["error"] or {}).get("code"))
        error = Violation(
            _unexpected_error_ids(outcome, code), f"expected a result, got {_short(observed['error'])}"
        )
        error.refusal = True
        return [_as("outcome", error)]
    if outcome.kind == "direct":
        got_tr = observed.get("toolResult")
        want = {k: v for k, v in (outcome.direct_result or {}).items() if k != "toolUseId"}
        have = {k: v for k, v in got_tr.items() if k != "toolUseId"} if isinstance(got_tr, dict) else got_tr
        if not same_canonical(have, want):
            out.append(
                Violation([reqs.DIRECT_RUNS], f"direct call result {_short(got_tr)}, expected {_short(want)}")
            )
        if any(e.get("kind") == "model_call" for e in observed.get("trace") or []):
            out.append(Violation([reqs.DIRECT_NO_MODEL], "a direct tool call called the model"))
        return out
    result = observed.get("result") or {}
    stop = result.get("stopReason")
    got = result.get("interrupts") or []
    found: list[Violation] = []
    check_interrupts(outcome, list(got), binder, found, executor)
    if stop != outcome.stop_reason:
        ids = [reqs.STOP_REASON] if outcome.stop_reason == "interrupt" else [reqs.REPLAY_ANSWER, reqs.LOOP]
        if outcome.abandon:
            ids = [reqs.ABANDON_THEN]
        wrong_stop = f"stopReason {stop!r}, expected {outcome.stop_reason!r}"
        missing_sub = [i.key for i in outcome.interrupts if i.key[0] == AGENT_AS_TOOL]
        if not got and missing_sub and len(missing_sub) == len(outcome.interrupts):
            # Only sub-agents' interrupts were due and none came: their findings name the rule (spec 12).
            out.append(
                _as("implied", Violation(ids, f"{wrong_stop}, as the propagated interrupts are missing"))
            )
        elif stop == "interrupt" and _stop_explained(found, got):
            # Every interrupt comes from a unit that a specific rule keeps from running (a cancel that was
            # ignored, ...): that rule's finding is the divergence. Once they are raised the stop reason must
            # be 'interrupt' (ROC-MODEL-010), so the replay or loop rule is not broken by it.
            out.append(_as("implied", Violation(ids, f"{wrong_stop}, implied by the unexpected interrupts")))
        else:
            out.append(_as("outcome", Violation(ids, wrong_stop)))
    if (stop == "interrupt") != bool(got):
        iff = Violation([reqs.RESULT_INTERRUPTS_IFF], f"stopReason {stop!r} with {len(got)} interrupts")
        out.append(_as("outcome", iff))
    out += found
    if outcome.message is not None and not same_canonical(result.get("message"), outcome.message):
        ids = [reqs.STOP_MESSAGE] if outcome.stop_reason == "interrupt" else [reqs.RESULT_MESSAGE]
        if outcome.stop_reason == "abandoned":
            ids = [reqs.ABANDON_THEN]
        out.append(Violation(ids, f"message {_short(result.get('message'))} != {_short(outcome.message)}"))
    if outcome.trace_checked:
        trace = list(observed.get("trace") or [])
        # A tool_end the oracle predicts as "*" (a second sub-agent call, ROC-AGENT-011) is not judged on its
        # outcome: the result and the absence of an interrupt are.
        free = {
            (_path(e), _tid(e))
            for e in outcome.trace
            if e.get("kind") == "tool_end" and e.get("outcome") == "*"
        }
        if free:
            trace = [_any_end(e, free) if isinstance(e, dict) else e for e in trace]
        nested = [e for e in trace if isinstance(e, dict) and _path(e)]
        nested_exp = [e for e in outcome.trace if _path(e)]
        if nested or nested_exp:
            # Sub-agents' events (spec 12): judged per agentPath; the rest is the agent's own trace.
            for v in check_sub_agents(outcome, nested_exp, nested):
                out.append(_as("trace", v))
            trace = [e for e in trace if not (isinstance(e, dict) and _path(e))]
            outcome = replace(outcome, trace=[e for e in outcome.trace if not _path(e)])

        if not hook_events:
            trace = [e for e in trace if e.get("kind") in CORE_TRACE_KINDS]
            core_trace = [e for e in outcome.trace if e.get("kind") in CORE_TRACE_KINDS]
            outcome, appended = replace(outcome, trace=core_trace), None
        for v in check_trace(outcome, trace, executor, appended):
            out.append(v if set(v.requirements) <= EVENT_PAYLOAD else _as("trace", v))
    return out


def _stop_explained(found: list[Violation], got: list[Any]) -> bool:
    """Whether every reported interrupt is an unexpected one that a specific rule forbids (so the stop
    reason 'interrupt' follows from those findings)."""
    return bool(got) and sum(1 for v in found if v.explains_stop) == len(got)


def _events(trace: list[dict[str, JSON]], kind: str) -> list[dict[str, JSON]]:
    return [e for e in trace if e.get("kind") == kind]


def _tid(e: dict[str, JSON]) -> str | None:
    v = e.get("toolUseId")
    return str(v) if v else None


def _counter(trace: list[dict[str, JSON]], kind: str, *fields: str) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(e.get(f) for f in fields) for e in _events(trace, kind))


def _diff(exp: Counter[tuple[Any, ...]], obs: Counter[tuple[Any, ...]]) -> tuple[list[Any], list[Any]]:
    return list((obs - exp).elements()), list((exp - obs).elements())


def _model_before_batch(exp: list[dict[str, JSON]], obs: list[dict[str, JSON]]) -> bool:
    """Whether the observed trace calls the model before the first BeforeTools, where the expected one runs
    the pending batch first."""

    def first(trace: list[dict[str, JSON]]) -> Any:
        return next((e.get("kind") for e in trace if e.get("kind") in ("model_call", "before_tools")), None)

    return bool(first(exp) == "before_tools" and first(obs) == "model_call")


def check_trace(
    outcome: Outcome,
    obs: list[dict[str, JSON]],
    executor: str,
    appended: list[dict[str, JSON]] | None = None,
) -> list[Violation]:
    exp = outcome.trace
    out: list[Violation] = []
    exp_turns = [e.get("turn") for e in _events(exp, "model_call")]
    obs_turns = [e.get("turn") for e in _events(obs, "model_call")]
    if exp_turns != obs_turns:
        if len(obs_turns) > len(exp_turns):
            ids = ([reqs.RESUME_SKIPS_MODEL] if outcome.resumed and not exp_turns else []) + (
                [reqs.STOP_NO_MODEL_CALL] if outcome.stop_reason == "interrupt" else [reqs.LOOP]
            )
            if outcome.resumed and _model_before_batch(exp, obs):
                # A resume called the model before the pending batch ran (the oracle's first cycle event is
                # that batch's BeforeTools): the resume rule, whatever the model said next.
                ids = [reqs.RESUME_SKIPS_MODEL, *ids]
        else:
            ids = [reqs.CONTINUE]
        if outcome.abandon:
            ids = [reqs.ABANDON_THEN]  # "end" calls no model, "continue" calls it next
        out.append(Violation(ids, f"model calls {obs_turns}, expected {exp_turns}"))
    e_bt = [e.get("toolUseIds") for e in _events(exp, "before_tools")]
    o_bt = [e.get("toolUseIds") for e in _events(obs, "before_tools")]
    if len(e_bt) != len(o_bt):
        ids = [reqs.ABANDON_RUNS_NOTHING] if outcome.abandon and len(o_bt) > len(e_bt) else [reqs.BT_ONCE]
        out.append(Violation(ids, f"{len(o_bt)} BeforeTools events, expected {len(e_bt)}"))
    elif not same_canonical(e_bt, o_bt):
        out.append(Violation([reqs.BT_FULL_MESSAGE], f"BeforeTools carried {o_bt}, expected {e_bt}"))
    e_btc = Counter(_tid(e) for e in _events(exp, "before_tool_call"))
    o_btc = Counter(_tid(e) for e in _events(obs, "before_tool_call"))
    skipped = {t for t, n in e_btc.items() if o_btc[t] < n}  # tool uses whose BeforeToolCall never fired
    for kind, fields in (
        ("before_tool_call", ("toolUseId",)),
        ("tool_start", ("toolUseId",)),
        ("tool_end", ("toolUseId", "outcome")),
        ("after_tool_call", ("toolUseId", "status")),
    ):
        extra, missing = _diff(_counter(exp, kind, *fields), _counter(obs, kind, *fields))
        for item in extra:
            out.append(Violation(_extra_ids(outcome, item[0], kind), f"unexpected {kind} {list(item)}"))
        for item in missing:
            ids = _missing_ids(outcome, item[0], kind, executor)
            if kind == "tool_end" and item[1] == "returned":
                ids = [*ids, reqs.REPLAY_ANSWER]
            if kind == "tool_end" and item[1] == "interrupted":
                ids = [*ids, reqs.NOT_AN_ERROR]
            out.append(Violation(ids, f"missing {kind} {list(item)}"))
    e_at = [e.get("toolUseIds") or [] for e in _events(exp, "after_tools")]
    o_at = [e.get("toolUseIds") or [] for e in _events(obs, "after_tools")]
    if len(e_at) != len(o_at):
        ids = [reqs.AFTER_TOOLS_ONCE]
        if reqs.AFTER_TOOLS_NOT_ON_BT in outcome.exercised and len(o_at) > len(e_at):
            ids = [reqs.AFTER_TOOLS_NOT_ON_BT]
        out.append(Violation(ids, f"{len(o_at)} AfterTools events {o_at}, expected {len(e_at)}"))
    else:
        for e, o in zip(e_at, o_at, strict=True):
            if sorted(map(str, e)) != sorted(map(str, o)):
                out.append(Violation([reqs.AFTER_TOOLS_CONTENT], f"AfterTools carried {o}, expected {e}"))
            elif list(map(str, e)) != list(map(str, o)):
                out.append(Violation([reqs.AFTER_TOOLS_ORDER], f"AfterTools order {o}, expected {e}"))
    extra, missing = _diff(
        _counter(exp, "hook_callback", "event", "hookIndex", "toolUseId"),
        _counter(obs, "hook_callback", "event", "hookIndex", "toolUseId"),
    )
    for item, what in [(x, "unexpected") for x in extra] + [(x, "missing") for x in missing]:
        event, _, tuid = item
        if event in ("BeforeTools", "BeforeToolCall"):
            if what == "missing" and event == "BeforeToolCall" and tuid in skipped:
                ids = _missing_ids(
                    outcome, tuid, "hook", executor
                )  # the whole event is missing, not one callback
            elif what == "missing":
                ids = [reqs.FANOUT] + ([reqs.REPLAY_HOOKS] if outcome.resumed else [])
            else:
                ids = [reqs.BT_ONCE] if event == "BeforeTools" else _extra_ids(outcome, tuid, "hook")
                if outcome.abandon and event == "BeforeTools":
                    ids = [reqs.ABANDON_RUNS_NOTHING]
        elif event == "AfterToolCall":
            ids = (
                _extra_ids(outcome, tuid, "after_tool_call")
                if what == "unexpected"
                else [reqs.AFTER_TOOL_CALL]
            )
        else:
            ids = [reqs.AFTER_TOOLS_ONCE]
        out.append(Violation(ids, f"{what} hook callback {list(item)}"))
    o_roles = [e.get("role") for e in _events(obs, "message_added")]
    if appended is not None:
        # ROC-HOOK-003 is about the events matching the appends; *when* a message may be appended is the
        # history's rule (ROC-TOOL-003/005), judged on the history itself.
        own = [m.get("role") for m in appended]
        if own != o_roles:
            message = f"MessageAdded events {o_roles}, history grew by {own}"
            out.append(Violation([reqs.MESSAGE_ADDED], message))
    else:
        e_roles = [e.get("role") for e in _events(exp, "message_added")]
        if e_roles != o_roles:
            ids = [reqs.MESSAGE_ADDED]
            if outcome.stop_reason == "interrupt" and len(o_roles) > len(e_roles):
                ids = [reqs.TRANSCRIPT, reqs.MESSAGE_ADDED]
            out.append(Violation(ids, f"messages added {o_roles}, expected {e_roles}"))
    if not [v for v in out if v.level == "MUST"]:
        out.extend(_check_order(exp, obs, executor))
    return out


def _projection(trace: list[dict[str, JSON]], keep: Callable[[dict[str, JSON]], bool]) -> list[str]:
    return [canonical([e.get("kind"), _tid(e)]) for e in trace if keep(e)]


def _check_order(exp: list[dict[str, JSON]], obs: list[dict[str, JSON]], executor: str) -> list[Violation]:
    """Ordering, once the multisets agree: exact for sequential, partial orders for concurrent."""
    out: list[Violation] = []
    structural = ("model_call", "before_tools", "after_tools", *TOOL_EVENTS)
    if executor == "sequential":
        e, o = (_projection(t, lambda ev: ev.get("kind") in structural) for t in (exp, obs))
        if e != o:
            out.append(Violation([reqs.EXEC_SEQ_ORDER, reqs.EVENT_ORDER], f"event order {o}, expected {e}"))
    else:
        e, o = (_projection(t, lambda ev: ev.get("kind") in CYCLE_EVENTS) for t in (exp, obs))
        if e != o:
            out.append(Violation([reqs.BT_ONCE, reqs.AFTER_TOOLS_ONCE], f"cycle order {o}, expected {e}"))
        for tuid in sorted({str(_tid(ev)) for ev in exp if ev.get("kind") in TOOL_EVENTS}):

            def of_tool(ev: dict[str, JSON], u: str = tuid) -> bool:
                return ev.get("kind") in TOOL_EVENTS and _tid(ev) == u

            e, o = (_projection(t, of_tool) for t in (exp, obs))
            if e != o:
                out.append(Violation([reqs.EXEC_CONC_ORDER], f"order of {tuid}'s events {o}, expected {e}"))
        depth = 0
        # Tool events lie inside their cycle's BeforeTools/AfterTools pair; a trace judged without hook
        # events (no `hooks` claimed) has no pair to lie in.
        for ev in obs if any(ev.get("kind") == "before_tools" for ev in exp) else []:
            if ev.get("kind") == "before_tools":
                depth += 1
            elif ev.get("kind") == "after_tools":
                depth -= 1
            elif ev.get("kind") in TOOL_EVENTS and depth != 1:
                out.append(Violation([reqs.BT_ONCE, reqs.AFTER_TOOLS_ONCE], f"{ev} outside its cycle"))
                break
    # Callbacks of one Before* firing run in registration order (ROC-HOOK-016).
    firing: list[int] = []
    for ev in obs:
        kind = ev.get("kind")
        if kind in ("before_tools", "before_tool_call", "tool_start", "after_tools"):
            firing = []
        elif kind == "hook_callback" and ev.get("event") in ("BeforeTools", "BeforeToolCall"):
            idx = ev.get("hookIndex")
            if isinstance(idx, int):
                if executor == "sequential" and firing and idx <= firing[-1]:
                    out.append(
                        Violation([reqs.HOOK_ORDER], f"callback {idx} ran after {firing[-1]} in one firing")
                    )
                    break
                firing.append(idx)
    return out


def _without_metadata(msgs: JSON) -> Any:
    if not isinstance(msgs, list):
        return msgs
    return [{k: v for k, v in m.items() if k != "metadata"} if isinstance(m, dict) else m for m in msgs]


def _free(msgs: JSON, free: set[str]) -> JSON:
    """Blank the content of results whose text the spec leaves to the implementation."""
    if not free or not isinstance(msgs, list):
        return msgs
    out = []
    for m in msgs:
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            blocks = [
                {"toolResult": {**b["toolResult"], "content": "*"}}
                if isinstance(b, dict)
                and isinstance(b.get("toolResult"), dict)
                and b["toolResult"].get("toolUseId") in free
                else b
                for b in m["content"]
            ]
            m = {**m, "content": blocks}
        out.append(m)
    return out


# A tool use's situation (Outcome.tool_reasons) -> the rule that fixes its result's content.
_RESULT_RULE: dict[str, str] = {
    "tool_cancel": reqs.CANCEL_MESSAGE,
    "tool_cancel_empty": reqs.CANCEL_EMPTY_MESSAGE,
    "btc_interrupt_over_cancel": reqs.BTC_OUTRANKS_CANCEL,
    "batch_cancel": reqs.CANCEL_BATCH,
    "batch_cancel_empty": reqs.CANCEL_EMPTY_MESSAGE,
    "preserved": reqs.PRESERVED_UNCHANGED,
    "unknown_tool": reqs.UNKNOWN_TOOL,
    "rejected_kept": reqs.RESUME_UNCHANGED,
    "cancel_not_carried": reqs.CANCEL_NOT_CARRIED,
    "btc_declined": reqs.DECIDE_TEXT,
    "tool_cancel_decided": reqs.CANCEL_MESSAGE,
    "bt_declined": reqs.DECIDE_TEXT,
    "tool_declined": reqs.DECIDE_TEXT,
    "abandoned": reqs.ABANDON_RESULTS,
    "agent_second_call": reqs.AGENT_ONE_CALL,
}


def _results_by_id(msgs: JSON) -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    for m in msgs if isinstance(msgs, list) else []:
        for b in (m.get("content") or []) if isinstance(m, dict) else []:
            if isinstance(b, dict) and isinstance(b.get("toolResult"), dict):
                out[str(b["toolResult"].get("toolUseId"))] = b["toolResult"]
    return out


def _result_rules(expected: JSON, got: JSON, reasons: dict[str, str]) -> list[str]:
    """The rules fixing the content of the tool results that differ (empty when none is specific)."""
    want, have = _results_by_id(expected), _results_by_id(got)
    ids: list[str] = []
    for tuid, result in want.items():
        if tuid not in have or same_canonical(have[tuid], result):
            continue
        situation = reasons.get(tuid, "normal")
        if situation in _RESULT_RULE:
            ids.append(_RESULT_RULE[situation])
        elif isinstance(result, dict) and result.get("status") == "error":
            ids.append(reqs.TOOL_FAIL)  # a failing body's error result
    return list(dict.fromkeys(ids))


def check_messages(
    expected: list[dict[str, JSON]],
    got: JSON,
    *,
    after_error: bool = False,
    free: set[str] | None = None,
    reasons: dict[str, str] | None = None,
) -> list[Violation]:
    """History after an invocation: exact, except result order (a SHOULD) and ``metadata`` (the one place an
    implementation keeps its own extras, spec §2.3)."""
    expected, got = _without_metadata(expected), _without_metadata(got)
    if free:
        expected, got = _free(expected, free), _free(got, free)
    if same_canonical(got, expected):
        return []

    def loose(msgs: JSON) -> str:
        if not isinstance(msgs, list):
            return canonical(msgs)
        norm = []
        for m in msgs:
            content = list(m.get("content") or []) if isinstance(m, dict) else []
            if content and all(isinstance(b, dict) and "toolResult" in b for b in content):
                content = sorted(content, key=lambda b: str(b["toolResult"].get("toolUseId")))
            norm.append({**m, "content": content} if isinstance(m, dict) else m)
        return canonical(norm)

    if loose(got) == loose(expected):
        return [Violation([reqs.RESULT_ORDER], "tool results are not in tool-use order")]
    if after_error:
        ids = [reqs.RESUME_UNCHANGED, reqs.ERROR_UNCHANGED]
    else:
        dangling = _dangling(got)
        if dangling:
            ids = [reqs.NO_DANGLING, reqs.TRANSCRIPT]
        elif isinstance(got, list) and len(got) > len(expected):
            ids = [reqs.TRANSCRIPT, reqs.RESUME_NOT_APPENDED]
        else:
            # Same shape, other content: name the rule of the results that differ when one is specific.
            ids = _result_rules(expected, got, reasons or {}) or [reqs.BATCH_APPEND, reqs.PRESERVED_UNCHANGED]
    return [Violation(ids, f"history {_short(got, 700)} != expected {_short(expected, 700)}")]


def _dangling(msgs: JSON) -> list[str]:
    if not isinstance(msgs, list):
        return []
    out: list[str] = []
    for n, m in enumerate(msgs):
        uses = (
            [
                str(b["toolUse"].get("toolUseId"))
                for b in (m.get("content") or [])
                if isinstance(b, dict) and "toolUse" in b
            ]
            if isinstance(m, dict)
            else []
        )
        nxt = msgs[n + 1] if n + 1 < len(msgs) else {}
        have = (
            {
                str(b["toolResult"].get("toolUseId"))
                for b in (nxt.get("content") or [])
                if isinstance(b, dict) and "toolResult" in b
            }
            if isinstance(nxt, dict)
            else set()
        )
        out += [u for u in uses if u not in have]
    return out


def check_history(
    messages: list[dict[str, JSON]],
    state: dict[str, JSON],
    observed: dict[str, JSON],
    messages_known: bool = True,
    after_error: bool = False,
    free: set[str] | None = None,
    before: tuple[JSON, JSON] | None = None,
    pending: dict[str, JSON] | None = None,
    reasons: dict[str, str] | None = None,
    units_ran: bool = False,
) -> list[Violation]:
    """The history and state the adapter reports after an invocation, against the oracle's.

    After an error, ``before`` (the implementation's own history and state from its previous reply) is the
    reference instead: ROC-RESUME-010 / ROC-ERR-006 ask that a rejected input change nothing, and that is
    judged on what the implementation had, even when it already differed from the oracle for another reason.
    When ``units_ran`` (the error came mid-run, e.g. DUPLICATE_INTERRUPT_NAME) only ROC-ERR-006 applies.
    """
    out: list[Violation] = []
    unchanged = [reqs.ERROR_UNCHANGED] if units_ran else [reqs.RESUME_UNCHANGED, reqs.ERROR_UNCHANGED]
    if after_error and before is not None:
        seen_messages, seen_state = before
        for what, now, then in (("history", "messages", seen_messages), ("state", "state", seen_state)):
            if now in observed and then is not None and not same_canonical(observed.get(now), then):
                changed = Violation(
                    unchanged,
                    f"a rejected input changed the {what}: {_short(then, 500)} -> "
                    f"{_short(observed.get(now), 500)}",
                )
                changed.about_history = what == "history"
                out.append(changed)
        return [_as("data", v) for v in out]
    if messages_known and "messages" in observed:
        for v in check_messages(
            messages, observed.get("messages"), after_error=after_error, free=free, reasons=reasons
        ):
            v.about_history = True
            out.append(v)
    elif "messages" in observed and _dangling(observed.get("messages")):
        # After a direct call the history is the implementation's, but never with a lone toolUse: a lone
        # toolUse of the paused batch is the deferred-append rule's failure, any other the direct call's.
        lone = set(_dangling(observed.get("messages")))
        paused = {
            str(b["toolUse"].get("toolUseId"))
            for b in (pending or {}).get("content") or []
            if isinstance(b, dict) and isinstance(b.get("toolUse"), dict)
        }
        ids = [reqs.TRANSCRIPT if lone <= paused else reqs.DIRECT_RECORDED, reqs.NO_DANGLING]
        lone_use = Violation(ids, f"toolUse without its toolResult: {sorted(lone)}")
        lone_use.about_history = True
        out.append(lone_use)
    if "state" in observed and not same_canonical(observed.get("state"), state):
        ids = (
            [reqs.RESUME_UNCHANGED, reqs.ERROR_UNCHANGED]
            if after_error
            else [reqs.STATE_PERSISTS, reqs.STATE_KEPT]
        )
        out.append(Violation(ids, f"agent state {_short(observed.get('state'))} != expected {_short(state)}"))
    return [_as("data", v) for v in out]


_ = json
