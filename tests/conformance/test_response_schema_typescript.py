"""The TypeScript kit (conformance/adapters/kit-typescript) checks the cross-language response schema vectors
(spec/examples/response-schema/vectors.json) with ``ajv`` (draft 2020-12, all errors): the same subset
verdicts and the same normalized errors as the Python reference's ``jsonschema`` (spec 14.5). A differential
test then compares the two on random subset schemas and answers.

Skipped, with the reason, when Node.js 20+ or npm is not installed (``node_kit``).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from node_kit import checked, ready_node, run
from roc_reference.schemas import answer_errors, subset_problem

NAMES = ["a", "b", "B", "a/b", "~", "~1", "\u00e9", "\U0001f600", "10", "2"]
TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"]
COUNTS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]
BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
KEYWORDS = ["type", "enum", "const", "properties", "required", "additionalProperties", "items", "uniqueItems"]


@pytest.mark.req("ROC-SCHEMA-002", "ROC-SCHEMA-005")
def test_the_typescript_kit_reproduces_every_response_schema_vector() -> None:
    node = ready_node()
    checked([node, "--import", "tsx", "--test", "test/response-schema.test.ts"], timeout=300)


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 2 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, 1.0, -2, 2.5, 3, 10])
    if kind == 3:
        return rng.choice(["", "a", "ab", "abc", "\U0001f600", "a\U0001f600", "\u00e9"])
    if kind == 4:
        return rng.choice([0, 1.5, 7])
    if kind == 5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(NAMES): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for keyword in rng.sample(KEYWORDS + COUNTS + BOUNDS, rng.randrange(1, 5)):
        if keyword == "type":
            schema[keyword] = (
                rng.choice(TYPES) if rng.random() < 0.6 else rng.sample(TYPES, rng.randrange(1, 4))
            )
        elif keyword == "enum":
            schema[keyword] = [_value(rng, 2) for _ in range(rng.randrange(1, 4))]
        elif keyword == "const":
            schema[keyword] = _value(rng, 1)
        elif keyword == "properties" and depth < 2:
            schema[keyword] = {rng.choice(NAMES): _schema(rng, depth + 1) for _ in range(rng.randrange(1, 3))}
        elif keyword == "required":
            schema[keyword] = list(dict.fromkeys(rng.choice(NAMES) for _ in range(rng.randrange(3))))
        elif keyword == "additionalProperties":
            nested = depth < 2 and rng.random() < 0.3
            schema[keyword] = _schema(rng, depth + 1) if nested else rng.choice([True, False])
        elif keyword == "items" and depth < 2:
            schema[keyword] = _schema(rng, depth + 1)
        elif keyword == "uniqueItems":
            schema[keyword] = rng.choice([True, False])
        elif keyword in COUNTS:
            schema[keyword] = rng.randrange(4)
        elif keyword in BOUNDS:
            schema[keyword] = rng.choice([0, 1, 1.5, -1, 2])
    return schema


def random_cases(seed: int, count: int) -> list[dict[str, Any]]:
    """Random subset schemas and non-null answers, with the reference's normalized errors."""
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        schema, answer = _schema(rng), _value(rng)
        assert subset_problem(schema) is None, schema
        if answer is not None:  # a null answer is refused before any schema is asked (ROC-RESUME-005)
            cases.append({"schema": schema, "answer": answer, "errors": answer_errors(schema, answer)})
    return cases


@pytest.mark.req("ROC-SCHEMA-005")
def test_ajv_and_the_reference_agree_on_random_schemas_and_answers(tmp_path: Path) -> None:
    node = ready_node()
    cases = random_cases(seed=17, count=3000)
    assert sum(len(c["errors"]) > 1 for c in cases) > 100  # several errors in one answer, sorted
    file = tmp_path / "cases.json"
    file.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    env = {**os.environ, "ROC_SCHEMA_CASES": str(file)}
    done = run([node, "--import", "tsx", "--test", "test/response-schema-differential.test.ts"], 300, env)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
