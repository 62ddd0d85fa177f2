/**
 * The plain read's three ways to build a response give the same bytes a client would expect:
 * the stored masked form (every point shared), the masked form filtered (some points shared),
 * and, for rows without a masked form, the record rebuilt from its parts. Envelopes are bound to
 * their row: one copied onto another employee does not open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterRecord } from '../../../src/domain/data-points';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord, type EmployeeRecord } from '../../../src/domain/record';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { ormQuery, storesOf } from '../../support/db';

describe('plain employee read forms', () => {
  let app: TestApp;
  let all: Awaited<ReturnType<typeof vendor>>;
  let some: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;
  let records: EmployeeRecord[];
  const SHARED = ['name', 'pan', 'bankDetails_ifscCode', 'ctc_basic', 'dependentDetails_mobileNumber'];

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    all = await vendor(app.ctx);
    some = await vendor(app.ctx);
    c = await client(app.ctx);
    await connection(app.ctx, all.org.uuid, c.org.uuid);
    await connection(app.ctx, some.org.uuid, c.org.uuid, { shared: SHARED });
    records = ['A1', 'A2'].map((id, i) =>
      normalizeRecord(
        {
          employeeId: id,
          name: `Person ${i}`,
          gender: 'Female',
          pan: 'ABCPD1234K',
          aadhar: '234567890123',
          bankDetails: { accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'HDFC Bank' },
          salaryDetails: { ctc: { basic: 600000 + i, hra: 240000 } },
          dependentDetails: [{ name: 'Ravi', relation: 'Son', mobileNumber: '9876543210' }],
        },
        crypto.randomUUID(),
      ),
    );
    await storesOf(app).employees.upsertBatch(c.org.id, null, records);
  });
  afterAll(async () => app?.stop());

  const read = (v: { org: { uuid: string }; apiKey: string }, id: string) =>
    call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });

  it('serves the stored masked form when every point is shared', async () => {
    const res = await read(all, 'A1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requestId: res.headers.get('x-request-id'), message: 'success', data: maskRecord(records[0]!) });
    expect(res.body.data.salaryDetails.ctc.basic).toBe(600000);
    expect(res.body.data.pan).toBe('**********');
  });

  it('filters the masked form to the shared points', async () => {
    const res = await read(some, 'A2');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(filterRecord(maskRecord(records[1]!), new Set(SHARED)));
    expect(res.body.data.gender).toBe('NOT AVAILABLE');
    expect(res.body.data.salaryDetails.ctc.hra).toBeNull();
    expect(res.body.data.dependentDetails).toEqual([
      {
        name: 'NOT AVAILABLE',
        relation: 'NOT AVAILABLE',
        dob: 'NOT AVAILABLE',
        email: 'NOT AVAILABLE',
        gender: 'NOT AVAILABLE',
        mobileNumber: '**********',
        profession: 'NOT AVAILABLE',
      },
    ]);
  });

  it('rebuilds the response from the parts for a row without a masked form', async () => {
    const sql = (q: string) => ormQuery(app, q);
    const before = await read(all, 'A1');
    const filteredBefore = await read(some, 'A1');
    await sql(`update employees set masked_enc = null where employee_id = 'A1'`);
    const after = await read(all, 'A1');
    expect(after.body.data).toEqual(before.body.data);
    expect((await read(some, 'A1')).body.data).toEqual(filteredBefore.body.data);
  });

  it('refuses an envelope moved onto another employee', async () => {
    await ormQuery(app, `update employees set masked_enc = (select masked_enc from employees where employee_id = 'A2') where employee_id = 'A1'`);
    const res = await read(all, 'A1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ requestId: res.headers.get('x-request-id'), error: 'internal_error', message: 'Internal Server Error', data: null });
    expect(JSON.stringify(res.body)).not.toContain('Person 1');
  });
});
