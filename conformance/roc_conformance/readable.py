"""Shorten transcripts and messages for people without cutting a JSON value in half.

A transcript line is ``<label> → <json>`` or ``    ← <json>``; a failure message may quote JSON (``got
{...}``). Both can be long. They are shortened by whole values: a long string keeps its head and ends in
``…``, a long array keeps its first items and then a ``"… N more"`` item, so what is shown is still valid
JSON. A value an earlier stage already cut (a message capped at its length) keeps its complete members and is
closed, with a ``"…"`` member marking the cut.
"""

from __future__ import annotations

import json
from typing import Any

ELLIPSIS = "…"
MAX_STRING = 160
MAX_ITEMS = 30
MAX_KEYS = 40


def shorten(value: Any, *, max_string: int = MAX_STRING, max_items: int = MAX_ITEMS) -> Any:
    """``value`` with long strings and arrays shortened by whole values (still JSON)."""
    if isinstance(value, str):
        return value if len(value) <= max_string else value[:max_string] + ELLIPSIS
    if isinstance(value, list):
        head = [shorten(v, max_string=max_string, max_items=max_items) for v in value[:max_items]]
        if len(value) > max_items:
            head.append(f"{ELLIPSIS} {len(value) - max_items} more")
        return head
    if isinstance(value, dict):
        out = {
            str(k): shorten(v, max_string=max_string, max_items=max_items)
            for k, v in list(value.items())[:MAX_KEYS]
        }
        if len(value) > MAX_KEYS:
            out[ELLIPSIS] = f"{len(value) - MAX_KEYS} more members"
        return out
    return value


def _dump(value: Any) -> str:
    return json.dumps(shorten(value), ensure_ascii=False, separators=(",", ":"))


def _closing(text: str, start: int) -> int | None:
    """Where the bracketed value opening at ``start`` closes (index after it), or None if the text ends first.

    Strings are skipped, so brackets inside them do not count."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def readable_text(text: str) -> str:
    """``text`` with every JSON object or array in it shortened; a JSON value cut off at the end of ``text``
    (by whoever capped its length) is replaced by ``…``. Anything else is kept as it is."""
    out: list[str] = []
    index = 0
    decoder = json.JSONDecoder()
    while index < len(text):
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            out.append(text[index:])
            break
        start = min(starts)
        out.append(text[index:start])
        end = _closing(text, start)
        if end is None:
            # The value runs off the end of the text: someone cut it. Its complete members are kept and
            # closed; half a member is worse than none.
            mended = _mend(text[start:])
            out.append(ELLIPSIS if mended is None else _dump(mended))
            break
        try:
            value, stop = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            stop = 0
        if stop == end and isinstance(value, dict | list):
            out.append(_dump(value))
        else:  # bracketed but not JSON (a Python repr, "[step 2]"): as it is
            out.append(text[start:end])
        index = end
    return "".join(out)


def clip(text: str, limit: int) -> str:
    """``readable_text`` of at most about ``limit`` characters of ``text``: cut, then mended, so a JSON value
    the cut goes through keeps its complete members instead of ending mid-object."""
    if len(text) <= limit:
        return readable_text(text)
    shown = readable_text(text[:limit])
    return shown if shown.endswith(ELLIPSIS) else shown + f" {ELLIPSIS}"


def readable_lines(text: str, *, max_chars: int) -> list[str]:
    """``readable_text`` line by line, in about ``max_chars``: whole lines only. When they do not fit, the
    last lines are kept (a transcript ends at the divergence) with the first one, and one line says how many
    in between were left out."""
    lines = [readable_text(line) for line in text.splitlines()]
    if lines and _starts_mid_value(lines[0]):
        lines[0] = f"{ELLIPSIS} (the start of this transcript was cut)"
    if sum(len(line) + 1 for line in lines) <= max_chars or len(lines) < 2:
        return lines
    tail: list[str] = []
    used = len(lines[0]) + 1
    for line in reversed(lines[1:]):
        if tail and used + len(line) > max_chars:
            break
        tail.insert(0, line)
        used += len(line) + 1
    skipped = len(lines) - 1 - len(tail)
    middle = [f"{ELLIPSIS} {skipped} line(s) left out here (report.json has them all)"] if skipped else []
    return [lines[0], *middle, *tail]


def _starts_mid_value(line: str) -> bool:
    """Whether ``line`` is the tail of a value cut at its start (a closing bracket before any opening)."""
    opening = [i for i in (line.find("{"), line.find("[")) if i >= 0]
    closing = [i for i in (line.find("}"), line.find("]")) if i >= 0]
    return bool(closing) and (not opening or min(closing) < min(opening))


def _mend(fragment: str) -> Any:
    """The JSON value whose text ``fragment`` starts and that was cut off: its complete members, closed, with
    a ``"…"`` marker where the cut was; None when not even one member is complete."""
    stack: list[str] = []
    in_string = escaped = False
    good: tuple[int, tuple[str, ...]] | None = None  # where the last complete member ended, and what is open
    for index, char in enumerate(fragment):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]":
            if not stack:
                return None
            stack.pop()
            good = (index + 1, tuple(stack))
        elif char == ",":
            good = (index, tuple(stack))
    if good is None or not good[1]:
        return None
    end, still_open = good
    marker = ',"…"]' if still_open[-1] == "[" else ',"…":"…"}'
    closers = "".join("]" if c == "[" else "}" for c in reversed(still_open[:-1]))
    try:
        return json.loads(fragment[:end] + marker + closers)
    except json.JSONDecodeError:
        return None
