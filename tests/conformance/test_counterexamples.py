"""``--save-counterexamples``: a failing state-machine check writes its shrunk counterexample as a static
vector file that fails the broken implementation again and passes the reference."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from roc_conformance.checks.stateful import machine_checks
from roc_conformance.client import HarnessClient
from roc_conformance.counterexamples import save_vector, vector_name
from roc_conformance.oracle import reqs
from roc_conformance.oracle.vectors import run_vector
from roc_conformance.registry import load_registry
from roc_conformance.report import validate_report
from roc_conformance.runner import run_suite
from roc_conformance.settings import RunSettings
from roc_conformance.target import Target
from roc_harness_support import load_broken, serving

ROOT = Path(__file__).resolve().parents[2]
VECTOR_SCHEMA = json.loads(
    (ROOT / "conformance" / "vectors" / "vector.schema.json").read_text(encoding="utf-8")
)
FAST = RunSettings(
    name="certify", derandomize=True, max_examples=40, stateful_step_count=10, shrink_seconds=5
)


def _run_vector(vector: dict, address: str) -> list:
    client = HarnessClient.connect(address)
    try:
        found, driver = run_vector(vector, client)
        driver.dispose()
    finally:
        client.close()
    return [v for v in found if v.level == "MUST"]


@pytest.mark.req(reqs.RESUME_SKIPS_MODEL)
def test_a_saved_counterexample_is_a_vector_that_fails_again(tmp_path: Path) -> None:
    # A bug every resume shows (a wasted model call), so the machine meets it in its first examples whatever
    # order its derandomized examples come in.
    broken = load_broken("model_called_on_resume")
    checks = [c for c in machine_checks() if c.name == "machine:sequential"]
    out = tmp_path / "cx"
    with broken.patch(), serving() as (address, _):
        result = run_suite(Target(address, "broken"), checks, load_registry(), FAST, save_counterexamples=out)
        check = next(c for c in result.checks if c.name == "machine:sequential")
        assert check.counterexample_file is not None, (check.status, check.message[:500], check.notes)
        path = Path(check.counterexample_file)
        vector = json.loads(path.read_text(encoding="utf-8"))
        broken_again = _run_vector(vector, address)
    assert broken_again, "the saved vector does not fail the broken implementation again"
    assert path.parent == out
    assert path.stem == vector["id"] == vector_name(vector)
    assert vector["id"].startswith(vector["requirements"][0].lower() + "-")
    assert set(vector["requirements"]) <= set(check.failed_requirements)
    jsonschema.Draft202012Validator(VECTOR_SCHEMA).validate(vector)
    assert set(broken.BREAKS) & {r for v in broken_again for r in v.requirements}
    doc = result.to_json()
    assert validate_report(doc) == []
    entry = next(c for c in doc["checks"] if c["name"] == "machine:sequential")
    assert entry["counterexampleFile"] == str(path)
    failures = [f for r in doc["requirements"] for f in r.get("failures", []) if f["check"] == entry["name"]]
    assert failures
    assert all(f["counterexampleFile"] == str(path) for f in failures)
    with serving() as (address, _):
        assert _run_vector(vector, address) == []


def test_one_counterexample_is_one_file(tmp_path: Path) -> None:
    vector = json.loads((ROOT / "conformance" / "vectors" / "v1" / "not-interrupted.json").read_text("utf-8"))
    first = save_vector({**vector, "id": "counterexample"}, tmp_path)
    again = save_vector({**vector, "id": "other"}, tmp_path)
    assert first == again
    assert len(list(tmp_path.iterdir())) == 1
    assert first.stem.startswith(vector["requirements"][0].lower() + "-")
    assert json.loads(first.read_text(encoding="utf-8"))["id"] == first.stem


PADDED_AGENT: dict = {
    "agentId": "a1",
    "executor": "sequential",
    "model": {
        "turns": [
            {"content": [{"text": "t"}, {"toolUse": {"toolUseId": "t0-0", "name": "ask", "input": {}}}]},
            {"content": [{"text": "done"}]},
        ]
    },
    "tools": [
        {"name": "ask", "steps": [{"interrupt": {"name": "q", "reason": "why"}}, {"return": {"value": 1}}]},
        {"name": "unused", "steps": [{"fail": {"message": "never"}}]},
    ],
    "hooks": [{"event": "AfterTools", "steps": []}],
    "state": {},
}
PADDED_STEPS: list = [
    {"invoke": {"prompt": "go"}},
    {"restore": True},
    {"invoke": {"interruptResponses": [{"interruptId": "x-wrong", "response": "y"}]}},
    {"invoke": {"interruptResponses": [{"interrupt": {"name": "q", "kind": "tool"}, "response": "y"}]}},
    {"invoke": {"prompt": "after"}},
]


def test_minimize_keeps_the_failure_and_drops_the_rest() -> None:
    from roc_conformance.counterexamples import rpcs_after_create
    from roc_conformance.machine import counterexample_text, counterexample_vector
    from roc_conformance.minimize import minimize, replay, requirements_of

    broken = load_broken("model_called_on_resume")
    with broken.patch(), serving() as (address, _), HarnessClient.connect(address) as client:
        first = replay(PADDED_AGENT, PADDED_STEPS, client, hook_events=True)
        assert first is not None
        assert first.step == 3  # the resume that calls the model again
        best = minimize(PADDED_AGENT, PADDED_STEPS, client, hook_events=True)
        assert best is not None
        assert requirements_of(best.found) == requirements_of(first.found)
        vector = counterexample_vector(best.driver, best.found, frozenset({"core", "hooks", "sessions"}))
        # The prompt that raises the interrupt and the answer that resumes it are all it needs.
        assert [next(iter(s)) for s in vector["steps"]] == ["invoke", "invoke"]
        assert rpcs_after_create(counterexample_text(best.driver, vector)) == 2
        assert [t["name"] for t in vector["agent"]["tools"]] == ["ask"]
        assert vector["agent"]["hooks"] == []
        again = replay(vector["agent"], vector["steps"], client, hook_events=True)
        assert again is not None
        assert requirements_of(again.found) == requirements_of(first.found)
    with serving() as (address, _), HarnessClient.connect(address) as client:
        assert replay(PADDED_AGENT, PADDED_STEPS, client, hook_events=True) is None
        assert minimize(PADDED_AGENT, PADDED_STEPS, client, hook_events=True) is None
