/**
 * Listens with `node:http` and shuts down gracefully: on SIGTERM/SIGINT stop accepting, let
 * in-flight requests finish (up to `graceMs`), then close the context.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from './app';
import type { Logger } from './logger';

/** A listening server and its stop function. */
export interface RunningServer {
  server: Server;
  url: string;
  stop(): Promise<void>;
}

/** Starts listening on `host:port` (port 0 picks a free one). */
export async function listen(app: App, host: string, port: number, basePath: string, log: Logger): Promise<RunningServer> {
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000, headersTimeout: 20_000 }, app.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${host}:${addr.port}${basePath}`;
  log.info({ url }, 'hrx API listening');
  return {
    server,
    url,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
  };
}

/**
 * Runs `onStop` once on SIGTERM or SIGINT, then exits; a second signal or `graceMs` passing
 * forces the exit.
 */
export function onShutdown(onStop: () => Promise<void>, log: Logger, graceMs = 15_000): void {
  let stopping = false;
  const handle = (signal: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), graceMs);
    force.unref();
    onStop().then(() => process.exit(0), (err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
}
