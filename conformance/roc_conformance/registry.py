"""The requirement registry: spec/requirements.json joined with the checks that verify each requirement.

``spec/requirements.json`` is generated from the spec chapters (one source of truth); this module only reads
it. ``checked_requirements()`` is what the traceability tool (``roc_conformance.specdoc.trace``) asks for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REQUIREMENTS_ENV = "ROC_REQUIREMENTS"
"""Environment variable naming an explicit requirements.json (e.g. a frozen set for an older revision)."""

MUST_LEVELS = frozenset({"MUST", "MUST NOT"})
SHOULD_LEVELS = frozenset({"SHOULD", "SHOULD NOT"})


class RegistryError(RuntimeError):
    """requirements.json is missing or malformed."""


@dataclass(frozen=True)
class Requirement:
    """One ROC-* requirement as the suite needs it."""

    id: str
    level: str
    profile: str
    text: str = ""
    section: str = ""
    chapter: str = ""
    anchor: str = ""
    untestable: str | None = None

    @property
    def scored(self) -> bool:
        """Whether a failure makes its profile non-conformant (MUST / MUST NOT)."""
        return self.level in MUST_LEVELS

    @property
    def area(self) -> str:
        return self.id.split("-")[1] if self.id.count("-") >= 2 else "OTHER"

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id, "level": self.level, "profile": self.profile}
        if self.section:
            doc["section"] = self.section
        if self.chapter:
            doc["chapter"] = self.chapter
        if self.anchor:
            doc["anchor"] = self.anchor
        return doc


@dataclass(frozen=True)
class Registry:
    """All requirements of one spec version, by id, in document order."""

    spec_version: str
    requirements: tuple[Requirement, ...]
    source: str

    def by_id(self) -> dict[str, Requirement]:
        return {r.id: r for r in self.requirements}

    def profiles(self) -> list[str]:
        seen: dict[str, None] = {}
        for req in self.requirements:
            seen.setdefault(req.profile, None)
        return list(seen)

    def in_profile(self, profile: str) -> list[Requirement]:
        return [r for r in self.requirements if r.profile == profile]


def find_requirements_file(start: Path | None = None) -> Path:
    """``$ROC_REQUIREMENTS``, else ``spec/requirements.json`` above this package or the cwd."""
    explicit = os.environ.get(REQUIREMENTS_ENV)
    if explicit:
        return Path(explicit)
    roots: list[Path] = []
    if start is not None:
        roots.append(start)
    roots.append(Path(__file__).resolve().parent)
    roots.append(Path.cwd())
    for root in roots:
        for directory in (root, *root.parents):
            candidate = directory / "spec" / "requirements.json"
            if candidate.is_file():
                return candidate
    raise RegistryError("spec/requirements.json not found (set ROC_REQUIREMENTS to its path)")


def parse_registry(doc: Any, source: str = "<memory>") -> Registry:
    """A registry from the requirements.json document."""
    if not isinstance(doc, dict) or not isinstance(doc.get("requirements"), list):
        raise RegistryError(f"{source}: expected an object with a 'requirements' list")
    reqs: list[Requirement] = []
    seen: set[str] = set()
    for item in doc["requirements"]:
        try:
            req = Requirement(
                id=str(item["id"]),
                level=str(item["level"]),
                profile=str(item["profile"]),
                text=str(item.get("text", "")),
                section=str(item.get("section", "")),
                chapter=str(item.get("chapter", "")),
                anchor=str(item.get("anchor", "")),
                untestable=item.get("untestable") or None,
            )
        except (KeyError, TypeError) as exc:
            raise RegistryError(f"{source}: malformed requirement {item!r}: {exc}") from exc
        if req.id in seen:
            raise RegistryError(f"{source}: duplicate requirement {req.id}")
        seen.add(req.id)
        reqs.append(req)
    return Registry(spec_version=str(doc.get("specVersion", "")), requirements=tuple(reqs), source=source)


def load_registry(path: Path | None = None) -> Registry:
    """The registry of ``path`` (default: ``find_requirements_file()``, resolved on every call)."""
    target = (path or find_requirements_file()).resolve()
    stat = target.stat() if target.exists() else None
    return _load(target, None if stat is None else stat.st_mtime_ns)


@cache
def _load(target: Path, _mtime: int | None) -> Registry:
    try:
        doc = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RegistryError(f"cannot read {target}: {exc}") from exc
    return parse_registry(doc, str(target))


def checks_by_requirement(names_and_reqs: Iterable[tuple[str, Iterable[str]]]) -> dict[str, list[str]]:
    """Invert (check name, requirement ids) pairs into {requirement id: [check names]}."""
    out: dict[str, list[str]] = {}
    for name, reqs in names_and_reqs:
        for rid in reqs:
            names = out.setdefault(rid, [])
            if name not in names:
                names.append(name)
    return {rid: out[rid] for rid in sorted(out)}


def checked_requirements() -> dict[str, list[str]]:
    """Requirement ID -> names of the suite's checks that verify it (static: no adapter needed)."""
    from roc_conformance.checks import all_checks
    from roc_conformance.checks.wire_schema import SCHEMA_REQUIREMENTS

    pairs = [(c.name, c.requirements) for c in all_checks()]
    pairs.append(("wire:schema", SCHEMA_REQUIREMENTS))  # the observer the runner installs on every run
    return checks_by_requirement(pairs)
