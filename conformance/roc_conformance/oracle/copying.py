"""Deep copies of the oracle's data (JSON values, sets and tuples of ids, small dataclasses), fast.

The driver copies the whole oracle agent before every step (a failed invocation must leave it as it was,
and a rejected one puts it back), and ``copy.deepcopy`` was the largest single cost of the suite process:
its memo and reduce protocol are general, while this data is trees of dicts, lists and immutable atoms.
``deep_copy`` walks those directly and hands anything else to ``copy.deepcopy``.

One difference: ``copy.deepcopy`` keeps two references to one object as two references to one copy;
``deep_copy`` copies each reference separately. The oracle never relies on such sharing (it copies what it
stores), and the tests compare both copies on real oracle states.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_ATOMS: frozenset[type] = frozenset({str, int, float, bool, type(None), bytes})


def deep_copy(value: T) -> T:
    """A copy of ``value`` sharing nothing mutable with it."""
    return _copy(value)  # type: ignore[no-any-return]


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}  # keys are hashable, so immutable here
    if kind is list:
        return [_copy(item) for item in value]
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return value if all(type(item) in _ATOMS for item in value) else tuple(_copy(i) for i in value)
    if kind is set or kind is frozenset:
        if all(type(item) in _ATOMS or (type(item) is tuple and _atoms(item)) for item in value):
            return kind(value)
        return copy.deepcopy(value)
    if dataclasses.is_dataclass(value) and not hasattr(kind, "__deepcopy__") and hasattr(value, "__dict__"):
        clone = object.__new__(kind)
        clone.__dict__.update({name: _copy(item) for name, item in value.__dict__.items()})
        return clone
    return copy.deepcopy(value)


def _atoms(items: tuple[Any, ...]) -> bool:
    return all(type(item) in _ATOMS for item in items)
