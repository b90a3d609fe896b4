/**
 * A minimal adapter built on the kit, over a tiny runtime defined in this file. The runtime runs the scripted
 * model and the scenario's tools one after another; it has no interrupts, no hooks and no sessions. It is
 * not a conforming RoC runtime (a tool that raises an interrupt makes it throw, which the suite sees as a
 * crash); it exists to show, and to test end to end, how little an adapter author writes with the kit.
 *
 *   npx tsx examples/minimal.ts --port 0     # prints ROC-HARNESS-LISTENING 127.0.0.1:<port>
 *
 * ROC_EXAMPLE_BROKEN=hang makes every Invoke wait forever; ROC_EXAMPLE_BROKEN=malformed makes every Invoke
 * reply without an outcome. The kit's own tests use them to see the suite report an adapter fault.
 */
import {
  AdapterError,
  type AdapterInfo,
  type DirectToolCall,
  HarnessService,
  type InvokeInput,
  type JsonObject,
  type JsonValue,
  type RocError,
  type RuntimeAdapter,
  type Scenario,
  ScriptedModel,
  type Step,
  ToolFailure,
  type Trace,
  Unsupported,
  objectState,
  recordMessageAdded,
  runProgram,
  serve,
  toolResultContent,
} from "../src/index.ts";

// --- the tiny runtime (what an SDK would be) ------------------------------------------------------------

interface TinyMessage {
  role: "user" | "assistant";
  content: JsonValue[];
  /** An SDK extra outside the RoC message shape; the kit drops it from every reply. */
  trackingId: number;
}

/** The runtime's own refusal, with a code of RoC's closed set (mapped by the adapter's errorJson). */
class TinyRefusal extends Error {
  constructor(
    readonly code: RocError["code"],
    message: string,
  ) {
    super(message);
  }
}

/** Thrown when a tool body asks for an interrupt: this runtime has none. */
class NoInterrupts extends Error {
  override name = "NoInterrupts";
}

type TinyTool = (toolUseId: string, input: JsonObject) => JsonObject[];

class TinyAgent {
  readonly messages: TinyMessage[] = [];
  private tracking = 0;

  constructor(
    readonly model: ScriptedModel,
    readonly tools: ReadonlyMap<string, TinyTool>,
    readonly state: Record<string, unknown>,
    private readonly onMessage: (history: readonly TinyMessage[], message: TinyMessage) => void,
  ) {}

  private append(role: TinyMessage["role"], content: JsonValue[]): TinyMessage {
    const message = { role, content, trackingId: this.tracking++ };
    this.messages.push(message);
    this.onMessage(this.messages, message);
    return message;
  }

  invoke(input: string | JsonValue[]): JsonObject {
    if (Array.isArray(input) && input.some((b) => typeof b === "object" && b !== null && "interruptResponse" in b)) {
      throw new TinyRefusal("NOT_INTERRUPTED", "this runtime never pauses, so there is nothing to resume");
    }
    this.append("user", typeof input === "string" ? [{ text: input }] : input);
    for (;;) {
      const reply = this.model.nextReply();
      const assistant = this.append("assistant", reply.content);
      if (reply.stopReason !== "tool_use") {
        return { stopReason: reply.stopReason, message: { role: assistant.role, content: assistant.content }, interrupts: [] };
      }
      const results = reply.content.flatMap((block) => {
        if (typeof block !== "object" || block === null || Array.isArray(block) || !("toolUse" in block)) return [];
        const use = block["toolUse"] as JsonObject;
        return [{ toolResult: this.runTool(String(use["toolUseId"]), String(use["name"]), (use["input"] ?? {}) as JsonObject) }];
      });
      this.append("user", results);
    }
  }

  runTool(toolUseId: string, name: string, input: JsonObject): JsonObject {
    const tool = this.tools.get(name);
    if (tool === undefined) return { toolUseId, status: "error", content: [{ text: `unknown tool ${name}` }] };
    try {
      return { toolUseId, status: "success", content: tool(toolUseId, input) };
    } catch (error) {
      if (error instanceof ToolFailure) return { toolUseId, status: "error", content: [{ text: error.message }] };
      throw error; // anything else ends the invocation
    }
  }
}

// --- the adapter: what an SDK author writes ---------------------------------------------------------------

function scenarioTool(name: string, steps: readonly Step[], trace: Trace, state: Record<string, unknown>): TinyTool {
  const interrupt = (): never => {
    throw new NoInterrupts(`tool ${name} raised an interrupt, and this runtime has no interrupts`);
  };
  return (toolUseId) =>
    trace.toolBodySync(toolUseId, name, () => toolResultContent(runProgram(steps, { interrupt, state: objectState(state) })));
}

class MinimalAdapter implements RuntimeAdapter<TinyAgent> {
  private directCalls = 0;

  info(): AdapterInfo {
    return {
      name: "roc-kit-minimal-example",
      version: "0.1.0",
      adapter: "roc-kit-typescript minimal example 0.1.0",
      profiles: ["core", "sequential-executor", "direct-tool-call"],
      notApplicable: { hooks: "the example runtime has no hook API" },
    };
  }

  create(scenario: Scenario, trace: Trace): TinyAgent {
    if (scenario.hooks.length > 0) throw new Unsupported("the example runtime has no hooks");
    if (scenario.executor !== "sequential") throw new Unsupported("the example runtime runs tools one after another only");
    const state: Record<string, unknown> = structuredClone(scenario.state);
    const tools = new Map(scenario.tools.map((t) => [t.name, scenarioTool(t.name, t.steps, trace, state)]));
    return new TinyAgent(new ScriptedModel(scenario.turns, trace), tools, state, (history, message) =>
      recordMessageAdded(trace, history, message),
    );
  }

  async invoke(agent: TinyAgent, input: InvokeInput): Promise<JsonObject> {
    if (process.env["ROC_EXAMPLE_BROKEN"] === "hang") await new Promise<never>(() => undefined);
    return agent.invoke(input.value);
  }

  callTool(agent: TinyAgent, call: DirectToolCall): JsonObject {
    return agent.runTool(`direct-${++this.directCalls}`, call.name, call.input);
  }

  messages(agent: TinyAgent): unknown[] {
    return agent.messages;
  }

  state(agent: TinyAgent): JsonObject {
    return structuredClone(agent.state) as JsonObject;
  }

  inspect(agent: TinyAgent): JsonObject {
    // Never paused: nothing pending, nothing answered.
    return {
      activated: false,
      interrupts: [],
      preservedToolUseIds: [],
      messages: agent.messages as unknown as JsonValue[],
      state: this.state(agent),
    };
  }

  errorJson(thrown: unknown): RocError | undefined {
    return thrown instanceof TinyRefusal ? { code: thrown.code, message: thrown.message } : undefined;
  }
}

/** ROC_EXAMPLE_BROKEN=malformed: every Invoke reply has no outcome, which breaks the harness contract. */
class MalformedService extends HarnessService<TinyAgent> {
  override async invoke(request: JsonObject): Promise<JsonObject> {
    const reply = await super.invoke(request);
    const { result: _result, error: _error, toolResult: _toolResult, crash: _crash, ...rest } = reply;
    return rest;
  }
}

const broken = process.env["ROC_EXAMPLE_BROKEN"];
if (broken !== undefined && broken !== "hang" && broken !== "malformed") {
  throw new AdapterError(`ROC_EXAMPLE_BROKEN must be hang or malformed, got ${broken}`);
}
const adapter = new MinimalAdapter();
await serve(broken === "malformed" ? new MalformedService(adapter) : adapter);
