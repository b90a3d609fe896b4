/**
 * Serves @strands-agents/sdk to the RoC conformance suite: `tsx src/main.ts --port 0` prints
 * `ROC-HARNESS-LISTENING host:port` (the kit's serve()).
 *
 * The SDK's warnings (e.g. "error invoking callbacks during cleanup", logged on every drained error) go to
 * stderr only with ROC_STRANDS_TS_LOG=1: a suite run would print thousands of them. Its errors always do.
 */
import { serve } from "@roc-protocol/kit-typescript";
import { configureLogging } from "@strands-agents/sdk";
import { StrandsAdapter } from "./adapter.ts";

const verbose = process.env["ROC_STRANDS_TS_LOG"] === "1";
const drop = (): void => undefined;
configureLogging({
  debug: verbose ? (...args: unknown[]) => console.error(...args) : drop,
  info: verbose ? (...args: unknown[]) => console.error(...args) : drop,
  warn: verbose ? (...args: unknown[]) => console.error(...args) : drop,
  error: (...args: unknown[]) => console.error(...args),
});
await serve(new StrandsAdapter());
