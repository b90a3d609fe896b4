/**
 * A scenario tool as a subclass of the SDK's `Tool` (dist/src/tools/tool.d.ts). Its stream runs the tool's
 * step program with `toolContext.interrupt` as the raise API, and returns a success result with the
 * program's JSON or, for a `fail` step, an error result with exactly the step's text (the SDK's wrapping of
 * a thrown error would prefix it, and the `tool()` factory cannot return an error result).
 */
import {
  type ToolProgram,
  ToolFailure,
  runProgram,
  toolResultContent,
} from "@roc-protocol/kit-typescript";
import {
  type JSONValue,
  JsonBlock,
  TextBlock,
  Tool,
  type ToolContext,
  ToolResultBlock,
  type ToolSpec,
  type ToolStreamGenerator,
} from "@strands-agents/sdk";
import { type Holder, appStateView, builtOf, raiser } from "./built.ts";

export class ScenarioTool extends Tool {
  readonly name: string;
  readonly description: string;
  readonly toolSpec: ToolSpec;

  constructor(
    private readonly program: ToolProgram,
    private readonly holder: Holder,
  ) {
    super();
    this.name = program.name;
    this.description = `scenario tool ${program.name}`;
    this.toolSpec = {
      name: program.name,
      description: this.description,
      inputSchema: { type: "object", properties: {}, additionalProperties: true },
    };
  }

  // A generator with no events: the SDK drives every tool through `stream`.
  // eslint-disable-next-line require-yield
  async *stream(toolContext: ToolContext): ToolStreamGenerator {
    const built = builtOf(this.holder);
    const { toolUseId } = toolContext.toolUse;
    const source = { kind: "tool", toolUseId, toolName: this.name };
    const interrupt = raiser(built, (params) => toolContext.interrupt(params), source);
    try {
      const content = built.trace.toolBodySync(toolUseId, this.name, () =>
        toolResultContent(runProgram(this.program.steps, { interrupt, state: appStateView(built.agent) })),
      );
      const blocks = content.map((block) => new JsonBlock({ json: block["json"] as JSONValue }));
      return new ToolResultBlock({ toolUseId, status: "success", content: blocks });
    } catch (thrown) {
      if (!(thrown instanceof ToolFailure)) throw thrown; // the SDK's pause signal, or a real fault
      return new ToolResultBlock({ toolUseId, status: "error", content: [new TextBlock(thrown.message)] });
    }
  }
}
