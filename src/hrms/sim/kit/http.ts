/**
 * The HTTP side every product simulator (`src/hrms/<hrms_id>/sim/`) shares: the one reply type, the JSON
 * reply, the body reader, HTTP Basic credentials, constant-time comparison, and the server
 * lifecycle (listen on one or more ports, close with the requests still in flight cut off).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { listenSim, type SimListener, type SimTls } from '../listen';

/** A response a route returns or throws: status, body text, headers. */
export class Reply extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** A JSON reply (`application/json; charset=utf-8`). */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  new Reply(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });

/** Sends `reply` on `res` with its `content-length`, unless the response is already answered or gone. */
export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, { 'content-length': Buffer.byteLength(reply.body), ...reply.headers });
  res.end(reply.body);
}

/** The request body as text, or `null` when it is longer than `max` bytes (64 KiB): each product answers that its own way. */
export async function readBody(req: IncomingMessage, max = 64 * 1024): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The form fields of a token request: the urlencoded body, then the query string (Zoho takes
 * both). A body past 64 KiB: throws 413 `{"error": "invalid_request"}`.
 */
export async function formParams(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const body = await readBody(req);
  if (body === null) throw json(413, { error: 'invalid_request' });
  const form = new URLSearchParams(type === 'application/x-www-form-urlencoded' ? body : '');
  for (const [k, v] of url.searchParams) if (!form.has(k)) form.set(k, v);
  return form;
}

/** `user:password` of an HTTP Basic `Authorization` header (RFC 7617), or `undefined` (absent, not base64, no colon). */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Constant-time comparison of a presented credential with the expected one (a non-string never matches). */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given),
    b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A route: answers with the `Reply` it returns or throws, or answers `res` itself (a streamed
 * body) and returns nothing.
 */
export type SimRoute = (req: IncomingMessage, url: URL, res: ServerResponse) => Promise<Reply | void>;

/**
 * A simulator's servers: one `listen` per host it plays (greytHR has two), one `close` for all.
 * Closing aborts `signal` (latency waits end) and cuts the requests still in flight.
 */
export class SimHttp {
  private readonly aborter = new AbortController();
  private readonly listeners: SimListener[] = [];

  /** Aborted when the simulator closes. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /**
   * Serves `route` on `port` (default: a free one) of `host` (default 127.0.0.1). `onRequest`
   * runs first for every request (counting). A route that fails with anything but a `Reply` is
   * answered `fallback`, or its connection is cut when there is none.
   */
  async listen(
    route: SimRoute,
    at: { host?: string | undefined; port?: number | undefined; tls?: SimTls | undefined },
    fallback?: Reply,
    onRequest?: () => void,
  ): Promise<SimListener> {
    const listener = await listenSim(
      (req, res) => {
        onRequest?.();
        const url = new URL(req.url ?? '/', 'http://sim.invalid');
        // Fire-and-forget: the chain catches every rejection and answers (or destroys) the response itself.
        void route(req, url, res)
          .catch((err: unknown) => (err instanceof Reply ? err : fallback))
          .then((reply) => {
            if (this.aborter.signal.aborted || (reply === undefined && !res.writableEnded)) res.destroy();
            else if (reply) send(res, reply);
          });
      },
      { ...(at.host ? { host: at.host } : {}), ...(at.port !== undefined ? { port: at.port } : {}), tls: at.tls, beforeClose: () => this.aborter.abort() },
    );
    this.listeners.push(listener);
    return listener;
  }

  async close(): Promise<void> {
    this.aborter.abort();
    await Promise.all(this.listeners.map((l) => l.close()));
  }
}
