/**
 * The read path's batched lookup (employees/store.ts `findEmployee`): lookups made in the same
 * turn of the event loop share one statement, yet each gets its own answer and its own audit
 * entry (docs/consent.md "How consent works"), and a refused read (not found, no consent) leaves none. Over HTTP, many
 * concurrent reads of two vendors, mixed with refused ones, each get exactly their employee.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord, type EmployeeRecord } from '../../../src/domain/record';
import { createEmployeeStore } from '../../../src/employees/store';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { dbQuery, storesOf } from '../../support/db';

let app: TestApp;
let a: Awaited<ReturnType<typeof vendor>>;
let b: Awaited<ReturnType<typeof vendor>>;
let c: Awaited<ReturnType<typeof client>>;
let records: EmployeeRecord[];
const consented = new Set(['E00', 'E01', 'E02', 'E03', 'E04', 'E05', 'E06', 'E07', 'E08', 'E09']);

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  a = await vendor(app.ctx);
  b = await vendor(app.ctx);
  c = await client(app.ctx);
  await connection(app.ctx, a.org.uuid, c.org.uuid, { consentRequired: true });
  await connection(app.ctx, b.org.uuid, c.org.uuid);
  records = Array.from({ length: 20 }, (_, i) =>
    normalizeRecord(
      {
        employeeId: `E${String(i).padStart(2, '0')}`,
        name: `Person ${i}`,
        pan: 'ABCPD1234K',
        salaryDetails: { ctc: { basic: 500_000 + i } },
      },
      randomUUID(),
    ),
  );
  await storesOf(app).employees.upsertBatch(c.org.id, null, records);
  const now = Date.now();
  for (const id of consented) {
    await dbQuery(
      app,
      `insert into consents (id, vendor_org_id, client_org_id, employee_id, consent_language_enc, consent_timestamp, consent_expiry, request_id)
       values ($1, $2, $3, $4, 'v1.test', $5, $6, $7)`,
      [randomUUID(), a.org.id, c.org.id, id, new Date(now - 1000), new Date(now + 3_600_000), randomUUID()],
    );
  }
});
afterAll(async () => app?.stop());

const auditRows = async (requestIds: string[]) =>
  (
    await dbQuery(
      app,
      'select request_id, actor_org_id, action, client_org_id, connection_id, employee_id, data_points from audit_log where request_id = any($1::uuid[])',
      [requestIds],
    )
  ).rows;

describe('batched employee lookups: one statement per turn', () => {
  it('answers lookups of one turn with one statement, each with its own row and audit entry', async () => {
    const pool = new pg.Pool({ connectionString: app.ctx.db.url, max: 3, options: `-c search_path="${app.ctx.db.schema}"` });
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (q: { text: string; name?: string }) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (q) => {
      // Named, so a direct connection prepares it once; HRX_DB_POOL_MODE=transaction drops the
      // name on the connection (db/settings.ts; test/integration/scale/pgbouncer runs it so).
      statements.push(q.name ?? 'unnamed');
      return query(q);
    };
    try {
      const store = createEmployeeStore(pool, app.ctx.cipher);
      const byStoreId = records[3]!;
      const asks = [
        ...records.map((r) => ({ ref: r.employeeId, consentFor: a.org.id })),
        { ref: byStoreId.id, consentFor: a.org.id }, // by store id
        { ref: 'NOPE', consentFor: a.org.id }, // unknown
        { ref: records[15]!.employeeId, consentFor: null }, // no consent asked about
      ].map((x) => ({ ...x, requestId: randomUUID() }));
      const connectionId = randomUUID();
      const found = await Promise.all(
        asks.map((x) =>
          store.findEmployee({
            clientOrgId: c.org.id,
            employeeRef: x.ref,
            consentFor: x.consentFor,
            form: 'masked',
            audit: { requestId: x.requestId, actorOrgId: a.org.id, action: 'employee.read', connectionId, dataPoints: ['name', 'pan'] },
          }),
        ),
      );
      expect(statements).toEqual(['hrx_employee_lookup']);

      for (const [i, r] of records.entries()) {
        expect(found[i]!.employeeId).toBe(r.employeeId);
        expect(found[i]!.id).toBe(r.id);
        expect(found[i]!.consentOk).toBe(consented.has(r.employeeId));
        expect(JSON.parse(app.ctx.cipher.decrypt(found[i]!.maskedEnc!, `employee-masked:${c.org.id}:${r.employeeId}`))).toEqual(maskRecord(r));
      }
      expect(found[20]).toMatchObject({ employeeId: byStoreId.employeeId, consentOk: true });
      expect(found[21]).toBeNull();
      expect(found[22]).toMatchObject({ employeeId: records[15]!.employeeId, consentOk: true });

      // Audited: the consented and the unchecked reads, once each; never the refused ones.
      const rows = await auditRows(asks.map((x) => x.requestId));
      const expected = asks.filter((x, i) => found[i] && found[i].consentOk);
      expect(rows).toHaveLength(expected.length);
      expect(expected).toHaveLength(consented.size + 2);
      for (const x of expected) {
        const row = rows.find((r) => r.request_id === x.requestId);
        expect(row).toMatchObject({
          actor_org_id: a.org.id,
          action: 'employee.read',
          client_org_id: c.org.id,
          connection_id: connectionId,
          data_points: ['name', 'pan'],
        });
        expect(row.employee_id).toBe(x.ref === byStoreId.id ? byStoreId.employeeId : x.ref);
      }
    } finally {
      await pool.end();
    }
  });
});

describe('batched employee lookups: isolation and load', () => {
  it("keeps one lookup's bad input from failing the others of its batch", async () => {
    const store = storesOf(app).employees;
    const ask = (ref: string, connectionId: string) =>
      store.findEmployee({
        clientOrgId: c.org.id,
        employeeRef: ref,
        consentFor: null,
        form: 'masked',
        audit: { requestId: randomUUID(), actorOrgId: b.org.id, action: 'employee.read', connectionId, dataPoints: null },
      });
    const good = randomUUID();
    const [r1, nul, bad, r2] = await Promise.allSettled([ask('E11', good), ask('E1\u00002', good), ask('E12', 'not-a-uuid'), ask('E13', good)]);
    expect(r1).toMatchObject({ status: 'fulfilled', value: { employeeId: 'E11' } });
    expect(nul).toEqual({ status: 'fulfilled', value: null });
    expect(bad.status).toBe('rejected');
    expect(r2).toMatchObject({ status: 'fulfilled', value: { employeeId: 'E13' } });
    const audited = await dbQuery(app, 'select employee_id from audit_log where connection_id = $1 order by employee_id', [good]);
    expect(audited.rows.map((r) => r.employee_id)).toEqual(['E11', 'E13']);

    const res = await call(`${app.url}/api/employee_details/E1%002?org=${c.org.uuid}&vendor_org=${b.org.uuid}`, { headers: { username: b.apiKey } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Employee not found');
  });

  it('serves 200 concurrent reads of two vendors, each its own employee, each audited once', async () => {
    const asks = Array.from({ length: 200 }, (_, i) => {
      const v = i % 2 === 0 ? a : b;
      return { v, id: records[i % records.length]!.employeeId };
    });
    const responses = await Promise.all(
      asks.map(({ v, id }) => call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } })),
    );
    const ok: string[] = [];
    const refused: string[] = [];
    for (const [i, res] of responses.entries()) {
      const { v, id } = asks[i]!;
      if (v === a && !consented.has(id)) {
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('Consent not found or expired');
        refused.push(res.body.requestId);
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(maskRecord(records.find((r) => r.employeeId === id)!));
      ok.push(res.body.requestId);
    }
    expect(refused.length).toBeGreaterThan(0);
    const rows = await auditRows([...ok, ...refused]);
    expect(rows).toHaveLength(ok.length);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(ok));
    for (const [i, res] of responses.entries()) {
      const row = rows.find((r) => r.request_id === res.body.requestId);
      if (row) expect(row).toMatchObject({ actor_org_id: asks[i]!.v.org.id, employee_id: asks[i]!.id, data_points: ['*'] });
    }
  });
});
