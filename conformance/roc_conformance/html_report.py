"""``report.html``: the whole report as one self-contained page (inline CSS, no scripts, no external assets).

The same order as summary.md (verdicts, failures with their transcripts, errors, what was not judged, the
run), plus every requirement and every check. Requirement IDs link to the spec site; transcripts and long
lists are collapsible ``<details>``. Every text from the run is HTML-escaped: transcripts carry whatever the
implementation sent.
"""

from __future__ import annotations

from html import escape
from typing import Any

from roc_conformance.readable import clip, readable_lines, readable_text
from roc_conformance.speclinks import spec_url
from roc_conformance.summary import (
    SHOULD_NOTE,
    VERDICT_MEANING,
    WARNING,
    failure_count,
    is_should,
    verdict_of,
)

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1b1f24}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
h3{font-size:1rem;margin-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;
text-align:left;vertical-align:top}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;
font-size:13px}
details{margin:.4rem 0}summary{cursor:pointer}
.verdict{display:inline-block;padding:.2rem .6rem;border-radius:.3rem;font-weight:600;color:#fff}
.CONFORMANT,.PASS{background:#1a7f37}.NOT_CONFORMANT,.FAIL,.UNDEFINED{background:#cf222e}
.INCOMPLETE,.ERROR{background:#9a6700}.NOTHING_JUDGED,.NOT_TESTED,.SKIPPED,.NOT_CLAIMED,.NOT_SELECTED{
background:#6e7781}
td.s{color:#fff;font-weight:600;white-space:nowrap}
.note{border-left:4px solid #9a6700;padding:.2rem .8rem;background:#fff8c5}
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _cls(status: str) -> str:
    return status.replace(" ", "_")


def _badge(status: str) -> str:
    return f'<span class="verdict {_cls(status)}">{_e(status)}</span>'


def _link(req: dict[str, Any]) -> str:
    url = spec_url(req)
    if url is None:
        return _e(req["id"])
    return f'<a href="{_e(url)}">{_e(req["id"])}</a>'


def _pre(text: str, max_chars: int) -> str:
    return "<pre>" + _e("\n".join(readable_lines(text, max_chars=max_chars))) + "</pre>"


def _details(summary: str, body: str, *, open_: bool = False) -> str:
    return f"<details{' open' if open_ else ''}><summary>{_e(summary)}</summary>{body}</details>"


def html_report(doc: dict[str, Any]) -> str:
    impl = doc.get("implementation") or {}
    verdict = verdict_of(doc)
    name = f"{impl.get('name', doc['target'])} {impl.get('version', '')}".strip()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>RoC conformance: {_e(name)}: {_e(verdict)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>RoC conformance: {_e(name)}</h1>",
        f"<p>{_badge(verdict)} {_e(VERDICT_MEANING.get(verdict, ''))}</p>",
    ]
    parts += [f'<p class="note">Claim: {_e(p)}</p>' for p in doc.get("claimProblems", [])]
    if doc.get("fatal"):
        parts.append(f'<p class="note">The run could not start: {_e(doc["fatal"])}</p>')
    if not doc.get("complete", True):
        why = doc.get("stopped") or "the run is still going on (a partial report)"
        parts.append(f'<p class="note">Incomplete: {_e(why)}.</p>')
    parts += _profiles(doc)
    parts += _failures(doc)
    parts += _errors(doc)
    parts += _requirements(doc)
    parts += _checks(doc)
    parts += _run(doc)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _profiles(doc: dict[str, Any]) -> list[str]:
    rows = []
    for name, entry in doc["profiles"].items():
        c = entry.get("counts", {})
        reason = entry.get("reason", "")
        if not reason and entry.get("failing"):
            reason = "failing: " + ", ".join(entry["failing"])
        elif not reason and entry.get("unresolved"):
            reason = "not judged: " + ", ".join(entry["unresolved"])
        cells = [c.get(k, 0) for k in ("PASS", "FAIL", "ERROR", "SKIPPED", "NOT_TESTED")]
        rows.append(
            f'<tr><td>{_e(name)}</td><td class="s {_cls(entry["status"])}">{_e(entry["status"])}</td>'
            f"<td>{entry['requirements']}</td>"
            + "".join(f"<td>{n}</td>" for n in cells)
            + f"<td>{_e(reason)}</td></tr>"
        )
    head = (
        "<tr><th>profile</th><th>verdict</th><th>requirements</th><th>pass</th><th>fail</th><th>error</th>"
        "<th>skipped</th><th>not tested</th><th>reason</th></tr>"
    )
    return ["<h2>Profiles</h2>", f"<table>{head}{''.join(rows)}</table>"]


def _failures(doc: dict[str, Any]) -> list[str]:
    failing = [r for r in doc["requirements"] if r["status"] == "FAIL"]
    if not failing:
        return []
    blocked_by: dict[str, list[str]] = {}
    for req in doc["requirements"]:
        for primary in req.get("blockedBy", []):
            blocked_by.setdefault(primary, []).append(req["id"])
    parts = [f"<h2>Failures ({_e(failure_count(failing))})</h2>"]
    if any(is_should(r) for r in failing):
        parts.append(f'<p class="note">{_e(SHOULD_NOTE)}</p>')
    for req in failing:
        parts.append(
            f'<h3 id="{_e(req["id"])}">{_link(req)} ({_e(req["level"])}, {_e(req["profile"])})'
            + (f": {_e(req['section'])}" if req.get("section") else "")
            + (_e(WARNING) if is_should(req) else "")
            + "</h3>"
        )
        for index, failure in enumerate(
            req.get("failures") or [{"check": "?", "message": req.get("reason", "")}]
        ):
            body = [f"<p>Found by <code>{_e(failure['check'])}</code></p>", _pre(failure["message"], 3000)]
            if failure.get("counterexampleFile"):
                body.append(f"<p>Saved as a vector: <code>{_e(failure['counterexampleFile'])}</code></p>")
            if failure.get("counterexample"):
                body.append(_details("Transcript", _pre(failure["counterexample"], 20000), open_=index == 0))
            consequences = failure.get("consequences") or []
            if consequences:
                items = "".join(
                    f"<li>{_e(', '.join(c['requirements']))}: {_e(readable_text(c['message']))}</li>"
                    for c in consequences
                )
                body.append(
                    _details(f"Seen after it: {len(consequences)} consequence(s)", f"<ul>{items}</ul>")
                )
            parts.append(
                "".join(body) if index == 0 else _details(f"Also from {failure['check']}", "".join(body))
            )
        blocked = blocked_by.get(req["id"], [])
        if blocked:
            parts.append(
                _details(
                    f"Kept from being judged by it: {len(blocked)} requirement(s)",
                    "<p>" + ", ".join(f'<a href="#req-{_e(r)}">{_e(r)}</a>' for r in blocked) + "</p>",
                )
            )
    return parts


def _errors(doc: dict[str, Any]) -> list[str]:
    errored = [c for c in doc["checks"] if c["status"] == "ERROR"]
    if not errored:
        return []
    parts = [
        f"<h2>Errors ({len(errored)} checks)</h2>",
        "<p>Harness faults or checks not run: not the implementation's failures.</p>",
    ]
    for chk in errored:
        body = _pre(chk.get("message", ""), 3000)
        if chk.get("counterexample"):
            body += _pre(chk["counterexample"], 8000)
        parts.append(_details(f"{chk['name']}: {clip(chk.get('message', ''), 160)}", body))
    return parts


def _requirements(doc: dict[str, Any]) -> list[str]:
    rows = "".join(
        f'<tr id="req-{_e(r["id"])}"><td>{_link(r)}</td><td>{_e(r["level"])}</td><td>{_e(r["profile"])}</td>'
        f'<td class="s {_cls(r["status"])}">{_e(r["status"])}'
        f"{' (SHOULD, not scored)' if r['status'] == 'FAIL' and is_should(r) else ''}</td>"
        f"<td>{_e(clip(r.get('reason', ''), 600))}</td></tr>"
        for r in doc["requirements"]
    )
    table = (
        "<table><tr><th>requirement</th><th>level</th><th>profile</th><th>status</th><th>reason</th></tr>"
        f"{rows}</table>"
    )
    counts = ", ".join(f"{k} {v}" for k, v in doc["summary"]["requirements"].items() if v)
    return [
        "<h2>Requirements</h2>",
        _details(f"All {len(doc['requirements'])} requirements ({counts})", table),
    ]


def _checks(doc: dict[str, Any]) -> list[str]:
    rows = []
    for chk in doc["checks"]:
        notes = "".join(f"<li>{_e(n)}</li>" for n in chk.get("notes", []))
        rows.append(
            f"<tr><td><code>{_e(chk['name'])}</code></td><td>{_e(chk['kind'])}</td>"
            f'<td class="s {_cls(chk["status"])}">{_e(chk["status"])}</td>'
            f"<td>{_e(', '.join(chk['requirements']))}</td><td>{chk['durationSeconds']:.2f} s</td>"
            f"<td>{_e(clip(chk.get('message', ''), 400))}"
            + (f"<ul>{notes}</ul>" if notes else "")
            + "</td></tr>"
        )
    table = (
        "<table><tr><th>check</th><th>kind</th><th>status</th><th>requirements</th><th>time</th>"
        f"<th>message</th></tr>{''.join(rows)}</table>"
    )
    return ["<h2>Checks</h2>", _details(f"All {len(doc['checks'])} checks", table)]


def _run(doc: dict[str, Any]) -> list[str]:
    impl = doc.get("implementation") or {}
    settings = doc["settings"]
    suite = doc["suite"]
    items = [
        ("Implementation", " ".join(str(impl.get(k, "")) for k in ("name", "version")).strip() or "?"),
        ("Adapter", impl.get("adapter", "")),
        ("Target", doc["target"] + (f" (peer {doc['peer']})" if doc.get("peer") else "")),
        (
            "Suite",
            f"{suite['name']} {suite['version']}, spec {suite['specVersion']}, "
            f"harness protocol {suite['harnessProtocolVersion']}",
        ),
        (
            "Settings",
            f"{settings['name']}: {settings['maxExamples']} examples × {settings['statefulStepCount']} steps",
        ),
        ("Seed", "" if settings.get("seed") is None else str(settings["seed"])),
        ("Started", doc["startedAt"]),
        (
            "Took",
            f"{doc['durationSeconds']:.1f} s, {doc['rpcCount']} RPCs, "
            f"adapter restarts: {doc['adapterRestarts']}",
        ),
    ]
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items if v)
    return ["<h2>The run</h2>", f"<table>{rows}</table>"]
