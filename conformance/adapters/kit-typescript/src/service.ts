/**
 * The harness service (roc.conformance.v1.HarnessService) over a RuntimeAdapter: handles, the live-agent
 * cap, per-agent serialization, Describe, the trace frame of each Invoke, the error mapping and the JSON
 * forms of every request and reply. An adapter author implements RuntimeAdapter, the SDK part only.
 *
 * Each RPC is a method taking and returning the RoC JSON of its messages (`fromProto` / `toProto` convert at
 * the gRPC boundary, grpc.ts), so the contract of conformance/README.md reads the same here.
 */
import {
  AdapterError,
  Refused,
  type RocError,
  Unsupported,
  crashOf,
  harnessError,
  unexpected,
} from "./errors.ts";
import { AgentTable, MAX_LIVE_AGENTS } from "./handles.ts";
import { type JsonObject, type JsonValue, isJsonObject } from "./json.ts";
import { JsonMappingError } from "./jsonmap.ts";
import { ScenarioError } from "./programs.ts";
import { type Scenario, parseScenario } from "./scenario.ts";
import { Trace } from "./trace.ts";

/** Harness protocol 4; the kit drives none of the RoC 1.1 profiles yet: abandon and ListPending answer
 * harness_error ("not supported"), so an adapter built on it does not claim them. */
export const HARNESS_PROTOCOL_VERSION = 4;
/** The kit's version (package.json); a new harness protocol that needs adapters to change is a new major. */
export const KIT_VERSION = "0.1.0";

/** What Describe answers: the implementation under test, the adapter, and what they claim. */
export interface AdapterInfo {
  /** The implementation, e.g. "strands-agents". */
  readonly name: string;
  /** Its version. */
  readonly version: string;
  /** The adapter's own name and version, e.g. "roc-strands-ts-harness 0.1.0". */
  readonly adapter: string;
  /** RoC profiles claimed, e.g. ["core", "hooks", "sequential-executor"]. */
  readonly profiles: readonly string[];
  /** Default ["1.0"]. */
  readonly specVersions?: readonly string[];
  /** Default "typescript". */
  readonly language?: string;
  /** Default: the Node.js version. */
  readonly languageVersion?: string;
  readonly homepage?: string;
  /** Profile -> why it cannot apply to this runtime. */
  readonly notApplicable?: Readonly<Record<string, string>>;
  /** Adapter features; protocols 3 and 4 know "inspect". Default: ["inspect"] when the adapter has `inspect`. */
  readonly capabilities?: readonly string[];
}

/** An Invoke input for the runtime's invoke call, exactly as the suite sent it (never validated here). */
export type InvokeInput =
  | { readonly kind: "prompt"; readonly value: string }
  /** The content blocks as they came, malformed ones included. */
  | { readonly kind: "content"; readonly value: JsonValue[] }
  /** The response bodies, each wrapped as {"interruptResponse": body}, unchecked (resumeBlocks). */
  | { readonly kind: "interruptResponses"; readonly value: JsonObject[] };

/** An Invoke input of kind directToolCall (profile direct-tool-call). */
export interface DirectToolCall {
  readonly name: string;
  readonly input: JsonObject;
}

/**
 * The SDK side of an adapter; `A` is whatever the adapter keeps per agent. Required: info, create, invoke,
 * messages, state. Optional (each absent one answers a clear harness_error): callTool, snapshot, restore,
 * inspect. Throw Refused for a refusal of the runtime, or implement errorJson to recognise the runtime's own
 * error type; throw AdapterError for a fault of the adapter. Every method except dispose is called for one
 * request on an agent at a time.
 */
export interface RuntimeAdapter<A> {
  info(): AdapterInfo;
  /** A new agent for the scenario, recording into `trace`. With a session binding, the agent loads what its
   * session holds. Whatever is recorded while creating is dropped. */
  create(scenario: Scenario, trace: Trace): A | Promise<A>;
  /** Run the agent on the input; the AgentResult JSON (stopReason, message, interrupts, ...). */
  invoke(agent: A, input: InvokeInput): JsonObject | Promise<JsonObject>;
  /** The agent's history as Message JSON, read after every Invoke whatever its outcome. */
  messages(agent: A): unknown[] | Promise<unknown[]>;
  /** The agent state as a JSON object, read after every Invoke. */
  state(agent: A): JsonObject | Promise<JsonObject>;
  /** Call a tool directly (profile direct-tool-call); the ToolResult JSON. */
  callTool?(agent: A, call: DirectToolCall): JsonObject | Promise<JsonObject>;
  /** TakeSnapshot: the snapshot as the runtime wrote it (its exact text, or a JSON value the kit
   * serializes); with `stored`, what the agent's session store holds (null when nothing yet). */
  snapshot?(agent: A, options: { stored: boolean }): string | JsonValue | Promise<string | JsonValue>;
  /** RestoreAgent: a new agent for the scenario continuing from the snapshot text as sent; the scripted
   * model starts at `modelTurnOffset`. Events recorded while restoring are reported in the reply. */
  restore?(snapshotJson: string, scenario: Scenario, trace: Trace, modelTurnOffset: number): A | Promise<A>;
  /** InspectAgent: the AgentInspection JSON (capability inspect), changing nothing. */
  inspect?(agent: A): JsonObject | Promise<JsonObject>;
  /** The RoC Error JSON when `thrown` is the runtime's refusal, else undefined (then it is a crash). */
  errorJson?(thrown: unknown): RocError | undefined;
  /** Release what the agent holds (DisposeAgent), after its handle is forgotten. */
  dispose?(agent: A): void | Promise<void>;
  /** Release what the adapter holds when the server stops. */
  close?(): void | Promise<void>;
}

interface LiveAgent<A> {
  readonly agent: A;
  readonly trace: Trace;
  readonly scenario: Scenario;
}

/** The members of a RoC message (spec 2.3); an SDK's extras (trackingId, ...) are dropped. */
const MESSAGE_MEMBERS = ["role", "content", "metadata"];

/** A message without the members outside the RoC shape; role and content are never changed. */
export function rocMessage(message: unknown): unknown {
  if (!isJsonObject(message)) return message;
  return Object.fromEntries(Object.entries(message).filter(([key]) => MESSAGE_MEMBERS.includes(key)));
}

/** The runtime's resume input for the harness's list of response bodies: each body wrapped, unchecked. */
export function resumeBlocks(bodies: readonly JsonValue[]): JsonObject[] {
  return bodies.map((body) => ({ interruptResponse: body }));
}

function withCleanMessage(result: JsonObject): JsonObject {
  return "message" in result ? { ...result, message: rocMessage(result["message"]) as JsonValue } : result;
}

function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** The harness service. Subclass it to change one RPC; each method maps request JSON to reply JSON. */
export class HarnessService<A> {
  readonly agents: AgentTable<LiveAgent<A>>;

  constructor(
    readonly adapter: RuntimeAdapter<A>,
    options: { maxLiveAgents?: number } = {},
  ) {
    this.agents = new AgentTable(options.maxLiveAgents ?? MAX_LIVE_AGENTS);
  }

  describe(_request: JsonObject): JsonObject {
    const info = this.adapter.info();
    const capabilities = info.capabilities ?? (this.adapter.inspect ? ["inspect"] : []);
    return {
      harnessProtocolVersion: HARNESS_PROTOCOL_VERSION,
      implementation: {
        name: info.name,
        version: info.version,
        language: info.language ?? "typescript",
        languageVersion: info.languageVersion ?? process.versions.node,
        homepage: info.homepage ?? "",
        adapter: info.adapter,
      },
      specVersions: [...(info.specVersions ?? ["1.0"])],
      profiles: [...info.profiles],
      notApplicable: { ...(info.notApplicable ?? {}) },
      capabilities: [...capabilities],
    };
  }

  async createAgent(request: JsonObject): Promise<JsonObject> {
    const full = this.agents.full();
    if (full !== undefined) return { harnessError: harnessError(full) }; // checked first: nothing is built
    let live: LiveAgent<A>;
    try {
      const scenario = parseScenario(request["spec"] ?? {});
      const trace = new Trace();
      const agent = await this.adapter.create(scenario, trace);
      trace.take(); // each Invoke's trace starts at its own invocation_start
      live = { agent, trace, scenario };
    } catch (thrown) {
      return this.buildFailure(thrown);
    }
    return this.register(live, {});
  }

  async invoke(request: JsonObject): Promise<JsonObject> {
    const handle = String(request["agent"] ?? "");
    const live = this.agents.get(handle);
    if (live === undefined) return { harnessError: harnessError(`unknown agent handle ${JSON.stringify(handle)}`) };
    const kinds = ["prompt", "content", "interruptResponses", "directToolCall", "abandon"].filter((k) => k in request);
    if (kinds.length !== 1) return { harnessError: harnessError(`bad input: expected one input, got ${kinds.length}`) };
    const call = request["directToolCall"];
    if (call !== undefined && !(isJsonObject(call) && typeof (call["name"] ?? "") === "string" && isJsonObject(call["input"] ?? {}))) {
      // A direct call's input is a JSON object by the harness contract; one that is not is a broken
      // request, the adapter's problem, not a crash of the runtime, which never saw it.
      return { harnessError: harnessError("bad input: directToolCall input must be a JSON object") };
    }
    return live.queue.run(() => this.invokeLocked(live.value, request));
  }

  private async invokeLocked(live: LiveAgent<A>, request: JsonObject): Promise<JsonObject> {
    const { agent, trace } = live;
    trace.take();
    trace.emit("invocation_start");
    const reply: JsonObject = {};
    try {
      const outcome = await this.run(agent, request);
      if ("toolResult" in outcome) {
        reply["toolResult"] = outcome.toolResult;
      } else {
        reply["result"] = withCleanMessage(outcome.result);
        trace.emit("invocation_end", { stopReason: outcome.result["stopReason"] ?? null });
      }
    } catch (thrown) {
      if (thrown instanceof AdapterError) return { harnessError: harnessError(thrown.message, thrown.stack ?? "") };
      const error = this.refusal(thrown);
      if (error !== undefined) reply["error"] = error;
      else reply["crash"] = crashOf(thrown); // outside the closed error set: the implementation crashed
    }
    try {
      reply["trace"] = trace.take();
      reply["messages"] = (await this.adapter.messages(agent)).map(rocMessage) as JsonValue[];
      reply["state"] = await this.adapter.state(agent);
    } catch (thrown) {
      return { harnessError: harnessError(`cannot read the agent after the call: ${errorMessage(thrown)}`, (thrown as Error).stack ?? "") };
    }
    return reply;
  }

  private async run(agent: A, request: JsonObject): Promise<{ result: JsonObject } | { toolResult: JsonObject }> {
    const prompt = request["prompt"];
    if (typeof prompt === "string") return { result: await this.adapter.invoke(agent, { kind: "prompt", value: prompt }) };
    const content = request["content"];
    if (Array.isArray(content)) return { result: await this.adapter.invoke(agent, { kind: "content", value: content }) };
    const bodies = request["interruptResponses"];
    if (Array.isArray(bodies)) {
      // Wrapped, never checked: a body without a response or with a numeric id must reach the runtime,
      // whose rejection (ROC-RESUME-004/005) is what the suite judges.
      return { result: await this.adapter.invoke(agent, { kind: "interruptResponses", value: resumeBlocks(bodies) }) };
    }
    if ("abandon" in request) throw new Unsupported("this adapter kit does not implement abandon (profile abandon)");
    const call = request["directToolCall"] as JsonObject; // an object with an object input: checked by invoke
    if (this.adapter.callTool === undefined) {
      throw new Unsupported("this adapter does not implement direct tool calls (profile direct-tool-call)");
    }
    const input = (call["input"] ?? {}) as JsonObject;
    return { toolResult: await this.adapter.callTool(agent, { name: String(call["name"] ?? ""), input }) };
  }

  private refusal(thrown: unknown): RocError | undefined {
    if (thrown instanceof Refused) return thrown.error;
    return this.adapter.errorJson?.(thrown);
  }

  /** CreateAgent / RestoreAgent failed: the runtime's refusal, an unbuildable scenario, or an adapter fault. */
  private buildFailure(thrown: unknown): JsonObject {
    const error = thrown instanceof AdapterError ? undefined : this.refusal(thrown);
    if (error !== undefined) return { error };
    if (thrown instanceof ScenarioError || thrown instanceof JsonMappingError) {
      return { harnessError: harnessError(`cannot build scenario: ${thrown.message}`) };
    }
    if (thrown instanceof AdapterError) return { harnessError: harnessError(thrown.message, thrown.stack ?? "") };
    return { harnessError: unexpected(thrown) };
  }

  private register(live: LiveAgent<A>, extra: JsonObject): JsonObject {
    const handle = this.agents.add(live);
    if (handle === undefined) return { harnessError: harnessError(this.agents.full() ?? "agent cap reached") };
    return { agent: handle, ...extra };
  }

  async takeSnapshot(request: JsonObject): Promise<JsonObject> {
    const handle = String(request["agent"] ?? "");
    const live = this.agents.get(handle);
    if (live === undefined) return { harnessError: harnessError(`unknown agent handle ${JSON.stringify(handle)}`) };
    const snapshot = this.adapter.snapshot?.bind(this.adapter);
    if (snapshot === undefined) return { harnessError: harnessError("this adapter does not implement TakeSnapshot (profile sessions)") };
    return live.queue.run(async () => {
      try {
        const doc = await snapshot(live.value.agent, { stored: request["stored"] === true });
        return { snapshotJson: typeof doc === "string" ? doc : JSON.stringify(doc) };
      } catch (thrown) {
        const error = thrown instanceof AdapterError ? undefined : this.refusal(thrown);
        return error !== undefined ? { error } : { harnessError: unexpected(thrown) };
      }
    });
  }

  async restoreAgent(request: JsonObject): Promise<JsonObject> {
    const full = this.agents.full();
    if (full !== undefined) return { harnessError: harnessError(full) };
    const restore = this.adapter.restore?.bind(this.adapter);
    if (restore === undefined) return { harnessError: harnessError("this adapter does not implement RestoreAgent (profile sessions)") };
    let live: LiveAgent<A>;
    try {
      const scenario = parseScenario(request["spec"] ?? {});
      const trace = new Trace();
      const offset = typeof request["modelTurnOffset"] === "number" ? request["modelTurnOffset"] : 0;
      // The text as sent: the runtime parses it with its own limits, so a hostile document is its
      // SNAPSHOT_INVALID, never the adapter's crash.
      const agent = await restore(String(request["snapshotJson"] ?? ""), scenario, trace, offset);
      live = { agent, trace, scenario };
    } catch (thrown) {
      return this.buildFailure(thrown);
    }
    return this.register(live, { trace: live.trace.take() });
  }

  async disposeAgent(request: JsonObject): Promise<JsonObject> {
    const live = this.agents.remove(String(request["agent"] ?? ""));
    if (live === undefined) return {}; // disposing an unknown handle is not an error
    try {
      await this.adapter.dispose?.(live.value.agent);
    } catch (thrown) {
      return { harnessError: unexpected(thrown) };
    }
    return {};
  }

  async inspectAgent(request: JsonObject): Promise<JsonObject> {
    const handle = String(request["agent"] ?? "");
    const live = this.agents.get(handle);
    if (live === undefined) return { harnessError: harnessError(`unknown agent handle ${JSON.stringify(handle)}`) };
    const inspect = this.adapter.inspect?.bind(this.adapter);
    if (inspect === undefined) return { harnessError: harnessError("this adapter does not implement InspectAgent (capability inspect)") };
    return live.queue.run(async () => {
      try {
        const inspection = { ...(await inspect(live.value.agent)) };
        if (Array.isArray(inspection["messages"])) inspection["messages"] = inspection["messages"].map(rocMessage) as JsonValue[];
        if ("pendingAssistantMessage" in inspection) {
          inspection["pendingAssistantMessage"] = rocMessage(inspection["pendingAssistantMessage"]) as JsonValue;
        }
        return { inspection };
      } catch (thrown) {
        return { harnessError: unexpected(thrown) };
      }
    });
  }

  /** ListPending (profile pending-list, harness protocol 4): not supported by this kit. */
  listPending(_request: JsonObject): JsonObject {
    return { harnessError: harnessError("this adapter kit does not implement ListPending (profile pending-list)") };
  }

  async close(): Promise<void> {
    await this.adapter.close?.();
  }
}
