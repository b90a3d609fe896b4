/**
 * The RuntimeAdapter of @strands-agents/sdk 1.19: every scenario construct maps onto the SDK's public API
 * (a `Model` subclass for the script, `Tool` subclasses raising with `toolContext.interrupt`, `agent.addHook`
 * callbacks with `event.interrupt` and `event.cancel`, the SDK's tool executors, `appState`, the agent `id`,
 * `agent.tool.<name>.invoke`). InspectAgent reads the agent's `_interruptState`, as the contract allows.
 * Mapping: conformance/README.md, "Mapping onto Strands Agents".
 */
import { readFileSync } from "node:fs";
import {
  type AdapterInfo,
  type DirectToolCall,
  type InvokeInput,
  type JsonObject,
  type JsonValue,
  type RocError,
  type RuntimeAdapter,
  type Scenario,
  ScenarioError,
  ScriptedModel,
  type Trace,
  Unsupported,
} from "@roc-protocol/kit-typescript";
import { Agent, type InvokeArgs } from "@strands-agents/sdk";
import { type Built, type Holder } from "./built.ts";
import { addHooks } from "./hooks.ts";
import { StrandsScriptedModel, checkTurns } from "./model.ts";
import { loadRoc } from "./rocload.ts";
import { toRoc, toSdk } from "./snapshot.ts";
import { ScenarioTool } from "./tool.ts";
import { errorJson, interruptJson, resultJson, sourceOf, toJson, toolNamesOf } from "./translate.ts";

export const ADAPTER_VERSION = "0.1.0";
export const PROFILES = [
  "core",
  "hooks",
  "sequential-executor",
  "concurrent-executor",
  "direct-tool-call",
  "sessions",
  "portable-snapshot",
];

const SDK_PACKAGE = new URL("../node_modules/@strands-agents/sdk/package.json", import.meta.url);

function sdkVersion(): string {
  const pkg = JSON.parse(readFileSync(SDK_PACKAGE, "utf8")) as { version?: unknown };
  return String(pkg.version);
}

/** Build an agent for the scenario; `offset` is the scripted model's first turn. */
export function buildAgent(scenario: Scenario, trace: Trace, offset = 0): Built {
  const problem = checkTurns(scenario.turns);
  if (problem !== undefined) throw new ScenarioError(problem);
  // Profiles session-store and snapshot-integrity are not claimed: the SDK has no store with revisions and
  // signs nothing, so an adapter-made version would be judged as the SDK's.
  if (scenario.session !== undefined) throw new Unsupported("session bindings (profile session-store) are not supported");
  if (scenario.integrity !== undefined) throw new Unsupported("integrity keys (profile snapshot-integrity) are not supported");
  const holder: Holder = {};
  const agent = new Agent({
    model: new StrandsScriptedModel(new ScriptedModel(scenario.turns, trace, offset)),
    tools: scenario.tools.map((program) => new ScenarioTool(program, holder)),
    id: scenario.agentId,
    appState: scenario.state as Record<string, never>,
    toolExecutor: scenario.executor,
    printer: false,
  });
  addHooks(agent, scenario, holder);
  const built: Built = { agent, trace, sources: new Map(), batchNames: [], revision: 0 };
  holder.built = built;
  return built;
}

export class StrandsAdapter implements RuntimeAdapter<Built> {
  info(): AdapterInfo {
    return {
      name: "@strands-agents/sdk",
      version: sdkVersion(),
      adapter: `roc-strands-typescript ${ADAPTER_VERSION}`,
      profiles: PROFILES,
      homepage: "https://github.com/strands-agents/sdk-typescript",
    };
  }

  create(scenario: Scenario, trace: Trace): Built {
    return buildAgent(scenario, trace);
  }

  async invoke(built: Built, input: InvokeInput): Promise<JsonObject> {
    // Exactly as sent: the SDK's own checks are what the suite judges.
    const result = await built.agent.invoke(input.value as InvokeArgs);
    return resultJson(result, built.sources, this.toolNames(built));
  }

  async callTool(built: Built, call: DirectToolCall): Promise<JsonObject> {
    const handle = built.agent.tool[call.name];
    if (handle === undefined) throw new Error(`agent.tool has no handle for ${call.name}`);
    const result = toJson(await handle.invoke(call.input as never));
    const inner = result !== null && typeof result === "object" && !Array.isArray(result) ? result["toolResult"] : undefined;
    if (inner === undefined) throw new Error(`agent.tool.${call.name}.invoke returned no tool result: ${JSON.stringify(result)}`);
    return inner as JsonObject;
  }

  messages(built: Built): unknown[] {
    return built.agent.messages.map(toJson);
  }

  state(built: Built): JsonObject {
    return toJson(built.agent.appState.getAll()) as JsonObject;
  }

  snapshot(built: Built, options: { stored: boolean }): JsonObject {
    if (options.stored) throw new Unsupported("session stores (profile session-store) are not supported");
    return toRoc(built);
  }

  /** The document is validated by the adapter's RoC loader (the SDK's loadSnapshot checks only its scope and
   * version), translated, and loaded with `agent.loadSnapshot` into a fresh agent built from the scenario. */
  restore(snapshotJson: string, scenario: Scenario, trace: Trace, modelTurnOffset: number): Built {
    const doc = loadRoc(snapshotJson, scenario.agentId);
    const built = buildAgent(scenario, trace, modelTurnOffset);
    const { snapshot, sources } = toSdk(doc);
    built.agent.loadSnapshot(snapshot);
    for (const [id, source] of sources) built.sources.set(id, source);
    built.revision = doc["revision"] as number;
    return built;
  }

  inspect(built: Built): JsonObject {
    const state = built.agent._interruptState;
    const pending = state.pendingToolExecution;
    const pendingMessage = pending === undefined ? undefined : (toJson(pending.assistantMessageData) as JsonObject);
    const names = this.toolNames(built);
    const interrupts = Object.values(state.interrupts).map((i) => {
      const out = interruptJson(i, sourceOf(i, built.sources, names));
      out["answered"] = i.response !== undefined; // 1.19 takes null as an answer
      if (i.response !== undefined) out["response"] = i.response as JsonValue;
      return out;
    });
    // The completed results' keys, in the order of the tool uses they answer.
    const order = [...toolNamesOf(pendingMessage === undefined ? [] : [pendingMessage]).keys()];
    const completed = Object.keys(pending?.completedToolResults ?? {});
    const preserved = [...order.filter((id) => completed.includes(id)), ...completed.filter((id) => !order.includes(id))];
    const inspection: JsonObject = {
      activated: state.activated,
      interrupts,
      preservedToolUseIds: preserved,
      messages: this.messages(built) as JsonValue[],
      state: this.state(built),
    };
    if (pendingMessage !== undefined) inspection["pendingAssistantMessage"] = pendingMessage;
    return inspection;
  }

  errorJson(thrown: unknown): RocError | undefined {
    return errorJson(thrown);
  }

  /** toolUseId -> tool name over the history and the pending batch (for sources the adapter did not see). */
  private toolNames(built: Built): Map<string, string> {
    const pending = built.agent._interruptState.pendingToolExecution;
    const messages = this.messages(built) as JsonValue[];
    return toolNamesOf(pending === undefined ? messages : [...messages, toJson(pending.assistantMessageData)]);
  }
}
