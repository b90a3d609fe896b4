/**
 * The JSON <-> protobuf binding of RoC (spec/02-data-model.md, section 2.7) for the TypeScript stubs in
 * src/gen/: the same rules as the suite's Python mapping (conformance/roc_conformance/pb/jsonmap.py), so a
 * TypeScript adapter and the suite agree on every JSON form.
 *
 * 1. Enums drop their prefix: lower snake case ("end_turn"), upper snake case for ErrorCode
 *    ("INTERRUPT_PENDING"), PascalCase for HookEvent ("BeforeToolCall"); the zero value has no JSON form.
 * 2. Every member is written, except fields with presence (optional scalars, messages, oneof arms).
 * 3. interruptState.pendingToolExecution is required and nullable: null is the unset field.
 * 4. ResumeInput is a bare array wherever it appears.
 * 5. Numbers inside Struct/Value are doubles: non-finite numbers and integral values beyond +-(2**53 - 1)
 *    are refused (JSON.parse has already rounded such an integer, so it cannot be carried exactly).
 * 6. A trace event is flat: {"kind": "<oneof arm>", ...the arm's members}.
 * 7. AgentSpec.tools and AgentSpec.hooks are omitted when empty.
 * 8. Interrupt.reason/response, InterruptResponse.response (and the inspected copies) are never null.
 * Strings with a lone surrogate have no proto form (spec 2.7, rule 6) and are refused.
 *
 * Every refusal throws JsonMappingError.
 */
import {
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Message,
  type Registry,
  createRegistry,
  fromJson,
  toJson,
} from "@bufbuild/protobuf";

import { file_roc_conformance_v1_harness } from "./gen/roc/conformance/v1/harness_pb.ts";
import { file_roc_v1_abandon } from "./gen/roc/v1/abandon_pb.ts";
import { file_roc_v1_agent_result } from "./gen/roc/v1/agent_result_pb.ts";
import { file_roc_v1_error } from "./gen/roc/v1/error_pb.ts";
import { file_roc_v1_interrupt } from "./gen/roc/v1/interrupt_pb.ts";
import { file_roc_v1_message } from "./gen/roc/v1/message_pb.ts";
import { file_roc_v1_pending } from "./gen/roc/v1/pending_pb.ts";
import { file_roc_v1_resume } from "./gen/roc/v1/resume_pb.ts";
import { file_roc_v1_snapshot } from "./gen/roc/v1/snapshot_pb.ts";

/** A document or message that has no counterpart under the mapping. */
export class JsonMappingError extends Error {
  override name = "JsonMappingError";
}

/** Largest integer a double holds exactly together with all smaller ones (I-JSON, RFC 7493). */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

type EnumStyle = "snake" | "upper" | "pascal";

const ENUM_STYLES: Readonly<Record<string, EnumStyle>> = {
  "roc.v1.ErrorCode": "upper",
  "roc.conformance.v1.HookEvent": "pascal",
};

/** JSON type names (schema titles) -> proto full names; any other name is taken as a full name. */
export const JSON_TYPES: Readonly<Record<string, string>> = {
  Interrupt: "roc.v1.Interrupt",
  StoredInterrupt: "roc.v1.Interrupt",
  InterruptSource: "roc.v1.InterruptSource",
  InterruptResponse: "roc.v1.InterruptResponse",
  InterruptResponseContent: "roc.v1.InterruptResponseContent",
  ResumeInput: "roc.v1.ResumeInput",
  ContentBlock: "roc.v1.ContentBlock",
  ToolUse: "roc.v1.ToolUse",
  ToolResult: "roc.v1.ToolResult",
  Message: "roc.v1.Message",
  AgentResult: "roc.v1.AgentResult",
  Error: "roc.v1.Error",
  Snapshot: "roc.v1.Snapshot",
  SnapshotAgent: "roc.v1.SnapshotAgent",
  InterruptState: "roc.v1.InterruptState",
  PendingToolExecution: "roc.v1.PendingToolExecution",
  SnapshotIntegrity: "roc.v1.Integrity",
  // Spec 1.1.
  ExpiryOutcome: "roc.v1.ExpiryOutcome",
  PendingInterrupt: "roc.v1.PendingInterrupt",
  PendingAnswer: "roc.v1.PendingAnswer",
  AbandonInput: "roc.v1.AbandonInput",
  Abandon: "roc.v1.Abandon",
  ConsumedDecision: "roc.v1.ConsumedDecision",
  AgentSpec: "roc.conformance.v1.AgentSpec",
  TraceEvent: "roc.conformance.v1.TraceEvent",
};

const NULLABLE = new Set(["roc.v1.InterruptState.pending_tool_execution"]);
const NEVER_NULL = new Set([
  "roc.v1.Interrupt.reason",
  "roc.v1.Interrupt.response",
  "roc.v1.InterruptResponse.response",
  "roc.v1.PendingInterrupt.reason",
  "roc.v1.PendingAnswer.response",
  "roc.conformance.v1.InspectedInterrupt.reason",
  "roc.conformance.v1.InspectedInterrupt.response",
]);
const ARRAY_WRAPPERS: Readonly<Record<string, string>> = { "roc.v1.ResumeInput": "responses" };
const FLATTENED_ONEOFS: Readonly<Record<string, string>> = { "roc.conformance.v1.TraceEvent": "kind" };
// Rule 7: optional JSON arrays (and maps), omitted when empty (interruptState.consumed: a 2.0 snapshot has
// none; interruptState.children, format 2.2; a trace event's agentPath and an OrchestratorSpec's edges and
// hooks, harness protocol 5; an AgentSpec's builtinTools and approval, an ApprovalPolicy's decisions and a
// QuestionAnswer's selected, harness protocol 6).
const OMIT_WHEN_EMPTY = new Set([
  "roc.conformance.v1.AgentSpec.tools",
  "roc.conformance.v1.AgentSpec.hooks",
  "roc.v1.InterruptState.consumed",
  "roc.v1.InterruptState.children",
  "roc.conformance.v1.TraceEvent.agent_path",
  "roc.conformance.v1.OrchestratorSpec.edges", // harness protocol 5: a swarm has none
  "roc.conformance.v1.OrchestratorSpec.hooks",
  "roc.conformance.v1.AgentSpec.builtin_tools",
  "roc.conformance.v1.AgentSpec.approval",
  "roc.conformance.v1.ApprovalPolicy.decisions",
  "roc.v1.QuestionAnswer.selected",
]);
const JSON_VALUE_TYPES = new Set(["google.protobuf.Value", "google.protobuf.Struct", "google.protobuf.ListValue"]);

/** Every RoC and harness type. A registry holds the types of the files it is given, not of their imports,
 * so each file is listed (a new .proto file is added here). */
export const registry: Registry = createRegistry(
  file_roc_conformance_v1_harness,
  file_roc_v1_abandon,
  file_roc_v1_agent_result,
  file_roc_v1_error,
  file_roc_v1_interrupt,
  file_roc_v1_message,
  file_roc_v1_pending,
  file_roc_v1_resume,
  file_roc_v1_snapshot,
);

type JsonObject = { [key: string]: JsonValue };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function key(message: DescMessage, field: DescField): string {
  return `${message.typeName}.${field.name}`;
}

// --- enums -------------------------------------------------------------------------------------------

function enumPrefix(descEnum: DescEnum): string {
  return descEnum.name.replace(/(?<=[a-z0-9])(?=[A-Z])/g, "_").toUpperCase() + "_";
}

function spelling(suffix: string, style: EnumStyle): string {
  if (style === "upper") return suffix;
  if (style === "pascal") {
    return suffix
      .split("_")
      .map((word) => word.charAt(0) + word.slice(1).toLowerCase())
      .join("");
  }
  return suffix.toLowerCase();
}

const enumTables = new Map<string, { toNumber: Map<string, number>; toJson: Map<number, string> }>();

function enumTable(descEnum: DescEnum): { toNumber: Map<string, number>; toJson: Map<number, string> } {
  let table = enumTables.get(descEnum.typeName);
  if (table === undefined) {
    const prefix = enumPrefix(descEnum);
    const style = ENUM_STYLES[descEnum.typeName] ?? "snake";
    table = { toNumber: new Map(), toJson: new Map() };
    for (const value of descEnum.values) {
      if (value.number === 0) continue;
      if (!value.name.startsWith(prefix)) {
        throw new JsonMappingError(`${descEnum.typeName}.${value.name} lacks the prefix ${prefix}`);
      }
      const text = spelling(value.name.slice(prefix.length), style);
      table.toNumber.set(text, value.number);
      table.toJson.set(value.number, text);
    }
    enumTables.set(descEnum.typeName, table);
  }
  return table;
}

function lookupEnum(enumName: string): DescEnum {
  const descEnum = registry.getEnum(enumName);
  if (descEnum === undefined) throw new JsonMappingError(`unknown enum ${JSON.stringify(enumName)}`);
  return descEnum;
}

/** The number of the enum value JSON spells `value`, e.g. ("roc.v1.StopReason", "end_turn") -> 1. */
export function enumToProto(enumName: string, value: unknown): number {
  return enumNumber(lookupEnum(enumName), value);
}

/** The JSON spelling of an enum value, e.g. ("roc.v1.StopReason", 1) -> "end_turn". */
export function enumToJson(enumName: string, number: number): string {
  return enumText(lookupEnum(enumName), number);
}

function enumNumber(descEnum: DescEnum, value: unknown): number {
  const { toNumber } = enumTable(descEnum);
  const number = typeof value === "string" ? toNumber.get(value) : undefined;
  if (number === undefined) {
    const known = [...toNumber.keys()].sort().join(", ");
    throw new JsonMappingError(`${JSON.stringify(value)} is not a JSON value of ${descEnum.typeName} (one of ${known})`);
  }
  return number;
}

function enumText(descEnum: DescEnum, number: number): string {
  const text = enumTable(descEnum).toJson.get(number);
  if (text === undefined) throw new JsonMappingError(`${descEnum.typeName} value ${number} has no JSON form`);
  return text;
}

// --- message types -----------------------------------------------------------------------------------

/** The message descriptor for a JSON type name (JSON_TYPES) or a proto full name. */
export function messageSchema(typeName: string): DescMessage {
  const schema = registry.getMessage(JSON_TYPES[typeName] ?? typeName);
  if (schema === undefined) throw new JsonMappingError(`unknown type ${JSON.stringify(typeName)}`);
  return schema;
}

function fieldsByJsonName(message: DescMessage): Map<string, DescField> {
  return new Map(message.fields.map((field) => [field.jsonName, field]));
}

// --- JSON -> proto -----------------------------------------------------------------------------------

/** The proto message of `typeName` for a RoC JSON document (as JSON.parse returns it). */
export function toProto<T extends Message = Message>(typeName: string, doc: unknown): T {
  const schema = messageSchema(typeName);
  const prepared = prepareMessage(schema, doc, typeName);
  try {
    return fromJson(schema, prepared) as unknown as T;
  } catch (error) {
    throw new JsonMappingError(`${typeName}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function prepareMessage(message: DescMessage, doc: unknown, path: string): JsonObject {
  const wrapped = ARRAY_WRAPPERS[message.typeName];
  if (wrapped !== undefined) {
    // rule 4: the bare array is the message's one repeated field
    if (!Array.isArray(doc)) throw new JsonMappingError(`${path}: ${message.name} is a JSON array, got ${typeOf(doc)}`);
    const field = message.fields.find((f) => f.name === wrapped);
    doc = { [field?.jsonName ?? wrapped]: doc };
  }
  if (!isObject(doc)) throw new JsonMappingError(`${path}: expected an object, got ${typeOf(doc)}`);
  const discriminator = FLATTENED_ONEOFS[message.typeName];
  if (discriminator !== undefined) return prepareFlattened(message, discriminator, doc, path);
  const fields = fieldsByJsonName(message);
  const prepared: JsonObject = {};
  for (const [name, value] of Object.entries(doc)) {
    const field = fields.get(name);
    if (field === undefined) {
      throw new JsonMappingError(`${path}: unknown member ${JSON.stringify(name)} (members: ${[...fields.keys()].sort().join(", ")})`);
    }
    const where = `${path}.${name}`;
    if (value === null && NEVER_NULL.has(key(message, field))) {
      throw new JsonMappingError(`${where}: null is not allowed (spec 2.7: leave the member out)`);
    }
    if (value === null && field.fieldKind === "message" && !JSON_VALUE_TYPES.has(field.message.typeName)) {
      if (!NULLABLE.has(key(message, field))) throw new JsonMappingError(`${where}: null is not allowed`);
      continue; // rule 3: null is the unset message field
    }
    prepared[name] = prepareField(field, value, where);
  }
  return prepared;
}

function prepareFlattened(message: DescMessage, discriminator: string, doc: JsonObject, path: string): JsonObject {
  const { [discriminator]: kind, ...rest } = doc;
  const arm = typeof kind === "string" ? message.fields.find((f) => f.name === kind) : undefined;
  if (arm === undefined || arm.fieldKind !== "message" || arm.oneof === undefined) {
    throw new JsonMappingError(`${path}: ${discriminator} ${JSON.stringify(kind)} is not one of ${armNames(message).join(", ")}`);
  }
  // Members outside the oneof (a trace event's agentPath) stay beside the arm.
  const outer: JsonObject = {};
  for (const field of message.fields) {
    const value = rest[field.jsonName];
    if (field.oneof === undefined && value !== undefined) {
      outer[field.jsonName] = prepareField(field, value, `${path}.${field.jsonName}`);
      delete rest[field.jsonName];
    }
  }
  return { [arm.jsonName]: prepareMessage(arm.message, rest, `${path}(${String(kind)})`), ...outer };
}

function armNames(message: DescMessage): string[] {
  return message.fields.filter((f) => f.oneof !== undefined).map((f) => f.name).sort();
}

function prepareField(field: DescField, value: JsonValue, path: string): JsonValue {
  if (field.fieldKind === "map") {
    if (!isObject(value)) throw new JsonMappingError(`${path}: expected an object`);
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      checkText(k, `${path} key`);
      out[k] = prepareSingle(field.mapKind === "enum" ? field.enum : field.mapKind === "message" ? field.message : undefined, v, `${path}.${k}`);
    }
    return out;
  }
  if (field.fieldKind === "list") {
    if (!Array.isArray(value)) throw new JsonMappingError(`${path}: expected an array, got ${typeOf(value)}`);
    const item = field.listKind === "enum" ? field.enum : field.listKind === "message" ? field.message : undefined;
    return value.map((v, i) => prepareSingle(item, v, `${path}[${i}]`));
  }
  return prepareSingle(field.fieldKind === "enum" ? field.enum : field.fieldKind === "message" ? field.message : undefined, value, path);
}

function prepareSingle(type: DescEnum | DescMessage | undefined, value: JsonValue, path: string): JsonValue {
  if (type === undefined) {
    if (typeof value === "string") checkText(value, path);
    return value;
  }
  if (type.kind === "enum") {
    const number = enumNumber(type, value);
    return type.values.find((v) => v.number === number)?.name ?? number;
  }
  if (JSON_VALUE_TYPES.has(type.typeName)) {
    checkJsonValue(value, path);
    return value;
  }
  return prepareMessage(type, value, path);
}

/** Rule 5 and strings: refuse what a double or a proto string cannot carry exactly. */
function checkJsonValue(value: unknown, path: string): void {
  if (value === null || typeof value === "boolean") return;
  if (typeof value === "string") {
    checkText(value, path);
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new JsonMappingError(`${path}: ${value} is not a JSON number`);
    if (Number.isInteger(value) && Math.abs(value) > MAX_SAFE_INTEGER) {
      throw new JsonMappingError(`${path}: integer ${value} is outside +-(2**53 - 1)`);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkJsonValue(item, `${path}[${i}]`));
  } else if (isObject(value)) {
    for (const [k, item] of Object.entries(value)) {
      checkText(k, `${path} key`);
      checkJsonValue(item, `${path}.${k}`);
    }
  } else {
    throw new JsonMappingError(`${path}: ${typeOf(value)} is not a JSON value`);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkText(text: string, path: string): void {
  if (LONE_SURROGATE.test(text)) throw new JsonMappingError(`${path}: a string with a lone surrogate has no proto form`);
}

// --- proto -> JSON -----------------------------------------------------------------------------------

/** The RoC JSON document of a proto message (an array for bare-array types). */
export function fromProto(message: Message): JsonValue {
  const schema = messageSchema(message.$typeName);
  let raw: JsonValue;
  try {
    raw = toJson(schema, message as never, { alwaysEmitImplicit: true });
  } catch (error) {
    throw new JsonMappingError(`${schema.typeName}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (JSON_VALUE_TYPES.has(schema.typeName)) return raw;
  if (!isObject(raw)) throw new JsonMappingError(`${schema.typeName}: ProtoJSON gave ${typeOf(raw)}`);
  return restoreMessage(schema, raw, schema.name);
}

function restoreMessage(message: DescMessage, raw: JsonObject, path: string): JsonValue {
  const wrapped = ARRAY_WRAPPERS[message.typeName];
  if (wrapped !== undefined) {
    const field = message.fields.find((f) => f.name === wrapped);
    if (field === undefined) throw new JsonMappingError(`${path}: no field ${wrapped}`);
    return restoreField(field, raw[field.jsonName] ?? [], `${path}.${field.jsonName}`);
  }
  const fields = fieldsByJsonName(message);
  const doc: JsonObject = {};
  for (const [name, value] of Object.entries(raw)) {
    const field = fields.get(name);
    if (field === undefined) throw new JsonMappingError(`${path}: ProtoJSON wrote unknown member ${name}`);
    const restored = restoreField(field, value, `${path}.${name}`);
    if (restored === null && NEVER_NULL.has(key(message, field))) {
      throw new JsonMappingError(`${path}.${name}: a Value holding null_value has no JSON form (spec 2.7)`);
    }
    doc[name] = restored;
  }
  for (const field of message.fields) {
    if (NULLABLE.has(key(message, field)) && !(field.jsonName in doc)) doc[field.jsonName] = null;
    const value = doc[field.jsonName];
    const empty = Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
    if (OMIT_WHEN_EMPTY.has(key(message, field)) && empty) {
      delete doc[field.jsonName];
    }
  }
  const discriminator = FLATTENED_ONEOFS[message.typeName];
  if (discriminator !== undefined) {
    const entries = Object.entries(doc).filter(([name]) => fields.get(name)?.oneof !== undefined);
    const only = entries[0];
    if (entries.length !== 1 || only === undefined) {
      throw new JsonMappingError(`${path}: exactly one of ${armNames(message).join(", ")} must be set`);
    }
    const [armJsonName, members] = only;
    const arm = fields.get(armJsonName);
    if (arm === undefined || !isObject(members)) throw new JsonMappingError(`${path}: bad arm ${armJsonName}`);
    const beside = Object.fromEntries(Object.entries(doc).filter(([name]) => name !== armJsonName));
    return { [discriminator]: arm.name, ...members, ...beside };
  }
  return doc;
}

function restoreField(field: DescField, value: JsonValue, path: string): JsonValue {
  if (field.fieldKind === "map") {
    if (!isObject(value)) throw new JsonMappingError(`${path}: expected an object`);
    const type = field.mapKind === "enum" ? field.enum : field.mapKind === "message" ? field.message : undefined;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restoreSingle(type, v, `${path}.${k}`)]));
  }
  if (field.fieldKind === "list") {
    if (!Array.isArray(value)) throw new JsonMappingError(`${path}: expected an array`);
    const type = field.listKind === "enum" ? field.enum : field.listKind === "message" ? field.message : undefined;
    return value.map((v, i) => restoreSingle(type, v, `${path}[${i}]`));
  }
  const type = field.fieldKind === "enum" ? field.enum : field.fieldKind === "message" ? field.message : undefined;
  return restoreSingle(type, value, path);
}

function restoreSingle(type: DescEnum | DescMessage | undefined, value: JsonValue, path: string): JsonValue {
  if (type === undefined) return value;
  if (type.kind === "enum") {
    const number = typeof value === "string" ? type.values.find((v) => v.name === value)?.number : value;
    if (typeof number !== "number") throw new JsonMappingError(`${path}: ${JSON.stringify(value)} is not a value of ${type.typeName}`);
    try {
      return enumText(type, number);
    } catch (error) {
      throw new JsonMappingError(`${path}: ${(error as Error).message}`);
    }
  }
  if (JSON_VALUE_TYPES.has(type.typeName)) return value;
  if (!isObject(value)) throw new JsonMappingError(`${path}: expected an object`);
  return restoreMessage(type, value, path);
}
