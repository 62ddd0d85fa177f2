/**
 * A real HTTP server in front of a test's hrx that forwards every request as it is and records
 * each one (`METHOD /path`), optionally holding the answer to some paths back for a while: the
 * server side's own count of what a browser sent (a double submit shows as two requests).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface CountingProxy {
  url: string;
  /** Every request received, `METHOD /path` (query dropped), in order. */
  seen: string[];
  /** How many requests `METHOD /path` received. */
  count(methodAndPath: string): number;
  /** Holds answers to `path` back for `ms` (0: none), to keep a request in flight. */
  delay(path: string, ms: number): void;
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1 forwarding to `target` (an http:// base URL). */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const base = new URL(target);
  const seen: string[] = [];
  const delays = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathOnly = (req.url ?? '/').split('?')[0]!;
    seen.push(`${req.method} ${pathOnly}`);
    const upstream = request(
      { host: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } },
      (up) => {
        const send = () => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        };
        const ms = delays.get(pathOnly) ?? 0;
        if (ms > 0) setTimeout(send, ms);
        else send();
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    count: (m) => seen.filter((s) => s === m).length,
    delay: (p, ms) => {
      delays.set(p, ms);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
