/**
 * Who is at fault, as the harness reports it (conformance/README.md, "Errors versus harness errors"):
 * - the runtime refused, with a code of RoC's closed set: `error` (throw Refused, or let the adapter's
 *   `errorJson` recognise the runtime's own exception);
 * - anything else thrown by the runtime during an Invoke: `crash`, the implementation's fault;
 * - the adapter itself failed (unknown handle, unbuildable scenario, a bug, a missing optional RPC):
 *   `harness_error`, never judged as the implementation's failure.
 */
import type { JsonObject } from "./json.ts";

/** The closed set of RoC error codes (spec/schema/v1/error.schema.json). */
export type ErrorCode =
  | "INTERRUPT_PENDING"
  | "NOT_INTERRUPTED"
  | "UNKNOWN_INTERRUPT"
  | "DUPLICATE_RESPONSE"
  | "INVALID_RESPONSE"
  | "INVALID_RESUME"
  | "DUPLICATE_INTERRUPT_NAME"
  | "DIRECT_CALL_INTERRUPT"
  | "INVALID_REASON"
  | "SNAPSHOT_INVALID"
  | "SNAPSHOT_VERSION_UNSUPPORTED"
  | "SNAPSHOT_INTEGRITY"
  | "SESSION_CONFLICT"
  | "EXPIRED"
  | "INVALID_INPUT"
  | "INTERNAL";

/** A RoC Error value: `{code, message, details?}`. */
export interface RocError extends JsonObject {
  code: ErrorCode;
  message: string;
}

/** The runtime refused: the reply is `error` with this Error JSON. */
export class Refused extends Error {
  override name = "Refused";
  readonly error: RocError;

  constructor(code: ErrorCode, message: string, details?: JsonObject) {
    super(message);
    this.error = details === undefined ? { code, message } : { code, message, details };
  }
}

/** A fault of the adapter itself, reported as `harness_error` with this message. */
export class AdapterError extends Error {
  override name = "AdapterError";
}

/** The adapter does not implement an optional part of the harness (an RPC or an input kind). */
export class Unsupported extends AdapterError {
  override name = "Unsupported";
}

/** `{type, message, details}` of an ImplementationCrash for any thrown value. */
export function crashOf(thrown: unknown): JsonObject {
  if (thrown instanceof Error) {
    return { type: thrown.constructor.name || thrown.name, message: thrown.message, details: thrown.stack ?? "" };
  }
  let text: string;
  try {
    text = JSON.stringify(thrown) ?? String(thrown);
  } catch {
    text = String(thrown);
  }
  return { type: typeof thrown, message: text, details: "a value that is not an Error was thrown" };
}

/** `{message, details}` of a HarnessError. */
export function harnessError(message: string, details = ""): JsonObject {
  return { message, details };
}

/** The HarnessError for an unexpected exception inside the adapter or the kit. */
export function unexpected(thrown: unknown): JsonObject {
  if (thrown instanceof Error) return harnessError(`${thrown.name}: ${thrown.message}`, thrown.stack ?? "");
  return harnessError(`thrown: ${String(thrown)}`);
}
