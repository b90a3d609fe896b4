/** The step interpreter (src/programs.ts) and the AgentSpec parser (src/scenario.ts), against the scenario
 * language of conformance/README.md. */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  HOOK_OPS,
  type InterruptRequest,
  PASSIVE_HOOK_OPS,
  ScenarioError,
  TOOL_OPS,
  ToolFailure,
  objectState,
  parseSteps,
  runProgram,
  runProgramAsync,
  toolResultContent,
} from "../src/programs.ts";
import { parseScenario } from "../src/scenario.ts";

const tool = (raw: unknown) => parseSteps(raw, TOOL_OPS, "t");
const hook = (raw: unknown) => parseSteps(raw, HOOK_OPS, "h");

/** A raise API that answers from a table and records what it was asked; an unknown name pauses (throws). */
function answering(answers: Record<string, unknown>) {
  const asked: InterruptRequest[] = [];
  const interrupt = (request: InterruptRequest) => {
    asked.push(request);
    if (!(request.name in answers)) throw new Error(`paused at ${request.name}`);
    return answers[request.name];
  };
  return { asked, interrupt };
}

test("return echoes the answers in order with the value; a program without return returns null", () => {
  const { asked, interrupt } = answering({ a: 1, b: { x: [true] } });
  const steps = tool([{ interrupt: { name: "a", reason: "why" } }, { interrupt: { name: "b" } }, { return: { value: "v" } }]);
  const run = runProgram(steps, { interrupt, state: objectState({}) });
  assert.deepEqual(toolResultContent(run), [{ json: { answers: [1, { x: [true] }], value: "v" } }]);
  assert.deepEqual(asked, [{ name: "a", reason: "why" }, { name: "b", reason: undefined }]);
  assert.deepEqual(toolResultContent(runProgram(tool([]), { state: objectState({}) })), [{ json: { answers: [], value: null } }]);
});

test("an unanswered interrupt stops the program where it is, by the raise API's throw", () => {
  const state: Record<string, unknown> = {};
  const { interrupt } = answering({});
  const steps = tool([{ setState: { key: "before", value: 1 } }, { interrupt: { name: "q" } }, { setState: { key: "after", value: 2 } }]);
  assert.throws(() => runProgram(steps, { interrupt, state: objectState(state) }), /paused at q/);
  assert.deepEqual(state, { before: 1 });
});

test("reasonFromState reads the state at the raise; metadata is passed only when the step has it", () => {
  const state: Record<string, unknown> = { topic: "cats" };
  const { asked, interrupt } = answering({ a: "dogs", b: 0 });
  const steps = tool([
    { interrupt: { name: "a", reasonFromState: "topic", metadata: { m: 1 } } },
    { setState: { key: "topic", fromAnswer: true } },
    { interrupt: { name: "b", reasonFromState: "topic" } },
    { interrupt: { name: "c", reasonFromState: "absent" } },
  ]);
  assert.throws(() => runProgram(steps, { interrupt, state: objectState(state) }));
  assert.deepEqual(asked, [
    { name: "a", reason: "cats", metadata: { m: 1 } },
    { name: "b", reason: "dogs" },
    { name: "c", reason: undefined },
  ]);
  assert.ok(!("metadata" in (asked[1] ?? {})));
});

test("a null reason is passed as null, not dropped (the runtime decides it is no reason)", () => {
  const { asked, interrupt } = answering({ a: 1 });
  runProgram(tool([{ interrupt: { name: "a", reason: null } }]), { interrupt, state: objectState({}) });
  assert.deepEqual(asked, [{ name: "a", reason: null }]);
});

test("fail ends the program with its message; toolResultContent throws ToolFailure", () => {
  const run = runProgram(tool([{ fail: { message: "no" } }, { return: {} }]), { state: objectState({}) });
  assert.equal(run.end, "fail");
  assert.throws(() => toolResultContent(run), (e: unknown) => e instanceof ToolFailure && e.message === "no");
});

test("cancel without a message cancels with true; cancelIf compares the last answer by JSON equality", () => {
  const state = objectState({});
  assert.equal(runProgram(hook([{ cancel: {} }]), { state }).cancel, true);
  assert.equal(runProgram(hook([{ cancel: { message: "stop" } }]), { state }).cancel, "stop");
  const cancelIf = (answer: unknown) =>
    runProgram(hook([{ interrupt: { name: "q" } }, { cancelIf: { answerNotIn: [1, "yes", { a: [1] }], message: "denied" } }]), {
      interrupt: () => answer,
      state,
    }).cancel;
  assert.equal(cancelIf(1.0), undefined); // 1 and 1.0 are one number
  assert.equal(cancelIf({ a: [1] }), undefined); // objects compare by value
  assert.equal(cancelIf(true), "denied"); // true is not 1
  assert.equal(cancelIf("no"), "denied");
  // no answer yet: cancel
  assert.equal(runProgram(hook([{ cancelIf: { answerNotIn: [null], message: "m" } }]), { state }).cancel, "m");
});

test("skipIfState ends the program when the key exists and equals; setState writes constants and answers", () => {
  const state: Record<string, unknown> = { flag: 1 };
  const view = objectState(state);
  const skipped = runProgram(tool([{ skipIfState: { key: "flag", equals: 1.0 } }, { setState: { key: "x", value: 1 } }]), { state: view });
  assert.equal(skipped.end, "skipped");
  assert.ok(!("x" in state));
  const notEqual = runProgram(tool([{ skipIfState: { key: "flag", equals: true } }, { setState: { key: "x", value: [1] } }]), { state: view });
  assert.equal(notEqual.end, "none");
  assert.deepEqual(state["x"], [1]);
  // absent key: no skip, even for equals null
  runProgram(tool([{ skipIfState: { key: "absent", equals: null } }, { setState: { key: "y", fromAnswer: true } }]), { state: view });
  assert.equal(state["y"], null); // fromAnswer with no answer yet writes null
});

test("the async driver runs the same program with a raise API that returns promises", async () => {
  const steps = tool([{ interrupt: { name: "a" } }, { setState: { key: "k", fromAnswer: true } }, { return: { value: 2 } }]);
  const state: Record<string, unknown> = {};
  const run = await runProgramAsync(steps, { interrupt: async () => "later", state: objectState(state) });
  assert.deepEqual(run.answers, ["later"]);
  assert.equal(state["k"], "later");
  assert.equal(run.value, 2);
});

test("a program that may not interrupt (After* hooks) refuses at its interrupt step", () => {
  assert.throws(() => runProgram(tool([{ interrupt: { name: "a" } }]), { state: objectState({}) }), ScenarioError);
});

test("parseSteps refuses steps outside their place and malformed arguments", () => {
  assert.throws(() => parseSteps([{ cancel: {} }], TOOL_OPS, "t"), /not allowed here/);
  assert.throws(() => parseSteps([{ return: {} }], HOOK_OPS, "h"), /not allowed here/);
  assert.throws(() => parseSteps([{ interrupt: { name: "a" } }], PASSIVE_HOOK_OPS, "h"), /not allowed here/);
  assert.throws(() => tool([{ interrupt: {} }]), /needs a name/);
  assert.throws(() => tool([{ interrupt: { name: "a", reason: 1, reasonFromState: "k" } }]), /not both/);
  assert.throws(() => tool([{ interrupt: { name: "a", metadata: [] } }]), /metadata must be an object/);
  assert.throws(() => tool([{ setState: { value: 1 } }]), /needs a key/);
  assert.throws(() => tool([{ return: {}, fail: {} }]), /exactly one member/);
  assert.throws(() => tool({}), /must be a list/);
  assert.deepEqual(tool([{ interrupt: { name: "" } }])[0]?.args, { name: "" }); // the runtime refuses it, not the kit
});

test("every valid AgentSpec example parses; hooks keep their index, state is a copy", () => {
  const dir = new URL("../../../../spec/examples/AgentSpec/valid/", import.meta.url).pathname;
  for (const file of readdirSync(dir)) {
    const doc = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;
    const scenario = parseScenario(doc);
    assert.equal(scenario.agentId, doc["agentId"], file);
    assert.equal(scenario.hooks.length, Array.isArray(doc["hooks"]) ? doc["hooks"].length : 0, file);
    scenario.hooks.forEach((h, i) => assert.equal(h.index, i));
  }
  const state = { n: { m: 1 } };
  const scenario = parseScenario({
    executor: "concurrent",
    state,
    hooks: [{ event: "AfterTools", toolName: "x", steps: [] }, { event: "BeforeToolCall", steps: [{ cancel: {} }] }],
    integrity: { keyId: "k", secret: "s" },
    session: { store: "st", sessionId: "../bad" },
  });
  assert.notEqual(scenario.state, state);
  assert.deepEqual(scenario.state, state);
  assert.equal(scenario.agentId, "agent");
  assert.ok(scenario.hooks[0]?.appliesTo(["y", "x"]) && !scenario.hooks[0]?.appliesTo(["y"]));
  assert.ok(scenario.hooks[1]?.appliesTo(["anything"]) && scenario.hooks[1]?.perTool && scenario.hooks[1]?.interruptible);
  assert.deepEqual([...(scenario.integrity?.secret ?? [])], [115]);
  assert.deepEqual(scenario.session, { store: "st", sessionId: "../bad" });
  assert.equal(scenario.recordResumeGuard, false);
  assert.equal(parseScenario({ executor: "sequential", recordResumeGuard: true }).recordResumeGuard, true);
});

test("parseScenario refuses what the scenario language does not define", () => {
  const base = { executor: "sequential" };
  assert.throws(() => parseScenario({}), /executor must be/);
  assert.throws(() => parseScenario({ ...base, tools: [{ name: "x" }, { name: "x" }] }), /duplicate name/);
  assert.throws(() => parseScenario({ ...base, hooks: [{ event: "Nap", steps: [] }] }), /unknown event/);
  assert.throws(() => parseScenario({ ...base, hooks: [{ event: "AfterToolCall", steps: [{ cancel: {} }] }] }), /not allowed/);
  assert.throws(() => parseScenario({ ...base, state: [] }), /state must be a JSON object/);
  assert.throws(() => parseScenario({ ...base, integrity: { keyId: "", secret: "s" } }), /must not be empty/);
  assert.throws(() => parseScenario({ ...base, session: { store: "s" } }), /needs a store and a sessionId/);
  assert.throws(() => parseScenario({ ...base, recordResumeGuard: "yes" }), /recordResumeGuard must be a boolean/);
  assert.throws(() => parseScenario({ ...base, model: { turns: [{ content: ["text"] }] } }), /must be an object/);
});
