"""Make a state machine's counterexample shorter after Hypothesis has shrunk it.

Hypothesis shrinks the choices that made a failing run, within a time budget; what it hands back often
still carries steps that play no part in the failure (an answer that changes nothing, a snapshot + restore
before the step that fails) and scenario parts nothing uses (a hook that never fires, a tool no turn calls).
``minimize`` replays the counterexample, as a static vector, against the same implementation and keeps
every cut after which the *same* failure still happens: the same requirements fail, first, at some step.
It cuts steps (after the failing one, then each step, a restore before the others), then the scenario
(hooks, turns, tool uses, tools, program steps, reasons), then makes answers plain (``"y"``). Each
candidate is one replay, a few RPCs; the number of replays is bounded.

A replay is judged exactly as the machine judged the original run (the driver, its oracle, its
re-synchronisation), so a kept cut is a real counterexample of the same requirements, never a guess.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .oracle.check import Violation
from .oracle.driver import IN_SYNC, Driver, Implementation
from .oracle.engine import Input, UnknownRef
from .oracle.fake import to_input
from .oracle.scenario import JSON, ScenarioError
from .oracle.vectors import VectorRun, _refs, oracle_input

MAX_REPLAYS = 150
"""Replays one minimization may spend (each is a CreateAgent, the steps up to the failure, a DisposeAgent)."""


@dataclass
class Replay:
    """A replay that failed: its driver (transcript, steps) and the findings of its failing step."""

    driver: Driver
    found: list[Violation]
    step: int


def replay(
    agent: dict[str, JSON],
    steps: list[dict[str, JSON]],
    impl: Implementation,
    *,
    hook_events: bool,
    tolerate: frozenset[str] = frozenset(),
) -> Replay | None:
    """Run ``steps`` on a fresh agent of ``agent`` until a step has findings not all in ``tolerate``.

    Returns that step's findings (None: no such step, or the steps no longer make sense, e.g. an answer
    to an interrupt the shorter run never raised).
    """
    try:
        driver = Driver(impl, agent, hook_events=hook_events)
    except (ScenarioError, KeyError, TypeError, ValueError):
        return None
    run = VectorRun()
    try:
        for n, step in enumerate(steps):
            if "restore" in step:
                found = driver.restore()
            else:
                wire, inp = _input(step["invoke"], driver, run)
                found = driver.invoke(wire, inp, f"step {n}")
                outcome = driver.last_outcome
                assert outcome is not None
                run.remember(
                    [i.key for i in outcome.interrupts], [driver.id_for(i.key) for i in outcome.interrupts]
                )
            if found and not all(set(v.requirements) <= tolerate for v in found):
                return Replay(driver, found, n)
            if driver.dead or driver.sync != IN_SYNC:
                return None
        return None
    except (ValueError, KeyError, TypeError, ScenarioError):
        return None  # a reference the shorter run cannot resolve: not a counterexample
    finally:
        driver.dispose()  # a harness fault here goes to the caller, as any other


def _input(inp: dict[str, JSON], driver: Driver, run: VectorRun) -> tuple[dict[str, JSON], Input]:
    if "interruptResponses" not in inp:
        return copy.deepcopy(inp), to_input(inp, UnknownRef)
    wire, _ = driver.resume_input(_refs(inp, run))
    for item, r in zip(wire["interruptResponses"], inp["interruptResponses"], strict=True):
        if "response" not in r:
            item.pop("response", None)
    return wire, oracle_input(inp, run)


def requirements_of(found: list[Violation]) -> frozenset[str]:
    return frozenset(r for v in found for r in v.requirements)


def minimize(
    agent: dict[str, JSON],
    steps: list[dict[str, JSON]],
    impl: Implementation,
    *,
    hook_events: bool,
    tolerate: frozenset[str] = frozenset(),
    budget: int = MAX_REPLAYS,
) -> Replay | None:
    """The smallest run found that fails the same requirements as ``steps`` do (None: they do not fail
    on replay, e.g. an implementation that is not deterministic)."""
    best = replay(agent, steps, impl, hook_events=hook_events, tolerate=tolerate)
    if best is None:
        return None
    target = requirements_of(best.found)
    spent = 1
    current_agent, current_steps = agent, steps[: best.step + 1]

    def attempt(a: dict[str, JSON], s: list[dict[str, JSON]]) -> bool:
        nonlocal best, spent, current_agent, current_steps
        if spent >= budget:
            return False
        spent += 1
        got = replay(a, s, impl, hook_events=hook_events, tolerate=tolerate)
        if got is None or requirements_of(got.found) != target:
            return False
        best, current_agent, current_steps = got, a, s[: got.step + 1]
        return True

    progress = True
    while progress and spent < budget:
        progress = any(attempt(current_agent, cut) for cut in _step_cuts(current_steps))
        if not progress:
            progress = any(attempt(smaller, current_steps) for smaller in _agent_cuts(current_agent))
        if not progress:
            progress = any(attempt(current_agent, plainer) for plainer in _plainer_answers(current_steps))
    return best


def _step_cuts(steps: list[dict[str, JSON]]) -> Iterator[list[dict[str, JSON]]]:
    """Each step left out in turn: restores first (they cost two RPCs), then from the first step on."""
    order = [i for i, s in enumerate(steps) if "restore" in s] + [
        i for i, s in enumerate(steps) if "restore" not in s
    ]
    for i in order:
        if len(steps) > 1:
            yield steps[:i] + steps[i + 1 :]


def _agent_cuts(agent: dict[str, JSON]) -> Iterator[dict[str, JSON]]:
    """Smaller scenarios: a hook, a turn, a tool use, a text block, an unused tool, a program step less."""
    hooks = agent.get("hooks") or []
    for i in range(len(hooks)):
        doc = copy.deepcopy(agent)
        del doc["hooks"][i]
        yield doc
    turns = agent["model"]["turns"]
    for t in range(len(turns) - 1):  # the last turn ends the script
        doc = copy.deepcopy(agent)
        del doc["model"]["turns"][t]
        yield doc
    for t, turn in enumerate(turns):
        for b in range(len(turn["content"])):
            if len(turn["content"]) > 1:
                doc = copy.deepcopy(agent)
                del doc["model"]["turns"][t]["content"][b]
                yield doc
    used = {b["toolUse"]["name"] for turn in turns for b in turn["content"] if "toolUse" in b} | {
        h.get("toolName") for h in hooks
    }
    for i, tool in enumerate(agent.get("tools") or []):
        if tool["name"] not in used:
            doc = copy.deepcopy(agent)
            del doc["tools"][i]
            yield doc
    for i, tool in enumerate(agent.get("tools") or []):
        for k in range(len(tool["steps"])):
            doc = copy.deepcopy(agent)
            del doc["tools"][i]["steps"][k]
            yield doc
    for i, hook in enumerate(hooks):
        for k in range(len(hook["steps"])):
            doc = copy.deepcopy(agent)
            del doc["hooks"][i]["steps"][k]
            yield doc
    for path in _reasons(agent):  # an interrupt's reason, left out
        doc = copy.deepcopy(agent)
        owner: Any = doc
        for part in path:
            owner = owner[part]
        del owner["reason"]
        yield doc


def _reasons(agent: dict[str, JSON]) -> Iterator[tuple[str | int, ...]]:
    """Where the scenario's interrupts carry a reason: paths to their ``interrupt`` objects."""
    for kind in ("tools", "hooks"):
        for i, unit in enumerate(agent.get(kind) or []):
            for k, step in enumerate(unit["steps"]):
                if "reason" in (step.get("interrupt") or {}):
                    yield (kind, i, "steps", k, "interrupt")


PLAIN_ANSWER = "y"


def _plainer_answers(steps: list[dict[str, JSON]]) -> Iterator[list[dict[str, JSON]]]:
    """Each answer that is not yet the plain ``"y"`` replaced by it."""
    for n, step in enumerate(steps):
        for k, item in enumerate((step.get("invoke") or {}).get("interruptResponses") or []):
            if "response" in item and item["response"] != PLAIN_ANSWER:
                plainer = copy.deepcopy(steps)
                plainer[n]["invoke"]["interruptResponses"][k]["response"] = PLAIN_ANSWER
                yield plainer
