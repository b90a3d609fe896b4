/**
 * Translation between the SDK's session snapshot and the RoC snapshot (spec chapter 8).
 *
 * @strands-agents/sdk 1.19 persists an agent as `agent.takeSnapshot({preset: 'session'})`
 * (dist/src/agent/snapshot.js, `{scope: 'agent', schemaVersion: '1.0', createdAt, data, appData}`); `data`
 * holds `messages`, `state`, `systemPrompt`, `modelState` and `interrupts`, the `InterruptState.toJSON()`
 * (`interrupts` by id, `resumeResponses`, `activated`, `pendingToolExecution{assistantMessageData,
 * completedToolResults by toolUseId}`). `toRoc` writes a RoC format 2.0 document from it; `toSdk` turns a
 * loaded RoC document into the SDK form that `agent.loadSnapshot` takes.
 *
 * Both directions:
 * - `agent.agentId` is the agent's `id`; `agent.state` is `data.state`; messages keep `role`, `content` and
 *   `metadata` (the kit's rule; `trackingId` is dropped and the SDK mints a new one on loading).
 * - The SDK appends a batch's assistant message only when the batch completes (deferred append), so its
 *   history never holds the pending message: it is `pendingToolExecution.assistantMessage` on both sides.
 * - `completedToolResults`: the SDK's map by toolUseId <-> RoC's list of result bodies in tool-use order.
 * - Interrupts: the SDK's `{id, name, reason?, response?, source: 'tool' | 'hook'}`. RoC's `source` comes
 *   from the adapter's raise-point record (or the restored document); written to the SDK as `tool` or
 *   `hook`. Ids are kept exactly as written, never remapped: the SDK looks up its own
 *   `tool:<toolUseId>:<name>` form when a unit raises again, so a foreign id is not found there, which the
 *   suite reports against the SDK (ROC-SESSION-003/004/015).
 * - `inputDigest` is not in the SDK: written, computed from the pending tool use's input with the kit's
 *   canonical JSON; read, the loader has checked it.
 * - Not translated: `systemPrompt`, `modelState`, `resumeResponses` (the last resume's blocks, read by the
 *   SDK only while it resumes), `appData`: not written, and a restored agent keeps the fresh agent's own.
 *   A RoC interrupt's `metadata`, `responseSchema` and `expiresAt` have no place in the SDK and are dropped.
 * - `revision`: the SDK keeps none; 0 for a created agent, the restored document's for a restored one.
 */
import { type JsonObject, type JsonValue, inputDigest, isJsonObject, rocMessage } from "@roc-protocol/kit-typescript";
import type { Snapshot } from "@strands-agents/sdk";
import type { Built } from "./built.ts";
import { sourceOf, toJson, toolNamesOf } from "./translate.ts";

export const SCHEMA_VERSION = "2.0";
export const SPEC_VERSION = "1.0";
const SDK_SCHEMA_VERSION = "1.0";

function toolUses(message: JsonValue | undefined): Map<string, JsonObject> {
  const content = isJsonObject(message) && Array.isArray(message["content"]) ? message["content"] : [];
  const uses = new Map<string, JsonObject>();
  for (const block of content) {
    const use = isJsonObject(block) ? block["toolUse"] : undefined;
    if (isJsonObject(use)) uses.set(String(use["toolUseId"]), use);
  }
  return uses;
}

/** The RoC snapshot of the agent, from the SDK's own session snapshot. */
export function toRoc(built: Built): JsonObject {
  const sdk = built.agent.takeSnapshot({ preset: "session" });
  const data = toJson(sdk.data) as JsonObject;
  const raw = isJsonObject(data["interrupts"]) ? data["interrupts"] : {};
  const pending = isJsonObject(raw["pendingToolExecution"]) ? raw["pendingToolExecution"] : undefined;
  const messages = (Array.isArray(data["messages"]) ? data["messages"] : []).map((m) => rocMessage(m) as JsonValue);
  const assistant = pending === undefined ? undefined : (rocMessage(pending["assistantMessageData"]) as JsonObject);
  const uses = toolUses(assistant);
  const names = toolNamesOf(assistant === undefined ? messages : [...messages, assistant]);
  const interrupts = Object.values(built.agent._interruptState.interrupts).map((interrupt) => {
    const source = sourceOf(interrupt, built.sources, names);
    const out: JsonObject = { id: interrupt.id, name: interrupt.name };
    if (interrupt.reason !== undefined) out["reason"] = interrupt.reason as JsonValue;
    out["source"] = source;
    if (interrupt.response !== undefined) out["response"] = interrupt.response as JsonValue;
    const use = uses.get(String(source["toolUseId"] ?? ""));
    if (use !== undefined) out["inputDigest"] = inputDigest(use["input"] ?? null);
    return out;
  });
  let pendingDoc: JsonValue = null;
  if (pending !== undefined && assistant !== undefined) {
    const completed = isJsonObject(pending["completedToolResults"]) ? pending["completedToolResults"] : {};
    const order = [...uses.keys(), ...Object.keys(completed).filter((id) => !uses.has(id))];
    pendingDoc = {
      assistantMessage: assistant,
      completedToolResults: order.flatMap((id) => {
        const entry = completed[id];
        return isJsonObject(entry) && isJsonObject(entry["toolResult"]) ? [entry["toolResult"]] : [];
      }),
    };
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    specVersion: SPEC_VERSION,
    createdAt: sdk.createdAt,
    revision: built.revision,
    agent: { agentId: built.agent.id, messages, state: isJsonObject(data["state"]) ? data["state"] : {} },
    interruptState: { activated: raw["activated"] === true, interrupts, pendingToolExecution: pendingDoc },
  };
}

/** The SDK snapshot of a loaded RoC document (only messages, state and interrupts), and the sources. */
export function toSdk(doc: JsonObject): { snapshot: Snapshot; sources: Map<string, JsonObject> } {
  const agent = doc["agent"] as JsonObject;
  const state = doc["interruptState"] as JsonObject;
  const stored = state["interrupts"] as JsonObject[];
  const interrupts: JsonObject = {};
  const sources = new Map<string, JsonObject>();
  for (const i of stored) {
    const id = String(i["id"]);
    const source = i["source"] as JsonObject;
    sources.set(id, { ...source });
    const entry: JsonObject = { id, name: i["name"] as JsonValue };
    if ("reason" in i) entry["reason"] = i["reason"] as JsonValue;
    if ("response" in i) entry["response"] = i["response"] as JsonValue;
    entry["source"] = source["kind"] === "tool" ? "tool" : "hook";
    interrupts[id] = entry;
  }
  const interruptState: JsonObject = { interrupts, activated: state["activated"] as boolean };
  const pending = state["pendingToolExecution"];
  if (isJsonObject(pending)) {
    const completed: JsonObject = {};
    for (const result of pending["completedToolResults"] as JsonObject[]) {
      completed[String(result["toolUseId"])] = { toolResult: result };
    }
    interruptState["pendingToolExecution"] = {
      assistantMessageData: pending["assistantMessage"] as JsonValue,
      completedToolResults: completed,
    };
  }
  const snapshot: Snapshot = {
    scope: "agent",
    schemaVersion: SDK_SCHEMA_VERSION,
    createdAt: String(doc["createdAt"]),
    data: { messages: agent["messages"] as JsonValue, state: agent["state"] as JsonValue, interrupts: interruptState },
    appData: {},
  };
  return { snapshot, sources };
}
