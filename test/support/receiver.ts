/**
 * A real webhook receiver for event tests: a node:http server on 127.0.0.1 that records every
 * request (path, headers, raw body, arrival time) and answers each path with the statuses it was
 * told (in turn), then with its default, 200 unless set (a 3xx with `location: /redirected-here`). Plus a Standard Webhooks signature check
 * written here with node:crypto alone, independent of src/events/signing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './harness';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

/** Starts a receiver; `url(path)` is the endpoint URL of one path. */
export async function startReceiver() {
  const received: Received[] = [];
  const plans = new Map<string, number[]>();
  const defaults = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* recorded raw */
      }
      received.push({ path, headers: req.headers, body, json, at: Date.now() });
      const status = plans.get(path)?.shift() ?? defaults.get(path) ?? 200;
      // A 3xx points elsewhere on this receiver: a sender that followed it would show up there.
      const location = status >= 300 && status < 400 ? { location: '/redirected-here' } : {};
      res.writeHead(status, { 'content-type': 'text/plain', ...location }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Requests to `path`, oldest first. */
    at,
    /** Answers the next requests to `path` with `statuses`, in turn. */
    plan(path: string, statuses: number[]) {
      plans.set(path, [...statuses]);
    },
    /** Answers requests to `path` with `status` once its plan is used up. */
    setDefault(path: string, status: number) {
      defaults.set(path, status);
    },
    /** Waits until `path` got `n` requests (optionally only of event `type`); returns them. */
    async waitForCount(path: string, n: number, type?: string, timeoutMs = 20_000) {
      const pick = () => at(path).filter((r) => !type || r.json?.type === type);
      return waitFor(() => (pick().length >= n ? pick() : null), timeoutMs, 25);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Whether `r` carries a valid Standard Webhooks v1 signature under `secret` (`whsec_` + base64):
 * HMAC-SHA256 keyed by the decoded secret over `{webhook-id}.{webhook-timestamp}.{body}`,
 * base64, compared in constant time with each `v1,` entry of `webhook-signature`.
 */
export function verifySignature(secret: string, r: Pick<Received, 'headers' | 'body'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest();
  return String(r.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const [version, sig] = s.split(',');
      const got = Buffer.from(sig ?? '', 'base64');
      return version === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
    });
}
