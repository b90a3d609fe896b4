/**
 * Serving an adapter: a grpc-js server on a host and port, and the first stdout line
 * `ROC-HARNESS-LISTENING host:port` that the suite's managed targets (`--target "cmd:..."`) read to know
 * where to dial (port 0 picks a free port).
 */
import * as grpc from "@grpc/grpc-js";
import { parseArgs } from "node:util";

import { harnessImplementation, harnessServiceDefinition } from "./grpc.ts";
import { HarnessService, type RuntimeAdapter } from "./service.ts";

export const LISTENING_PREFIX = "ROC-HARNESS-LISTENING";
/** Larger than any request the suite sends (its value-limit checks send resume input past 1 MiB). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface ServeOptions {
  host?: string;
  port?: number;
  /** Print the LISTENING line (default true). */
  announce?: boolean;
}

export interface Serving {
  readonly server: grpc.Server;
  readonly host: string;
  readonly port: number;
  readonly address: string;
  /** Stop accepting calls, end the open ones, and release the adapter. */
  stop(): Promise<void>;
}

/** `--host H --port N` from the command line (defaults 127.0.0.1 and 0). */
export function addressFromArgv(argv: readonly string[] = process.argv.slice(2)): { host: string; port: number } {
  const { values } = parseArgs({
    args: [...argv],
    options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string", default: "0" } },
    strict: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${String(values.port)}`);
  return { host: String(values.host), port };
}

/** Serve `adapter` (or a HarnessService built on one); resolves once the server listens. */
export async function serve<A>(target: RuntimeAdapter<A> | HarnessService<A>, options: ServeOptions = {}): Promise<Serving> {
  const service = target instanceof HarnessService ? target : new HarnessService(target);
  const { host, port } = { ...addressFromArgv(), ...stripUndefined(options) };
  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  });
  server.addService(harnessServiceDefinition, harnessImplementation(service));
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) => {
      if (error) reject(new Error(`cannot listen on ${host}:${port}: ${error.message}`));
      else resolve(boundPort);
    });
  });
  const address = `${host}:${bound}`;
  if (options.announce ?? true) process.stdout.write(`${LISTENING_PREFIX} ${address}\n`);
  return {
    server,
    host,
    port: bound,
    address,
    stop: async () => {
      server.forceShutdown();
      await service.close();
    },
  };
}

function stripUndefined(options: ServeOptions): { host?: string; port?: number } {
  const out: { host?: string; port?: number } = {};
  if (options.host !== undefined) out.host = options.host;
  if (options.port !== undefined) out.port = options.port;
  return out;
}
