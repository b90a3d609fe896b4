/**
 * Serves @strands-agents/sdk to the RoC conformance suite: `tsx src/main.ts --port 0` prints
 * `ROC-HARNESS-LISTENING host:port` (the kit's serve()).
 */
import { serve } from "@roc-protocol/kit-typescript";
import { StrandsAdapter } from "./adapter.ts";

await serve(new StrandsAdapter());
