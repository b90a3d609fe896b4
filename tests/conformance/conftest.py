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
