"""Project-wide pytest hooks: requirement markers are checked against the spec and can be traced.

- Every ``@pytest.mark.req(...)`` must name well-formed requirement IDs that exist in spec/*.md; a test that
  names an unknown ID of an area the spec defines fails with the reason. (IDs of areas with no requirement yet
  are caught by tests/spec and ``trace`` instead, so tests stay runnable while chapters are drafted.)
- With ``ROC_TRACE_OUT=<file>`` set, collection writes {nodeid: [requirement ids]} there; the specdoc
  ``trace`` command and tests/spec use it, so the traceability matrix is generated, never hand-kept.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from roc_conformance.specdoc.markers import TRACE_ENV, marker_ids, marker_problems
from roc_conformance.specdoc.parser import parse_spec

SPEC_DIR = Path(__file__).resolve().parents[1] / "spec"

# No test may fail because the machine is slow (a clean clone must pass next to another CPU-heavy job):
# Hypothesis' per-example deadline and its "data generation is too slow" check both judge wall-clock time,
# so the default profile turns them off. A test that sets its own suppress_health_check list names too_slow.
settings.register_profile(
    "roc-tests", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "roc-tests"))
_KNOWN_IDS = pytest.StashKey[frozenset[str]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    out = os.environ.get(TRACE_ENV)
    if not out:
        return
    trace = {item.nodeid: marker_ids(item) for item in session.items}
    Path(out).write_text(json.dumps(trace, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _known_ids(config: pytest.Config) -> frozenset[str]:
    if _KNOWN_IDS not in config.stash:
        config.stash[_KNOWN_IDS] = frozenset(req.id for req in parse_spec(SPEC_DIR))
    return config.stash[_KNOWN_IDS]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    # In the call phase (not setup) so a bad marker shows as a failed test rather than an error.
    if item.get_closest_marker("req") is None:
        return
    known = _known_ids(item.config)
    if not known:
        return  # no chapters yet: nothing to check against (tests/spec reports the missing spec)
    problems = marker_problems(item, known, drafted_areas_only=True)
    if problems:
        pytest.fail("bad requirement marker: " + "; ".join(problems), pytrace=False)
