"""The requirement registry and the check catalogue it is joined with."""

from __future__ import annotations

import json
import re

import pytest
from roc_conformance.checks import all_checks
from roc_conformance.registry import (
    RegistryError,
    checked_requirements,
    find_requirements_file,
    load_registry,
    parse_registry,
)

REQ = re.compile(r"^ROC-[A-Z]+-\d{3}$")


def test_checked_requirements_maps_ids_to_check_names():
    mapping = checked_requirements()
    names = {c.name for c in all_checks()} | {"wire:schema"}
    assert mapping, "the suite has checks"
    for rid, checks in mapping.items():
        assert REQ.match(rid), rid
        assert checks
        assert set(checks) <= names
    assert "explicit:error-shape" in mapping["ROC-ERR-003"]


def test_every_check_names_requirements_and_known_profiles():
    known = set(load_registry().profiles())
    for check in all_checks():
        assert check.requirements, check.name
        assert all(REQ.match(r) for r in check.requirements), check.name
        assert set(check.profiles) <= known, check.name


def test_the_committed_registry_loads():
    registry = load_registry(find_requirements_file())
    assert registry.spec_version == "1.3"
    assert registry.requirements
    assert len(registry.by_id()) == len(registry.requirements)


def test_registry_env_override(tmp_path, monkeypatch):
    path = tmp_path / "reqs.json"
    path.write_text(json.dumps({"specVersion": "9.9", "requirements": []}))
    monkeypatch.setenv("ROC_REQUIREMENTS", str(path))
    assert find_requirements_file() == path


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"requirements": [{"id": "ROC-A-001"}]},
        {
            "requirements": [
                {"id": "ROC-A-001", "level": "MUST", "profile": "core"},
                {"id": "ROC-A-001", "level": "MUST", "profile": "core"},
            ]
        },
    ],
)
def test_malformed_registries_are_refused(doc):
    with pytest.raises(RegistryError):
        parse_registry(doc)


def test_scored_levels():
    reg = parse_registry(
        {
            "requirements": [
                {"id": f"ROC-A-00{i}", "level": lvl, "profile": "core"}
                for i, lvl in enumerate(["MUST", "MUST NOT", "SHOULD", "MAY"])
            ]
        }
    )
    assert [r.scored for r in reg.requirements] == [True, True, False, False]
