/** One agent under test with what the adapter keeps beside it. */
import type { InterruptRequest, StateView, Trace } from "@roc-protocol/kit-typescript";
import type { Agent, Interrupt, InterruptParams, JSONValue } from "@strands-agents/sdk";
import type { Sources } from "./translate.ts";

export interface Built {
  agent: Agent;
  trace: Trace;
  /** interrupt id -> RoC InterruptSource, recorded where the programs raised each one. */
  readonly sources: Sources;
  /** The tool names of the current cycle's BeforeTools message: AfterTools carries results, not names. */
  batchNames: string[];
  /** The snapshot revision: 0 for a created agent, the restored document's for a restored one (the SDK
   * keeps none). */
  revision: number;
}

/** Filled once the agent exists: tools and hooks are built before it. */
export interface Holder {
  built?: Built;
}

export function builtOf(holder: Holder): Built {
  if (holder.built === undefined) throw new Error("the agent is not built yet");
  return holder.built;
}

/** The programs' state view over the agent's `appState`. */
export function appStateView(agent: Agent): StateView {
  const state = agent.appState;
  return {
    get: (key) => state.get(key),
    has: (key) => state.keys().includes(key),
    put: (key, value) => state.set(key, value),
  };
}

/**
 * The program's raise API over a Strands one (`toolContext.interrupt` / `event.interrupt`), recording the
 * raise point of each interrupt it raises. A step's metadata is not passed on: InterruptParams in 1.19 has
 * only name, reason and response, so the result shows no metadata, which the suite judges as the SDK's.
 */
export function raiser(
  built: Built,
  raise: (params: InterruptParams) => JSONValue,
  source: Record<string, JSONValue>,
): (request: InterruptRequest) => unknown {
  return (request) => {
    // A reason absent from the step is left out; a null reason is passed as null.
    const params: InterruptParams =
      request.reason === undefined ? { name: request.name } : { name: request.name, reason: request.reason as JSONValue };
    try {
      return raise(params);
    } catch (thrown) {
      for (const interrupt of pausedBy(thrown)) built.sources.set(interrupt.id, { ...source });
      throw thrown;
    }
  };
}

/**
 * The interrupts of the SDK's pause signal, InterruptError (dist/src/interrupt.js), or none for anything
 * else. The package's exports do not include the class, so it is known by its name and members.
 */
export function pausedBy(thrown: unknown): readonly Interrupt[] {
  if (!(thrown instanceof Error) || thrown.name !== "InterruptError") return [];
  const interrupts: unknown = (thrown as Error & { interrupts?: unknown }).interrupts;
  return Array.isArray(interrupts) ? (interrupts as Interrupt[]) : [];
}
