/**
 * The trace of one Invoke: an event recorder and helpers that write each event kind (conformance/README.md,
 * "The trace"). An adapter calls the helper named after the event where its runtime fires it; the recorder
 * must run before the scenario's own callbacks of that event. `invocation_start` and `invocation_end` are
 * written by the kit's service around each Invoke, never by the adapter.
 */
import type { JsonObject, JsonValue } from "./json.ts";
import {
  type AsyncInterrupt,
  type Interrupt,
  type ProgramRun,
  type StateView,
  ToolFailure,
  runProgram,
  runProgramAsync,
} from "./programs.ts";
import type { HookProgram } from "./scenario.ts";

export type ToolOutcome = "returned" | "failed" | "interrupted";

/** One trace event in its JSON form: `{"kind": K, ...fields}`. */
export type TraceEvent = { kind: string } & JsonObject;

/** The events recorded since the last `take`, in order. */
export class Trace {
  private events: TraceEvent[] = [];

  /** Record one event (prefer the named helpers). */
  emit(kind: string, fields: JsonObject = {}): void {
    this.events.push({ ...fields, kind });
  }

  /** The events recorded so far, removing them from the recorder. */
  take(): TraceEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  get length(): number {
    return this.events.length;
  }

  // -- lifecycle events of the runtime -------------------------------------------------------------

  beforeInvocation(): void {
    this.emit("before_invocation");
  }

  afterInvocation(): void {
    this.emit("after_invocation");
  }

  beforeModelCall(): void {
    this.emit("before_model_call");
  }

  afterModelCall(): void {
    this.emit("after_model_call");
  }

  /** The scripted model answers script index `turn` (ScriptedModel records this itself). */
  modelCall(turn: number): void {
    this.emit("model_call", { turn });
  }

  /** A message was appended to the history: record it only after the append (ROC-HOOK-003). */
  messageAdded(role: string): void {
    this.emit("message_added", { role });
  }

  // -- tool events ----------------------------------------------------------------------------------

  /** BeforeTools fired for a cycle; ids in the assistant message's order. */
  beforeTools(toolUseIds: readonly string[]): void {
    this.emit("before_tools", { toolUseIds: [...toolUseIds] });
  }

  beforeToolCall(toolUseId: string): void {
    this.emit("before_tool_call", { toolUseId });
  }

  /** AfterToolCall fired with a result of `status` (`success` or `error`). */
  afterToolCall(toolUseId: string, status: string): void {
    this.emit("after_tool_call", { toolUseId, status });
  }

  /** AfterTools fired; ids of the results in its tool-result message, in message order. */
  afterTools(toolUseIds: readonly string[]): void {
    this.emit("after_tools", { toolUseIds: [...toolUseIds] });
  }

  /** A scenario callback runs (`toolUseId` for the per-tool events only). */
  hookCallback(event: string, hookIndex: number, toolUseId?: string): void {
    this.emit("hook_callback", toolUseId === undefined ? { event, hookIndex } : { event, hookIndex, toolUseId });
  }

  // -- audit (profile audit, harness protocol 6) ---------------------------------------------------------

  /**
   * The resume guard installed for `recordResumeGuard` saw a resume input (spec 10.7). `responses`: each
   * block's interruptResponse body as the guard received it (interruptId, response or decision and message,
   * metadata), in input order; `kept`: `{interruptId, metadata}` of each interrupt of the batch already
   * answered or decided whose answer came with metadata.
   */
  resumeGuard(responses: readonly JsonObject[], kept: readonly JsonObject[]): void {
    this.emit("resume_guard", { responses: structuredClone([...responses]), kept: structuredClone([...kept]) });
  }

  /** `input`: the input the body received (harness protocol 6; spec 16.5: an approval's edited input). */
  toolStart(toolUseId: string, name: string, input?: JsonObject): void {
    this.emit(
      "tool_start",
      input === undefined ? { toolUseId, name } : { toolUseId, name, input: structuredClone(input) },
    );
  }

  toolEnd(toolUseId: string, outcome: ToolOutcome): void {
    this.emit("tool_end", { toolUseId, outcome });
  }

  /**
   * Around a tool body: `tool_start` first, `tool_end` on the way out. The outcome follows how the body
   * ends: normally, `returned`; with ToolFailure (a `fail` step), `failed`; with anything else thrown,
   * `interrupted` (the body stopped at an interrupt call, paused or refused). What was thrown propagates,
   * for the runtime to handle.
   */
  async toolBody<T>(
    toolUseId: string,
    name: string,
    body: () => T | Promise<T>,
    input?: JsonObject,
  ): Promise<T> {
    this.toolStart(toolUseId, name, input);
    let result: T;
    try {
      result = await body();
    } catch (error) {
      this.toolEnd(toolUseId, error instanceof ToolFailure ? "failed" : "interrupted");
      throw error;
    }
    this.toolEnd(toolUseId, "returned");
    return result;
  }

  /** `toolBody` for a runtime whose tool bodies are synchronous. */
  toolBodySync<T>(toolUseId: string, name: string, body: () => T, input?: JsonObject): T {
    this.toolStart(toolUseId, name, input);
    let result: T;
    try {
      result = body();
    } catch (error) {
      this.toolEnd(toolUseId, error instanceof ToolFailure ? "failed" : "interrupted");
      throw error;
    }
    this.toolEnd(toolUseId, "returned");
    return result;
  }
}

/** What `runHook` needs from the event: its raise API (Before* events only) and the agent state. */
export interface HookRun {
  /** The event's raise API; undefined for After* events, whose programs cannot interrupt. */
  interrupt?: Interrupt | undefined;
  state: StateView;
  /** The tool use of a per-tool event (BeforeToolCall, AfterToolCall). */
  toolUseId?: string | undefined;
}

function recordHook(trace: Trace, hook: HookProgram, toolUseId: string | undefined): void {
  trace.hookCallback(hook.event, hook.index, hook.perTool ? toolUseId : undefined);
}

/**
 * Record `hook_callback` for a scenario callback, then run its program. Call it only when the callback
 * applies (`hook.appliesTo`). The caller applies `run.cancel` (`true`: cancel with the runtime's default
 * message).
 */
export function runHook(trace: Trace, hook: HookProgram, options: HookRun): ProgramRun {
  recordHook(trace, hook, options.toolUseId);
  return runProgram(hook.steps, { interrupt: options.interrupt, state: options.state });
}

/** `runHook` for a raise API that returns a promise. */
export async function runHookAsync(
  trace: Trace,
  hook: HookProgram,
  options: Omit<HookRun, "interrupt"> & { interrupt?: AsyncInterrupt | undefined },
): Promise<ProgramRun> {
  recordHook(trace, hook, options.toolUseId);
  return runProgramAsync(hook.steps, { interrupt: options.interrupt, state: options.state });
}

/**
 * The tool names of the batch in flight, kept from BeforeTools for the AfterTools `toolName` match: an
 * AfterTools event carries results, which hold no tool names (conformance/README.md, "Hooks").
 */
export class BatchToolNames {
  private names: string[] = [];

  /** At BeforeTools: the names of the batch's tool uses. */
  remember(names: readonly string[]): void {
    this.names = [...names];
  }

  /** At AfterTools: the names kept for this cycle. */
  current(): readonly string[] {
    return this.names;
  }
}

/**
 * Record `message_added` only when the history already ends with the message the event announces: an event
 * fired before its append (or for a message never appended) is left out, so the suite sees the gap
 * (ROC-HOOK-003).
 */
export function recordMessageAdded(trace: Trace, history: readonly unknown[], message: { role: string } & object): void {
  if (history.length > 0 && history[history.length - 1] === message) trace.messageAdded(message.role);
}

export type { JsonValue };
