"""``History``: the agent's messages, each with its spec JSON made once, when the message is appended.

Why: a save point writes the whole history into the snapshot document. Serializing every message at every
save made a save cost grow with the history; a file store that only appends new log lines then still paid
for the messages it did not write. Here each message is serialized once, and the JSON list is append-only
per *lineage*, so a store that remembers what it committed of a lineage knows the prefix is unchanged
without comparing it (``FileSessionManager``).

The rule that makes a lineage trustworthy: a lineage's two lists (models and JSON) are only ever appended
to. Any other change (replacing the history on restore, cutting it back on rollback) builds new lists with
a new lineage token, so a reader holding an older lineage never sees a message change under it. Messages
are frozen models the runtime never edits once recorded, so the JSON made at append time stays theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from .types import Message


class Lineage:
    """An identity token: equal lineages are the same append-only list (compared with ``is``)."""

    __slots__ = ()


class HistoryJson(list[dict[str, Any]]):
    """The spec JSON of a history's messages, tagged with the lineage it belongs to.

    The agent lends this list, not a copy, to a session manager that declares it borrows documents
    (``borrows_documents = True``): that manager reads it during ``save`` and keeps neither the list nor its
    members, and the agent appends nothing while the save runs (it holds its lock). A later append to the
    same lineage only adds items after the ones the manager read, which is what lets the manager trust the
    prefix it committed.
    """

    __slots__ = ("lineage",)

    def __init__(self, items: Iterable[dict[str, Any]] = (), lineage: Lineage | None = None) -> None:
        super().__init__(items)
        self.lineage = lineage if lineage is not None else Lineage()


@dataclass(frozen=True)
class Mark:
    """A point a history can return to: its first ``length`` messages of a lineage's lists."""

    messages: list[Message]
    json: HistoryJson
    length: int


class History(Sequence[Message]):
    """The transcript of one agent: append-only per lineage (see the module docstring)."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages: list[Message] = []
        self._json = HistoryJson()
        self.replace(messages)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        return self._messages[index]

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self._messages)

    @property
    def messages(self) -> list[Message]:
        """The live list of models, for readers that must not copy it (the loop); never to be changed."""
        return self._messages

    @property
    def lineage(self) -> Lineage:
        return self._json.lineage

    def append(self, message: Message) -> None:
        """Record ``message`` (its JSON is made now, once); the lineage stays."""
        self._json.append(message.to_json())
        self._messages.append(message)

    def replace(self, messages: Iterable[Message]) -> None:
        """Hold ``messages`` instead, as a new lineage."""
        self._messages = list(messages)
        self._json = HistoryJson(m.to_json() for m in self._messages)

    def mark(self) -> Mark:
        """Where the history is now (O(1): the lists are shared, only appended to from here on)."""
        return Mark(self._messages, self._json, len(self._messages))

    def restore(self, mark: Mark) -> None:
        """Return to ``mark``. Nothing changes when nothing was appended since; otherwise the first
        ``mark.length`` messages become a new lineage (copied: the old lists are never shortened)."""
        if mark.messages is self._messages and mark.length == len(self._messages):
            return
        self._messages = mark.messages[: mark.length]
        self._json = HistoryJson(mark.json[: mark.length])

    def json_view(self) -> HistoryJson:
        """The lineage's own JSON list, for a borrowing session manager only (see ``HistoryJson``)."""
        return self._json

    def json_copies(self) -> list[dict[str, Any]]:
        """Fresh JSON documents that share nothing with the agent (ROC-SEC-016)."""
        return [m.to_json() for m in self._messages]
