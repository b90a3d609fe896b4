/** The frozen snapshot fixtures of spec/examples/Snapshot/valid, read in TypeScript: every stored input digest
 * and the integrity tag of the signed fixture come out as the Python writer computed them. This is the
 * cross-language promise on real documents, beside the focused vectors of canonical.test.ts. */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

import { inputDigest, parseStrict, snapshotMac } from "../src/canonical.ts";

const VALID = new URL("../../../../spec/examples/Snapshot/valid/", import.meta.url);
// The public example key of spec/examples/Snapshot/README.md (tests only).
const KEYS: Record<string, Buffer> = { "roc-examples-2026": Buffer.from("roc-example-key-not-secret", "utf8") };

type Doc = Record<string, any>;

const fixtures = readdirSync(VALID)
  .filter((name) => name.endsWith(".json"))
  .map((name) => ({ name, doc: parseStrict(readFileSync(new URL(name, VALID), "utf8")) as Doc }));

test("there are valid frozen fixtures, one of them signed", () => {
  assert.ok(fixtures.length >= 5);
  assert.ok(fixtures.some(({ doc }) => doc.integrity !== undefined));
  const digests = fixtures.flatMap(({ doc }) => doc.interruptState?.interrupts ?? []).filter((i: Doc) => i.inputDigest);
  assert.ok(digests.length >= 3, "the fixtures carry input digests to check");
});

for (const { name, doc } of fixtures) {
  test(`${name}: every input digest is the digest of its tool use's input`, () => {
    const uses = new Map<string, unknown>();
    for (const block of doc.interruptState?.pendingToolExecution?.assistantMessage?.content ?? []) {
      if (block.toolUse) uses.set(block.toolUse.toolUseId, block.toolUse.input);
    }
    for (const stored of doc.interruptState?.interrupts ?? []) {
      if (stored.inputDigest === undefined) continue;
      assert.ok(uses.has(stored.source.toolUseId), `${stored.id}: no tool use ${stored.source.toolUseId}`);
      assert.equal(stored.inputDigest, inputDigest(uses.get(stored.source.toolUseId)), stored.id);
    }
  });
  if (doc.integrity !== undefined) {
    test(`${name}: the integrity tag verifies`, () => {
      const key = KEYS[doc.integrity.keyId];
      assert.ok(key, `unknown key id ${doc.integrity.keyId}`);
      assert.equal(snapshotMac(doc, key), doc.integrity.mac);
    });
  }
}
