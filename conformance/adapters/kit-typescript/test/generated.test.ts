/** The committed stubs in src/gen/ are what `buf generate` makes of proto/ now: a .proto change without
 * `npm run generate` fails here, as tests/proto/test_proto_stubs.py does for the Python stubs. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { test } from "node:test";

const KIT = new URL("..", import.meta.url).pathname;

function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return out;
}

test("src/gen is fresh: buf generate gives the committed files, byte for byte", () => {
  const out = mkdtempSync(join(tmpdir(), "roc-kit-gen-"));
  try {
    // buf finds the local protoc-gen-es plugin on PATH, as under `npm run generate`.
    const env = { ...process.env, PATH: `${join(KIT, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };
    execFileSync(join(KIT, "node_modules", ".bin", "buf"), ["generate", "--template", "buf.gen.yaml", "-o", out], { cwd: KIT, env, stdio: "pipe" });
    const fresh = files(join(out, "src", "gen"));
    const committed = files(join(KIT, "src", "gen"));
    assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort(), "file list differs: run npm run generate");
    for (const [name, text] of fresh) assert.equal(committed.get(name), text, `src/gen/${name} is stale: run npm run generate`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
