/**
 * Pay history and erasure (docs/pay-history.md "What is kept", docs/erasure-and-retention.md
 * "Erasing an employee"): an employee with 14 pay months (pushed through the update webhook, with
 * `employee.pay_recorded` events in the outbox) is erased with its id spelled with a no-break
 * space; then the pay history read answers 404 under 4 spellings of the id, `pay_months` holds
 * nothing of its row, a `pg_dump` of the schema holds neither its row id (held before by
 * `pay_months` and `pay_envelopes`) nor its id in any pay or event table, and every pay month left (another employee's) decrypts to none of its amounts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payMonthAad } from '../../../src/employees/pay-months';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { call, DATABASE_URL, startTestApp, type TestApp } from '../../support/harness';

const ID = 'PAYERASE7';
const SPELLINGS = [`${ID} `, `\t${ID}`, `${ID}\u00a0`, ID];
/** Amounts no other month holds: found anywhere after erasure is a leak. */
const AMOUNTS = Array.from({ length: 14 }, (_, i) => 731_157 + 13 * i);

let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;
let rowId: string;

const post = (path: string, body: unknown) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: f.appBasic(c) }, body: JSON.stringify(body) });
const history = (id: string) =>
  call(`${app.url}/api/employee_details/${encodeURIComponent(id)}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}&months=36`, {
    headers: { username: v.apiKey },
  });
const months = (amounts: number[]) => amounts.map((grossPay, i) => ({ month: (i % 12) + 1, year: 2024 + Math.floor(i / 12), grossPay, netPay: grossPay - 1 }));

async function pgDump(): Promise<string> {
  const { stdout } = await promisify(execFile)('pg_dump', ['--dbname', DATABASE_URL, '--schema', app.config.HRX_DB_SCHEMA, '--no-owner'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}
/** The tables of a pg_dump whose data holds `text`, sorted. */
function tablesHolding(dump: string, text: string): string[] {
  const out = new Set<string>();
  let table: string | null = null;
  for (const line of dump.split('\n')) {
    const copy = /^COPY [^.]+\.(\S+) \(/.exec(line);
    if (copy) table = copy[1]!.replace(/"/g, '');
    else if (line === '\\.') table = null;
    else if (table && line.includes(text)) out.add(table);
  }
  return [...out].sort();
}

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1' } });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: 'http://127.0.0.1:9/hook', events: ['employee.pay_recorded'] });
  expect((await post('/api/webhook/v1/employee/update/', { employeeId: ID, name: 'Tara Erase', salaryHistory: months(AMOUNTS) })).status).toBe(200);
  expect((await post('/api/webhook/v1/employee/update/', { employeeId: 'KEPT1', salaryHistory: months([1000, 2000]) })).status).toBe(200);
  rowId = (await dbQuery(app, `select id from employees where employee_id = $1`, [ID])).rows[0].id as string;
}, 90_000);
afterAll(async () => app?.stop());

describe('pay history after erasure', () => {
  it('before: every spelling reads the 14 months, and the outbox names the employee', async () => {
    for (const s of SPELLINGS) expect((await history(s)).body.data?.months).toHaveLength(14);
    expect(tablesHolding(await pgDump(), rowId)).toEqual(expect.arrayContaining(['pay_months', 'pay_envelopes']));
    expect(tablesHolding(await pgDump(), `"${ID}"`)).toContain('events');
  });

  it('after an erasure: 404 under 4 spellings, no pay month, no trace in a pg_dump, no amount in any pay month left', async () => {
    expect((await post('/api/webhook/v1/employee/erase/', { employee_id: `${ID}\u00a0` })).status).toBe(200);
    for (const s of SPELLINGS) expectError(await history(s), 404, plain('Employee not found'));
    expect((await dbQuery(app, `select count(*)::int as n from pay_months where employee_row_id = $1`, [rowId])).rows[0].n).toBe(0);
    const dump = await pgDump();
    expect(tablesHolding(dump, rowId)).toStrictEqual([]);
    // The id stays only in the proof the erasure keeps (audit); the vendor hears no removal (not subscribed).
    expect(tablesHolding(dump, ID).filter((t) => t !== 'audit_log')).toStrictEqual([]);
    expect((await dbQuery(app, `select type from events where payload::text like $1`, [`%${ID}%`])).rows).toStrictEqual([]);
    const left = await dbQuery(app, `select employee_row_id, year, month, value_enc from pay_months where org_id = $1`, [c.org.id]);
    expect(left.rows).toHaveLength(2);
    const values = left.rows.map((r) =>
      app.ctx.cipher.decrypt(r.value_enc as string, payMonthAad(c.org.id, r.employee_row_id as string, r.year as number, r.month as number)),
    );
    for (const a of AMOUNTS) expect(values.filter((x) => x.includes(String(a)))).toStrictEqual([]);
  });
});
