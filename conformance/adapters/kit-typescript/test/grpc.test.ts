/** The gRPC layer (src/grpc.ts, src/serve.ts): a served HarnessService answers a grpc-js client built from the
 * same descriptors, and a reply with no proto form comes back as harness_error, never as a gRPC error. */
import assert from "node:assert/strict";
import { test } from "node:test";

import * as grpc from "@grpc/grpc-js";
import { type Message, create } from "@bufbuild/protobuf";

import {
  CreateAgentRequestSchema,
  DescribeRequestSchema,
  InvokeRequestSchema,
  type CreateAgentResponse,
  type DescribeResponse,
  type InvokeResponse,
} from "../src/gen/roc/conformance/v1/harness_pb.ts";
import { harnessServiceDefinition } from "../src/grpc.ts";
import { fromProto, toProto } from "../src/jsonmap.ts";
import { serve } from "../src/serve.ts";
import type { RuntimeAdapter } from "../src/service.ts";

/** Answers every prompt with the stop reason the prompt names (a bad one has no proto form). */
const adapter: RuntimeAdapter<{ n: number }> = {
  info: () => ({ name: "echo", version: "1", adapter: "echo 1", profiles: ["core"] }),
  create: () => ({ n: 0 }),
  invoke: (_agent, input) => ({ stopReason: String(input.value), message: { role: "assistant", content: [] }, interrupts: [] }),
  messages: () => [],
  state: (agent) => ({ n: agent.n }),
};

function call<T extends Message>(client: grpc.Client, method: string, request: Message): Promise<T> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, (r: Message, cb: (e: grpc.ServiceError | null, v: T) => void) => void>)[method];
    assert.ok(fn, method);
    fn.call(client, request, (error, value) => (error ? reject(error) : resolve(value)));
  });
}

test("a served adapter answers over gRPC; an unencodable reply is a harness_error", async () => {
  const serving = await serve(adapter, { host: "127.0.0.1", port: 0, announce: false });
  const Client = grpc.makeGenericClientConstructor(harnessServiceDefinition, "HarnessService");
  const client = new Client(serving.address, grpc.credentials.createInsecure());
  try {
    const described = await call<DescribeResponse>(client, "Describe", create(DescribeRequestSchema, { harnessProtocolVersion: 4 }));
    assert.equal(described.harnessProtocolVersion, 4);
    assert.equal(described.implementation?.language, "typescript");
    const spec = toProto("AgentSpec", { agentId: "a", executor: "sequential", model: { turns: [] }, state: {} });
    const createdReply = await call<CreateAgentResponse>(client, "CreateAgent", create(CreateAgentRequestSchema, { spec: spec as never }));
    assert.equal(createdReply.outcome.case, "agent");
    const agent = String(createdReply.outcome.value);
    const good = await call<InvokeResponse>(client, "Invoke", create(InvokeRequestSchema, { agent, input: { case: "prompt", value: "end_turn" } }));
    assert.deepEqual(fromProto(good), {
      result: { stopReason: "end_turn", message: { role: "assistant", content: [] }, interrupts: [] },
      trace: [{ kind: "invocation_start" }, { kind: "invocation_end", stopReason: "end_turn" }],
      messages: [],
      state: { n: 0 },
    });
    const bad = await call<InvokeResponse>(client, "Invoke", create(InvokeRequestSchema, { agent, input: { case: "prompt", value: "nap" } }));
    assert.equal(bad.outcome.case, "harnessError");
    assert.match(bad.outcome.case === "harnessError" ? bad.outcome.value.message : "", /cannot encode the Invoke reply: .*"nap"/);
  } finally {
    client.close();
    await serving.stop();
  }
});
