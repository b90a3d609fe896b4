/**
 * The canonical form of RoC (spec/08-sessions.md, section 8.2): RFC 8785, the JSON Canonicalization Scheme,
 * with RoC's decisions: numbers are IEEE 754 doubles (what JSON.parse gives), a JSON text that repeats a
 * member name is not RoC JSON, and text is well-formed Unicode. Input digests and integrity tags are computed
 * from the canonical UTF-8 bytes. The serialization itself is the maintained npm package `canonicalize`.
 */
import { createHash, createHmac } from "node:crypto";

import canonicalize from "canonicalize";

/** A JSON text or value that RoC does not accept: it has no canonical form. */
export class NotRocJson extends Error {
  override name = "NotRocJson";
}

/** JSON's four whitespace characters (RFC 8259): the only ones between a member name and its colon. */
const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/**
 * The first member name repeated within one object of `text`, or undefined. `text` must already be valid
 * JSON: then a string token is a member name exactly when it stands inside an object and a colon follows it.
 * JSON.parse cannot be asked this: it keeps the last of two repeated members silently, and a reviver sees
 * only the surviving one.
 */
function repeatedName(text: string): string | undefined {
  const scopes: (Set<string> | null)[] = []; // one per open container: the names seen, null for an array
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1; // an escape never ends the string
      const token = text.slice(i, end + 1);
      i = end + 1;
      let next = i;
      while (next < text.length && WHITESPACE.has(text[next] ?? "")) next++;
      const names = scopes.at(-1);
      if (names && text[next] === ":") {
        const name = JSON.parse(token) as string; // decoded, so "a" and "\u0061" are one name
        if (names.has(name)) return name;
        names.add(name);
      }
      continue;
    }
    if (char === "{") scopes.push(new Set());
    else if (char === "[") scopes.push(null);
    else if (char === "}" || char === "]") scopes.pop();
    i++;
  }
  return undefined;
}

/** A lone surrogate has no UTF-8 encoding, so a string holding one is not RoC text. */
function wellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function checkValue(value: unknown, path: string): void {
  if (typeof value === "number") {
    // JSON.parse turns 1e400 into Infinity: too large for a double, so not a number RoC carries.
    if (!Number.isFinite(value)) throw new NotRocJson(`${path}: number beyond the range of a double`);
  } else if (typeof value === "string") {
    if (!wellFormed(value)) throw new NotRocJson(`${path}: string holds a lone surrogate`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => checkValue(item, `${path}[${index}]`));
  } else if (value !== null && typeof value === "object") {
    for (const [name, member] of Object.entries(value)) {
      if (!wellFormed(name)) throw new NotRocJson(`${path}: member name holds a lone surrogate`);
      checkValue(member, `${path}.${name}`);
    }
  }
}

/** Parse a JSON text as a RoC reader does: repeated member names, numbers beyond a double and lone
 * surrogates are refused with NotRocJson, as is anything that is not JSON. */
export function parseStrict(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new NotRocJson(`not a JSON text: ${(error as Error).message}`);
  }
  const repeated = repeatedName(text);
  if (repeated !== undefined) throw new NotRocJson(`duplicate member name ${JSON.stringify(repeated)}`);
  checkValue(value, "$");
  return value;
}

/** The canonical form of a JSON value, as text (RFC 8785). */
export function canonicalText(value: unknown): string {
  checkValue(value, "$");
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw new NotRocJson(`no canonical form: ${(error as Error).message}`);
  }
  if (text === undefined) throw new NotRocJson("no canonical form: not a JSON value");
  return text;
}

/** The canonical form of a JSON value: the UTF-8 bytes of its canonical text. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalText(value), "utf8");
}

/** `sha256:` and the lowercase hex SHA-256 of the canonical form of a tool input (spec 8.2). */
export function inputDigest(toolInput: unknown): string {
  return "sha256:" + createHash("sha256").update(canonicalBytes(toolInput)).digest("hex");
}

/** HMAC-SHA256 of canonical bytes under `key`, base64url without padding (the form of `integrity.mac`). */
export function macOf(canonical: Uint8Array, key: Uint8Array): string {
  return createHmac("sha256", key).update(canonical).digest("base64url");
}

/** The integrity tag of a snapshot: the MAC of the canonical form of the document without `integrity`
 * (spec 10.3). */
export function snapshotMac(doc: Record<string, unknown>, key: Uint8Array): string {
  const body = Object.fromEntries(Object.entries(doc).filter(([name]) => name !== "integrity"));
  return macOf(canonicalBytes(body), key);
}
