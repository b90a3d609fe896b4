/**
 * The scripted model of the harness (conformance/README.md, "The scenario language"). Call i of an agent's
 * model answers turns[offset + i] (offset: a RestoreAgent's model_turn_offset). A turn with a toolUse block
 * stops with `tool_use`, any other with `end_turn`; past the end of the script the model answers
 * `[{"text": "script exhausted"}]` with `end_turn`. Every call records `model_call{turn}` before it answers.
 * An adapter wraps ScriptedModel in the model interface its runtime expects.
 */
import { type JsonValue, copyJson, isJsonObject } from "./json.ts";
import type { Trace } from "./trace.ts";

export const EXHAUSTED_TEXT = "script exhausted";

/** One answer: the assistant content (JSON blocks) and its stop reason. */
export interface ModelReply {
  readonly turn: number;
  readonly content: JsonValue[];
  readonly stopReason: "tool_use" | "end_turn";
  /** Past the script: the content is the exhausted text. */
  readonly exhausted: boolean;
}

/** Whether assistant content asks for a tool (has a toolUse block). */
export function usesTools(content: readonly unknown[]): boolean {
  return content.some((block) => isJsonObject(block) && "toolUse" in block);
}

/** Answers the scenario's turns in order, from `offset`. */
export class ScriptedModel {
  private next: number;

  constructor(
    private readonly turns: readonly (readonly JsonValue[])[],
    private readonly trace: Trace,
    offset = 0,
  ) {
    this.next = offset;
  }

  /** The script index the next call answers. */
  get nextTurn(): number {
    return this.next;
  }

  /** Take the next turn, recording `model_call`. The content is a fresh copy each call. */
  nextReply(): ModelReply {
    const turn = this.next++;
    this.trace.modelCall(turn);
    const script = this.turns[turn];
    if (script === undefined) {
      return { turn, content: [{ text: EXHAUSTED_TEXT }], stopReason: "end_turn", exhausted: true };
    }
    const content = copyJson([...script]);
    return { turn, content, stopReason: usesTools(content) ? "tool_use" : "end_turn", exhausted: false };
  }
}
