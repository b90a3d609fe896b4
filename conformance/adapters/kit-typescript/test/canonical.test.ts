/** spec/examples/canonical/vectors.json against src/canonical.ts: the TypeScript side of the cross-language
 * vectors that the Python reference and the conformance suite also check. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  NotRocJson,
  canonicalBytes,
  canonicalText,
  inputDigest,
  macOf,
  parseStrict,
  snapshotMac,
} from "../src/canonical.ts";

interface Case {
  name: string;
  input: string;
  canonical: string;
  sha256: string;
  hmac: string;
}

interface Vectors {
  hmacKey: string;
  cases: Case[];
  invalid: { name: string; input: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL("../../../../spec/examples/canonical/vectors.json", import.meta.url), "utf8"),
) as Vectors;
const key = Buffer.from(vectors.hmacKey, "utf8");

test("the file has cases and invalid inputs", () => {
  assert.ok(vectors.cases.length >= 20);
  assert.ok(vectors.invalid.length >= 5);
});

for (const vector of vectors.cases) {
  test(`vector: ${vector.name}`, () => {
    const value = parseStrict(vector.input);
    assert.equal(canonicalText(value), vector.canonical);
    const bytes = canonicalBytes(value);
    assert.deepEqual(bytes, Buffer.from(vector.canonical, "utf8"));
    assert.equal(createHash("sha256").update(bytes).digest("hex"), vector.sha256);
    assert.equal(inputDigest(value), `sha256:${vector.sha256}`);
    assert.equal(macOf(bytes, key), vector.hmac);
  });
}

for (const vector of vectors.invalid) {
  test(`invalid: ${vector.name}`, () => {
    assert.throws(() => canonicalBytes(parseStrict(vector.input)), NotRocJson);
  });
}

test("JSON.parse alone would keep the last repeated member: the strict parse refuses it", () => {
  assert.deepEqual(JSON.parse('{"a": 1, "a": 2}'), { a: 2 });
  assert.throws(() => parseStrict('{"a": 1, "a": 2}'), /duplicate member name "a"/);
  // The same name in two objects, or as a string value, is not a repetition.
  assert.deepEqual(parseStrict('[{"a": 1}, {"a": 2}, {"b": "a", "c": ["a", "a"]}]'), [
    { a: 1 },
    { a: 2 },
    { b: "a", c: ["a", "a"] },
  ]);
  assert.deepEqual(parseStrict('{"s": "a \\" : b", "t": {"s": 1}}'), { s: 'a " : b', t: { s: 1 } });
});

test("the snapshot tag leaves out only the integrity member", () => {
  const doc = { b: 1, a: [1.5e-7], integrity: { alg: "HMAC-SHA256", keyId: "k", mac: "x" } };
  assert.equal(snapshotMac(doc, key), macOf(Buffer.from('{"a":[1.5e-7],"b":1}', "utf8"), key));
});
