/**
 * The gRPC side: a grpc-js service definition built from the generated descriptors (no second copy of the
 * proto, no runtime .proto loading), and handlers that turn each request into its RoC JSON, call the
 * HarnessService method and turn the reply JSON back into the proto. A reply that has no proto form is the
 * adapter's fault: it is answered with harness_error saying why, never a gRPC error the suite cannot judge.
 */
import * as grpc from "@grpc/grpc-js";
import { type DescService, type Message, fromBinary, toBinary } from "@bufbuild/protobuf";

import { unexpected } from "./errors.ts";
import { HarnessService as HarnessServiceDesc } from "./gen/roc/conformance/v1/harness_pb.ts";
import { type JsonObject, isJsonObject } from "./json.ts";
import { fromProto, toProto } from "./jsonmap.ts";
import type { HarnessService } from "./service.ts";

/** A grpc-js service definition of a protobuf-es service descriptor (unary and streaming alike). */
export function serviceDefinition(service: DescService): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<Message, Message>> = {};
  for (const method of service.methods) {
    definition[method.name] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: (message) => Buffer.from(toBinary(method.input, message as never)),
      requestDeserialize: (bytes) => fromBinary(method.input, bytes),
      responseSerialize: (message) => Buffer.from(toBinary(method.output, message as never)),
      responseDeserialize: (bytes) => fromBinary(method.output, bytes),
      originalName: method.localName,
    };
  }
  return definition;
}

/** The definition of roc.conformance.v1.HarnessService. */
export const harnessServiceDefinition: grpc.ServiceDefinition = serviceDefinition(HarnessServiceDesc);

type Rpc =
  | "describe"
  | "createAgent"
  | "invoke"
  | "takeSnapshot"
  | "restoreAgent"
  | "disposeAgent"
  | "inspectAgent"
  | "listPending";

/** The grpc-js implementation of the harness service over `service`. */
export function harnessImplementation<A>(service: HarnessService<A>): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of HarnessServiceDesc.methods) {
    const rpc = method.localName as Rpc;
    const outputType = method.output.typeName;
    const hasHarnessError = method.output.fields.some((f) => f.name === "harness_error");
    const handler: grpc.handleUnaryCall<Message, Message> = (call, callback) => {
      void (async () => {
        let reply: JsonObject;
        try {
          const request = fromProto(call.request);
          reply = await service[rpc](isJsonObject(request) ? request : {});
        } catch (thrown) {
          reply = { harnessError: unexpected(thrown) };
        }
        try {
          callback(null, toProto(outputType, reply));
        } catch (thrown) {
          if (!hasHarnessError) {
            callback({ code: grpc.status.INTERNAL, details: `cannot encode the ${method.name} reply: ${String(thrown)}` });
            return;
          }
          const fault = unexpected(thrown);
          fault["message"] = `cannot encode the ${method.name} reply: ${String(fault["message"])}`;
          callback(null, toProto(outputType, { harnessError: fault }));
        }
      })();
    };
    implementation[method.name] = handler;
  }
  return implementation;
}
