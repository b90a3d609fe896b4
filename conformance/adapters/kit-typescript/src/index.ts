/**
 * The RoC adapter kit for TypeScript: everything an adapter for roc.conformance.v1.HarnessService needs
 * besides the SDK part (conformance/README.md is the contract). Implement RuntimeAdapter and call serve().
 */
export * from "./canonical.ts";
export * from "./errors.ts";
export * from "./grpc.ts";
export * from "./handles.ts";
export * from "./json.ts";
export * from "./jsonmap.ts";
export * from "./model.ts";
export * from "./programs.ts";
export * from "./responseSchema.ts";
export * from "./scenario.ts";
export * from "./serve.ts";
export * from "./service.ts";
export * from "./trace.ts";
