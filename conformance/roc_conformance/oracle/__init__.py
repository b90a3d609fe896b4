"""The oracle: a small executable model of the RoC rules, independent of ``roc_reference``.

INTERFACE NOTE (for the runner, the checks and the CLI; JSON in, JSON out, like client.py)
-------------------------------------------------------------------------------------------
Model and checks (no gRPC, no reference import):

    from roc_conformance.oracle import OracleAgent, parse_spec, Driver, Violation, reqs
    agent = OracleAgent(parse_spec(spec_json))        # AgentSpec JSON of TEAM.md
    outcome = agent.invoke(Prompt([{"text": "go"}]))   # or Resume / Mixed / Direct (engine.py)
    outcome.kind in {"result", "error", "direct"}; outcome.codes (acceptable error codes),
    outcome.preferred (ROC-RESUME-014 order), outcome.interrupts (by key = (source kind, toolUseId, name)),
    outcome.trace (a canonical trace), agent.messages / agent.state (after the call),
    agent.copy() (= snapshot + restore).

Lockstep driving of an implementation (anything with the HarnessClient methods, see ``Implementation``):

    d = Driver(client, spec_json)                 # creates the agent
    found = d.invoke({"prompt": "go"}, Prompt([{"text": "go"}]))   # -> list[Violation] (MUST findings)
    wire, inp = d.resume_input([(key_or_literal_id, response), ...]); d.invoke(wire, inp)
    d.restore()                                   # TakeSnapshot + Dispose + RestoreAgent(model_turn_offset)
    d.warnings                                    # SHOULD findings (ROC-RESUME-014, ROC-TOOL-004, ...)
    d.transcript()                                # readable RPC transcript for a counterexample
    d.dispose()

Ids are opaque: the Driver binds observed ids to keys and checks distinctness (ROC-MODEL-002, ROC-STOP-003),
stability across replay and restore (ROC-REPLAY-004, ROC-ANSWER-002) and no reuse (ROC-MODEL-008).
A Violation is a ``roc_conformance.errors.ConformanceViolation`` (``.requirements``, ``.message``), plus
``.level`` ("MUST" or "SHOULD"). ``merge(violations, context, counterexample)`` folds several into one.

Static vectors: ``vectors.load_vectors()``, ``vectors.run_vector(vector, client) -> (violations, driver)``,
``vectors.check_vector_against_oracle(vector) -> [disagreements]``. A vector's ``profiles`` must all be
declared for it to run; otherwise it is SKIPPED with that reason.
Hypothesis: ``roc_conformance.machine.make_machine(factory, profiles, settings, name, direct_calls=True)``
returns a RuleBasedStateMachine class (``MACHINE_REQUIREMENTS``: what a passing run vouches for); its
violations carry ``counterexample`` = RPC transcript + the run as a vector (``vector_from_counterexample``).
``roc_conformance.strategies`` has the scenario and input strategies.

Sub-agents (spec 12, profile agent-as-tool): a tool's ``runAgent`` step runs a nested OracleAgent per outer
tool use (``subagents.py``); a propagated interrupt's key is ("agent_as_tool", outer toolUseId, inner name
+ "@" + inner kind + ":" + inner toolUseId, nested the same way per level), ``check.key_of`` reads it off an
observed interrupt's ``source.inner`` chain, and ``ExpectedInterrupt.name`` is the inner name. Sub-agents'
trace events carry ``agentPath``; ``Outcome.agent_paths`` says what each sub-agent call did (started,
resumed, not_resumed, completed), by which the checker names the ROC-AGENT requirement a divergence breaks.

Trace facts the oracle relies on: ``model_call{turn}`` uses the harness's model cursor (call i -> turns[i],
not rewound by a failed invocation); ``after_tools.toolUseIds`` in message order; ``hook_callback`` carries
``event``, ``hookIndex`` and, for per-tool events, ``toolUseId``; a rejected input shows only
``invocation_start``. Modelled semantics: DESIGN.md pinned 1-17 and spec/03-07 (see engine.py).
"""

from __future__ import annotations

from . import reqs
from .check import IdBinder, Violation, check_result, merge
from .driver import Driver, Implementation
from .engine import Direct, Key, Mixed, OracleAgent, Outcome, Prompt, Response, Resume, UnknownRef
from .scenario import AgentSpec, ScenarioError, parse_spec

__all__ = [
    "AgentSpec",
    "Direct",
    "Driver",
    "IdBinder",
    "Implementation",
    "Key",
    "Mixed",
    "OracleAgent",
    "Outcome",
    "Prompt",
    "Response",
    "Resume",
    "ScenarioError",
    "UnknownRef",
    "Violation",
    "check_result",
    "merge",
    "parse_spec",
    "reqs",
]
