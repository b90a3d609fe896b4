/** The JSON <-> proto mapping (src/jsonmap.ts): every valid example of spec/examples goes to its proto
 * message and back unchanged, the harness shapes survive the trip, and each rule of spec 2.7 refuses what it
 * must. The Python mapping (conformance/roc_conformance/pb/jsonmap.py) is checked on the same examples. */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { toBinary, fromBinary } from "@bufbuild/protobuf";

import { canonicalText } from "../src/canonical.ts";
import { InvokeResponseSchema } from "../src/gen/roc/conformance/v1/harness_pb.ts";
import { JsonMappingError, enumToJson, enumToProto, fromProto, messageSchema, toProto } from "../src/jsonmap.ts";

const EXAMPLES = new URL("../../../../spec/examples/", import.meta.url).pathname;

// spec/examples/<dir> -> the type of its documents (the InterruptResponse directory holds whole blocks).
const EXAMPLE_TYPES: Record<string, string> = {
  AgentResult: "AgentResult",
  AgentSpec: "AgentSpec",
  Error: "Error",
  Interrupt: "Interrupt",
  InterruptResponse: "InterruptResponseContent",
  Message: "Message",
  ResumeInput: "ResumeInput",
  Snapshot: "Snapshot",
  TraceEvent: "TraceEvent",
};

/** JSON -> proto -> bytes -> proto -> JSON, as a document crosses the wire. */
function roundTrip(typeName: string, doc: unknown): unknown {
  const schema = messageSchema(typeName);
  const bytes = toBinary(schema, toProto(typeName, doc) as never);
  return fromProto(fromBinary(schema, bytes));
}

test("every valid example of spec/examples round-trips through proto", () => {
  let count = 0;
  for (const [dir, typeName] of Object.entries(EXAMPLE_TYPES)) {
    const valid = join(EXAMPLES, dir, "valid");
    for (const file of readdirSync(valid).filter((f) => f.endsWith(".json"))) {
      const doc: unknown = JSON.parse(readFileSync(join(valid, file), "utf8"));
      assert.equal(canonicalText(roundTrip(typeName, doc)), canonicalText(doc), `${dir}/${file}`);
      count++;
    }
  }
  assert.ok(count >= 50, `only ${count} examples found`);
});

test("an Invoke reply with every trace kind, a crash and the history round-trips", () => {
  const reply = {
    crash: { type: "TypeError", message: "boom", details: "" },
    trace: [
      { kind: "invocation_start" },
      { kind: "model_call", turn: 0 },
      { kind: "before_tools", toolUseIds: ["t1", "t2"] },
      { kind: "hook_callback", event: "BeforeToolCall", hookIndex: 1, toolUseId: "t1" },
      { kind: "hook_callback", event: "AfterTools", hookIndex: 0 },
      { kind: "tool_start", toolUseId: "t1", name: "x" },
      { kind: "tool_end", toolUseId: "t1", outcome: "interrupted" },
      { kind: "after_tool_call", toolUseId: "t1", status: "error" },
      { kind: "after_tools", toolUseIds: [] },
      { kind: "message_added", role: "assistant" },
      { kind: "invocation_end", stopReason: "interrupt" },
    ],
    messages: [{ role: "user", content: [{ text: "" }] }],
    state: { n: 1.5, nested: { list: [null, true, "s"] } },
  };
  assert.deepEqual(roundTrip("roc.conformance.v1.InvokeResponse", reply), reply);
});

test("the raw-JSON invoke inputs carry malformed items as they are", () => {
  const request = { agent: "h", interruptResponses: [{ interruptId: 7 }, "not an object", { response: null }] };
  assert.deepEqual(roundTrip("roc.conformance.v1.InvokeRequest", request), request);
  const content = { agent: "h", content: [{ text: "a", extra: 1 }, []] };
  assert.deepEqual(roundTrip("roc.conformance.v1.InvokeRequest", content), content);
});

test("Describe and inspection replies keep defaults (rule 2) and absent optional members", () => {
  const describe = {
    harnessProtocolVersion: 3,
    implementation: { name: "n", version: "", language: "typescript", languageVersion: "", homepage: "", adapter: "a" },
    specVersions: [],
    profiles: ["core"],
    notApplicable: {},
    capabilities: [],
  };
  assert.deepEqual(roundTrip("roc.conformance.v1.DescribeResponse", describe), describe);
  const inspection = {
    inspection: {
      activated: false,
      interrupts: [{ id: "i", name: "q", source: { kind: "tool", toolUseId: "t1", toolName: "x" }, answered: false }],
      preservedToolUseIds: [],
      messages: [],
      state: {},
    },
  };
  assert.deepEqual(roundTrip("roc.conformance.v1.InspectAgentResponse", inspection), inspection);
});

test("enum spellings: snake case, upper case for error codes, PascalCase for hook events", () => {
  assert.equal(enumToJson("roc.v1.StopReason", enumToProto("roc.v1.StopReason", "end_turn")), "end_turn");
  assert.equal(enumToJson("roc.v1.ErrorCode", 1), "INTERRUPT_PENDING");
  assert.equal(enumToProto("roc.conformance.v1.HookEvent", "BeforeToolCall"), 2);
  assert.equal(enumToJson("roc.v1.InterruptSourceKind", enumToProto("roc.v1.InterruptSourceKind", "before_tool_call")), "before_tool_call");
  assert.throws(() => enumToProto("roc.v1.StopReason", "END_TURN"), JsonMappingError);
  assert.throws(() => enumToProto("roc.conformance.v1.HookEvent", "before_tool_call"), JsonMappingError);
  assert.throws(() => enumToJson("roc.v1.StopReason", 0), JsonMappingError);
});

test("a zero enum in a message has no JSON form", () => {
  const schema = messageSchema("roc.conformance.v1.InvokeResponse");
  const message = toProto("roc.conformance.v1.InvokeResponse", { trace: [{ kind: "invocation_end", stopReason: "end_turn" }] });
  const bytes = toBinary(schema, message as never);
  const decoded = fromBinary(InvokeResponseSchema, bytes);
  const arm = decoded.trace[0]?.event;
  assert.equal(arm?.case, "invocationEnd");
  if (arm?.case === "invocationEnd") arm.value.stopReason = 0;
  assert.throws(() => fromProto(decoded), /has no JSON form/);
});

test("pendingToolExecution null is the unset field and comes back as null (rule 3)", () => {
  const state = { activated: false, interrupts: [], pendingToolExecution: null };
  assert.deepEqual(roundTrip("InterruptState", state), state);
  assert.throws(() => toProto("AgentResult", { stopReason: "end_turn", message: null, interrupts: [] }), /null is not allowed/);
});

test("a null reason or answer has no proto form (rule 8)", () => {
  const source = { kind: "tool", toolUseId: "t", toolName: "x" };
  assert.throws(() => toProto("Interrupt", { id: "i", name: "n", source, reason: null }), /null is not allowed/);
  assert.throws(() => toProto("InterruptResponse", { interruptId: "i", response: null }), JsonMappingError);
  // null inside arbitrary JSON is an ordinary value
  const withNull = { id: "i", name: "n", source, reason: { why: null } };
  assert.deepEqual(roundTrip("Interrupt", withNull), withNull);
});

test("numbers a double cannot carry exactly and lone surrogates are refused (rules 5 and 6)", () => {
  const toolUse = (input: unknown) => ({ toolUseId: "t", name: "x", input });
  assert.throws(() => toProto("ToolUse", toolUse({ n: 2 ** 53 })), /outside/);
  assert.deepEqual(roundTrip("ToolUse", toolUse({ n: 2 ** 53 - 1, f: -0.5 })), toolUse({ n: 2 ** 53 - 1, f: -0.5 }));
  assert.throws(() => toProto("ToolUse", toolUse({ s: "\uD800" })), /lone surrogate/);
  assert.throws(() => toProto("ToolUse", { ...toolUse({}), name: "\uDC00" }), /lone surrogate/);
});

test("unknown members, a bad trace kind and a non-array resume input are refused", () => {
  assert.throws(() => toProto("Message", { role: "user", content: [], trackingId: 1 }), /unknown member "trackingId"/);
  assert.throws(() => toProto("TraceEvent", { kind: "nap" }), /kind "nap" is not one of/);
  assert.throws(() => toProto("ResumeInput", { responses: [] }), /is a JSON array/);
});

test("AgentSpec tools and hooks are omitted when empty (rule 7)", () => {
  const spec = { agentId: "a", executor: "sequential", model: { turns: [] }, state: {} };
  assert.deepEqual(roundTrip("AgentSpec", { ...spec, tools: [], hooks: [] }), spec);
});
