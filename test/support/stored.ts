/**
 * What a test's database holds, decrypted: the employee records of a client org (what a sync or
 * the update webhook stored, for comparing with a ground truth) and the users SDK token requests
 * named. Knows the row layouts of `src/employees/codec.ts` and `src/sdk/store.ts`; when a layout
 * changes, only this file follows.
 */
import type { FieldCipher } from '../../src/crypto/field-cipher';
import { decodeEmployee } from '../../src/employees/codec';
import { userProfileAad } from '../../src/sdk/store';
import type { EmployeeRecord } from '../../src/domain/record';
import { dbQuery, type HasContext } from './db';

/** Stored records of `orgId` by HRMS `employeeId`, with whether each is removed. */
export async function storedRecords(
  app: HasContext & { ctx: { cipher: Parameters<typeof decodeEmployee>[2] } },
  orgId: number,
): Promise<Map<string, { record: EmployeeRecord; removed: boolean }>> {
  const { rows } = await dbQuery(app, `select id, employee_id, record_enc, removed_at from employees where org_id = $1`, [orgId]);
  return new Map(
    rows.map((r) => [
      r.employee_id as string,
      {
        record: decodeEmployee({ id: r.id, employeeId: r.employee_id, recordEnc: r.record_enc }, orgId, app.ctx.cipher),
        removed: r.removed_at !== null,
      },
    ]),
  );
}

/** A user row (sdk/store.ts) decrypted: what an SDK token request stored of the HR admin. */
export interface StoredUser {
  id: string;
  email: string;
  fullName: string;
  /** The e-mail's blind index as stored. */
  emailHash: string;
}

/** Users of `orgId`, their profile envelopes opened, ordered by e-mail. Knows the row layout of `src/sdk/store.ts`. */
export async function storedUsers(app: HasContext & { ctx: { cipher: FieldCipher } }, orgId: number): Promise<StoredUser[]> {
  const { rows } = await dbQuery(app, `select id, email_hash, profile_enc from users where org_id = $1`, [orgId]);
  return rows
    .map((r) => {
      const p = JSON.parse(app.ctx.cipher.decrypt(r.profile_enc, userProfileAad(r.id))) as { email: string; full_name: string };
      return { id: r.id as string, email: p.email, fullName: p.full_name, emailHash: r.email_hash as string };
    })
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}
