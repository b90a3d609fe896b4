"""Markdown of the compatibility results (compat.py): the matrix page and one known-deviations page per
implementation, rendered from the committed compact files alone, for the repository (``compat/*.md``) and
for the docs site (docs/_hooks/generated_pages.py); only the links differ.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roc_conformance.compat import CATEGORIES, STATUSES, UNTRIAGED

ROOT = Path(__file__).resolve().parents[2]

MARK = {"PASS": "✅", "FAIL": "❌", "ERROR": "⚠️", "SKIPPED": "–", "NOT_TESTED": "·", "NOT_RUN": " "}
LEGEND = (
    "✅ PASS, ❌ FAIL (with its triage category: sdk, adapter, spec or untriaged; it links to the failure "
    "and its counterexample on the implementation's known-deviations page), ⚠️ ERROR (a harness fault: "
    "nothing judged), – SKIPPED (mostly: a profile not claimed), · NOT_TESTED (no check, or untestable), "
    "not run. Hover over a cell that did not pass for the reason."
)


@dataclass(frozen=True)
class Links:
    """Where the pages' links point: the matrix page to the spec and to the deviations pages, a deviations
    page to the spec and back to the matrix."""

    spec: str  # matrix page -> spec/ (a requirement's anchor is appended: 05-tools.md#roc-tool-005)
    deviations: str  # matrix page -> the folder of the deviations pages
    page_spec: str  # deviations page -> spec/
    page_matrix: str  # deviations page -> the matrix page
    # The profile filter is a script: the site runs it, a repository's Markdown view would only strip it.
    interactive: bool = False

    @staticmethod
    def repository() -> Links:
        """The pages written beside the results in compat/."""
        return Links(spec="../spec/", deviations="", page_spec="../spec/", page_matrix="matrix.md")

    @staticmethod
    def site() -> Links:
        """The docs site: the matrix is results.md, the deviations pages compat/<name>.md."""
        return Links(
            spec="spec/",
            deviations="compat/",
            page_spec="../spec/",
            page_matrix="../results.md",
            interactive=True,
        )


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

# The verdict of a profile as a reader says it (compat files hold the suite's enum spelling).
PROFILE_VERDICT = {
    "CONFORMANT": "✅ **CONFORMANT**",
    "NOT_CONFORMANT": "❌ **NOT CONFORMANT**",
    "NOT_CLAIMED": "not claimed",
    "NOT_SELECTED": "not selected",
}
TITLE_CHARS = 240  # a cell's hover text: long reasons are cut, the deviations page has them whole
FILTER_ID = "roc-profile-filter"
# Shows the matrix of one profile: hides the other `## Profile: ...` sections (heading to the next h2).
# Built by the script itself, so with JavaScript off there is no control and every section shows.
FILTER_SCRIPT = """<div id="%(id)s"></div>

<script>
document.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("%(id)s");
  var heads = Array.prototype.slice.call(document.querySelectorAll("h2[id^='profile-']"));
  if (!box || heads.length === 0) { return; }
  var select = document.createElement("select");
  var label = document.createElement("label");
  label.textContent = "Show the requirements of the profile ";
  label.appendChild(select);
  box.appendChild(label);
  select.add(new Option("every profile", ""));
  heads.forEach(function (h) { select.add(new Option(h.id.slice(8), h.id)); });
  function section(h) {
    var nodes = [h];
    for (var n = h.nextElementSibling; n && n.tagName !== "H2"; n = n.nextElementSibling) { nodes.push(n); }
    return nodes;
  }
  select.addEventListener("change", function () {
    heads.forEach(function (h) {
      var shown = !select.value || select.value === h.id;
      // style, not the hidden attribute: the theme gives tables a display of their own
      section(h).forEach(function (n) { n.style.display = shown ? "" : "none"; });
    });
  });
});
</script>
"""


def matrix_page(
    matrix: dict[str, Any],
    runs: Sequence[dict[str, Any]],
    links: Links,
    *,
    title: str = "Compatibility matrix",
    titles: dict[str, str] | None = None,
) -> str:
    """Who was run and how, the verdict per profile, then implementations x every requirement with a
    section per profile, and the snapshot paths between implementations."""
    titles = chapter_titles() if titles is None else titles
    impls = matrix["implementations"]
    by_name = {r["implementation"]: r for r in runs}
    lines = [
        f"# {title}",
        "",
        f"Measured by `make compat` at suite commit `{_short(matrix.get('suiteCommit'))}`, RoC "
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
    lines += ["## Implementations", "", *_header_table(impls, by_name, links), ""]
    profiles = list(dict.fromkeys(row["profile"] for row in matrix["requirements"]))
    lines += ["## Verdict per profile", "", *_verdict_table(impls, profiles), ""]
    lines += ["## Requirements", "", f"Legend: {LEGEND}", ""]
    if links.interactive:
        lines += [FILTER_SCRIPT % {"id": FILTER_ID}, ""]
    for profile in profiles:
        rows = [row for row in matrix["requirements"] if row["profile"] == profile]
        lines += _profile_section(profile, rows, impls, by_name, links, titles)
    lines += ["## Snapshot paths between implementations", ""]
    lines += _paths_table(matrix.get("snapshotPaths") or [])
    return "\n".join(lines).rstrip() + "\n"


def _columns(impls: Sequence[dict[str, Any]], *first: str) -> list[str]:
    """A table's head: the given first columns, then one column per implementation."""
    head = [*first, *(i["name"] for i in impls)]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]


def _header_table(
    impls: Sequence[dict[str, Any]], by_name: dict[str, dict[str, Any]], links: Links
) -> list[str]:
    """One column per implementation: what was run, with which suite and settings, when, and its verdict."""
    fields: list[tuple[str, Any]] = [
        ("implementation", lambda i, r: f"[{_cell(i['title'])}]({links.deviations}{i['name']}.md)"),
        ("SDK", lambda i, r: _cell(_sdk(r))),
        ("language", lambda i, r: _cell(_language(r))),
        ("adapter", lambda i, r: _cell(i.get("adapter") or "unknown")),
        ("suite", lambda i, r: _suite(i.get("suite") or {})),
        ("spec", lambda i, r: f"RoC {(i.get('suite') or {}).get('specVersion', '?')}"),
        ("settings", lambda i, r: f"`{(r.get('settings') or {}).get('name', '?')}`"),
        ("run on", lambda i, r: _date(i.get("date"))),
        ("verdict", lambda i, r: f"**{i['verdict']}**"),
        ("against its known failures", _against),
        ("PASS / FAIL / ERROR / SKIPPED / NOT_TESTED", lambda i, r: _counts(i["totals"])),
    ]
    lines = _columns(impls, "")
    for name, value in fields:
        lines.append(f"| {name} | " + " | ".join(value(i, by_name[i["name"]]) for i in impls) + " |")
    return lines


def _sdk(run: dict[str, Any]) -> str:
    rt = run.get("runtime") or {}
    return f"{rt.get('name', '?')} {rt.get('version', '')}".strip()


def _language(run: dict[str, Any]) -> str:
    rt = run.get("runtime") or {}
    return " ".join(str(rt[k]) for k in ("language", "languageVersion") if rt.get(k)) or "unknown"


def _suite(suite: dict[str, Any]) -> str:
    return f"{suite.get('name', 'roc-conformance')} {suite.get('version', '?')} at {_revision(suite)}"


def _date(stamp: Any) -> str:
    """``2026-12-02T04:17:16.242Z`` -> ``2026-12-02 04:17 UTC`` (the runs write UTC)."""
    text = str(stamp or "")
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 else text or "unknown"


def _against(impl: dict[str, Any], run: dict[str, Any]) -> str:
    if not run.get("knownFailuresFile"):
        return "no known-failures file"
    return _cell(impl["outcome"]["verdict"]) + ("" if impl["outcome"]["ok"] else " ❗")


def _counts(counts: dict[str, int]) -> str:
    return " / ".join(str(counts.get(s, 0)) for s in STATUSES)


def _verdict_table(impls: Sequence[dict[str, Any]], profiles: Sequence[str]) -> list[str]:
    lines = [
        "Per profile, each implementation's verdict (a profile is judged only where it is claimed), then "
        "its requirements' PASS / FAIL / ERROR / SKIPPED / NOT_TESTED counts.",
        "",
        *_columns(impls, "profile"),
    ]
    for profile in profiles:
        cells = []
        for impl in impls:
            entry = (impl.get("profiles") or {}).get(profile)
            if entry is None:
                cells.append("not run")
                continue
            verdict = PROFILE_VERDICT.get(entry["status"], entry["status"])
            cells.append(f"{verdict} ({_counts(entry['counts'])})")
        lines.append(f"| [`{profile}`](#profile-{profile}) | " + " | ".join(cells) + " |")
    return lines


def _profile_section(
    profile: str,
    rows: Sequence[dict[str, Any]],
    impls: Sequence[dict[str, Any]],
    by_name: dict[str, dict[str, Any]],
    links: Links,
    titles: dict[str, str],
) -> list[str]:
    lines = [f"## Profile: {profile}", "", *_columns(impls, "requirement", "level", "chapter")]
    for row in rows:
        rid = row["id"]
        name = f"[{rid}]({links.spec}{row['anchor']})" if row.get("anchor") else rid
        chapter = _cell(titles.get(row.get("chapter") or "", row.get("chapter") or ""))
        cells = [_status_cell(by_name[i["name"]], rid, row["results"][i["name"]], links) for i in impls]
        lines.append(f"| {name} | {row['level']} | {chapter} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _status_cell(run: dict[str, Any], rid: str, status: str, links: Links) -> str:
    """The symbol and the status in words; a FAIL or ERROR links to its entry on the deviations page, and
    every cell but a PASS carries why as its hover text."""
    if status == "NOT_RUN":
        return "not run"
    req = run["requirements"][rid]
    known = req.get("known") or {}
    label = f"{MARK.get(status, '')} {status}".strip()
    if status == "FAIL":
        label += " " + (known.get("category") or UNTRIAGED)
    if known.get("list") == "flaky":
        label += ", flaky"
    why = _why(known.get("reason") or req.get("reason") or "")
    if status in ("FAIL", "ERROR"):
        hover = f' "{why}"' if why else ""
        return f"[{label}]({links.deviations}{run['implementation']}.md#{anchor(rid)}{hover})"
    if status == "PASS" or not why:
        return label
    return f'<span title="{html.escape(why)}">{label}</span>'


def _why(reason: str) -> str:
    """A reason fit for a title attribute in a table cell: one line, no pipe or double quote, cut short."""
    if reason.startswith("blocked by"):
        reason = reason.split(": ", 1)[0]  # which failures came first; the rest is per check
    text = " ".join(reason.split()).replace("|", "/").replace('"', "'")
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


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
