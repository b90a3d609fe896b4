/**
 * Response schemas (spec chapter 14, profile response-schema) for a TypeScript runtime: the portable-subset
 * check of a raise and the normalized errors of an answer, over ajv (draft 2020-12, allErrors). The Python
 * reference computes the same verdicts and error sets over `jsonschema`; spec/examples/response-schema/
 * vectors.json pins both (test/response-schema.test.ts).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";

export const DIALECT = "https://json-schema.org/draft/2020-12/schema";

const TYPE_NAMES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
const COUNTS = new Set(["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]);
const BOUNDS = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
/** The keywords whose failure is an error of the normalized set (ROC-SCHEMA-005). */
export const ASSERTIONS = new Set([
  "type", "enum", "const", "required", "additionalProperties", "uniqueItems", ...COUNTS, ...BOUNDS,
]);
/** Every keyword of the portable subset (ROC-SCHEMA-002). */
export const KEYWORDS = new Set([
  "$schema", "properties", "items", "title", "description", "default", "examples", ...ASSERTIONS,
]);

/** One normalized error: the JSON Pointer of the instance location and the failing keyword. */
export interface SchemaError {
  path: string;
  keyword: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Why `schema` is not a response schema of the portable subset (ROC-SCHEMA-002), or null. */
export function subsetProblem(schema: unknown): string | null {
  if (!isObject(schema)) return "a response schema is a JSON object";
  if ("$schema" in schema && schema["$schema"] !== DIALECT) return `$schema must be ${DIALECT}`;
  return schemaProblem(schema, "");
}

function schemaProblem(schema: unknown, at: string): string | null {
  const where = at === "" ? "the root" : at;
  if (!isObject(schema)) return `the schema at ${where} is not an object`;
  for (const [keyword, value] of Object.entries(schema)) {
    if (!KEYWORDS.has(keyword) || (keyword === "$schema" && at !== "")) {
      return `keyword ${keyword} at ${where} is outside the portable subset`;
    }
    const problem = keywordProblem(keyword, value, at);
    if (problem !== null) return `${keyword} at ${where}: ${problem}`;
  }
  return null;
}

function keywordProblem(keyword: string, value: unknown, at: string): string | null {
  switch (keyword) {
    case "title":
    case "description":
      return typeof value === "string" ? null : "must be a string";
    case "examples":
      return Array.isArray(value) ? null : "must be an array";
    case "type": {
      const names: unknown[] = Array.isArray(value) ? value : [value];
      const ok =
        names.length > 0 &&
        new Set(names).size === names.length &&
        names.every((n) => typeof n === "string" && TYPE_NAMES.has(n));
      return ok ? null : "must be a type name or a non-empty array of unique type names";
    }
    case "enum":
      return Array.isArray(value) && value.length > 0 ? null : "must be a non-empty array";
    case "required":
      return Array.isArray(value) &&
        value.every((n) => typeof n === "string") &&
        new Set(value).size === value.length
        ? null
        : "must be an array of unique strings";
    case "properties": {
      if (!isObject(value)) return "must be an object of schemas";
      for (const [name, sub] of Object.entries(value)) {
        const problem = schemaProblem(sub, `${at}/properties/${escape(name)}`);
        if (problem !== null) return problem;
      }
      return null;
    }
    case "additionalProperties":
      return typeof value === "boolean" ? null : schemaProblem(value, `${at}/additionalProperties`);
    case "items":
      return schemaProblem(value, `${at}/items`);
    case "uniqueItems":
      return typeof value === "boolean" ? null : "must be a boolean";
    default:
      if (COUNTS.has(keyword)) {
        return isNumber(value) && value >= 0 && Number.isInteger(value) ? null : "must be a non-negative integer";
      }
      if (BOUNDS.has(keyword)) return isNumber(value) ? null : "must be a finite number";
      return null; // const, default, $schema (checked at the root)
  }
}

/** One reference token of an RFC 6901 JSON Pointer. */
export function escape(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

// JavaScript compares strings by UTF-16 code units, the order ROC-SCHEMA-005 sorts by.
const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The normalized errors of `value` against a subset schema (ROC-SCHEMA-005), sorted by path then keyword in
 * UTF-16 code units; [] when the answer is valid.
 */
export function answerErrors(schema: Record<string, unknown>, value: unknown): SchemaError[] {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  const found = new Map<string, SchemaError>();
  for (const error of (validate.errors ?? []) as ErrorObject[]) {
    let path = error.instancePath;
    if (!ASSERTIONS.has(error.keyword)) continue;
    if (error.keyword === "required") {
      path += `/${escape(String(error.params["missingProperty"]))}`;
    } else if (error.keyword === "additionalProperties") {
      path += `/${escape(String(error.params["additionalProperty"]))}`;
    }
    found.set(JSON.stringify([path, error.keyword]), { path, keyword: error.keyword });
  }
  return [...found.values()].sort((a, b) => byUnits(a.path, b.path) || byUnits(a.keyword, b.keyword));
}
