"""Markdown of the compatibility results (compat.py): the matrix page and one known-deviations page per
implementation, rendered from the committed compact files alone, for the repository (``compat/*.md``) and
for the docs site (docs/_hooks/generated_pages.py); only the links differ.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roc_conformance.compat import CATEGORIES, STATUSES, UNTRIAGED

ROOT = Path(__file__).resolve().parents[2]

MARK = {"PASS": "✅", "FAIL": "❌", "ERROR": "⚠️", "SKIPPED": "–", "NOT_TESTED": "·", "NOT_RUN": " "}
LEGEND = (
    "✅ PASS, ❌ FAIL (with its triage category: sdk, adapter, spec or untriaged), ⚠️ ERROR (a harness fault: "
    "nothing judged), – SKIPPED (mostly: a profile not claimed), · NOT_TESTED (no check, or untestable), "
    "blank: not run."
)


@dataclass(frozen=True)
class Links:
    """Where the pages' links point: the matrix page to the spec and to the deviations pages, a deviations
    page to the spec and back to the matrix."""

    spec: str  # matrix page -> spec/ (a requirement's anchor is appended: 05-tools.md#roc-tool-005)
    deviations: str  # matrix page -> the folder of the deviations pages
    page_spec: str  # deviations page -> spec/
    page_matrix: str  # deviations page -> the matrix page

    @staticmethod
    def repository() -> Links:
        """The pages written beside the results in compat/."""
        return Links(spec="../spec/", deviations="", page_spec="../spec/", page_matrix="matrix.md")

    @staticmethod
    def site() -> Links:
        """The docs site: the matrix is results.md, the deviations pages compat/<name>.md."""
        return Links(spec="spec/", deviations="compat/", page_spec="../spec/", page_matrix="../results.md")


def anchor(requirement_id: str) -> str:
    """The heading anchor of a requirement on a deviations page (mkdocs and GitHub slug it the same)."""
    return requirement_id.lower()


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _short(commit: Any) -> str:
    return str(commit)[:12] if commit else "unknown"


def _revision(suite: dict[str, Any]) -> str:
    dirty = suite.get("dirty")
    state = " + uncommitted changes" if dirty else ""
    return f"`{_short(suite.get('commit'))}`{state}"


def _runtime(run: dict[str, Any]) -> str:
    rt = run.get("runtime") or {}
    lang = " ".join(str(rt[k]) for k in ("language", "languageVersion") if rt.get(k))
    return f"{rt.get('name', '?')} {rt.get('version', '')}".strip() + (f" ({lang})" if lang else "")


def chapter_titles(spec_dir: Path = ROOT / "spec") -> dict[str, str]:
    """Chapter file -> its first heading, e.g. ``05-tools.md`` -> ``5. Tools``."""
    titles = {}
    for path in sorted(spec_dir.glob("*.md")):
        found = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        titles[path.name] = found.group(1).strip() if found else path.stem
    return titles


# ---------------------------------------------------------------------------------------------
# The matrix page


def matrix_page(
    matrix: dict[str, Any],
    runs: Sequence[dict[str, Any]],
    links: Links,
    *,
    title: str = "Compatibility matrix",
    titles: dict[str, str] | None = None,
) -> str:
    """implementations x every requirement, grouped by chapter, plus counts per profile and snapshot paths."""
    titles = chapter_titles() if titles is None else titles
    impls = matrix["implementations"]
    by_name = {r["implementation"]: r for r in runs}
    commit = matrix.get("suiteCommit")
    lines = [
        f"# {title}",
        "",
        f"Measured by `make compat` (certify settings) at suite commit `{_short(commit)}`, RoC "
        f"{matrix.get('specVersion')}: every requirement of `spec/requirements.json` for every "
        "implementation run. Generated from the committed results in `compat/`; nothing here is "
        "self-declared.",
        "",
    ]
    if matrix.get("mixedCommits"):
        lines += [
            "!!! warning",
            "    These results come from different suite commits and are not comparable.",
            "",
        ]
    lines += [
        "## Implementations",
        "",
        "| implementation | runtime | adapter | run | suite | verdict | against its known failures | "
        + " | ".join(STATUSES)
        + " |",
        "|---|---|---|---|---|---|---|" + "---:|" * len(STATUSES),
    ]
    for impl in impls:
        run = by_name[impl["name"]]
        known = run.get("knownFailuresFile")
        against = _cell(impl["outcome"]["verdict"]) if known else "no known-failures file"
        mark = "" if impl["outcome"]["ok"] else " ❗"
        page = f"[{impl['title']}]({links.deviations}{impl['name']}.md)"
        lines.append(
            f"| {page} | {_cell(_runtime(run))} | {_cell(impl.get('adapter') or '')} | "
            f"{str(impl.get('date') or '')[:10]} | {_revision(impl.get('suite') or {})} | "
            f"{impl['verdict']} | "
            f"{against}{mark} | " + " | ".join(str(impl["totals"].get(s, 0)) for s in STATUSES) + " |"
        )
    lines += ["", "## Profiles", ""]
    lines += _profile_table(impls)
    lines += ["", "## Snapshot paths between implementations", ""]
    lines += _paths_table(matrix.get("snapshotPaths") or [])
    lines += ["", "## Requirements", "", f"Legend: {LEGEND}", ""]
    chapters: dict[str, list[dict[str, Any]]] = {}
    for row in matrix["requirements"]:
        chapters.setdefault(row.get("chapter") or "", []).append(row)
    for chapter, rows in chapters.items():
        lines += [f"### {titles.get(chapter, chapter or 'Other')}", ""]
        lines.append("| requirement | level | profile | " + " | ".join(i["name"] for i in impls) + " |")
        lines.append("|---|---|---|" + ":-:|" * len(impls))
        for row in rows:
            rid = row["id"]
            name = f"[{rid}]({links.spec}{row['anchor']})" if row.get("anchor") else rid
            cells = [_status_cell(by_name[i["name"]], rid, row["results"][i["name"]], links) for i in impls]
            lines.append(f"| {name} | {row['level']} | `{row['profile']}` | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _status_cell(run: dict[str, Any], rid: str, status: str, links: Links) -> str:
    mark = MARK.get(status, status)
    if status not in ("FAIL", "ERROR"):
        return mark
    req = run["requirements"][rid]
    label = mark
    known = req.get("known") or {}
    if status == "FAIL":
        label += " " + (known.get("category") or UNTRIAGED)
    if known.get("list") == "flaky":
        label += ", flaky"
    return f"[{label}]({links.deviations}{run['implementation']}.md#{anchor(rid)})"


def _profile_table(impls: Sequence[dict[str, Any]]) -> list[str]:
    profiles: dict[str, None] = {}
    for impl in impls:
        profiles.update(dict.fromkeys(impl.get("profiles") or {}))
    lines = [
        "Per implementation and profile: the profile's verdict, then "
        "PASS / FAIL / ERROR / SKIPPED / NOT_TESTED.",
        "",
        "| profile | " + " | ".join(i["name"] for i in impls) + " |",
        "|---|" + "---|" * len(impls),
    ]
    for profile in profiles:
        cells = []
        for impl in impls:
            entry = (impl.get("profiles") or {}).get(profile)
            if entry is None:
                cells.append("")
                continue
            counts = entry["counts"]
            cells.append(f"{entry['status']} {' / '.join(str(counts.get(s, 0)) for s in STATUSES)}")
        lines.append(f"| `{profile}` | " + " | ".join(cells) + " |")
    return lines


def _paths_table(paths: Sequence[dict[str, Any]]) -> list[str]:
    if not paths:
        return ["No snapshot path was run (fewer than two implementations, or no pair run)."]
    lines = [
        "A snapshot one implementation writes, restored in another from the document and the agent "
        "definition, must reach the outcome the reader reaches continuing its own snapshot "
        "(`ROC-SESSION-016`, check `explicit:portable-to-peer`). *works*: the same outcome; *fails*: another "
        "outcome, the reader refused the document, or the reader does not keep foreign interrupt ids (then "
        "the reason says the writer is not at fault); *not judged*: the suite could not decide, for the "
        "reason given; "
        "*not claimed*: one of the two does not claim `sessions` or `portable-snapshot`; "
        "*error*: a harness fault.",
        "",
        "| writer | reader | result | why not |",
        "|---|---|---|---|",
    ]
    for p in paths:
        lines.append(f"| {p['writer']} | {p['reader']} | {p['status']} | {_cell(p.get('reason', ''))} |")
    return lines


# ---------------------------------------------------------------------------------------------
# The known-deviations page of one implementation


def deviations_page(run: dict[str, Any], links: Links) -> str:
    """Every requirement the implementation did not pass: the failures with their triage category, reason and
    minimal counterexample, the errors, and the requirements not judged; counts per profile."""
    name = run["implementation"]
    reqs: dict[str, dict[str, Any]] = run["requirements"]
    outcome = run.get("outcome") or {}
    suite = run.get("suite") or {}
    known_file = run.get("knownFailuresFile")
    lines = [
        f"# Known deviations: {run.get('title', name)}",
        "",
        f"{_cell(_runtime(run))}, adapter {run.get('adapter') or 'unknown'}; run on "
        f"{str(run.get('date') or '')[:10]} with `{(run.get('settings') or {}).get('name', '?')}` settings "
        f"at suite commit {_revision(suite)} (suite {suite.get('version', '?')}, "
        f"RoC {suite.get('specVersion', '?')}). "
        f"[Compatibility matrix]({links.page_matrix}).",
        "",
        f"Verdict: **{run.get('verdict')}**."
        + (
            f" Against its known-failures file `{known_file}`: **{outcome.get('verdict')}**."
            if known_file
            else " No known-failures file."
        ),
        "",
    ]
    if not outcome.get("ok", True):
        problems = [
            f"{label}: {', '.join(outcome[key])}"
            for key, label in (
                ("newFailures", "new failures"),
                ("stale", "stale entries"),
                ("errors", "ERROR"),
            )
            if outcome.get(key)
        ]
        if outcome.get("suiteChangedDuringRun"):
            problems.append("the suite's files changed during the run, so it is not of one revision")
        lines += ['!!! warning "Not as known"', f"    {'; '.join(problems) or outcome.get('fatal', '')}", ""]
    if run.get("selected"):
        lines += [f"Only these requirements were run: {', '.join(run['selected'])}.", ""]
    lines += ["## Counts per profile", "", "| profile | verdict | " + " | ".join(STATUSES) + " |"]
    lines.append("|---|---|" + "---:|" * len(STATUSES))
    for profile, entry in (run.get("profiles") or {}).items():
        counts = entry["counts"]
        lines.append(
            f"| `{profile}` | {entry['status']} | "
            + " | ".join(str(counts.get(s, 0)) for s in STATUSES)
            + " |"
        )
    failed = [(rid, r) for rid, r in reqs.items() if r["status"] == "FAIL"]
    errored = [(rid, r) for rid, r in reqs.items() if r["status"] == "ERROR"]
    categories: dict[str, int] = dict.fromkeys([*CATEGORIES, UNTRIAGED], 0)
    for _, req in failed:
        categories[(req.get("known") or {}).get("category") or UNTRIAGED] += 1
    lines += ["", "## Triage", "", "| category | failed requirements |", "|---|---:|"]
    for category, count in categories.items():
        lines.append(f"| {CATEGORIES.get(category, category)} (`{category}`) | {count} |")
    lines += ["", "## Failures", ""]
    if not failed:
        lines += ["None.", ""]
    for rid, req in failed:
        lines += _entry(rid, req, links)
    lines += ["## Errors", ""]
    if errored:
        lines += [
            "A harness fault: the adapter could not express the case, so the suite judged nothing "
            "(never counted as a pass, nor as the SDK's failure).",
            "",
        ]
        for rid, req in errored:
            lines += _entry(rid, req, links)
    else:
        lines += ["None.", ""]
    lines += _not_judged(reqs)
    return "\n".join(lines).rstrip() + "\n"


def _entry(rid: str, req: dict[str, Any], links: Links) -> list[str]:
    known = req.get("known")
    category = (known or {}).get("category") or UNTRIAGED
    kind = CATEGORIES.get(category, category)
    head = f"**{req['level']}** · profile `{req['profile']}` · **{kind}** (`{category}`)"
    lines = [f"### {rid}", "", head, ""]
    if known:
        link = f" ([issue]({known['link']}))" if known.get("link") else ""
        flaky = "Known flaky (found in some runs only): " if known.get("list") == "flaky" else ""
        lines += [f"{flaky}{_cell(known['reason'])}{link}", ""]
    else:
        lines += ["Not in the known-failures file.", ""]
    if req.get("reason"):
        lines += [f"The suite: {_cell(req['reason'])}", ""]
    if req.get("counterexample"):
        check = f" (check `{req['check']}`)" if req.get("check") else ""
        lines += [f"Minimal counterexample{check}:", "", "````text", req["counterexample"], "````", ""]
    return lines


def _not_judged(reqs: dict[str, dict[str, Any]]) -> list[str]:
    groups: dict[tuple[str, str], list[str]] = {}
    for rid, req in reqs.items():
        if req["status"] in ("SKIPPED", "NOT_TESTED"):
            reason = str(req.get("reason") or "")
            if reason.startswith("untestable"):
                reason = "untestable through the harness"
            elif reason.startswith("blocked by"):
                reason = reason.split(": ", 1)[0]  # which failures came first; the rest is per check
            groups.setdefault((req["status"], reason), []).append(rid)
    lines = ["## Not judged", ""]
    if not groups:
        return [*lines, "None.", ""]
    lines += ["| status | why | requirements |", "|---|---|---|"]
    for (status, reason), ids in groups.items():
        lines.append(f"| {status} | {_cell(reason)} | {', '.join(ids)} |")
    return [*lines, ""]


def placeholder_page(title: str, install: str) -> str:
    """The page of an implementation with no committed results yet."""
    return (
        f"# Known deviations: {title}\n\nNo results are committed for it yet: run `{install}` once, then "
        "`make compat`, and commit `compat/`.\n"
    )
