/** Serving a simulator's request handler on a real port, and counting its requests (every simulator: reference and dialects). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../config';

/** A listening simulator server. */
export interface SimListener {
  /** Base URL, e.g. `http://127.0.0.1:41234` (IPv6 hosts bracketed). */
  url: string;
  port: number;
  /** Runs `beforeClose` (abort pending latency waits), stops listening and drops open connections. */
  close(this: void): Promise<void>;
}

/**
 * HTTPS for a simulator (tests of mutual TLS): the server's certificate and key (PEM), and with
 * `clientCa` a client certificate signed by it is required of every connection (the handshake
 * fails without one).
 */
export interface SimTls {
  cert: string;
  key: string;
  clientCa?: string;
}

/** Listens with `handle` on `port` (default: any free one) of `host` (default 127.0.0.1); HTTPS with `tls`. */
export async function listenSim(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  opts: { port?: number; host?: string; beforeClose?: () => void; tls?: SimTls | undefined } = {},
): Promise<SimListener> {
  const host = opts.host ?? '127.0.0.1';
  const tls = opts.tls;
  const server = tls
    ? createTlsServer({ cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, handle)
    : createServer(handle);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new ConfigError(`port ${opts.port} on ${host} is in use (another simulator, or another program): stop it, or choose --port`)
          : err,
      ),
    );
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        opts.beforeClose?.();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * Counts requests in a sliding window of `windowMs` and keeps the largest count seen in any such
 * window: a dialect simulator's `DialectSimStats.maxInWindow`.
 */
export function requestCounter(windowMs: number) {
  let times: number[] = [];
  let maxInWindow = 0;
  return {
    /** Counts a request at `now`; returns how many fall in the window ending then (this one included). */
    hit(now = Date.now()): number {
      times.push(now);
      while (times.length && now - times[0]! >= windowMs) times.shift();
      maxInWindow = Math.max(maxInWindow, times.length);
      return times.length;
    },
    max: (): number => maxInWindow,
    reset(): void {
      times = [];
      maxInWindow = 0;
    },
  };
}
