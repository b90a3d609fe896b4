"""Known failures and known flaky items of an implementation: matching a run against them, the outcome.

An SDK that still diverges on some requirements keeps a known-failures file in its own repository. A run
with ``--known-failures FILE`` passes when its failures are exactly the listed ones, and fails on a new
failure, on a stale entry (listed, but it passes now) and on an unknown entry (it names no requirement or
check of the suite). Items of a ``--known-flaky`` file run and are reported, but never decide the outcome.
``--repeat N`` runs the suite N times and reports every item whose status differs between the runs.

The file format is expectation_file.py's; this module matches entries against runs, judges the outcome,
rewrites the file and renders the outcome for the console and summary.md.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from roc_conformance.checks import all_checks
from roc_conformance.checks.base import CheckResult, Status
from roc_conformance.expectation_file import (
    CHECK_PREFIX,
    DEFAULT_HEADER,
    Entry,
    EntryList,
    Lists,
    load,
    load_lists,
    parse,
    render,
)
from roc_conformance.registry import Registry
from roc_conformance.runner import RequirementResult, RunResult, RunVerdict, judge_profiles

WIRE_CHECK = "wire:schema"  # the observer check the runner adds to every run; not in all_checks()
_WITHOUT = re.compile(r" \(without [^()]*\)$")  # the rerun of a check whose fault was charged elsewhere


# ---------------------------------------------------------------------------------------------
# Matching entries against a run


class State:
    """What an entry found in a run."""

    HOLDS = "holds"  # it fails (a known failure), or failed or errored (a flaky item)
    STALE = "stale"  # it passes now
    UNKNOWN = "unknown"  # the suite has no such requirement or check
    # It exists, but this run neither passed nor failed it (SKIPPED, NOT_TESTED, ERROR, not selected).
    NOT_JUDGED = "not-judged"


@dataclass(frozen=True)
class Match:
    entry: Entry
    state: str
    status: str | None  # the item's status in the run (PASS, FAIL, ...); None when unknown or not run
    detail: str

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"entry": self.entry.key, "reason": self.entry.reason, "state": self.state}
        if self.entry.line:
            doc["line"] = self.entry.line
        if self.entry.link:
            doc["link"] = self.entry.link
        doc["status"] = self.status
        if self.detail:
            doc["detail"] = self.detail
        return doc


def base_name(check: str) -> str:
    """A check's name without the ``(without …)`` of its rerun: an entry names both."""
    return _WITHOUT.sub("", check)


def match(
    entry: Entry,
    result: RunResult,
    suite_checks: Iterable[str],
    *,
    flaky: bool = False,
    spec_ids: Iterable[str] = (),
) -> Match:
    """What ``entry`` names in ``result``: FAIL holds; PASS is stale; anything else is not judged.

    For a flaky entry an ERROR also holds (a flake may show as a timeout) and a PASS is just a pass.
    """
    if entry.is_check:
        mine = [c for c in result.checks if base_name(c.name) == entry.name]
        if not mine:
            if entry.name not in {*suite_checks, WIRE_CHECK}:
                return Match(entry, State.UNKNOWN, None, "the suite has no such check")
            return Match(entry, State.NOT_JUDGED, None, "not run: not selected by --only or --req")
        statuses = [c.status for c in mine]
        status = next((s for s in (Status.FAIL, Status.ERROR, Status.PASS) if s in statuses), statuses[0])
        detail = next((c.message for c in mine if c.status is status), "")
    else:
        req = next((r for r in result.requirements if r.requirement.id == entry.name), None)
        if req is None:
            if entry.name in set(spec_ids):
                return Match(entry, State.NOT_JUDGED, None, "not judged: not selected by --req")
            return Match(entry, State.UNKNOWN, None, "the spec has no such requirement")
        status, detail = req.status, req.reason
    if status is Status.FAIL or (flaky and status is Status.ERROR):
        state = State.HOLDS
    elif status is Status.PASS:
        state = State.STALE
    else:
        state = State.NOT_JUDGED
    return Match(entry, state, status.value, detail[:300])


# ---------------------------------------------------------------------------------------------
# The outcome of a run against its lists


@dataclass(frozen=True)
class NewFailure:
    requirement: str
    level: str
    checks: tuple[str, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "requirement": self.requirement,
            "level": self.level,
            "checks": list(self.checks),
            "message": self.message,
        }


@dataclass(frozen=True)
class Unstable:
    key: str  # a requirement ID or check:<name>
    statuses: tuple[str, ...]  # one per repetition ("ABSENT": the item was not in that repetition)
    flaky: bool  # excused by the known-flaky list

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.key, "statuses": list(self.statuses), "flaky": self.flaky}


@dataclass
class Outcome:
    """A run judged against its known failures, known flaky items and repetitions."""

    known_file: str | None
    flaky_file: str | None
    known: list[Match]
    flaky: list[Match]
    new_failures: list[NewFailure]
    unstable: list[Unstable]
    repeat: int
    residual: str  # the run's verdict with the listed failures forgiven (RunVerdict)
    flaky_failures: dict[str, int] = field(default_factory=dict)  # flaky key -> repetitions it failed in

    def of_state(self, state: str, matches: Sequence[Match] | None = None) -> list[Match]:
        return [m for m in (self.known if matches is None else matches) if m.state == state]

    @property
    def stale(self) -> list[Match]:
        return self.of_state(State.STALE)

    @property
    def unknown(self) -> list[Match]:
        return self.of_state(State.UNKNOWN) + self.of_state(State.UNKNOWN, self.flaky)

    @property
    def blocking_unstable(self) -> list[Unstable]:
        return [u for u in self.unstable if not u.flaky]

    @property
    def passed(self) -> bool:
        """No new failure, no stale or unknown entry, no unexcused instability (residual verdict aside)."""
        return not (self.new_failures or self.stale or self.unknown or self.blocking_unstable)

    @property
    def verdict(self) -> str:
        """One line: ``CONFORMANT except 2 known failures`` or what makes the run fail."""
        if not self.passed:
            problems = []
            if self.new_failures:
                problems.append(_count(len(self.new_failures), "new failure"))
            if self.stale:
                problems.append(_count(len(self.stale), "stale entry", "stale entries"))
            if self.unknown:
                problems.append(_count(len(self.unknown), "unknown entry", "unknown entries"))
            if self.blocking_unstable:
                problems.append(_count(len(self.blocking_unstable), "unstable item"))
            beyond = " beyond the known failures" if self.known_file is not None else ""
            return f"{RunVerdict.NOT_CONFORMANT}{beyond}: " + ", ".join(problems)
        held = self.of_state(State.HOLDS)
        text = self.residual
        if held or self.known_file is not None:
            text += f" except {_count(len(held), 'known failure')}"
        flaky_failed = self.of_state(State.HOLDS, self.flaky)
        if flaky_failed:
            text += f", {_count(len(flaky_failed), 'flaky failure')}"
        if self.repeat > 1:
            text += f"; stable over {self.repeat} runs" if not self.unstable else f"; {self.repeat} runs"
        return text

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "passed": self.passed,
            "verdict": self.verdict,
            "residualVerdict": self.residual,
            "newFailures": [n.to_json() for n in self.new_failures],
        }
        if self.known_file is not None:
            doc["knownFailures"] = {"file": self.known_file, "entries": [m.to_json() for m in self.known]}
        if self.flaky_file is not None:
            doc["knownFlaky"] = {"file": self.flaky_file, "entries": [m.to_json() for m in self.flaky]}
        doc["repeat"] = self.repeat
        doc["unstable"] = [u.to_json() for u in self.unstable]
        return doc

    def console(self) -> list[str]:
        """The lines that say exactly which entries are new, stale, unknown, not judged, flaky, unstable."""
        lines = []
        if self.known_file is not None:
            counts = {
                s: len(self.of_state(s)) for s in (State.HOLDS, State.STALE, State.UNKNOWN, State.NOT_JUDGED)
            }
            lines.append(
                f"  known failures ({self.known_file}): {_count(len(self.known), 'entry', 'entries')}; "
                + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
            )
        for new in self.new_failures:
            message = _cell(new.message)[:200]
            lines.append(f"  new failure: {new.requirement} ({', '.join(new.checks)}): {message}")
        for m in self.stale:
            lines.append(f"  stale entry {_where(m, self.known_file)}: {m.entry.key} passes now; remove it")
        for m, file in [(m, self.known_file) for m in self.of_state(State.UNKNOWN)] + [
            (m, self.flaky_file) for m in self.of_state(State.UNKNOWN, self.flaky)
        ]:
            lines.append(f"  unknown entry {_where(m, file)}: {m.entry.key}: {m.detail}")
        for m in self.of_state(State.NOT_JUDGED):
            lines.append(
                f"  not judged {_where(m, self.known_file)}: {m.entry.key} "
                + (f"is {m.status} ({m.detail[:120]})" if m.status else f"({m.detail})")
                + "; kept"
            )
        for m in self.of_state(State.HOLDS, self.flaky):
            times = self.flaky_failures.get(m.entry.key, 1)
            lines.append(
                f"  flaky {m.entry.key}: {m.status} in {times} of {self.repeat} run(s), not blocking: "
                + m.entry.reason
            )
        for u in self.unstable:
            excuse = " (known flaky, not blocking)" if u.flaky else ""
            lines.append(f"  unstable {u.key}: {', '.join(u.statuses)} over {self.repeat} runs{excuse}")
        return lines


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def _where(m: Match, file: str | None) -> str:
    return f"{file}:{m.entry.line}" if file and m.entry.line else (file or "")


def evaluate(
    runs: Sequence[RunResult],
    registry: Registry,
    suite_checks: Iterable[str],
    *,
    known: EntryList | None = None,
    flaky: EntryList | None = None,
    spec_ids: Iterable[str] = (),
) -> Outcome:
    """Judge the last of ``runs`` against the lists, and every run against the others (stability)."""
    last = runs[-1]
    names = set(suite_checks)
    known_entries = known.entries if known is not None else ()
    flaky_entries = flaky.entries if flaky is not None else ()
    ids = set(spec_ids)
    known_matches = [match(e, last, names, spec_ids=ids) for e in known_entries]
    flaky_matches = [match(e, last, names, flaky=True, spec_ids=ids) for e in flaky_entries]
    forgiven = _forgiven(last, [*known_entries, *flaky_entries], flaky_entries)
    new = [
        NewFailure(
            r.requirement.id,
            r.requirement.level,
            tuple(dict.fromkeys(str(f["check"]) for f in r.failures)),
            r.reason,
        )
        for r in last.requirements
        if r.status is Status.FAIL and r.requirement.id not in forgiven
    ]
    failed_in: dict[str, int] = {}
    for run in runs:
        for e in flaky_entries:
            if match(e, run, names, flaky=True, spec_ids=ids).state == State.HOLDS:
                failed_in[e.key] = failed_in.get(e.key, 0) + 1
    return Outcome(
        known_file=known.source if known is not None else None,
        flaky_file=flaky.source if flaky is not None else None,
        known=known_matches,
        flaky=flaky_matches,
        new_failures=new,
        unstable=_unstable(runs, flaky_entries),
        repeat=len(runs),
        residual=_residual(last, registry, forgiven),
        flaky_failures=failed_in,
    )


def _failing_checks(req: RequirementResult, checks: Sequence[CheckResult]) -> set[str]:
    named = {str(f["check"]) for f in req.failures}
    return named or {c.name for c in checks if req.requirement.id in c.failed_requirements}


def _forgiven(result: RunResult, entries: Sequence[Entry], flaky_entries: Sequence[Entry]) -> set[str]:
    """The requirements whose FAIL (or, flaky, ERROR) the lists account for, and those NOT_TESTED only
    because one of them failed first: the run is judged as if they had passed."""
    reqs = {e.name for e in entries if not e.is_check}
    checks = {e.name for e in entries if e.is_check}
    flaky_reqs = {e.name for e in flaky_entries if not e.is_check}
    flaky_checks = {e.name for e in flaky_entries if e.is_check}
    forgiven: set[str] = set()
    for req in result.requirements:
        rid = req.requirement.id
        if req.status is Status.FAIL:
            failing = {base_name(n) for n in _failing_checks(req, result.checks)}
            if rid in reqs or (failing and failing <= checks):
                forgiven.add(rid)
        elif req.status is Status.ERROR:
            erroring = {
                base_name(c.name)
                for c in result.checks
                if c.status is Status.ERROR and rid in c.requirements and rid not in c.blocked
            }
            if rid in flaky_reqs or (erroring and erroring <= flaky_checks):
                forgiven.add(rid)
    for req in result.requirements:
        if req.status is Status.NOT_TESTED and req.blocked_by and set(req.blocked_by) <= forgiven:
            forgiven.add(req.requirement.id)
    return forgiven


def _residual(result: RunResult, registry: Registry, forgiven: set[str]) -> str:
    """The verdict the run would have if the forgiven requirements had passed (same profile rules)."""
    reqs = [
        dataclasses.replace(r, status=Status.PASS, reason="", failures=[], blocked_by=[])
        if r.requirement.id in forgiven
        else r
        for r in result.requirements
    ]
    selected = set(result.selected_profiles) if result.selected_profiles else None
    profiles = judge_profiles(registry, reqs, result.description, selected, result.fatal)
    return dataclasses.replace(result, requirements=reqs, profiles=profiles).verdict


def _statuses(run: RunResult) -> dict[str, str]:
    out = {r.requirement.id: r.status.value for r in run.requirements}
    out.update({CHECK_PREFIX + c.name: c.status.value for c in run.checks})
    return out


def _unstable(runs: Sequence[RunResult], flaky_entries: Sequence[Entry]) -> list[Unstable]:
    """Every requirement and check whose status differs between the runs.

    A difference is the known-flaky list's when it names the item, when a listed check that judges the
    requirement differs too, or when the requirement only went NOT_TESTED behind such a flaky failure;
    a check's, when the list names it or every requirement that differs with it is excused.
    """
    if len(runs) < 2:
        return []
    per_run = [_statuses(run) for run in runs]
    keys = list(dict.fromkeys(k for statuses in per_run for k in statuses))
    differing = {k: tuple(s.get(k, "ABSENT") for s in per_run) for k in keys}
    differing = {k: v for k, v in differing.items() if len(set(v)) > 1}
    flaky_reqs = {e.name for e in flaky_entries if not e.is_check}
    flaky_checks = {e.name for e in flaky_entries if e.is_check}
    requirements_of: dict[str, set[str]] = {}
    for run in runs:
        for c in run.checks:
            requirements_of.setdefault(c.name, set()).update(c.requirements, c.failed_requirements)
    differing_checks = [k[len(CHECK_PREFIX) :] for k in differing if k.startswith(CHECK_PREFIX)]
    excused: set[str] = set()
    for key in differing:
        if key in flaky_reqs or any(
            base_name(c) in flaky_checks and key in requirements_of.get(c, set()) for c in differing_checks
        ):
            excused.add(key)
    blocked = [{r.requirement.id: r for r in run.requirements} for run in runs]
    for key in differing:
        # NOT_TESTED behind a flaky failure, PASS otherwise: the flake is the blocking item's.
        results = [b.get(key) for b in blocked]
        if all(
            r is not None
            and (r.status is Status.PASS or (r.status is Status.NOT_TESTED and set(r.blocked_by) <= excused))
            for r in results
        ) and any(r is not None and r.blocked_by for r in results):
            excused.add(key)
    for name in differing_checks:
        moved = {r for r in requirements_of.get(name, set()) if r in differing}
        if base_name(name) in flaky_checks or (moved and moved <= excused):
            excused.add(CHECK_PREFIX + name)
    return [Unstable(key, statuses, key in excused) for key, statuses in differing.items()]


# ---------------------------------------------------------------------------------------------
# Writing the file


@dataclass(frozen=True)
class Rewrite:
    text: str
    kept: int
    added: int
    removed: list[str]


def rewrite(
    result: RunResult, previous: EntryList | None, suite_checks: Iterable[str], spec_ids: Iterable[str] = ()
) -> Rewrite:
    """The known-failures file for ``result``: the previous entries that still hold or were not judged (their
    reasons kept), plus every other failing requirement with a TODO reason; stale and unknown entries go."""
    names = set(suite_checks)
    kept: list[Entry] = []
    removed: list[str] = []
    entries = previous.entries if previous is not None else ()
    for entry in entries:
        found = match(entry, result, names, spec_ids=spec_ids)
        if found.state in (State.HOLDS, State.NOT_JUDGED):
            kept.append(entry)
        else:
            removed.append(f"{entry.key} ({found.state})")
    forgiven = _forgiven(result, kept, ())
    added = [
        Entry(r.requirement.id, False, _todo(r))
        for r in sorted(result.requirements, key=lambda r: r.requirement.id)
        if r.status is Status.FAIL and r.requirement.id not in forgiven
    ]
    header = previous.header if previous is not None and previous.header else DEFAULT_HEADER
    trailer = previous.trailer if previous is not None else ()
    return Rewrite(render([*kept, *added], header, trailer), len(kept), len(added), removed)


def _todo(req: RequirementResult) -> str:
    """A reason that says it is still to be written, with what failed to start from."""
    checks = ", ".join(dict.fromkeys(str(f["check"]) for f in req.failures))
    # Angle brackets would read as a link at the end of the line; '#' is fine after the first one.
    message = " ".join(req.reason.split()).replace("<", "(").replace(">", ")")
    if len(message) > 100:
        message = message[:97] + "..."
    return f"TODO explain ({req.requirement.level}; {checks or 'failed'}): {message}"


# ---------------------------------------------------------------------------------------------
# The summary.md block


def markdown(doc: dict[str, Any] | None) -> list[str]:
    """The lines of summary.md for a report's ``expectations`` object (none without one)."""
    if not doc:
        return []
    lines = ["", "## Known failures and stability", "", f"**{doc['verdict']}**", ""]
    for new in doc.get("newFailures", []):
        lines.append(f"- new failure: {new['requirement']} ({', '.join(new['checks'])})")
    for kind, label in (("knownFailures", ""), ("knownFlaky", "flaky ")):
        block = doc.get(kind)
        if not block:
            continue
        for m in block["entries"]:
            # A known failure that still fails is the expected case: only the others are listed one by one.
            if (m["state"] == State.HOLDS) == bool(label) or m["state"] in (State.UNKNOWN, State.NOT_JUDGED):
                where = f"{block['file']}:{m['line']}" if m.get("line") else block["file"]
                state = "failed" if label and m["state"] == State.HOLDS else m["state"]
                detail = _cell(m.get("detail", ""))[:150]
                status = f"{m['status']}; " if m["status"] else ""
                lines.append(f"- {label}{state} `{m['entry']}` ({where}): {status}{detail}")
        if not label:
            held = sum(1 for m in block["entries"] if m["state"] == State.HOLDS)
            lines.append(f"- {held} of {len(block['entries'])} known failures still fail")
    for u in doc.get("unstable", []):
        flaky = " (known flaky)" if u["flaky"] else ""
        lines.append(f"- unstable `{u['entry']}`: {', '.join(u['statuses'])}{flaky}")
    return lines


def _cell(text: str) -> str:
    return " ".join(text.split())


def repeated(once: Callable[[], RunResult], repeat: int, stream: TextIO | None) -> list[RunResult]:
    """``repeat`` runs with the same settings (fewer when one is fatal or stopped early)."""
    runs = [once()]
    while len(runs) < repeat and runs[-1].fatal is None and not runs[-1].stopped:
        if stream is not None:
            print(f"roc-conformance: repetition {len(runs) + 1} of {repeat}", file=stream)
        runs.append(once())
    return runs


@dataclass(frozen=True)
class Expected:
    """What the lists made of a run: the outcome (None when only a file was written) and the file written."""

    outcome: Outcome | None
    written: Path | None = None
    update: Rewrite | None = None

    def annotate(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The report document with its ``expectations`` object."""
        return doc if self.outcome is None else {**doc, "expectations": self.outcome.to_json()}

    def lines(self) -> list[str]:
        """The console lines before the run's last line: the file written, then every entry that matters."""
        lines = []
        if self.written is not None and self.update is not None:
            removed = f"; removed {', '.join(self.update.removed)}" if self.update.removed else ""
            kept = _count(self.update.kept, "entry", "entries")
            lines.append(
                f"roc-conformance: wrote {self.written}: {kept} kept, "
                f"{self.update.added} new (their reasons say TODO){removed}"
            )
        return lines + (self.outcome.console() if self.outcome is not None else [])

    @property
    def verdict(self) -> str | None:
        """The verdict the exit code follows: NOT CONFORMANT when the lists do not match, else the residual
        verdict; None when there is no outcome (the run's own verdict stands)."""
        if self.outcome is None:
            return None
        return self.outcome.residual if self.outcome.passed else RunVerdict.NOT_CONFORMANT

    @property
    def shown(self) -> str | None:
        """The words of the run's last line, e.g. ``CONFORMANT except 2 known failures``."""
        return self.outcome.verdict if self.outcome is not None else None


def expect(
    lists: Lists, runs: Sequence[RunResult], registry: Registry, *, write: Path | None
) -> Expected | None:
    """Judge the runs against the lists and write ``--write-known-failures``; None when neither is asked."""
    if not (lists.active or len(runs) > 1 or write is not None):
        return None
    names = [c.name for c in all_checks()]
    spec_ids = _spec_ids(runs[-1])
    update = None
    if write is not None:
        update = rewrite(runs[-1], lists.previous, names, spec_ids)
        write.write_text(update.text, encoding="utf-8")
    outcome = None
    if lists.active or len(runs) > 1:
        outcome = evaluate(runs, registry, names, known=lists.known, flaky=lists.flaky, spec_ids=spec_ids)
    return Expected(outcome, write, update)


def _spec_ids(result: RunResult) -> set[str]:
    """Every requirement ID of the spec's registry (a run may judge fewer: ``--req``), else the run's own."""
    from roc_conformance.registry import RegistryError, load_registry

    ids = {r.requirement.id for r in result.requirements}
    try:
        return ids | {r.id for r in load_registry().requirements}
    except RegistryError:
        return ids


__all__ = [
    "Entry",
    "EntryList",
    "Expected",
    "Lists",
    "Outcome",
    "expect",
    "load",
    "load_lists",
    "parse",
    "render",
]
