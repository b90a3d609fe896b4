/**
 * The scenario's scripted model behind @strands-agents/sdk's abstract `Model` (dist/src/models/model.d.ts).
 *
 * Each call takes the next turn of the kit's ScriptedModel (which records `model_call`) and streams it as
 * the events a Strands model provider yields: `modelMessageStartEvent`, one content block start / delta /
 * stop per block, `modelMessageStopEvent` with the stop reason. The SDK's own
 * `streamAggregated` builds the assistant message from them.
 */
import { type JsonValue, type ScriptedModel, isJsonObject } from "@roc-protocol/kit-typescript";
import { type Message, Model, type ModelStreamEvent, type StreamOptions } from "@strands-agents/sdk";

/** The scripted model has nothing to configure; the SDK's config type asks only for optional members. */
type NoConfig = Record<string, never>;

export class StrandsScriptedModel extends Model<NoConfig> {
  constructor(readonly script: ScriptedModel) {
    super();
  }

  updateConfig(_config: NoConfig): void {
    // Nothing to configure: the script is the whole model.
  }

  getConfig(): NoConfig {
    return {};
  }

  async *stream(_messages: Message[], _options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const reply = this.script.nextReply();
    yield* events(reply.content, reply.stopReason === "tool_use" ? "toolUse" : "endTurn");
  }
}

function events(content: readonly JsonValue[], stopReason: "toolUse" | "endTurn"): ModelStreamEvent[] {
  const out: ModelStreamEvent[] = [{ type: "modelMessageStartEvent", role: "assistant" }];
  for (const block of content) {
    if (!isJsonObject(block)) throw new Error(`the scripted model cannot stream ${JSON.stringify(block)}`);
    const use = block["toolUse"];
    if (isJsonObject(use)) {
      out.push({
        type: "modelContentBlockStartEvent",
        start: { type: "toolUseStart", name: String(use["name"]), toolUseId: String(use["toolUseId"]) },
      });
      out.push({ type: "modelContentBlockDeltaEvent", delta: { type: "toolUseInputDelta", input: JSON.stringify(use["input"] ?? {}) } });
    } else if (typeof block["text"] === "string") {
      out.push({ type: "modelContentBlockStartEvent" });
      out.push({ type: "modelContentBlockDeltaEvent", delta: { type: "textDelta", text: block["text"] } });
    } else {
      throw new Error(`the scripted model cannot stream ${JSON.stringify(block)}`);
    }
    out.push({ type: "modelContentBlockStopEvent" });
  }
  // No modelMetadataEvent: the script has no usage to report, and the SDK would put made-up figures into
  // the message's metadata.
  out.push({ type: "modelMessageStopEvent", stopReason });
  return out;
}

/** Why the script cannot be streamed by a Strands model (the stream carries text and tool uses only), or
 * undefined when every block can. */
export function checkTurns(turns: readonly (readonly JsonValue[])[]): string | undefined {
  for (const [index, turn] of turns.entries()) {
    for (const block of turn) {
      const ok = isJsonObject(block) && (typeof block["text"] === "string" || isJsonObject(block["toolUse"]));
      if (!ok) return `turn ${index}: a Strands model streams text and toolUse blocks only, not ${JSON.stringify(block)}`;
    }
  }
  return undefined;
}
