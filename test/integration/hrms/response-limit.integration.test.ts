/**
 * HRMS responses are bounded (docs/limits.md: 64 MiB after decompression). A hostile "HRMS" (a
 * real HTTP server in a child process, test/support/oversized-hrms.mjs) answers setup-config's
 * token call, or a sync's first page, with 200 MB: plain (generated as it is sent) or as a gzip
 * bomb (about 200 KB on the wire inflating to 200 MB). hrx refuses each as `bad_response` (a
 * token response past 1 MiB, a page past 64 MiB)
 * (setup-config: 400 HRMS credentials rejected; sync: a failed run after one page request, not
 * retried), stops reading past the cap (the server never gets to send the whole answer), and the
 * memory this process (which runs the app) retains grows by less than 100 MB; RSS growth is logged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HrmsError } from '../../../src/hrms/connector';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';

const MB = 1024 * 1024;
const TOTAL = 200 * MB;

// A full collection before each reading, so that RSS compares retained memory rather than
// garbage not yet collected.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

describe('HRMS response size cap (64 MiB after decompression)', () => {
  let app: TestApp;
  let evil: ChildProcess;
  let base: string;
  const stats = async (scenario: string): Promise<{ requests: number; written: number }> =>
    (await call(`${base}/__stats`)).body.stats[scenario] ?? { requests: 0, written: 0 };

  beforeAll(async () => {
    evil = spawn(process.execPath, [fileURLToPath(new URL('../../support/oversized-hrms.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(evil.stdout!, 'data')) as [Buffer];
    base = `http://127.0.0.1:${line.toString().trim()}`;
    expect((await call(`${base}/__stats`)).body.bombBytes).toBeLessThan(1 * MB);
    app = await startTestApp({ worker: false });
    expect(app.config.HRX_HRMS_MAX_RESPONSE_BYTES).toBe(64 * MB);
    // Warm-up (modules, pools, JIT, scrypt's buffers) so the measurements see only the answers.
    for (let i = 0; i < 3; i++) expect((await setupAgainst('warm-page')).res.status).toBe(200);
  });
  afterAll(async () => {
    evil?.kill();
    await app?.stop();
  });

  const setupAgainst = async (scenario: string) => {
    const c = await f.client(app.ctx);
    const body = f.setupBody(c, { url: `${base}/${scenario}` }, { clientId: 'id', clientSecret: 'secret' });
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { c, res };
  };

  /**
   * Full collections, with pauses: V8 frees array buffers' memory on a background thread after
   * the collection, so RSS is read once that is done.
   */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  /** Retained memory: the JS heap plus the buffers V8 tracks outside it (bytes). */
  const retained = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };

  /**
   * Growth (MB) across `fn`, after settling on each side: `retained` is what the assertion uses,
   * because RSS also counts pages the allocator keeps after a free (it varies by 10 MB or more
   * between runs of the same code on a loaded machine, and did push one CI run past the bound);
   * RSS is logged as a figure. A connector without the cap would retain the whole 200 MB.
   */
  const growthAcross = async (fn: () => Promise<void>): Promise<{ retainedMb: number; rssMb: number }> => {
    await settle();
    const before = { retained: retained(), rss: process.memoryUsage().rss };
    await fn();
    await settle();
    return { retainedMb: (retained() - before.retained) / MB, rssMb: (process.memoryUsage().rss - before.rss) / MB };
  };

  for (const size of ['big', 'bomb'] as const) {
    const what = size === 'big' ? '200 MB' : 'gzip-bomb (200 MB inflated)';

    it(`setup-config: a ${what} token response is 400 bad_response, retained growth < 100 MB`, async () => {
      const scenario = `${size}-token`;
      let res: Awaited<ReturnType<typeof setupAgainst>>['res'] | undefined;
      let c: Awaited<ReturnType<typeof setupAgainst>>['c'] | undefined;
      const started = Date.now();
      const growth = await growthAcross(async () => {
        ({ res, c } = await setupAgainst(scenario));
      });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(res!.status).toBe(400);
      expect(res!.body).toMatchObject({ code: 400, message: 'HRMS credentials rejected: the HRMS answered with a body hrx could not read', data: null });
      const s = await stats(scenario);
      expect(s.requests).toBe(1);
      // hrx stopped reading at the cap: the server never got to send the whole answer.
      if (size === 'big') expect(s.written).toBeLessThan(TOTAL / 2);
      console.log(
        `[hrms-response-limit] ${scenario}: retained ${growth.retainedMb.toFixed(1)} MB, RSS growth ${growth.rssMb.toFixed(1)} MB, server wrote ${(s.written / MB).toFixed(1)} MB`,
      );
      expect(growth.retainedMb).toBeLessThan(100);
      expect(await dbQuery(app, `select 1 from hrms_configs c join orgs o on o.id = c.org_id where o.uuid = $1`, [c!.org.uuid]).then((r) => r.rowCount)).toBe(
        0,
      );
    });

    it(`sync: a ${what} employee page fails the run as bad_response, not retried, retained growth < 100 MB`, async () => {
      const scenario = `${size}-page`;
      const { c, res } = await setupAgainst(scenario);
      expect(res.status).toBe(200);
      const v = await f.vendor(app.ctx);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid);
      const before = await stats(scenario);
      let failure: unknown;
      const started = Date.now();
      const growth = await growthAcross(async () => {
        failure = await app.ctx.services.sync.run(c.org.id, 'test', 'limit-test', { finalAttempt: true }).then(
          () => null,
          (e: unknown) => e,
        );
      });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(failure).toBeInstanceOf(HrmsError);
      expect(failure).toMatchObject({ kind: 'bad_response', message: `HRMS response to employee page 1 exceeds ${64 * MB} bytes` });
      const after = await stats(scenario);
      // One token request and one page request: a size refusal is not retried.
      expect(after.requests - before.requests).toBe(2);
      if (size === 'big') expect(after.written - before.written).toBeLessThan(TOTAL / 2);
      const run = await dbQuery(app, `select status, error from sync_runs where org_id = $1`, [c.org.id]);
      expect(run.rows).toHaveLength(1);
      expect(run.rows[0]).toMatchObject({ status: 'failed' });
      expect(run.rows[0].error).toContain('bad_response');
      console.log(
        `[hrms-response-limit] ${scenario}: retained ${growth.retainedMb.toFixed(1)} MB, RSS growth ${growth.rssMb.toFixed(1)} MB, server wrote ${((after.written - before.written) / MB).toFixed(1)} MB`,
      );
      expect(growth.retainedMb).toBeLessThan(100);
      expect((await call(`${app.url}/healthz`)).status).toBe(200);
    });
  }
});
