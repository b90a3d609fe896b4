/**
 * The live agents of one adapter process: opaque handles, a cap, and one queue per agent so that the
 * requests on one agent run one after the other (an Invoke awaits the runtime; without the queue a second
 * request on the same agent could start in the middle of it and see half of its trace).
 */
import { randomBytes } from "node:crypto";

/**
 * The default cap on the agents one adapter holds (conformance/README.md, "Isolation, concurrency and
 * deadlines": at least 256). The suite disposes what each check leaves behind, so a run holds a handful; a
 * CreateAgent or RestoreAgent past the cap is a harness_error.
 */
export const MAX_LIVE_AGENTS = 256;

/** Runs the tasks given to it one at a time, in order. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(task, task);
    // The next task waits for this one however it ends; its own failure is reported to its own caller.
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** One live agent: whatever the adapter keeps for it, plus the kit's bookkeeping. */
export interface Live<T> {
  readonly value: T;
  readonly queue: SerialQueue;
}

export class AgentTable<T> {
  private readonly agents = new Map<string, Live<T>>();

  constructor(readonly cap: number = MAX_LIVE_AGENTS) {}

  get size(): number {
    return this.agents.size;
  }

  /** Why no agent can be added now, or undefined while there is room. */
  full(): string | undefined {
    if (this.agents.size < this.cap) return undefined;
    return `this adapter holds ${this.agents.size} live agents, its cap of ${this.cap}: dispose agents first`;
  }

  /** A new handle for `value`; undefined past the cap. */
  add(value: T): string | undefined {
    if (this.full() !== undefined) return undefined;
    const handle = `agent-${randomBytes(6).toString("hex")}`;
    this.agents.set(handle, { value, queue: new SerialQueue() });
    return handle;
  }

  get(handle: string): Live<T> | undefined {
    return this.agents.get(handle);
  }

  /** Forget a handle; the agent it held, if any. */
  remove(handle: string): Live<T> | undefined {
    const live = this.agents.get(handle);
    this.agents.delete(handle);
    return live;
  }

  values(): IterableIterator<Live<T>> {
    return this.agents.values();
  }
}
