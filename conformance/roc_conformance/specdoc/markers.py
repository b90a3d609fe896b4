"""Requirement IDs carried by tests through ``@pytest.mark.req("ROC-...", ...)``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from .vocabulary import ID_RE

TRACE_ENV = "ROC_TRACE_OUT"


def marker_ids(item: pytest.Item) -> list[str]:
    """The IDs named by every req marker on a test (function, class and module markers), first use first."""
    ids: list[str] = []
    for mark in item.iter_markers(name="req"):
        for arg in mark.args:
            text = arg if isinstance(arg, str) else repr(arg)
            if text not in ids:
                ids.append(text)
    return ids


def marker_problems(
    item: pytest.Item, known: Iterable[str], *, drafted_areas_only: bool = False
) -> list[str]:
    """Why the item's req markers are wrong: malformed or unknown IDs, or a marker that names none.

    With ``drafted_areas_only`` an unknown ID counts only if the spec already defines requirements of its
    area, so tests stay runnable while chapters are still being written; the full check lives in tests/spec
    and in ``trace``, which treat every unknown ID as an error.
    """
    known_ids = set(known)
    areas = {area_of(rid) for rid in known_ids}
    problems: list[str] = []
    for mark in item.iter_markers(name="req"):
        if not mark.args:
            problems.append("@pytest.mark.req() names no requirement ID")
    for rid in marker_ids(item):
        if not ID_RE.match(rid):
            problems.append(f"{rid!r} is not a requirement ID (ROC-AREA-NNN)")
        elif rid not in known_ids and (not drafted_areas_only or area_of(rid) in areas):
            problems.append(f"{rid} is not a requirement of the spec (spec/*.md)")
    return problems


def area_of(rid: str) -> str:
    match = ID_RE.match(rid)
    return match.group(1) if match else ""


def unknown_ids(markers: Mapping[str, Iterable[str]], known: Iterable[str]) -> dict[str, list[str]]:
    """Unknown ID -> the node ids that use it."""
    known_ids = set(known)
    found: dict[str, list[str]] = {}
    for nodeid, ids in markers.items():
        for rid in ids:
            if rid not in known_ids:
                found.setdefault(rid, []).append(nodeid)
    return dict(sorted(found.items()))
