/**
 * Step programs: the bodies of scenario tools and hook callbacks (conformance/README.md, "The scenario
 * language"), with the semantics of the Python kit and the reference adapter, step for step.
 *
 * A program runs from its first step every time its unit runs (that is what replay means), collecting the
 * answers its `interrupt` steps receive:
 * - `interrupt{name, reason? | reasonFromState?, metadata?}`: ask, or on replay receive the stored answer.
 *   The reason is passed as the step gives it: absent is `undefined`, a `null` reason stays `null` (a null
 *   reason is no reason, spec 2.1, and that is the runtime's rule to apply); with `reasonFromState` it is
 *   `state[key]` at this raise (`undefined` when the key is absent). `metadata` is passed only when the step
 *   has it, and so is `responseSchema` (harness protocol 6, spec 14), possibly outside the portable subset on
 *   purpose: refusing it is the runtime's job.
 * - `return{value?}` (tool): success `[{"json": {"answers": [...], "value": value}}]` (absent value: null).
 * - `fail{message}` (tool): the body fails with this message.
 * - `cancel{message?}` / `cancelIf{answerNotIn, message}` (hook): cancel the tool or the batch; `cancel`
 *   without a message cancels with `true` (the runtime's default text); `cancelIf` cancels when the last
 *   answer, or no answer at all, is not in the list.
 * - `skipIfState{key, equals}`: end the program when `state[key]` exists and equals the value.
 * - `setState{key, fromAnswer | value}`: write state (`fromAnswer` with no answer yet writes null).
 *
 * The interpreter is a generator that yields each interrupt request and receives the answer, so one
 * definition serves a runtime whose raise API is synchronous (`runProgram`) and one whose API returns a
 * promise (`runProgramAsync`). A raise API that pauses throws; the throw leaves the program where it is.
 */
import { type JsonObject, type JsonValue, isJsonObject, jsonEqual } from "./json.ts";

export type StepOp = "interrupt" | "return" | "fail" | "cancel" | "cancelIf" | "skipIfState" | "setState";

export const TOOL_OPS: ReadonlySet<StepOp> = new Set(["interrupt", "return", "fail", "skipIfState", "setState"]);
export const HOOK_OPS: ReadonlySet<StepOp> = new Set(["interrupt", "cancel", "cancelIf", "skipIfState", "setState"]);
export const PASSIVE_HOOK_OPS: ReadonlySet<StepOp> = new Set(["skipIfState", "setState"]);
export const DEFAULT_CANCEL = "cancelled";

const ALL_OPS: ReadonlySet<string> = new Set([...TOOL_OPS, ...HOOK_OPS]);

/** The scenario cannot be built: an adapter-side refusal, reported as harness_error. */
export class ScenarioError extends Error {
  override name = "ScenarioError";
}

/** Thrown by a tool body whose program ended at a `fail` step: the runtime, not the adapter, must turn a
 * failing body into an error result (ROC-TOOL-008), so the body throws as any failing tool does. */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

/** One validated step. */
export interface Step {
  readonly op: StepOp;
  readonly args: Readonly<JsonObject>;
}

/** Validate a step list against the ops allowed in its place (`where` names it in messages). */
export function parseSteps(raw: unknown, allowed: ReadonlySet<StepOp>, where: string): Step[] {
  if (!Array.isArray(raw)) throw new ScenarioError(`${where}: steps must be a list`);
  return raw.map((item: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isJsonObject(item) || Object.keys(item).length !== 1) {
      throw new ScenarioError(`${at}: a step is an object with exactly one member`);
    }
    const [op, args] = Object.entries(item)[0] as [string, JsonValue];
    if (!ALL_OPS.has(op) || !allowed.has(op as StepOp)) {
      throw new ScenarioError(`${at}: step ${JSON.stringify(op)} is not allowed here`);
    }
    if (!isJsonObject(args)) throw new ScenarioError(`${at}: step arguments must be an object`);
    if (op === "interrupt") {
      // An empty name is passed through: refusing it is the runtime's job (ROC-STOP-007).
      if (typeof args["name"] !== "string") throw new ScenarioError(`${at}: interrupt needs a name`);
      if ("reasonFromState" in args && ("reason" in args || typeof args["reasonFromState"] !== "string")) {
        throw new ScenarioError(`${at}: interrupt takes a reason or a reasonFromState key, not both`);
      }
      if ("metadata" in args && !isJsonObject(args["metadata"])) {
        throw new ScenarioError(`${at}: interrupt metadata must be an object`);
      }
      if ("responseSchema" in args && !isJsonObject(args["responseSchema"])) {
        throw new ScenarioError(`${at}: interrupt responseSchema must be an object`);
      }
    }
    if ((op === "skipIfState" || op === "setState") && typeof args["key"] !== "string") {
      throw new ScenarioError(`${at}: ${op} needs a key`);
    }
    return { op: op as StepOp, args: { ...args } };
  });
}

/** What a program may do to the agent state. */
export interface StateView {
  get(key: string): unknown;
  has(key: string): boolean;
  put(key: string, value: unknown): void;
}

/** A state view over a plain object (a runtime whose state is a JSON object it exposes). */
export function objectState(state: Record<string, unknown>): StateView {
  return {
    get: (key) => state[key],
    has: (key) => Object.hasOwn(state, key),
    put: (key, value) => {
      state[key] = value;
    },
  };
}

/** One interrupt a program raises: what to hand the runtime's raise API. */
export interface InterruptRequest {
  readonly name: string;
  /** `undefined`: the step has no reason (or its reasonFromState key is absent). */
  readonly reason: unknown;
  /** Present only when the step has metadata. */
  readonly metadata?: JsonObject;
  /** Present only when the step has a responseSchema (spec 14; harness protocol 6), passed as it is. */
  readonly responseSchema?: JsonObject;
}

export type ProgramEnd = "none" | "return" | "fail" | "skipped";

/** The outcome of one run of a program that did not stop at an unanswered interrupt. */
export interface ProgramRun {
  answers: unknown[];
  end: ProgramEnd;
  value: unknown;
  failMessage: string;
  /** `true`: cancel without a message (the runtime's default text); undefined: no cancel. */
  cancel: string | true | undefined;
}

const NO_ANSWER: unique symbol = Symbol("no answer");

function reasonOf(args: Readonly<JsonObject>, state: StateView): unknown {
  const key = args["reasonFromState"];
  if (typeof key !== "string") return args["reason"];
  return state.has(key) ? state.get(key) : undefined;
}

/** The interpreter: yields each interrupt request, receives its answer. */
export function* programSteps(
  steps: readonly Step[],
  state: StateView,
  canInterrupt: boolean,
): Generator<InterruptRequest, ProgramRun, unknown> {
  const run: ProgramRun = { answers: [], end: "none", value: null, failMessage: "", cancel: undefined };
  let last: unknown = NO_ANSWER;
  for (const { op, args } of steps) {
    if (op === "interrupt") {
      if (!canInterrupt) throw new ScenarioError("this program cannot interrupt");
      const metadata = args["metadata"];
      const responseSchema = args["responseSchema"];
      const request: InterruptRequest = {
        name: String(args["name"]),
        reason: reasonOf(args, state),
        ...(isJsonObject(metadata) ? { metadata } : {}),
        ...(isJsonObject(responseSchema) ? { responseSchema } : {}),
      };
      const answer: unknown = yield request;
      run.answers.push(answer);
      last = answer;
    } else if (op === "return") {
      run.end = "return";
      run.value = "value" in args ? args["value"] : null;
      return run;
    } else if (op === "fail") {
      run.end = "fail";
      run.failMessage = "message" in args ? String(args["message"]) : "";
      return run;
    } else if (op === "cancel") {
      run.cancel = "message" in args ? String(args["message"]) : true;
    } else if (op === "cancelIf") {
      const allowed = Array.isArray(args["answerNotIn"]) ? args["answerNotIn"] : [];
      if (last === NO_ANSWER || !allowed.some((x) => jsonEqual(last, x))) {
        run.cancel = "message" in args ? String(args["message"]) : DEFAULT_CANCEL;
      }
    } else if (op === "skipIfState") {
      const key = String(args["key"]);
      if (state.has(key) && jsonEqual(state.get(key), "equals" in args ? args["equals"] : null)) {
        run.end = "skipped";
        return run;
      }
    } else {
      const key = String(args["key"]);
      if (args["fromAnswer"]) state.put(key, last === NO_ANSWER ? null : last);
      else state.put(key, "value" in args ? args["value"] : null);
    }
  }
  return run;
}

/** A raise API: returns the stored answer, or throws the runtime's pause signal (or its refusal). */
export type Interrupt = (request: InterruptRequest) => unknown;
export type AsyncInterrupt = (request: InterruptRequest) => unknown;

/** Run a program whose raise API is synchronous; `interrupt` undefined: the program cannot interrupt. */
export function runProgram(steps: readonly Step[], options: { interrupt?: Interrupt | undefined; state: StateView }): ProgramRun {
  const program = programSteps(steps, options.state, options.interrupt !== undefined);
  let next = program.next();
  while (!next.done) next = program.next(options.interrupt?.(next.value));
  return next.value;
}

/** Run a program whose raise API may return a promise of the answer. */
export async function runProgramAsync(
  steps: readonly Step[],
  options: { interrupt?: AsyncInterrupt | undefined; state: StateView },
): Promise<ProgramRun> {
  const program = programSteps(steps, options.state, options.interrupt !== undefined);
  let next = program.next();
  while (!next.done) next = program.next(await options.interrupt?.(next.value));
  return next.value;
}

/**
 * The success content of a finished tool program, `[{"json": {"answers": [...], "value": v}}]`. Throws
 * ToolFailure when the program ended at a `fail` step. A program that ran off its end (or was skipped)
 * returns like `return` without a value.
 */
export function toolResultContent(run: ProgramRun): JsonObject[] {
  if (run.end === "fail") throw new ToolFailure(run.failMessage);
  return [{ json: { answers: run.answers as JsonValue[], value: run.value as JsonValue } }];
}
