/**
 * Everything a test's hrx holds, as text, for "is this value anywhere?" checks (docs/erasure-and-retention.md "Erasing an employee":
 * erasure leaves no copy of an employee's values): every row of every table of the test's
 * schema (`select t::text`), every Redis key under its prefix with its value (whatever its type),
 * and every employee row decrypted (the envelopes opened with the app's own cipher), since values
 * encrypted at rest never show in the raw dump.
 */
import { Redis } from 'ioredis';
import type { EmployeeRecord } from '../../src/domain/record';
import { decodeEmployee, maskedAad } from '../../src/employees/codec';
import { dbQuery, type HasContext } from './db';
import { REDIS_URL } from './harness';

type WithCtx = Extract<HasContext, { ctx: unknown }>;

/** One text per row of every base table of the schema, prefixed by the table's name. */
export async function dumpTables(app: WithCtx): Promise<string[]> {
  const tables = await dbQuery<{ table_name: string }>(
    app,
    `select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
  );
  const out: string[] = [];
  for (const { table_name: t } of tables.rows) {
    const rows = await dbQuery<{ row: string }>(app, `select t::text as row from "${t.replace(/"/g, '""')}" t`);
    for (const r of rows.rows) out.push(`${t}: ${r.row}`);
  }
  return out;
}

/** One text per Redis key under the app's prefix: `<key> <type>: <value>` (every member, field or entry). */
export async function dumpRedis(app: WithCtx): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${app.ctx.config.HRX_REDIS_PREFIX}:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        let value: unknown;
        if (type === 'string') value = await redis.get(key);
        else if (type === 'hash') value = await redis.hgetall(key);
        else if (type === 'list') value = await redis.lrange(key, 0, -1);
        else if (type === 'set') value = await redis.smembers(key);
        else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
        else if (type === 'stream') value = await redis.xrange(key, '-', '+');
        else value = `(unread type ${type})`;
        out.push(`${key} ${type}: ${JSON.stringify(value)}`);
      }
    } while (cursor !== '0');
    return out;
  } finally {
    redis.disconnect();
  }
}

/** Every employee row of every org, decrypted: the full record, and `json`, it and the masked form as JSON text. */
export async function decryptedEmployees(app: WithCtx): Promise<{ orgId: number; employeeId: string; record: EmployeeRecord; json: string }[]> {
  const rows = await dbQuery(app, `select id, org_id, employee_id, record_enc, masked_enc from employees order by org_id, employee_id`);
  return rows.rows.map((x) => {
    const full = decodeEmployee({ id: x.id, employeeId: x.employee_id, recordEnc: x.record_enc }, x.org_id, app.ctx.cipher);
    const masked = x.masked_enc ? app.ctx.cipher.decrypt(x.masked_enc, maskedAad(x.org_id, x.employee_id)) : '';
    return { orgId: x.org_id as number, employeeId: x.employee_id as string, record: full, json: `${JSON.stringify(full)} ${masked}` };
  });
}

/**
 * One line per value of `values` found in any of `texts`: where (`where`, the text's index and
 * its first 32 characters: a table or key name) and which value by index, never the value.
 */
export function findValues(where: string, texts: readonly string[], values: readonly string[]): string[] {
  const hits: string[] = [];
  values.forEach((v, k) => {
    const i = texts.findIndex((t) => t.includes(v));
    if (i >= 0) hits.push(`${where} #${i} (${texts[i]!.slice(0, 32)}) holds seeded value #${k}`);
  });
  return hits;
}
