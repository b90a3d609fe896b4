"""The known-failures file format: one entry a line, a requirement ID or ``check:<name>``, ``#``, the reason.

A known-failures (or known-flaky) file lives in an SDK's repository and is edited by hand; the runner can
write it too (expectations.rewrite). conformance/README.md, "Known failures in your CI", documents it::

    # comment lines and blank lines are kept as they are
    ROC-RESUME-005                          # a null response is taken as an answer  <https://…/issues/12>
    check:explicit:malformed-responses      # extra members are dropped

An entry is a requirement ID or ``check:`` and a check's name (as ``roc-conformance checks`` lists them),
then ``#`` and the reason (required), optionally ending in an issue link in angle brackets. Every malformed
line is a Problem with its line number; nothing here knows about runs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CHECK_PREFIX = "check:"
_REQUIREMENT_ID = re.compile(r"ROC-[A-Z]+-[0-9]{3}")
_LINK = re.compile(r"<([^<>\s]*)>\s*$")

DEFAULT_HEADER = (
    "# Known RoC conformance failures of this implementation, for roc-conformance run --known-failures.",
    "# One entry a line: a requirement ID (ROC-MODEL-008) or check:<check name>, then '#' and the reason,",
    "# optionally ending in an issue link in angle brackets. The run fails on a failure not listed here,",
    "# on an entry that passes now (stale) and on an entry that names nothing. Update it with",
    "# roc-conformance run ... --known-failures FILE --write-known-failures FILE.",
    "",
)


# ---------------------------------------------------------------------------------------------
# The file format


@dataclass(frozen=True)
class Entry:
    """One line of a known-failures or known-flaky file."""

    name: str  # a requirement ID, or a check's name (without the ``check:`` prefix)
    is_check: bool
    reason: str
    link: str | None = None
    line: int = 0  # 0: not read from a file (written by the runner)
    comments: tuple[str, ...] = ()  # the comment lines right above it, kept when the file is rewritten

    @property
    def key(self) -> str:
        return CHECK_PREFIX + self.name if self.is_check else self.name


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


@dataclass(frozen=True)
class EntryList:
    """A parsed file: its entries, or the problems that kept it from being read."""

    source: str
    entries: tuple[Entry, ...] = ()
    header: tuple[str, ...] = ()  # the comment and blank lines before the first entry
    trailer: tuple[str, ...] = ()  # the comment lines after the last entry
    problems: tuple[Problem, ...] = ()

    def messages(self) -> list[str]:
        return [
            f"{self.source}:{p.line}: {p.message}" if p.line else f"{self.source}: {p.message}"
            for p in self.problems
        ]


def parse(text: str, source: str = "<text>") -> EntryList:
    """Read a known-failures file; every malformed line is a Problem with its line number."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    header: list[str] = []
    pending: list[str] = []  # comment lines waiting for the entry they describe
    first_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            if entries or problems:
                pending.append(line)
            else:
                header.append(line)
            continue
        entry = _parse_entry(line, number, problems)
        if entry is None:
            pending = []
            continue
        if entry.key in first_line:
            problems.append(
                Problem(number, f"{entry.key} is listed twice (first on line {first_line[entry.key]})")
            )
            continue
        first_line[entry.key] = number
        entries.append(dataclasses.replace(entry, comments=tuple(pending)))
        pending = []
    if not entries and not problems:
        # A file of comments only: what looked like a header is all there is.
        return EntryList(source, header=tuple(header))
    # Comments right above the first entry belong to it only when a blank line separates them from the header.
    if entries and not entries[0].comments and header and header[-1]:
        split = len(header) - next((i for i, h in enumerate(reversed(header)) if not h), len(header))
        if split > 0:
            entries[0] = dataclasses.replace(entries[0], comments=tuple(header[split:]))
            header = header[:split]
    return EntryList(source, tuple(entries), tuple(header), tuple(pending), tuple(problems))


def _parse_entry(line: str, number: int, problems: list[Problem]) -> Entry | None:
    name, hash_, comment = line.partition("#")
    name = name.strip()
    is_check = name.startswith(CHECK_PREFIX)
    if is_check:
        name = name[len(CHECK_PREFIX) :].strip()
        if not name:
            problems.append(
                Problem(number, "'check:' needs a check name, as 'roc-conformance checks' lists them")
            )
            return None
    elif not _REQUIREMENT_ID.fullmatch(name):
        problems.append(
            Problem(
                number,
                f"{name!r} is neither a requirement ID (like ROC-MODEL-008) nor a check "
                "(check:<name>, as 'roc-conformance checks' lists them)",
            )
        )
        return None
    key = CHECK_PREFIX + name if is_check else name
    reason = comment.strip()
    link: str | None = None
    found = _LINK.search(reason)
    if found is not None:
        link = found.group(1)
        reason = reason[: found.start()].strip()
        if not re.match(r"https?://\S+$", link):
            problems.append(Problem(number, f"the link <{link}> of {key} is not an http(s) URL"))
            return None
    if not hash_ or not reason:
        problems.append(Problem(number, f"{key} has no reason: write '{key}  # why it fails'"))
        return None
    return Entry(name, is_check, reason, link, number)


def load(path: Path) -> EntryList:
    """Parse the file at ``path``; an unreadable file is one Problem (line 0)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return EntryList(str(path), problems=(Problem(0, f"cannot read it: {exc}"),))
    return parse(text, str(path))


def render(
    entries: Sequence[Entry], header: Sequence[str] = DEFAULT_HEADER, trailer: Sequence[str] = ()
) -> str:
    """The text of a file with ``entries``, names aligned so the reasons read as a column."""
    width = max((len(e.key) for e in entries), default=0)
    lines = list(header)
    for entry in entries:
        lines += entry.comments
        link = f"  <{entry.link}>" if entry.link else ""
        lines.append(f"{entry.key:<{width}}  # {entry.reason}{link}")
    lines += trailer
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The files of one run


@dataclass(frozen=True)
class Lists:
    """A run's lists: ``--known-failures``, ``--known-flaky``, the base of ``--write-known-failures``."""

    known: EntryList | None = None
    flaky: EntryList | None = None
    previous: EntryList | None = None  # whose reasons --write-known-failures keeps
    problems: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.known is not None or self.flaky is not None


def load_lists(known: Path | None, flaky: Path | None, write: Path | None) -> Lists:
    """Read the files named on the command line; every problem is a message naming file and line.

    The base of ``--write-known-failures`` is the ``--known-failures`` file, or else the file to be written
    when it exists (so updating a file in place keeps its reasons).
    """
    known_list = load(known) if known is not None else None
    flaky_list = load(flaky) if flaky is not None else None
    previous = known_list
    if write is not None and known_list is None and write.exists():
        previous = load(write)
    problems: list[str] = []
    for lst in dict.fromkeys(x for x in (known_list, flaky_list, previous) if x is not None):
        problems += lst.messages()
    if known_list is not None and flaky_list is not None:
        lines = {e.key: e.line for e in known_list.entries}
        problems += [
            f"{flaky_list.source}:{e.line}: {e.key} is also a known failure "
            f"({known_list.source}:{lines[e.key]}); list it in one file"
            for e in flaky_list.entries
            if e.key in lines
        ]
    return Lists(known_list, flaky_list, previous, tuple(problems))
