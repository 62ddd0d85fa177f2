/**
 * For every product with a simulator (`DIALECT_SIMS`), through hrx end to end: after a full sync,
 * the stored read (`GET /api/employee_details/{id}`) of every fourth employee equals its live read
 * (`source=hrms`) of the same employee, field by field, apart from hrx's `id` (docs/api.md
 * "Employee details": a live read answers what the stored record would hold). A stored record
 * with a text field fewer than the live read (a listing that carries less than the one-employee
 * answer) fails here, naming the product, the employee and the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

const EMPLOYEES = 20;
/**
 * The employees read live: every fourth. A live read may spend only a share of the tenant's
 * budget (docs/behaviour.md "Live reads and the HRMS budget"), and greytHR's takes several
 * requests; past it hrx answers 503 with `Retry-After`, which the read below waits out.
 */
const LIVE_EVERY = 4;

/** The leaf paths where `a` and `b` differ (`a.b.c: x ≠ y`). */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${at}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

for (const [hrmsId, startDialect] of DIALECT_SIMS) {
  describe(`stored read equals live read: ${hrmsId}`, () => {
    it('every employee of a full sync, field by field', async () => {
      // No pay months: the backfill has its own suites, and the records are what is compared.
      const sim = await startDialect({ employees: EMPLOYEES, seed: `stored-live-${hrmsId}`, variants: { payHistoryMonths: 0 } });
      try {
        const v = await vendor(app.ctx);
        const c = await client(app.ctx);
        await connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
        const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...sim.setup() }),
        });
        expect(setup.status).toBe(200);
        expect(await app.ctx.services.sync.run(c.org.id, 'setup', `stored-live-${hrmsId}`)).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
        const read = async (id: string, live: boolean) => {
          const q = `org=${c.org.uuid}&vendor_org=${v.org.uuid}${live ? '&source=hrms' : ''}`;
          const get = () => call(`${app.url}/api/employee_details/${encodeURIComponent(id)}?${q}`, { headers: { username: v.apiKey } });
          let res = await get();
          for (let waits = 0; res.status === 503 && waits < 3; waits++) {
            await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
            res = await get();
          }
          expect(res.status, `${hrmsId} ${id} live=${live}: ${JSON.stringify(res.body)}`).toBe(200);
          const { id: _id, ...data } = res.body.data as Record<string, unknown>;
          return data;
        };
        const diffs: string[] = [];
        for (const id of sim.employeeIds().filter((_, i) => i % LIVE_EVERY === 0)) {
          diffs.push(...differences(await read(id, false), await read(id, true)).map((d) => `${id} ${d}`));
        }
        expect(diffs).toEqual([]);
      } finally {
        await sim.close();
      }
    });
  });
}
