/** The harness service (src/service.ts) over a fake runtime adapter, at the level of the RPCs' JSON: handles,
 * the live-agent cap, per-agent serialization, the trace frame, the error mapping and the optional RPCs;
 * plus the scripted model and the trace recorder it relies on. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { AdapterError, Refused } from "../src/errors.ts";
import type { JsonObject } from "../src/json.ts";
import { EXHAUSTED_TEXT, ScriptedModel } from "../src/model.ts";
import { ToolFailure } from "../src/programs.ts";
import type { Scenario } from "../src/scenario.ts";
import { HarnessService, type InvokeInput, type RuntimeAdapter } from "../src/service.ts";
import { Trace } from "../src/trace.ts";

interface Fake {
  trace: Trace;
  history: JsonObject[];
  inputs: InvokeInput[];
}

/** A runtime adapter whose invoke does what the prompt says: "ok", "refuse", "sdk-refuse", "crash", "fault". */
class FakeAdapter implements RuntimeAdapter<Fake> {
  info() {
    return { name: "fake", version: "1", adapter: "fake-adapter 1", profiles: ["core"] };
  }

  create(scenario: Scenario, trace: Trace): Fake {
    if (scenario.agentId === "refused") throw new Refused("SESSION_CONFLICT", "taken");
    trace.emit("before_invocation"); // recorded while creating: must not leak into the first Invoke
    return { trace, history: [], inputs: [] };
  }

  async invoke(agent: Fake, input: InvokeInput): Promise<JsonObject> {
    agent.inputs.push(input);
    const what = input.kind === "prompt" ? input.value : "ok";
    agent.trace.modelCall(agent.inputs.length - 1);
    await new Promise((resolve) => setTimeout(resolve, what === "slow" ? 20 : 0));
    agent.history.push({ role: "user", content: [{ text: what }], trackingId: 7 });
    if (what === "refuse") throw new Refused("INTERRUPT_PENDING", "paused", { interruptId: "i" });
    if (what === "sdk-refuse") throw new TypeError("Agent is in an interrupted state.");
    if (what === "crash") throw new RangeError("boom");
    if (what === "fault") throw new AdapterError("adapter bug");
    if (what === "throw-string") throw "a string";
    return { stopReason: "end_turn", message: { role: "assistant", content: [{ text: what }], trackingId: 1 }, interrupts: [] };
  }

  messages(agent: Fake): unknown[] {
    return agent.history;
  }

  state(agent: Fake): JsonObject {
    return { count: agent.inputs.length };
  }

  errorJson(thrown: unknown) {
    if (thrown instanceof TypeError && thrown.message.startsWith("Agent is in an interrupted state")) {
      return { code: "INTERRUPT_PENDING" as const, message: thrown.message };
    }
    return undefined;
  }
}

const SPEC = { agentId: "a", executor: "sequential" };

async function created(service: HarnessService<Fake>, spec: JsonObject = SPEC): Promise<string> {
  const reply = await service.createAgent({ spec });
  assert.equal(typeof reply["agent"], "string", JSON.stringify(reply));
  return String(reply["agent"]);
}

test("Describe answers protocol 4 and the info, with inspect only when the adapter can inspect", () => {
  const reply = new HarnessService(new FakeAdapter()).describe({});
  assert.equal(reply["harnessProtocolVersion"], 4);
  assert.deepEqual(reply["profiles"], ["core"]);
  assert.deepEqual(reply["specVersions"], ["1.0"]);
  assert.deepEqual(reply["capabilities"], []);
  assert.equal((reply["implementation"] as JsonObject)["language"], "typescript");
});

test("an Invoke is framed by invocation_start and invocation_end; extras leave the messages", async () => {
  const service = new HarnessService(new FakeAdapter());
  const handle = await created(service);
  const reply = await service.invoke({ agent: handle, prompt: "ok" });
  assert.deepEqual(reply["trace"], [{ kind: "invocation_start" }, { kind: "model_call", turn: 0 }, { kind: "invocation_end", stopReason: "end_turn" }]);
  assert.deepEqual(reply["messages"], [{ role: "user", content: [{ text: "ok" }] }]);
  assert.deepEqual((reply["result"] as JsonObject)["message"], { role: "assistant", content: [{ text: "ok" }] });
  assert.deepEqual(reply["state"], { count: 1 });
});

test("refusals are error, other exceptions crash, adapter faults harness_error", async () => {
  const service = new HarnessService(new FakeAdapter());
  const handle = await created(service);
  const refused = await service.invoke({ agent: handle, prompt: "refuse" });
  assert.deepEqual(refused["error"], { code: "INTERRUPT_PENDING", message: "paused", details: { interruptId: "i" } });
  assert.deepEqual(refused["trace"], [{ kind: "invocation_start" }, { kind: "model_call", turn: 0 }]); // no invocation_end
  assert.equal(((await service.invoke({ agent: handle, prompt: "sdk-refuse" }))["error"] as JsonObject)["code"], "INTERRUPT_PENDING");
  const crash = (await service.invoke({ agent: handle, prompt: "crash" }))["crash"] as JsonObject;
  assert.equal(crash["type"], "RangeError");
  assert.equal(crash["message"], "boom");
  assert.equal(((await service.invoke({ agent: handle, prompt: "throw-string" }))["crash"] as JsonObject)["type"], "string");
  const fault = await service.invoke({ agent: handle, prompt: "fault" });
  assert.deepEqual(Object.keys(fault), ["harnessError"]);
});

test("interrupt responses reach the runtime wrapped and unchecked; content as sent", async () => {
  const adapter = new FakeAdapter();
  const service = new HarnessService(adapter);
  const handle = await created(service);
  await service.invoke({ agent: handle, interruptResponses: [{ interruptId: 3 }, "x"] });
  await service.invoke({ agent: handle, content: [{ text: "a", extra: true }] });
  const agent = service.agents.get(handle)?.value.agent;
  assert.deepEqual(agent?.inputs, [
    { kind: "interruptResponses", value: [{ interruptResponse: { interruptId: 3 } }, { interruptResponse: "x" }] },
    { kind: "content", value: [{ text: "a", extra: true }] },
  ]);
});

test("unknown handles, missing optional RPCs and direct calls without callTool are harness errors", async () => {
  const service = new HarnessService(new FakeAdapter());
  const handle = await created(service);
  assert.match(String(((await service.invoke({ agent: "nope", prompt: "ok" }))["harnessError"] as JsonObject)["message"]), /unknown agent handle/);
  assert.match(String(((await service.takeSnapshot({ agent: handle }))["harnessError"] as JsonObject)["message"]), /TakeSnapshot/);
  assert.match(String(((await service.restoreAgent({ snapshotJson: "{}", spec: SPEC }))["harnessError"] as JsonObject)["message"]), /RestoreAgent/);
  assert.match(String(((await service.inspectAgent({ agent: handle }))["harnessError"] as JsonObject)["message"]), /InspectAgent/);
  const direct = await service.invoke({ agent: handle, directToolCall: { name: "x", input: {} } });
  assert.match(String((direct["harnessError"] as JsonObject)["message"]), /direct tool calls/);
  assert.match(String(((await service.invoke({ agent: handle, directToolCall: { name: "x", input: [] } }))["harnessError"] as JsonObject)["message"]), /JSON object/);
  assert.deepEqual(await service.disposeAgent({ agent: handle }), {});
  assert.deepEqual(await service.disposeAgent({ agent: handle }), {}); // unknown handle: not an error
  assert.ok("harnessError" in (await service.invoke({ agent: handle, prompt: "ok" })));
});

test("CreateAgent: a runtime refusal is error, an unbuildable scenario harness_error", async () => {
  const service = new HarnessService(new FakeAdapter());
  assert.deepEqual((await service.createAgent({ spec: { ...SPEC, agentId: "refused" } }))["error"], { code: "SESSION_CONFLICT", message: "taken" });
  assert.match(String(((await service.createAgent({ spec: { executor: "parallel" } }))["harnessError"] as JsonObject)["message"]), /cannot build scenario/);
});

test("past the cap CreateAgent answers harness_error and builds nothing; DisposeAgent frees a place", async () => {
  const service = new HarnessService(new FakeAdapter(), { maxLiveAgents: 2 });
  const first = await created(service);
  await created(service);
  const full = await service.createAgent({ spec: SPEC });
  assert.match(String((full["harnessError"] as JsonObject)["message"]), /cap of 2/);
  assert.equal(service.agents.size, 2);
  await service.disposeAgent({ agent: first });
  await created(service);
});

test("requests on one agent run one after the other, each reply with its own events", async () => {
  const service = new HarnessService(new FakeAdapter());
  const handle = await created(service);
  const [slow, fast] = await Promise.all([service.invoke({ agent: handle, prompt: "slow" }), service.invoke({ agent: handle, prompt: "ok" })]);
  assert.deepEqual(slow?.["trace"], [{ kind: "invocation_start" }, { kind: "model_call", turn: 0 }, { kind: "invocation_end", stopReason: "end_turn" }]);
  assert.deepEqual(fast?.["trace"], [{ kind: "invocation_start" }, { kind: "model_call", turn: 1 }, { kind: "invocation_end", stopReason: "end_turn" }]);
  assert.deepEqual(slow?.["state"], { count: 1 });
});

test("the scripted model answers its turns from the offset, then the exhausted text, tracing each call", () => {
  const trace = new Trace();
  const turns = [[{ text: "a" }], [{ toolUse: { toolUseId: "t", name: "x", input: {} } }]];
  const model = new ScriptedModel(turns, trace, 1);
  const reply = model.nextReply();
  assert.equal(reply.stopReason, "tool_use");
  assert.equal(reply.turn, 1);
  (reply.content[0] as JsonObject)["changed"] = true; // the runtime may change what it is given
  const exhausted = model.nextReply();
  assert.deepEqual([exhausted.content, exhausted.stopReason, exhausted.exhausted], [[{ text: EXHAUSTED_TEXT }], "end_turn", true]);
  assert.deepEqual(trace.take(), [{ kind: "model_call", turn: 1 }, { kind: "model_call", turn: 2 }]);
  assert.deepEqual(new ScriptedModel(turns, trace, 1).nextReply().content, turns[1]);
});

test("toolBody records the outcome of the body: returned, failed, interrupted", async () => {
  const trace = new Trace();
  assert.equal(await trace.toolBody("t1", "x", () => 1), 1);
  await assert.rejects(trace.toolBody("t2", "x", () => Promise.reject(new ToolFailure("no"))), ToolFailure);
  assert.throws(() => trace.toolBodySync("t3", "x", () => { throw new Error("pause"); }), /pause/);
  assert.deepEqual(
    trace.take().filter((e) => e.kind === "tool_end").map((e) => e["outcome"]),
    ["returned", "failed", "interrupted"],
  );
});

test("KIT_VERSION is the package version", async () => {
  const { KIT_VERSION } = await import("../src/service.ts");
  const pkg = JSON.parse((await import("node:fs")).readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  assert.equal(KIT_VERSION, pkg.version);
});

test("protocol 4: abandon and ListPending are not supported by the kit: harness errors, and the runtime sees nothing", async () => {
  const service = new HarnessService(new FakeAdapter());
  const handle = await created(service);
  const abandoned = await service.invoke({ agent: handle, abandon: { message: "stop" } });
  assert.match(String((abandoned["harnessError"] as JsonObject)["message"]), /abandon/);
  assert.deepEqual(service.agents.get(handle)?.value.agent.inputs, []);
  for (const request of [{ agent: handle }, { snapshot: { snapshotJson: "{}", spec: SPEC } }]) {
    const listed = service.listPending(request);
    assert.deepEqual(Object.keys(listed), ["harnessError"]);
    assert.match(String((listed["harnessError"] as JsonObject)["message"]), /ListPending.*pending-list/);
  }
});
