/**
 * Event delivery reads at most 16 KiB of a receiver's answer (docs/limits.md), as it came on the
 * wire (never decompressed): past that the exchange is cut off and judged by its status, so a 200
 * MB answer or a gzip bomb is found quickly, the receiver never gets to send the whole answer, and
 * a 2xx is still a delivery (a 5xx still a failure). Real HTTP servers on loopback.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_MAX_RESPONSE_BYTES, postOnce } from '../../../src/events/delivery';

const MB = 1024 * 1024;

describe('event delivery response cap', () => {
  let server: http.Server;
  let base: string;
  const written = new Map<string, number>();
  const bomb = gzipSync(Buffer.alloc(64 * MB));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.on('error', () => undefined);
      req.resume();
      const path = req.url ?? '';
      written.set(path, 0);
      if (path === '/small') return void res.writeHead(204).end();
      if (path === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end('x'.repeat(DELIVERY_MAX_RESPONSE_BYTES));
      if (path === '/bomb') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb);
      // /big (200) and /big-500: 200 MB of 'a', chunked, generated as it is sent.
      res.writeHead(path === '/big-500' ? 500 : 200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while ((written.get(path) ?? 0) < 200 * MB && !res.destroyed) {
          written.set(path, (written.get(path) ?? 0) + chunk.length);
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const post = (path: string) => postOnce(`${base}${path}`, { 'content-type': 'application/json' }, '{"type":"test"}', 5_000);

  it('a 2xx with no body, or a body of exactly 16 KiB, is a status and no error', async () => {
    expect(await post('/small')).toMatchObject({ httpStatus: 204, error: null });
    expect(await post('/page')).toMatchObject({ httpStatus: 200, error: null });
  });

  it('a 200 MB answer is cut off at the cap and judged by its status: 200 delivered, 500 failed', async () => {
    const r = await post('/big');
    expect(r).toMatchObject({ httpStatus: 200, error: null });
    expect(r.durationMs).toBeLessThan(3_000);
    expect(written.get('/big')!).toBeLessThan(50 * MB);
    const failed = await post('/big-500');
    expect(failed).toMatchObject({ httpStatus: 500, error: null });
    expect(written.get('/big-500')!).toBeLessThan(50 * MB);
  });

  it('a gzip bomb is not inflated: its compressed bytes count, and it is cut off at the cap', async () => {
    expect(bomb.length).toBeGreaterThan(DELIVERY_MAX_RESPONSE_BYTES);
    expect(await post('/bomb')).toMatchObject({ httpStatus: 200, error: null });
  });
});
