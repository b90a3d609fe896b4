/**
 * The trace recorders and the scenario's hook callbacks, added with `agent.addHook`.
 *
 * Recorders are added at `HookOrder.SDK_FIRST`, the scenario's callbacks at the default order, in spec
 * order. The SDK runs After* callbacks in reverse registration order but sorts by order first
 * (dist/src/hooks/registry.js getCallbacksFor), so a recorder runs before the scenario's callbacks of its
 * event for every event, as the trace rules need.
 */
import {
  type HookProgram,
  type Scenario,
  recordMessageAdded,
  runHook,
} from "@roc-protocol/kit-typescript";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  AfterToolsEvent,
  type Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  BeforeToolsEvent,
  HookOrder,
  MessageAddedEvent,
  type Message,
} from "@strands-agents/sdk";
import { type Holder, appStateView, builtOf, raiser } from "./built.ts";

function blocksOf(message: Message, type: "toolUseBlock" | "toolResultBlock"): { toolUseId: string; name?: string }[] {
  return message.content.flatMap((block) =>
    block.type === type ? [block as unknown as { toolUseId: string; name?: string }] : [],
  );
}

/** Add the recorders, then one callback per HookSpec in list order. */
export function addHooks(agent: Agent, scenario: Scenario, holder: Holder): void {
  const first = { order: HookOrder.SDK_FIRST };
  const trace = () => builtOf(holder).trace;
  agent.addHook(BeforeInvocationEvent, () => trace().beforeInvocation(), first);
  agent.addHook(AfterInvocationEvent, () => trace().afterInvocation(), first);
  agent.addHook(
    MessageAddedEvent,
    (e) => recordMessageAdded(trace(), e.agent.messages, e.message),
    first,
  );
  agent.addHook(BeforeModelCallEvent, () => trace().beforeModelCall(), first);
  agent.addHook(AfterModelCallEvent, () => trace().afterModelCall(), first);
  agent.addHook(
    BeforeToolsEvent,
    (e) => {
      const uses = blocksOf(e.message, "toolUseBlock");
      builtOf(holder).batchNames = uses.map((u) => u.name ?? "");
      trace().beforeTools(uses.map((u) => u.toolUseId));
    },
    first,
  );
  agent.addHook(BeforeToolCallEvent, (e) => trace().beforeToolCall(e.toolUse.toolUseId), first);
  agent.addHook(AfterToolCallEvent, (e) => trace().afterToolCall(e.toolUse.toolUseId, e.result.status), first);
  agent.addHook(
    AfterToolsEvent,
    (e) => trace().afterTools(blocksOf(e.message, "toolResultBlock").map((r) => r.toolUseId)),
    first,
  );
  for (const hook of scenario.hooks) addScenarioHook(agent, hook, holder);
}

function addScenarioHook(agent: Agent, hook: HookProgram, holder: Holder): void {
  switch (hook.event) {
    case "BeforeToolCall":
      agent.addHook(BeforeToolCallEvent, (e) => {
        const built = builtOf(holder);
        const { toolUseId, name } = e.toolUse;
        if (!hook.appliesTo([name])) return;
        const source = { kind: "before_tool_call", toolUseId, toolName: name };
        const run = runHook(built.trace, hook, {
          interrupt: raiser(built, (params) => e.interrupt(params), source),
          state: appStateView(e.agent as Agent),
          toolUseId,
        });
        if (run.cancel !== undefined) e.cancel = run.cancel;
      });
      return;
    case "BeforeTools":
      agent.addHook(BeforeToolsEvent, (e) => {
        const built = builtOf(holder);
        if (!hook.appliesTo(blocksOf(e.message, "toolUseBlock").map((u) => u.name ?? ""))) return;
        const run = runHook(built.trace, hook, {
          interrupt: raiser(built, (params) => e.interrupt(params), { kind: "before_tools" }),
          state: appStateView(e.agent as Agent),
        });
        if (run.cancel !== undefined) e.cancel = run.cancel;
      });
      return;
    case "AfterToolCall":
      agent.addHook(AfterToolCallEvent, (e) => {
        const built = builtOf(holder);
        if (!hook.appliesTo([e.toolUse.name])) return;
        runHook(built.trace, hook, { state: appStateView(e.agent as Agent), toolUseId: e.toolUse.toolUseId });
      });
      return;
    case "AfterTools":
      agent.addHook(AfterToolsEvent, (e) => {
        const built = builtOf(holder);
        if (!hook.appliesTo(built.batchNames)) return;
        runHook(built.trace, hook, { state: appStateView(e.agent as Agent) });
      });
      return;
  }
}

