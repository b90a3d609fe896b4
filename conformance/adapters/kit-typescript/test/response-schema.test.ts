/** spec/examples/response-schema/vectors.json against src/responseSchema.ts (ajv): the TypeScript side of the
 * cross-language vectors that the Python reference also runs (tests/reference/test_response_schema.py). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { type InterruptRequest, TOOL_OPS, objectState, parseSteps, runProgram } from "../src/programs.ts";
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

test("an interrupt step passes its responseSchema to the raise as it is, and only when it has one", () => {
  const asked: InterruptRequest[] = [];
  const interrupt = (request: InterruptRequest) => {
    asked.push(request);
    return 1;
  };
  const outside = { type: "string", pattern: "^a" }; // refusing it is the runtime's job, not the kit's
  const steps = parseSteps(
    [{ interrupt: { name: "a", responseSchema: outside } }, { interrupt: { name: "b" } }, { return: {} }],
    TOOL_OPS,
    "t",
  );
  runProgram(steps, { interrupt, state: objectState({}) });
  assert.deepEqual(asked, [
    { name: "a", reason: undefined, responseSchema: outside },
    { name: "b", reason: undefined },
  ]);
  const notAnObject = [{ interrupt: { name: "a", responseSchema: [] } }];
  assert.throws(() => parseSteps(notAnObject, TOOL_OPS, "t"), /must be an object/);
});
