/**
 * A real HTTP server in front of a test's hrx (or an HRMS simulator) that forwards every request
 * as it is and records each one (`METHOD /path`), optionally holding the answer to some paths back
 * for a while: the server side's own count of what a browser sent (a double submit shows as two
 * requests). It also keeps every whole exchange (request and answer, headers and bodies) in
 * `exchanges`, which the vendor contract test checks against an HRMS's published description.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request and the answer it got, as they crossed the proxy. */
export interface RecordedExchange {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  status: number;
  responseHeaders: IncomingMessage['headers'];
  responseBody: Buffer;
}

/** A running proxy. */
export interface CountingProxy {
  url: string;
  /** Every request received, `METHOD /path` (query dropped), in order. */
  seen: string[];
  /** Every exchange whose answer has ended, in the order the answers ended. */
  exchanges: RecordedExchange[];
  /** How many requests `METHOD /path` received. */
  count(methodAndPath: string): number;
  /** Holds answers to `path` back for `ms` (0: none), to keep a request in flight. */
  delay(path: string, ms: number): void;
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 forwarding to `target` (an http:// base URL). `keepHost` passes the
 * client's `Host` on (the proxy's own address), so a server that builds absolute links from it
 * (Keka's `nextPage`) links back through the proxy.
 */
export async function startCountingProxy(target: string, options: { keepHost?: boolean } = {}): Promise<CountingProxy> {
  const base = new URL(target);
  const seen: string[] = [];
  const exchanges: RecordedExchange[] = [];
  const delays = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathOnly = (req.url ?? '/').split('?')[0]!;
    seen.push(`${req.method} ${pathOnly}`);
    const sent: Buffer[] = [];
    req.on('data', (c: Buffer) => sent.push(c));
    const upstream = request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: options.keepHost ? req.headers.host : base.host },
      },
      (up) => {
        // The answer is read here (recorded) and written on when `send` runs, so a delayed
        // answer loses no chunk that arrived before it was let through.
        const got: Buffer[] = [];
        let sending = false;
        let ended = false;
        up.on('data', (c: Buffer) => {
          got.push(c);
          if (sending) res.write(c);
        });
        up.on('end', () => {
          ended = true;
          const { method = '', url = '/', headers } = req;
          const asked = { method, url, headers, body: Buffer.concat(sent) };
          exchanges.push({ ...asked, status: up.statusCode ?? 0, responseHeaders: up.headers, responseBody: Buffer.concat(got) });
          if (sending) res.end();
        });
        const send = () => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          sending = true;
          for (const c of got) res.write(c);
          if (ended) res.end();
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
    exchanges,
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
