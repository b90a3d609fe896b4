/**
 * Translation between @strands-agents/sdk 1.19 values and RoC JSON: messages, results, interrupts and errors.
 * Mapping tables: conformance/README.md, "Mapping onto Strands Agents" and "Mapping runtime errors".
 */
import { type JsonObject, type JsonValue, Refused, type RocError, isJsonObject } from "@roc-protocol/kit-typescript";
import type { AgentResult, Interrupt } from "@strands-agents/sdk";

/** Where a program raised an interrupt: the RoC InterruptSource, keyed by the SDK's interrupt id. */
export type Sources = Map<string, JsonObject>;

/** Any SDK value with a toJSON (Message, content blocks) as plain JSON; the kit drops `trackingId`. */
export function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

/**
 * The RoC InterruptSource of an SDK interrupt. The SDK's own `source` says only `tool` or `hook`, so the
 * adapter's raise-point record comes first; the id prefix the SDK mints (`tool:<toolUseId>:<name>`,
 * `hook:beforeToolCall:<toolUseId>:<name>`, `hook:beforeTools:<name>`) is the fallback for interrupts
 * the adapter did not see raised (a restored agent). `toolNames` maps tool-use ids to tool names.
 */
export function sourceOf(interrupt: Interrupt, sources: Sources, toolNames: ReadonlyMap<string, string>): JsonObject {
  const recorded = sources.get(interrupt.id);
  if (recorded !== undefined) return { ...recorded };
  const suffix = `:${interrupt.name}`;
  const withTool = (kind: string, prefix: string): JsonObject => {
    const toolUseId = interrupt.id.endsWith(suffix) ? interrupt.id.slice(prefix.length, -suffix.length) : "";
    const toolName = toolNames.get(toolUseId);
    return toolName === undefined ? { kind, toolUseId } : { kind, toolUseId, toolName };
  };
  if (interrupt.id.startsWith("hook:beforeTools:")) return { kind: "before_tools" };
  if (interrupt.id.startsWith("hook:beforeToolCall:")) return withTool("before_tool_call", "hook:beforeToolCall:");
  if (interrupt.id.startsWith("tool:")) return withTool("tool", "tool:");
  return { kind: interrupt.source === "tool" ? "tool" : "before_tools" };
}

/** An SDK interrupt as RoC Interrupt JSON, its reason exactly as held (a null reason included). */
export function interruptJson(interrupt: Interrupt, source: JsonObject): JsonObject {
  const out: JsonObject = { id: interrupt.id, name: interrupt.name };
  if (interrupt.reason !== undefined) out["reason"] = interrupt.reason as JsonValue;
  out["source"] = source;
  return out;
}

/** SDK stop reasons are camelCase (`endTurn`); RoC's are snake_case (`end_turn`). */
export function stopReason(reason: string): string {
  return reason.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function resultJson(
  result: AgentResult,
  sources: Sources,
  toolNames: ReadonlyMap<string, string>,
): JsonObject {
  return {
    stopReason: stopReason(result.stopReason),
    message: toJson(result.lastMessage),
    interrupts: (result.interrupts ?? []).map((i) => interruptJson(i, sourceOf(i, sources, toolNames))),
  };
}

/** toolUseId -> tool name for every toolUse block of these messages (Message JSON). */
export function toolNamesOf(messages: readonly JsonValue[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    const content = isJsonObject(message) && Array.isArray(message["content"]) ? message["content"] : [];
    for (const block of content) {
      const use = isJsonObject(block) ? block["toolUse"] : undefined;
      if (isJsonObject(use)) names.set(String(use["toolUseId"]), String(use["name"]));
    }
  }
  return names;
}

const UNKNOWN_ID = /^interrupt_id=<(.*)> \| no interrupt found$/s;

function error(code: RocError["code"], message: string, details?: JsonObject): RocError {
  return new Refused(code, message, details).error;
}

/**
 * The RoC Error for an SDK refusal, by error type and its documented message; undefined: a crash. The
 * texts are @strands-agents/sdk 1.19's (dist/src/agent/agent.js, interrupt.js, hooks/registry.js,
 * agent/tool-caller.js).
 */
export function errorJson(thrown: unknown): RocError | undefined {
  if (!(thrown instanceof Error)) return undefined;
  const text = thrown.message;
  if (thrown instanceof TypeError) {
    if (text === "Agent is in an interrupted state. Resume by invoking with interruptResponse content blocks.") {
      return error("INTERRUPT_PENDING", text);
    }
    if (text === "Must resume from interrupt with a list of interruptResponse content blocks only") {
      return error("INTERRUPT_PENDING", text);
    }
    return undefined;
  }
  if (thrown.constructor !== Error) return undefined;
  const unknown = UNKNOWN_ID.exec(text);
  if (unknown !== null) return error("UNKNOWN_INTERRUPT", text, { interruptId: unknown[1] ?? "" });
  if (/^interrupt_names=<.*> \| duplicate interrupt names$/s.test(text)) return error("DUPLICATE_INTERRUPT_NAME", text);
  if (text === "Interrupts are not supported in direct tool calls") return error("DIRECT_CALL_INTERRUPT", text);
  return undefined;
}
