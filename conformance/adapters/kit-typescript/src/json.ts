/** JSON values as the kit passes them around, and JSON equality by canonical text (spec 8.2). */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

import { canonicalText } from "./canonical.ts";

export type { JsonObject, JsonValue };

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * JSON equality as the scenario language means it: `true` is not `1`, `1` and `1.0` are one number, member
 * order does not matter. Two values are equal when their canonical texts are, the same rule the Python kit
 * and the reference runtime apply.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalText(a) === canonicalText(b);
}

/** A deep copy of a JSON value, so a runtime that keeps or changes what it is given cannot alter the script. */
export function copyJson<T>(value: T): T {
  return structuredClone(value);
}
