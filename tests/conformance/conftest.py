"""Fixtures shared by the harness tests: one in-process reference adapter per module, a client per test."""

from __future__ import annotations

import pytest
from roc_harness_support import client_for, serving


@pytest.fixture(scope="module")
def adapter():
    with serving() as (address, servicer):
        yield address, servicer


@pytest.fixture
def client(adapter):
    with client_for(adapter[0]) as c:
        yield c


@pytest.fixture
def pinned_constants():
    """Hypothesis draws as if no literal of the working tree had been collected.

    Hypothesis mixes literals it collects from the loaded local modules into its draws, so a derandomized
    run draws other examples depending on which modules earlier tests (or pytest's collection) happened to
    import (see roc_conformance.parallel). A test that asserts what a derandomized machine run reaches pins
    the collection: everything a run imports is loaded first, then the collection is emptied and those
    modules are taken as seen. The examples are then the same in a full run and in a single test.
    """
    import roc_conformance.checks
    import roc_conformance.machine
    import roc_conformance.oracle.fake  # noqa: F401 - loaded so that a run imports nothing new
    from roc_conformance.parallel import adopt_constants, hypothesis_constants

    saved = hypothesis_constants()
    pinned = adopt_constants({kind: [] for kind in ("integers", "floats", "bytes", "strings")})
    if not pinned:
        pytest.skip("this Hypothesis version has no constant collection to pin")
    yield
    adopt_constants(saved)
