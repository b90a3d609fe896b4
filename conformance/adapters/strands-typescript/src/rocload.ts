/**
 * The RoC snapshot loader this adapter puts in front of the SDK (spec 8.3, chapter 9): the SDK's own
 * `loadSnapshot` checks only its scope and schema version, so a RoC document is validated here first and
 * an invalid one is refused with the spec's code before the SDK sees it.
 *
 * In the spec's order: a JSON object (the kit's strict parse: repeated member names, numbers beyond a
 * double, lone surrogates), the versions, the shape (spec/schema/v1 with Ajv, draft 2020-12; members a later
 * minor adds are ignored first), then the consistency rules a schema cannot express. No integrity key is
 * configured (profile snapshot-integrity is not claimed), so a tag is ignored (spec 10.3).
 */
import { readFileSync, readdirSync } from "node:fs";
import {
  type JsonObject,
  type JsonValue,
  NotRocJson,
  Refused,
  canonicalBytes,
  inputDigest,
  isJsonObject,
  parseStrict,
} from "@roc-protocol/kit-typescript";
import { Ajv2020 } from "ajv/dist/2020.js";

const SCHEMA_DIR = new URL("../../../../spec/schema/v1/", import.meta.url);
const SNAPSHOT_SCHEMA = "https://roc-protocol.org/schema/v1/snapshot.schema.json";
const VERSION = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;
const TOOL_BOUND = new Set(["tool", "before_tool_call"]);

/** The members format 2.0 defines, at the levels the snapshot schema itself describes (`true`: a value
 * whose inside belongs to another schema, kept whole). */
type Shape = true | { readonly [member: string]: Shape } | readonly [Shape];
const STORED_INTERRUPT: Shape = {
  id: true, name: true, reason: true, source: true, responseSchema: true, metadata: true, expiresAt: true,
  response: true, inputDigest: true,
};
const SHAPE: Shape = {
  schemaVersion: true, specVersion: true, createdAt: true, revision: true,
  agent: { agentId: true, messages: true, state: true },
  interruptState: {
    activated: true,
    interrupts: [STORED_INTERRUPT],
    pendingToolExecution: { assistantMessage: true, completedToolResults: true },
  },
  integrity: { alg: true, keyId: true, mac: true },
};

function invalid(message: string): Refused {
  return new Refused("SNAPSHOT_INVALID", message);
}

let validator: ((doc: unknown) => string | undefined) | undefined;

/** The snapshot schema's validator over every schema of spec/schema/v1 (they refer to each other). */
function validate(doc: unknown): string | undefined {
  if (validator === undefined) {
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    for (const name of readdirSync(SCHEMA_DIR).filter((n) => n.endsWith(".schema.json"))) {
      ajv.addSchema(JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), "utf8")) as object);
    }
    const check = ajv.getSchema(SNAPSHOT_SCHEMA);
    if (check === undefined) throw new Error(`no schema ${SNAPSHOT_SCHEMA} in ${SCHEMA_DIR.pathname}`);
    validator = (value) => {
      if (check(value)) return undefined;
      const first = check.errors?.[0];
      return first === undefined ? "does not match the schema" : `${first.instancePath || "/"} ${first.message ?? ""}`;
    };
  }
  return validator(doc);
}

/** `value` without the object members `shape` does not define. */
function known(value: JsonValue, shape: Shape): JsonValue {
  if (shape === true) return value;
  if (Array.isArray(shape)) return Array.isArray(value) ? value.map((v) => known(v, shape[0] as Shape)) : value;
  if (!isJsonObject(value)) return value;
  const fields = shape as { readonly [member: string]: Shape };
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => k in fields).map(([k, v]) => [k, known(v, fields[k] as Shape)]),
  );
}

/** The minor of a readable document; refuses an unreadable one (ROC-VER-004/005/006). */
function checkVersions(doc: JsonObject): number {
  const version = doc["schemaVersion"];
  const match = typeof version === "string" ? VERSION.exec(version) : null;
  if (match === null) throw invalid("schemaVersion must be a '<major>.<minor>' string");
  if (match[1] !== "2") {
    throw new Refused("SNAPSHOT_VERSION_UNSUPPORTED", `snapshot schemaVersion ${String(version)} is not readable (major 2 only)`, {
      schemaVersion: String(version),
    });
  }
  const spec = doc["specVersion"];
  const specMatch = typeof spec === "string" ? VERSION.exec(spec) : null;
  if (specMatch !== null && specMatch[1] !== "1") {
    throw new Refused("SNAPSHOT_VERSION_UNSUPPORTED", `snapshot written for spec ${String(spec)}; this adapter reads 1.x`, {
      specVersion: String(spec),
    });
  }
  const minor = match[2] ?? "0";
  return minor.length > 9 ? Number.MAX_SAFE_INTEGER : Number(minor);
}

// Spec 10.6: a whole snapshot at most 128 deep, each carried value at most 64 deep, a reason or a stored
// answer at most 256 KiB in canonical form.
const MAX_DOCUMENT_DEPTH = 128;
const MAX_VALUE_DEPTH = 64;
const MAX_VALUE_BYTES = 262_144;

/** The depth of a JSON value (a scalar 0, a container one more than its deepest member), without
 * recursion, so no nesting can overflow the stack; stops counting past `limit`. */
function depth(value: JsonValue, limit: number): number {
  let deepest = 0;
  const stack: [JsonValue, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, level] = stack.pop() as [JsonValue, number];
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, level + 1);
    if (deepest > limit) return deepest;
    for (const member of Array.isArray(item) ? item : Object.values(item)) stack.push([member, level + 1]);
  }
  return deepest;
}

function checkValue(value: JsonValue | undefined, what: string, sized = false): void {
  if (value === undefined) return;
  if (depth(value, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH) throw invalid(`${what} is nested deeper than ${MAX_VALUE_DEPTH}`);
  if (sized && canonicalBytes(value).length > MAX_VALUE_BYTES) throw invalid(`${what} is larger than ${MAX_VALUE_BYTES} bytes`);
}

const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-]([0-9]{2}):([0-9]{2}))$/;

/** RFC 3339 date-time with a time zone and in-range fields (ROC-SEC-015). */
function isDateTime(text: unknown): boolean {
  const m = typeof text === "string" ? DATE_TIME.exec(text) : null;
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const zoneOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return days !== undefined && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 60 && zoneOk;
}

/** Every value the snapshot carries within the limits of a JSON value; the dates in range. */
function checkLimits(doc: JsonObject): void {
  if (!isDateTime(doc["createdAt"])) throw invalid("createdAt is not an RFC 3339 date-time");
  const agent = doc["agent"] as JsonObject;
  for (const [key, value] of Object.entries(agent["state"] as JsonObject)) checkValue(value, `state value ${JSON.stringify(key)}`);
  const state = doc["interruptState"] as JsonObject;
  const pending = state["pendingToolExecution"];
  const messages = [...(agent["messages"] as JsonValue[]), ...(isJsonObject(pending) ? [pending["assistantMessage"] as JsonValue] : [])];
  const results = isJsonObject(pending) ? [...(pending["completedToolResults"] as JsonObject[])] : [];
  for (const message of messages) {
    checkValue((message as JsonObject)["metadata"], "message metadata");
    for (const use of blocks(message, "toolUse")) checkValue(use["input"], "a tool input");
    results.push(...blocks(message, "toolResult"));
  }
  for (const result of results) {
    for (const block of Array.isArray(result["content"]) ? result["content"] : []) {
      if (isJsonObject(block)) checkValue(block["json"], "json result content");
    }
  }
  for (const interrupt of state["interrupts"] as JsonObject[]) {
    checkValue(interrupt["reason"], "a reason", true);
    checkValue(interrupt["response"], "a stored response", true);
    checkValue(interrupt["metadata"], "interrupt metadata", true);
    checkValue(interrupt["responseSchema"], "a responseSchema");
    if ("expiresAt" in interrupt && !isDateTime(interrupt["expiresAt"])) throw invalid("expiresAt is not an RFC 3339 date-time");
  }
}

function blocks(message: JsonValue, kind: "toolUse" | "toolResult"): JsonObject[] {
  const content = isJsonObject(message) && Array.isArray(message["content"]) ? message["content"] : [];
  return content.flatMap((b) => (isJsonObject(b) && isJsonObject(b[kind]) ? [b[kind] as JsonObject] : []));
}

function ids(items: readonly JsonObject[]): string[] {
  return items.map((i) => String(i["toolUseId"]));
}

/** The rules of spec 8.3 a schema cannot express (ROC-SNAP-010 to 014). */
function checkConsistency(doc: JsonObject): void {
  const messages = (doc["agent"] as JsonObject)["messages"] as JsonValue[];
  messages.forEach((message, index) => {
    const role = (message as JsonObject)["role"];
    if (blocks(message, "toolUse").length > 0 && role === "user") throw invalid(`user message ${index} holds toolUse blocks`);
    if (blocks(message, "toolResult").length > 0 && role === "assistant") {
      throw invalid(`assistant message ${index} holds toolResult blocks`);
    }
    const uses = new Set(ids(blocks(message, "toolUse")));
    if (uses.size > 0) {
      const next = messages[index + 1];
      const answered = new Set(next === undefined ? [] : ids(blocks(next, "toolResult")));
      const complete = next !== undefined && (next as JsonObject)["role"] === "user" &&
        answered.size === uses.size && [...uses].every((u) => answered.has(u));
      if (!complete) throw invalid(`toolUse without toolResult after message ${index}`);
    }
    const results = ids(blocks(message, "toolResult"));
    if (results.length > 0) {
      const asked = new Set(index > 0 ? ids(blocks(messages[index - 1] as JsonValue, "toolUse")) : []);
      if (!results.every((r) => asked.has(r))) throw invalid(`toolResult without toolUse in message ${index}`);
    }
  });
  const state = doc["interruptState"] as JsonObject;
  const interrupts = state["interrupts"] as JsonObject[];
  const pending = state["pendingToolExecution"];
  const activated = state["activated"] === true;
  if (activated !== interrupts.length > 0) throw invalid("activated must be true exactly when interrupts are stored");
  if (activated && !isJsonObject(pending)) throw invalid("an activated agent needs its pendingToolExecution");
  if (!activated && isJsonObject(pending)) throw invalid("pendingToolExecution without activation");
  if (activated && interrupts.every((i) => "response" in i)) throw invalid("activated but no interrupt is unanswered");
  const interruptIds = interrupts.map((i) => String(i["id"]));
  if (new Set(interruptIds).size !== interruptIds.length) throw invalid("interrupt ids are not distinct");
  const points = interrupts.map((i) => {
    const source = i["source"] as JsonObject;
    return JSON.stringify([source["kind"], source["toolUseId"] ?? null, i["name"]]);
  });
  if (new Set(points).size !== points.length) throw invalid("two interrupts share one raise point");
  if (!isJsonObject(pending)) return;
  const uses = blocks(pending["assistantMessage"] as JsonValue, "toolUse");
  const byId = new Map(uses.map((u) => [String(u["toolUseId"]), u]));
  if (byId.size !== uses.length) throw invalid("toolUseIds of the pending message are not distinct");
  const done = ids(pending["completedToolResults"] as JsonObject[]);
  if (new Set(done).size !== done.length || !done.every((d) => byId.has(d))) {
    throw invalid("completedToolResults must name distinct tool uses of the pending message");
  }
  for (const interrupt of interrupts) {
    const source = interrupt["source"] as JsonObject;
    const kind = String(source["kind"]);
    if (kind === "before_tools") {
      if ("toolUseId" in source || "toolName" in source) throw invalid("a before_tools interrupt names no tool");
      continue;
    }
    if (!TOOL_BOUND.has(kind)) throw invalid(`interrupt source kind ${JSON.stringify(kind)} is not supported here`);
    const use = byId.get(String(source["toolUseId"]));
    const id = JSON.stringify(interrupt["id"]);
    if (use === undefined) throw invalid(`interrupt ${id} refers to no tool use of the pending message`);
    if ("toolName" in source && source["toolName"] !== use["name"]) throw invalid(`interrupt ${id} names another tool`);
    if (!("response" in interrupt) && done.includes(String(use["toolUseId"]))) {
      throw invalid(`unanswered interrupt ${id} on a tool use that already completed`);
    }
    if (!("inputDigest" in interrupt)) throw invalid(`tool-bound interrupt ${id} lacks inputDigest`);
    if (interrupt["inputDigest"] !== inputDigest(use["input"] ?? null)) {
      throw invalid(`inputDigest of interrupt ${id} does not match its tool input`);
    }
  }
}

/** A RoC snapshot text validated completely, for the agent `agentId`; throws Refused with the spec's code. */
export function loadRoc(text: string, agentId: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = parseStrict(text);
  } catch (thrown) {
    // Also a stack overflow of a hostile nesting depth: refused as not readable, like any malformed text.
    if (thrown instanceof NotRocJson || thrown instanceof RangeError) throw invalid(`not a RoC JSON text: ${thrown.message}`);
    throw thrown;
  }
  if (!isJsonObject(parsed)) throw invalid("a snapshot is a JSON object");
  if (depth(parsed, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw invalid(`a snapshot is at most ${MAX_DOCUMENT_DEPTH} deep`);
  let doc: JsonObject = parsed;
  if (checkVersions(doc) > 0) doc = known(doc, SHAPE) as JsonObject; // ROC-VER-007
  const problem = validate(doc);
  if (problem !== undefined) throw invalid(`malformed snapshot: ${problem}`);
  checkLimits(doc);
  checkConsistency(doc);
  const agent = doc["agent"] as JsonObject;
  if (agent["agentId"] !== agentId) {
    throw invalid(`snapshot holds agent ${JSON.stringify(agent["agentId"])}, not ${JSON.stringify(agentId)}`);
  }
  return doc;
}
