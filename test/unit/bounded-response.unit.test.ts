/**
 * A bounded read leaves nothing on the caller's signal once it settles (docs/sync.md "Memory and
 * throughput"): a sync hands one signal to every page request of its run, and a listener left per
 * request kept each request and its body reachable until the run ended, so memory grew with the
 * org's size. A real HTTP server on loopback answers; the caller's signal still aborts a read in
 * flight.
 */
import { getEventListeners, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestBounded } from '../../src/outbound/bounded-response';

describe('requestBounded and a long-lived signal', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      // `/slow` never answers (until the test aborts); others answer 300 KB (past the first block).
      if (req.url === '/slow') return;
      res.end(Buffer.alloc(300 * 1024, 'x'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('removes its listener from the signal after each answer', async () => {
    const run = new AbortController();
    for (let i = 0; i < 5; i++) {
      const res = await requestBounded(`${url}/page`, { signal: run.signal }, 1024 * 1024);
      expect(res.statusCode).toBe(200);
      expect(res.body.length).toBe(300 * 1024);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    }
  });

  it('removes it after a refused (too large) answer too', async () => {
    const run = new AbortController();
    await expect(requestBounded(`${url}/page`, { signal: run.signal }, 1024)).rejects.toMatchObject({ code: 'ERR_RESPONSE_TOO_LARGE' });
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('still aborts a read in flight when the signal aborts', async () => {
    const run = new AbortController();
    const pending = requestBounded(`${url}/slow`, { signal: run.signal }, 1024);
    await new Promise((r) => setTimeout(r, 50));
    run.abort(new Error('run over'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('does not start when the signal is already aborted', async () => {
    const run = new AbortController();
    run.abort(new Error('run over'));
    await expect(requestBounded(`${url}/page`, { signal: run.signal }, 1024 * 1024)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
