/**
 * Listens with `node:http` and shuts down gracefully (docs/operations.md "Redis or PostgreSQL down; shutdown"): on SIGTERM/SIGINT
 * stop accepting, let in-flight requests finish (up to 25 s), then the caller closes the rest.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from './config';
import type { App } from './app';
import type { Logger } from './logger';

/** How long in-flight requests may run after SIGTERM/SIGINT (docs/operations.md "Redis or PostgreSQL down; shutdown"). */
export const REQUEST_GRACE_MS = 25_000;

/** A listening server and its stop function. */
export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `graceMs`, default 25 s),
   * then closes what is left. Keep-alive connections are closed as soon as they are idle.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Starts listening on `host:port` (port 0 picks a free one). */
export async function listen(app: App, host: string, port: number, basePath: string, log: Logger): Promise<RunningServer> {
  let stopping = false;
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000, headersTimeout: 20_000 }, (req, res) => {
    // A request that arrives on a kept-alive connection while stopping is still served, but its
    // connection is not kept.
    if (stopping) res.setHeader('connection', 'close');
    app.handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new ConfigError(`port ${port} on ${host} is in use (another hrx, or another program): stop it, or set PORT`) : err),
    );
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${host}:${addr.port}${basePath}`;
  log.info({ url }, 'hrx API listening');
  return {
    server,
    url,
    stop: (graceMs = REQUEST_GRACE_MS) =>
      new Promise<void>((resolve) => {
        stopping = true;
        const force = setTimeout(() => {
          log.warn({ graceMs }, 'requests still running after the grace period: closing their connections');
          server.closeAllConnections();
        }, graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
        // Connections that finish their request later become idle: close them as they do.
        const idle = setInterval(() => server.closeIdleConnections(), 100);
        idle.unref();
        server.once('close', () => clearInterval(idle));
      }),
  };
}

/**
 * Runs `onStop` once on SIGTERM or SIGINT, then exits 0 (docs/operations.md "Redis or PostgreSQL down; shutdown"); `onStop`
 * failing, a second signal or `graceMs` passing (a bound on `onStop` itself, which has its own
 * shorter limits) exits 1.
 *
 * `clusterChild`: a child of `hrx serve --processes N` (docs/operations.md "Several processes on
 * one machine") also stops when its primary says so or is gone, and a repeated signal is not a
 * reason to stop at once: a Ctrl-C reaches both the child and its primary, which forwards it, and
 * forcing is the primary's job (a second signal to it kills the children).
 */
export function onShutdown(onStop: () => Promise<void>, log: Logger, graceMs = 45_000, opts: { clusterChild?: boolean } = {}): void {
  let stopping = false;
  const handle = (signal: string): void => {
    if (stopping) {
      if (opts.clusterChild) return;
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error({ graceMs }, 'shutdown did not finish in time');
      process.exit(1);
    }, graceMs);
    force.unref();
    onStop().then(
      () => {
        log.info('shut down');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
  if (opts.clusterChild) {
    process.on('message', (m: unknown) => {
      if (m === STOP_MESSAGE) handle('primary');
    });
    // The primary is gone (killed): nobody forwards a signal any more, so stop now.
    process.on('disconnect', () => handle('primary gone'));
  }
}

/** What the primary of `hrx serve --processes N` sends each child to stop it gracefully. */
export const STOP_MESSAGE = 'hrx:stop';
