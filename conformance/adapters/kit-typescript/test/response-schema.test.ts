/** spec/examples/response-schema/vectors.json against src/responseSchema.ts (ajv): the TypeScript side of the
 * cross-language vectors that the Python reference also runs (tests/reference/test_response_schema.py). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { answerErrors, subsetProblem, type SchemaError } from "../src/responseSchema.ts";

interface Vector {
  description: string;
  schema: unknown;
  refused?: true;
  valid?: unknown[];
  invalid?: { answer: unknown; errors: SchemaError[] }[];
}

const vectors = (
  JSON.parse(
    readFileSync(new URL("../../../../spec/examples/response-schema/vectors.json", import.meta.url), "utf8"),
  ) as { vectors: Vector[] }
).vectors;

test("the file has accepted and refused schemas", () => {
  assert.ok(vectors.filter((v) => v.refused).length >= 10);
  assert.ok(vectors.filter((v) => !v.refused).length >= 20);
});

for (const vector of vectors) {
  test(vector.description, () => {
    if (vector.refused) {
      assert.notEqual(subsetProblem(vector.schema), null, "a schema outside the subset is refused");
      return;
    }
    assert.equal(subsetProblem(vector.schema), null);
    const schema = vector.schema as Record<string, unknown>;
    for (const answer of vector.valid ?? []) {
      assert.deepEqual(answerErrors(schema, answer), [], `valid: ${JSON.stringify(answer)}`);
    }
    for (const { answer, errors } of vector.invalid ?? []) {
      assert.deepEqual(answerErrors(schema, answer), errors, `invalid: ${JSON.stringify(answer)}`);
    }
  });
}
