"""``summary.md``: a short report for people, ordered by what to do next.

The verdict and the profile verdicts first; then each failed requirement once, with the message, the check
that found it and its shrunk transcript, and folded under it what followed from it (consequences seen after
it, requirements it kept from being judged) and its other sightings; then errors, then what was not judged,
and last how the run was made (settings, seed, example database). JSON is shortened by whole values
(``readable``), never cut mid-object; everything else is in report.json and report.html.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from roc_conformance.expectations import markdown as expectations_markdown
from roc_conformance.readable import clip, readable_lines
from roc_conformance.speclinks import spec_url

MAX_FULL_FAILURES = 25  # failed requirements shown in full; the rest are listed
MAX_TRANSCRIPT = 12000  # characters of one transcript
MAX_MESSAGE = 1500

VERDICT_MEANING = {
    "CONFORMANT": "every judged profile is conformant",
    "NOT CONFORMANT": "a MUST requirement failed, or the claim itself is wrong",
    "INCOMPLETE": "nothing failed, but something a verdict needs was not judged",
    "NOTHING JUDGED": "no requirement of a judged profile passed or failed",
}
_QUIET_PROFILES = ("NOT_CLAIMED", "NOT_SELECTED")


def verdict_of(doc: dict[str, Any]) -> str:
    """The run's verdict; a schema 1.1 report has only ``conformant``."""
    verdict = doc.get("verdict")
    if isinstance(verdict, str):
        return verdict
    return "CONFORMANT" if doc["conformant"] else "NOT CONFORMANT"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(lines: list[str]) -> list[str]:
    """A fenced block that no line inside can close early."""
    fence = "```"
    while any(line.lstrip().startswith(fence) for line in lines):
        fence += "`"
    return [f"{fence}text", *lines, fence]


def _req_link(req: dict[str, Any]) -> str:
    url = spec_url(req)
    return f"[{req['id']}]({url})" if url else req["id"]


def markdown(doc: dict[str, Any]) -> str:
    """The Markdown summary of a report document (for CI step summaries and people)."""
    impl = doc.get("implementation") or {}
    verdict = verdict_of(doc)
    name = f"{impl.get('name', doc['target'])} {impl.get('version', '')}".strip()
    lines = [
        f"# RoC conformance: {name}",
        "",
        f"**Verdict: {verdict}**: {VERDICT_MEANING.get(verdict, '')}.",
    ]
    lines += [f"- Claim: {_cell(problem)}" for problem in doc.get("claimProblems", [])]
    lines += expectations_markdown(doc.get("expectations"))  # --known-failures, --known-flaky, --repeat
    if doc.get("fatal"):
        lines += ["", f"> The run could not start: {_cell(doc['fatal'])}"]
    if not doc.get("complete", True):
        why = doc.get("stopped") or "the run is still going on (a partial report)"
        lines += ["", f"> Incomplete: {_cell(why)}."]
    lines += _profiles(doc)
    lines += _failures(doc)
    lines += _errors(doc)
    lines += _not_judged(doc)
    lines += _run(doc)
    return "\n".join(lines) + "\n"


def _profiles(doc: dict[str, Any]) -> list[str]:
    if doc.get("fatal"):
        return []  # nothing was judged, for the one reason stated above
    lines = [
        "",
        "## Profiles",
        "",
        "| profile | verdict | requirements | pass | fail | error | skipped | not tested | reason |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    quiet: dict[str, list[str]] = {}
    for name, entry in doc["profiles"].items():
        status = entry["status"]
        if status in _QUIET_PROFILES and not entry.get("reason"):
            quiet.setdefault(status, []).append(name)
            continue
        c = entry.get("counts", {})
        reason = entry.get("reason", "")
        if not reason and entry.get("failing"):
            reason = "failing: " + _ids(entry["failing"])
        elif not reason and entry.get("unresolved"):
            reason = "not judged: " + _ids(entry["unresolved"])
        lines.append(
            f"| {name} | {status} | {entry['requirements']} | {c.get('PASS', 0)} | {c.get('FAIL', 0)} | "
            f"{c.get('ERROR', 0)} | {c.get('SKIPPED', 0)} | {c.get('NOT_TESTED', 0)} | {_cell(reason)} |"
        )
    labels = {"NOT_CLAIMED": "Not claimed", "NOT_SELECTED": "Not selected"}
    for status, names in quiet.items():
        lines += ["", f"{labels[status]}: {', '.join(names)}."]
    return lines


SHOULD_NOTE = (
    "A failed SHOULD is a warning: it is listed for the record but not scored, and no verdict depends on it."
)
WARNING = " (SHOULD: a warning, not scored)"


def is_should(req: dict[str, Any]) -> bool:
    """A SHOULD or SHOULD NOT requirement: its failure is reported, never scored."""
    return str(req.get("level", "")).startswith("SHOULD")


def failure_count(failing: list[dict[str, Any]]) -> str:
    """``35: 32 MUST, 3 SHOULD, not scored``, or just ``32`` when every failure is scored."""
    should = sum(1 for r in failing if is_should(r))
    if not should:
        return str(len(failing))
    return f"{len(failing)}: {len(failing) - should} MUST, {should} SHOULD, not scored"


_TAGGED_LINE = re.compile(r"^- \[([^\]]*)\]")
_TAGGED_PART = re.compile(r"; (?=\[ROC-)")


def own_findings(message: str, rid: str, *, only: bool = False) -> str:
    """A check's message with the findings tagged ``rid`` first (``only``: without the others).

    A scenario's message lists every finding of the scenario, each tagged with its requirements (a vector's
    ``- [ROC-X, ROC-Y] ...`` lines, an explicit check's ``[ROC-X] ...; [ROC-Y] ...`` parts). Under one
    requirement its own findings come first: an earlier finding of another requirement is context, not the
    reason it failed.
    """
    lines = message.split("\n")
    tags = {n: m.group(1) for n, line in enumerate(lines) if (m := _TAGGED_LINE.match(line))}
    if tags:
        head = [line for n, line in enumerate(lines) if n not in tags]
        own = [lines[n] for n, ids in tags.items() if rid in ids]
        other = [] if only else [lines[n] for n, ids in tags.items() if rid not in ids]
        return "\n".join(head + own + other) if own else message
    parts = _TAGGED_PART.split(message)
    if len(parts) > 1 or message.startswith("[ROC-"):
        own = [p for p in parts if p.startswith(f"[{rid}]")]
        other = [] if only else [p for p in parts if p not in own]
        return "; ".join(own + other) if own else message
    return message


def _ids(ids: list[str], most: int = 6) -> str:
    shown = ", ".join(ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")


def _failures(doc: dict[str, Any]) -> list[str]:
    failing = [r for r in doc["requirements"] if r["status"] == "FAIL"]
    if not failing:
        return []
    # MUST before SHOULD: the scored ones decide the verdict.
    failing.sort(key=lambda r: 0 if r["level"] in ("MUST", "MUST NOT") else 1)
    blocked_by: dict[str, list[str]] = {}
    for req in doc["requirements"]:
        for primary in req.get("blockedBy", []):
            blocked_by.setdefault(primary, []).append(req["id"])
    lines = [
        "",
        f"## Failures ({failure_count(failing)})",
        "",
        "Each is a first divergence: what the implementation did differently the first time it did. "
        "What was seen after it in the same scenario is folded under it.",
    ]
    if any(is_should(r) for r in failing):
        lines += ["", SHOULD_NOTE]
    for req in failing[:MAX_FULL_FAILURES]:
        lines += _failure(req, blocked_by.get(req["id"], []))
    rest = failing[MAX_FULL_FAILURES:]
    if rest:
        lines += ["", f"{len(rest)} more failed requirement(s), in report.html and report.json:", ""]
        lines += [
            f"- {_req_link(r)} ({r['level']}, {r['profile']}){WARNING if is_should(r) else ''}: "
            f"{_cell(clip(own_findings(r.get('reason', ''), r['id'], only=True), 200))}"
            for r in rest
        ]
    return lines


def _failure(req: dict[str, Any], blocked: list[str]) -> list[str]:
    failures = req.get("failures") or [{"check": "?", "message": req.get("reason", "")}]
    first = failures[0]
    lines = [
        "",
        f"### {_req_link(req)} ({req['level']}, {req['profile']}): FAIL{WARNING if is_should(req) else ''}",
    ]
    if req.get("section"):
        lines += ["", f"Spec: {req['section']}."]
    lines += ["", *_fence(readable_lines(own_findings(first["message"], req["id"]), max_chars=MAX_MESSAGE))]
    found = f"Found by `{first['check']}`"
    others = list(dict.fromkeys(f["check"] for f in failures[1:] if f["check"] != first["check"]))
    if others:
        found += " (also by " + ", ".join(f"`{c}`" for c in others) + ")"
    lines += ["", found + "."]
    if first.get("counterexampleFile"):
        lines += ["", f"Saved as a vector: `{first['counterexampleFile']}`."]
    if first.get("counterexample"):
        lines += [
            "",
            "Transcript:",
            "",
            *_fence(readable_lines(first["counterexample"], max_chars=MAX_TRANSCRIPT)),
        ]
    consequences = first.get("consequences") or []
    if consequences:
        lines += _details(
            f"Seen after it: {len(consequences)} consequence(s), not failures of their own",
            [f"- {', '.join(c['requirements'])}: {_cell(clip(c['message'], 400))}" for c in consequences],
        )
    if blocked:
        lines += _details(
            f"Kept from being judged by it: {len(blocked)} requirement(s) (NOT_TESTED until it is fixed)",
            [", ".join(blocked)],
        )
    if len(failures) > 1:
        body: list[str] = []
        for other in failures[1:]:
            body += [
                f"From `{other['check']}`:",
                "",
                *_fence(readable_lines(other["message"], max_chars=600)),
            ]
            if other.get("counterexample"):
                body += ["", *_fence(readable_lines(other["counterexample"], max_chars=MAX_TRANSCRIPT // 2))]
            body.append("")
        lines += _details(f"{len(failures) - 1} more failure(s) of {req['id']}", body)
    return lines


def _details(summary: str, body: list[str]) -> list[str]:
    # Blank lines around the body let Markdown inside <details> render (GitHub, mkdocs).
    return ["", "<details>", f"<summary>{_html(summary)}</summary>", "", *body, "", "</details>"]


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _errors(doc: dict[str, Any]) -> list[str]:
    errored = [r for r in doc["requirements"] if r["status"] == "ERROR"]
    if not errored or doc.get("fatal"):
        return []
    by_reason: dict[str, list[str]] = {}
    for req in errored:
        by_reason.setdefault(req.get("reason", ""), []).append(req["id"])
    lines = [
        "",
        f"## Errors ({len(errored)})",
        "",
        "Harness faults (the adapter crashed, hung or answered malformed) or checks not run: not the "
        "implementation's failures, and what they would have judged has no verdict.",
        "",
    ]
    lines += [f"- {_cell(clip(reason, 400))}: {_ids(ids, 10)}" for reason, ids in by_reason.items()]
    return lines


def _not_judged(doc: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    untested = [r for r in doc["requirements"] if r["status"] == "NOT_TESTED"]
    if untested:
        blocked = [r for r in untested if r.get("blockedBy")]
        untestable = [r for r in untested if r.get("reason", "").startswith("untestable")]
        other = [r for r in untested if r not in blocked and r not in untestable]
        parts = [
            f"{len(blocked)} blocked by a failure above" if blocked else "",
            f"{len(untestable)} untestable through the harness (they do not block a verdict)"
            if untestable
            else "",
            f"{len(other)} without a check that judged them" if other else "",
        ]
        lines += ["", f"## Not tested ({len(untested)})", "", "; ".join(p for p in parts if p) + "."]
        table = ["| requirement | level | profile | reason |", "|---|---|---|---|"]
        for r in untested:
            reason = _cell(clip(r.get("reason", ""), 300))
            table.append(f"| {_req_link(r)} | {r['level']} | {r['profile']} | {reason} |")
        lines += _details("The requirements and why", table)
    skipped = [r for r in doc["requirements"] if r["status"] == "SKIPPED"]
    if skipped:
        reasons: dict[str, list[str]] = {}
        for r in skipped:
            reasons.setdefault(r.get("reason", ""), []).append(r["id"])
        lines += ["", f"## Skipped ({len(skipped)})", ""]
        lines += [f"- {_cell(reason)}: {len(ids)} requirement(s)" for reason, ids in reasons.items()]
    return lines


def _run(doc: dict[str, Any]) -> list[str]:
    impl = doc.get("implementation") or {}
    settings = doc["settings"]
    suite = doc["suite"]
    lines = ["", "## The run", ""]
    if impl:
        adapter = f", adapter {impl['adapter']}" if impl.get("adapter") else ""
        lines.append(f"- Implementation: {impl.get('name', '?')} {impl.get('version', '')}{adapter}".rstrip())
    lines.append(f"- Target: `{doc['target']}`" + (f", peer `{doc['peer']}`" if doc.get("peer") else ""))
    lines.append(
        f"- Suite {suite['name']} {suite['version']}, spec {suite['specVersion']}, "
        f"harness protocol {suite['harnessProtocolVersion']}"
    )
    lines.append(
        f"- Settings: `{settings['name']}`, {settings['maxExamples']} examples × "
        f"{settings['statefulStepCount']} steps" + ("" if settings["derandomize"] else ", random")
    )
    if settings.get("seed") is not None:
        lines.append(
            f"- Seed: `{settings['seed']}`; the same examples again: "
            f"`roc-conformance run --target {shlex.quote(doc['target'])} --explore --seed {settings['seed']}`"
        )
    if settings.get("database"):
        where = settings.get("databasePath") or _database_path()
        lines.append(f"- Example database: `{where}` (failing examples are tried first next time)")
    lines.append(
        f"- Started {doc['startedAt']}, took {doc['durationSeconds']:.1f} s, {doc['rpcCount']} RPCs, "
        f"adapter restarts: {doc['adapterRestarts']}"
    )
    lines.append(
        "- Everything else: report.html, report.json, junit.xml, and results.jsonl (one line per check)"
    )
    return lines


def _database_path() -> str:
    """Where explore runs keep failing examples by default (a report older than ``databasePath``)."""
    from roc_conformance.settings import DEFAULT_DATABASE

    return str(DEFAULT_DATABASE)
