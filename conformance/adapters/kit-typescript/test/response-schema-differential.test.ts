/** Differential cases for src/responseSchema.ts: random subset schemas and answers with the errors the Python
 * reference computed (written by tests/conformance/test_response_schema_typescript.py, which passes the file in
 * ROC_SCHEMA_CASES). Without that variable there is nothing to compare, and the test is skipped. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { answerErrors, subsetProblem, type SchemaError } from "../src/responseSchema.ts";

interface Case {
  schema: Record<string, unknown>;
  answer: unknown;
  errors: SchemaError[];
}

const file = process.env["ROC_SCHEMA_CASES"];

const skip = file === undefined;

test("ajv gives the reference's verdict and normalized errors on every random case", { skip }, () => {
  const cases = JSON.parse(readFileSync(file ?? "", "utf8")) as Case[];
  assert.ok(cases.length > 0);
  const differing = cases
    .filter(
      (c) =>
        subsetProblem(c.schema) !== null ||
        JSON.stringify(answerErrors(c.schema, c.answer)) !== JSON.stringify(c.errors),
    )
    .slice(0, 5)
    .map((c) => ({ ...c, ajv: answerErrors(c.schema, c.answer) }));
  assert.deepEqual(differing, []);
});
