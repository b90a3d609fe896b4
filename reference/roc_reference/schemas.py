"""Response schemas (spec chapter 14, profile response-schema): the portable subset, answer validation with
normalized errors, and the renderable subset.

The portable subset (ROC-SCHEMA-002) keeps the keywords of JSON Schema 2020-12 that every validator reads the
same way, so this module (over ``jsonschema``) and a TypeScript runtime (over ``ajv``) give the same verdict
and the same error set for every answer; ``spec/examples/response-schema/vectors.json`` pins both.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator

DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The only ``$schema`` value the subset allows (at the root)."""

TYPE_NAMES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})

ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "const",
        "required",
        "additionalProperties",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minProperties",
        "maxProperties",
    }
)
"""The keywords whose failure is an error of the normalized set (ROC-SCHEMA-005); ``properties`` and
``items`` only carry their sub-schemas' errors."""

_COUNTS = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"})
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_ANNOTATIONS = frozenset({"title", "description", "default", "examples"})
KEYWORDS = frozenset({"$schema", "properties", "items", *ASSERTIONS, *_ANNOTATIONS})
"""Every keyword of the portable subset (ROC-SCHEMA-002)."""


def subset_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a response schema of the portable subset (ROC-SCHEMA-002), or ``None``.

    The root is an object schema; every sub-schema is an object too, except that ``additionalProperties``
    may be a boolean. Keyword values have the shapes 2020-12 gives them, with the stricter readings both
    validators share (a non-empty ``enum``, unique ``type`` names and ``required`` names)."""
    if not isinstance(schema, dict):
        return "a response schema is a JSON object"
    if "$schema" in schema and schema["$schema"] != DIALECT:
        return f"$schema must be {DIALECT!r}"
    return _schema_problem(schema, "")


def _schema_problem(schema: Any, at: str) -> str | None:
    where = at or "the root"
    if not isinstance(schema, dict):
        return f"the schema at {where} is not an object"
    for keyword, value in schema.items():
        if keyword not in KEYWORDS or (keyword == "$schema" and at):
            return f"keyword {keyword!r} at {where} is outside the portable subset"
        problem = _keyword_problem(keyword, value, at)
        if problem is not None:
            return f"{keyword!r} at {where}: {problem}"
    return None


def _keyword_problem(keyword: str, value: Any, at: str) -> str | None:
    if keyword in ("title", "description"):
        return None if isinstance(value, str) else "must be a string"
    if keyword == "examples":
        return None if isinstance(value, list) else "must be an array"
    if keyword == "type":
        names = value if isinstance(value, list) else [value]
        unique = len({n for n in names if isinstance(n, str)}) == len(names)
        ok = bool(names) and unique and all(isinstance(n, str) and n in TYPE_NAMES for n in names)
        return None if ok else "must be a type name or a non-empty array of unique type names"
    if keyword == "enum":
        return None if isinstance(value, list) and value else "must be a non-empty array"
    if keyword == "required":
        ok = (
            isinstance(value, list)
            and all(isinstance(n, str) for n in value)
            and len(set(value)) == len(value)
        )
        return None if ok else "must be an array of unique strings"
    if keyword == "properties":
        if not isinstance(value, dict):
            return "must be an object of schemas"
        for name, sub in value.items():
            problem = _schema_problem(sub, f"{at}/properties/{escape(name)}")
            if problem is not None:
                return problem
        return None
    if keyword == "additionalProperties":
        return None if isinstance(value, bool) else _schema_problem(value, f"{at}/additionalProperties")
    if keyword == "items":
        return _schema_problem(value, f"{at}/items")
    if keyword == "uniqueItems":
        return None if isinstance(value, bool) else "must be a boolean"
    if keyword in _COUNTS:
        return None if _is_count(value) else "must be a non-negative integer"
    if keyword in _BOUNDS:
        return None if _is_number(value) else "must be a finite number"
    return None  # const, default, $schema (checked at the root): any JSON value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value: Any) -> bool:
    # 1.0 is 1: a JSON parser in another language cannot tell them apart.
    return _is_number(value) and value >= 0 and float(value).is_integer()


def escape(name: str) -> str:
    """One reference token of an RFC 6901 JSON Pointer."""
    return name.replace("~", "~0").replace("/", "~1")


def pointer(parts: Iterable[str | int]) -> str:
    """The RFC 6901 JSON Pointer of an instance location (the root is ``""``)."""
    return "".join(f"/{escape(str(part))}" for part in parts)


def _utf16(text: str) -> bytes:
    # Big-endian UTF-16 bytes compare as the sequences of code units do (RFC 8785's member order).
    return text.encode("utf-16-be", "surrogatepass")


def answer_errors(schema: Mapping[str, Any], value: Any) -> list[dict[str, str]]:
    """The normalized errors of ``value`` against a subset schema (ROC-SCHEMA-005): ``{"path", "keyword"}``
    for each failing assertion, one per missing ``required`` member and one per member that
    ``additionalProperties: false`` forbids (at that member's pointer), deduplicated and sorted by path then
    keyword in UTF-16 code units. ``[]``: the answer is valid."""
    found: set[tuple[str, str]] = set()
    for error in Draft202012Validator(schema).iter_errors(value):
        keyword = str(error.validator)
        where = list(error.absolute_path)
        instance = error.instance
        if keyword == "required" and isinstance(instance, dict):
            for name in error.validator_value:
                if name not in instance:
                    found.add((pointer([*where, name]), keyword))
        elif (
            keyword == "additionalProperties"
            and error.validator_value is False
            and isinstance(instance, dict)
        ):
            known = error.schema.get("properties", {})
            for name in instance:
                if name not in known:
                    found.add((pointer([*where, name]), keyword))
        elif keyword in ASSERTIONS:
            found.add((pointer(where), keyword))
    ordered = sorted(found, key=lambda e: (_utf16(e[0]), _utf16(e[1])))
    return [{"path": path, "keyword": keyword} for path, keyword in ordered]


_PRIMITIVES = frozenset({"string", "number", "integer", "boolean"})
_STRING_KEYS = frozenset({"type", "enum", "minLength", "maxLength", "title", "description", "default"})
_NUMBER_KEYS = frozenset(
    {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "title", "description", "default"}
)
_BOOLEAN_KEYS = frozenset({"type", "title", "description", "default"})
_MULTI_KEYS = frozenset(
    {"type", "items", "uniqueItems", "minItems", "maxItems", "title", "description", "default"}
)
_ROOT_KEYS = frozenset(
    {"$schema", "type", "properties", "required", "additionalProperties", "title", "description"}
)


def is_renderable(schema: Any) -> bool:
    """Whether ``schema`` is in the renderable subset (ROC-SCHEMA-008): an object of primitive fields and
    multi-selects that a generic user interface can draw as a form."""
    if subset_problem(schema) is not None or not set(schema) <= _ROOT_KEYS:
        return False
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        return False
    if schema.get("additionalProperties", False) is not False:
        return False
    return all(_renderable_field(field) for field in schema["properties"].values())


def _renderable_field(field: dict[str, Any]) -> bool:
    kind = field.get("type")
    if kind == "string":
        return set(field) <= _STRING_KEYS
    if kind in ("number", "integer"):
        return set(field) <= _NUMBER_KEYS
    if kind == "boolean":
        return set(field) <= _BOOLEAN_KEYS
    if kind == "array":
        items = field.get("items")
        return (
            set(field) <= _MULTI_KEYS
            and field.get("uniqueItems") is True
            and isinstance(items, dict)
            and set(items) == {"type", "enum"}
            and items["type"] == "string"
            and all(isinstance(option, str) for option in items["enum"])
        )
    return False


__all__ = [
    "ASSERTIONS",
    "DIALECT",
    "KEYWORDS",
    "answer_errors",
    "escape",
    "is_renderable",
    "pointer",
    "subset_problem",
]
