/**
 * An AgentSpec (its RoC JSON, as `fromProto` gives it) as plain, validated data.
 *
 * Only what the scenario language itself defines is checked here (conformance/README.md, "The scenario
 * language"); what a runtime makes of the pieces (whether a model turn is a valid message for it, whether a
 * session id is acceptable) is the runtime's business. Some things pass through on purpose: an empty
 * interrupt name must reach the runtime, whose refusal is what the suite judges.
 */
import { type JsonObject, type JsonValue, copyJson, isJsonObject } from "./json.ts";
import { HOOK_OPS, PASSIVE_HOOK_OPS, ScenarioError, type Step, TOOL_OPS, parseSteps } from "./programs.ts";

export const EXECUTORS = ["sequential", "concurrent"] as const;
export type Executor = (typeof EXECUTORS)[number];
export const HOOK_EVENTS = ["BeforeTools", "BeforeToolCall", "AfterToolCall", "AfterTools"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

const INTERRUPTIBLE: ReadonlySet<string> = new Set(["BeforeTools", "BeforeToolCall"]);
const PER_TOOL: ReadonlySet<string> = new Set(["BeforeToolCall", "AfterToolCall"]);

/** A scenario tool: its name and the steps its body runs. */
export interface ToolProgram {
  readonly name: string;
  readonly steps: readonly Step[];
}

/** A scenario hook callback; `index` is its place in the spec (the trace's `hookIndex`). */
export class HookProgram {
  constructor(
    readonly index: number,
    readonly event: HookEventName,
    readonly toolName: string | undefined,
    readonly steps: readonly Step[],
  ) {}

  /** Before* callbacks may interrupt and cancel; After* callbacks only read and write state. */
  get interruptible(): boolean {
    return INTERRUPTIBLE.has(this.event);
  }

  /** BeforeToolCall / AfterToolCall fire once per tool use (their trace events carry a toolUseId). */
  get perTool(): boolean {
    return PER_TOOL.has(this.event);
  }

  /** Whether the callback runs for an event about these tools (one name for per-tool events). */
  appliesTo(toolNames: readonly string[]): boolean {
    return this.toolName === undefined || toolNames.includes(this.toolName);
  }
}

/** The snapshot integrity key: sign on write, verify on read (profile snapshot-integrity). */
export interface IntegrityKey {
  readonly keyId: string;
  /** The UTF-8 bytes of the spec's secret. */
  readonly secret: Uint8Array;
}

/** The session an agent is bound to (profile session-store). */
export interface SessionBinding {
  readonly store: string;
  readonly sessionId: string;
}

/** A validated AgentSpec. `turns` are assistant contents (lists of JSON blocks); `state` is a fresh copy. */
export interface Scenario {
  readonly agentId: string;
  readonly executor: Executor;
  readonly turns: readonly JsonValue[][];
  readonly tools: readonly ToolProgram[];
  readonly hooks: readonly HookProgram[];
  readonly state: JsonObject;
  readonly integrity?: IntegrityKey | undefined;
  readonly session?: SessionBinding | undefined;
  /**
   * `recordResumeGuard` (harness protocol 6, profile audit): install a resume guard that accepts every input
   * and records what it saw with `Trace.resumeGuard`.
   */
  readonly recordResumeGuard: boolean;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ScenarioError(`${where} must be a list`);
  return value;
}

function object(value: unknown, where: string): JsonObject {
  if (!isJsonObject(value)) throw new ScenarioError(`${where} must be an object`);
  return value;
}

function turns(spec: JsonObject): JsonValue[][] {
  const model = spec["model"] === undefined || spec["model"] === null ? {} : object(spec["model"], "model");
  return list(model["turns"], "model.turns").map((turn, i) => {
    const content = list(object(turn, `model.turns[${i}]`)["content"], `model.turns[${i}].content`);
    content.forEach((block, j) => {
      if (!isJsonObject(block)) throw new ScenarioError(`model.turns[${i}].content[${j}] must be an object`);
    });
    return copyJson(content as JsonValue[]);
  });
}

function tools(spec: JsonObject): ToolProgram[] {
  const seen = new Set<string>();
  return list(spec["tools"], "tools").map((raw, i) => {
    const tool = object(raw, `tools[${i}]`);
    const name = tool["name"];
    if (typeof name !== "string" || name === "" || seen.has(name)) {
      throw new ScenarioError(`tools[${i}]: missing or duplicate name ${JSON.stringify(name)}`);
    }
    seen.add(name);
    return { name, steps: parseSteps(tool["steps"] ?? [], TOOL_OPS, `tools[${i}].steps`) };
  });
}

function hooks(spec: JsonObject): HookProgram[] {
  return list(spec["hooks"], "hooks").map((raw, i) => {
    const hook = object(raw, `hooks[${i}]`);
    const event = hook["event"];
    if (typeof event !== "string" || !(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new ScenarioError(`hooks[${i}]: unknown event ${JSON.stringify(event)}`);
    }
    const toolName = hook["toolName"];
    if (toolName !== undefined && typeof toolName !== "string") {
      throw new ScenarioError(`hooks[${i}]: toolName must be a string`);
    }
    const allowed = INTERRUPTIBLE.has(event) ? HOOK_OPS : PASSIVE_HOOK_OPS;
    const steps = parseSteps(hook["steps"] ?? [], allowed, `hooks[${i}].steps`);
    return new HookProgram(i, event as HookEventName, toolName, steps);
  });
}

function integrity(spec: JsonObject): IntegrityKey | undefined {
  const raw = spec["integrity"];
  if (raw === undefined || raw === null) return undefined;
  const { keyId, secret } = object(raw, "integrity");
  if (typeof keyId !== "string" || typeof secret !== "string") {
    throw new ScenarioError("integrity needs a keyId and a secret");
  }
  // An empty key makes every tag computable by anyone, and an empty key id names no key.
  if (keyId === "" || secret === "") throw new ScenarioError("integrity keyId and secret must not be empty");
  return { keyId, secret: new TextEncoder().encode(secret) };
}

function session(spec: JsonObject): SessionBinding | undefined {
  const raw = spec["session"];
  if (raw === undefined || raw === null) return undefined;
  const { store, sessionId } = object(raw, "session");
  if (typeof store !== "string" || typeof sessionId !== "string") {
    throw new ScenarioError("session needs a store and a sessionId");
  }
  return { store, sessionId };
}

/** Validate an AgentSpec; a ScenarioError becomes the adapter's harness_error. */
export function parseScenario(raw: unknown): Scenario {
  const spec = object(raw, "the AgentSpec");
  const executor = spec["executor"];
  if (executor !== "sequential" && executor !== "concurrent") {
    throw new ScenarioError(`executor must be 'sequential' or 'concurrent', got ${JSON.stringify(executor)}`);
  }
  const state = spec["state"] === undefined || spec["state"] === null ? {} : spec["state"];
  if (!isJsonObject(state)) throw new ScenarioError("state must be a JSON object");
  const agentId = spec["agentId"];
  return {
    agentId: typeof agentId === "string" && agentId !== "" ? agentId : "agent",
    executor,
    turns: turns(spec),
    tools: tools(spec),
    hooks: hooks(spec),
    state: copyJson(state),
    integrity: integrity(spec),
    session: session(spec),
    recordResumeGuard: flag(spec, "recordResumeGuard"),
  };
}

function flag(spec: JsonObject, name: string): boolean {
  const value = spec[name] ?? false;
  if (typeof value !== "boolean") throw new ScenarioError(`${name} must be a boolean`);
  return value;
}
