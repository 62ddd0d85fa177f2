import { Migration } from '@mikro-orm/migrations';
import { blindIndex } from '../../crypto/blind-index';
import { pgTextArray } from '../sql';
import { keysRequired, type MigrationKeys } from './keys';

const NAME = 'Migration20261123190000';
/** Rows moved per statement pair (select, update): bounded memory whatever the table's size. */
const BATCH = 500;
/** The record fields rows before this migration kept in `sensitive_enc` (the rest was plain JSONB). */
const SENSITIVE_KEYS = ['pan', 'aadhar', 'uan', 'mobileNumber', 'bankDetails', 'dependentDetails', 'salaryDetails'];
/** What erasure leaves of a consent statement (crypto/tombstone.ts): a keyed digest, kept as it is. */
const ERASED_PREFIX = 'erased:hmac-sha256:';

// The associated data of each envelope, as the stores use it (employees/codec.ts, sdk/store.ts,
// consent/store.ts), written out here so this migration keeps meaning what it meant when later
// code moves on.
const oldSensitiveAad = (orgId: number, employeeId: string): string => `employee:${orgId}:${employeeId}`;
const recordAad = (orgId: number, employeeId: string): string => `employee-record:${orgId}:${employeeId}`;
const userAad = (id: string): string => `user:${id}`;
const consentAad = (id: string): string => `consent:${id}`;

type EmployeeRow = { id: string; org_id: number; employee_id: string };
type UserRow = { id: string; org_id: number };

/**
 * Nothing in clear at rest (docs/at-rest.md): moves every clear value
 * into an envelope bound to its row (AES-256-GCM under the current master key, the field cipher
 * of crypto/field-cipher) and gives the one lookup by a value a blind index:
 *
 * - `employees.record` (plain JSONB: names, e-mails, dates of birth, addresses…) and
 *   `employees.sensitive_enc` (the sensitive part) become one envelope of the whole record,
 *   `record_enc` (`employee-record:<org>:<employeeId>`); `masked_enc` is kept as it is.
 * - `users.email` and `users.full_name` become `profile_enc` (`{"email","full_name"}` bound to
 *   `user:<id>`) and `email_hash`, the e-mail's blind index (HMAC-SHA256 under
 *   `deriveKey(master, 'blind-index')`, scoped to `user-email` and the org), unique per org.
 * - `consents.consent_language` (free text that may name the employee) becomes
 *   `consent_language_enc` (bound to `consent:<id>`); a statement already replaced by its digest
 *   at erasure stays that digest.
 *
 * Then the three tables are rewritten (`cluster`), so the row versions that held clear values
 * leave the table files at commit instead of lingering as dead tuples until a vacuum overwrites
 * them. Existing rows need the keys (`migrate()` hands them over); without them the migration
 * runs only where there is nothing to move. `down` moves everything back (same keys).
 */
export function migration20261123190000(keys: MigrationKeys | null) {
  const need = (): MigrationKeys => {
    if (!keys) throw keysRequired(NAME);
    return keys;
  };
  return class Migration20261123190000 extends Migration {
    /** Runs `step` on batches of `select`'s rows until it returns none (`step` must take each row out of `select`). */
    private async batches<R>(select: string, step: (rows: R[]) => Promise<void>): Promise<void> {
      for (;;) {
        const rows = (await this.execute(`${select} limit ${BATCH}`)) as R[];
        if (rows.length === 0) return;
        await step(rows);
      }
    }

    /** Sets one or more text columns of `table` by id from parallel arrays (one statement). */
    private async setById(table: string, columns: Record<string, string>, ids: string[], values: string[][]): Promise<void> {
      const names = Object.keys(columns);
      const sets = names.map((c, i) => `"${c}" = d.v${i}${columns[c]}`).join(', ');
      const args = names.map(() => '?::text[]').join(', ');
      await this.execute(
        `update "${table}" t set ${sets} from unnest(?::uuid[], ${args}) as d(id, ${names.map((_, i) => `v${i}`).join(', ')}) where t.id = d.id`,
        [pgTextArray(ids), ...values.map(pgTextArray)],
      );
    }

    /** Rewrites `table` into new files (with its TOAST table and indexes): dead row versions go at commit. */
    private async rewrite(table: string): Promise<void> {
      await this.execute(`cluster "${table}" using "${table}_pkey"`);
      await this.execute(`alter table "${table}" set without cluster`);
    }

    override async up(): Promise<void> {
      await this.execute(`alter table "employees" add column "record_enc" text null`);
      await this.batches<EmployeeRow & { record: string; sensitive_enc: string }>(
        `select id, org_id, employee_id, record::text as record, sensitive_enc from employees where record_enc is null`,
        async (rows) => {
          const { cipher } = need();
          const enc = rows.map((r) => {
            const sensitive = JSON.parse(cipher.decrypt(r.sensitive_enc, oldSensitiveAad(r.org_id, r.employee_id))) as Record<string, unknown>;
            const values = { ...(JSON.parse(r.record) as Record<string, unknown>), ...sensitive };
            return cipher.encrypt(JSON.stringify(values), recordAad(r.org_id, r.employee_id));
          });
          await this.setById(
            'employees',
            { record_enc: '' },
            rows.map((r) => r.id),
            [enc],
          );
        },
      );
      await this.execute(`alter table "employees" alter column "record_enc" set not null`);
      await this.execute(`alter table "employees" drop column "record", drop column "sensitive_enc"`);

      await this.execute(`alter table "users" add column "email_hash" text null, add column "profile_enc" text null`);
      await this.batches<UserRow & { email: string; full_name: string }>(
        `select id, org_id, email, full_name from users where profile_enc is null`,
        async (rows) => {
          const k = need();
          await this.setById(
            'users',
            { email_hash: '', profile_enc: '' },
            rows.map((r) => r.id),
            [
              rows.map((r) => blindIndex(k.blindIndexKey, 'user-email', r.org_id, r.email)),
              rows.map((r) => k.cipher.encrypt(JSON.stringify({ email: r.email, full_name: r.full_name }), userAad(r.id))),
            ],
          );
        },
      );
      await this.execute(`alter table "users" alter column "email_hash" set not null, alter column "profile_enc" set not null`);
      // Dropping `email` drops the unique (org_id, email) constraint with it.
      await this.execute(`alter table "users" drop column "email", drop column "full_name"`);
      await this.execute(`alter table "users" add constraint "users_org_id_email_hash_key" unique ("org_id", "email_hash")`);

      await this.execute(`alter table "consents" add column "consent_language_enc" text null`);
      await this.batches<{ id: string; consent_language: string }>(
        `select id, consent_language from consents where consent_language_enc is null`,
        async (rows) => {
          const enc = rows.map((r) =>
            r.consent_language.startsWith(ERASED_PREFIX) ? r.consent_language : need().cipher.encrypt(r.consent_language, consentAad(r.id)),
          );
          await this.setById(
            'consents',
            { consent_language_enc: '' },
            rows.map((r) => r.id),
            [enc],
          );
        },
      );
      await this.execute(`alter table "consents" alter column "consent_language_enc" set not null`);
      await this.execute(`alter table "consents" drop column "consent_language"`);

      for (const t of ['employees', 'users', 'consents']) await this.rewrite(t);
    }

    override async down(): Promise<void> {
      await this.execute(`alter table "employees" add column "record" jsonb null, add column "sensitive_enc" text null`);
      await this.batches<EmployeeRow & { record_enc: string }>(
        `select id, org_id, employee_id, record_enc from employees where record is null`,
        async (rows) => {
          const { cipher } = need();
          const plain: string[] = [];
          const sensitive: string[] = [];
          for (const r of rows) {
            const values = JSON.parse(cipher.decrypt(r.record_enc, recordAad(r.org_id, r.employee_id))) as Record<string, unknown>;
            const part: Record<string, unknown> = {};
            for (const k of SENSITIVE_KEYS) {
              part[k] = values[k];
              delete values[k];
            }
            plain.push(JSON.stringify(values));
            sensitive.push(cipher.encrypt(JSON.stringify(part), oldSensitiveAad(r.org_id, r.employee_id)));
          }
          await this.setById(
            'employees',
            { record: '::jsonb', sensitive_enc: '' },
            rows.map((r) => r.id),
            [plain, sensitive],
          );
        },
      );
      await this.execute(`alter table "employees" alter column "record" set not null, alter column "sensitive_enc" set not null`);
      await this.execute(`alter table "employees" drop column "record_enc"`);

      await this.execute(`alter table "users" add column "email" text null, add column "full_name" text null`);
      await this.batches<UserRow & { profile_enc: string }>(`select id, org_id, profile_enc from users where email is null`, async (rows) => {
        const { cipher } = need();
        const profiles = rows.map((r) => JSON.parse(cipher.decrypt(r.profile_enc, userAad(r.id))) as { email: string; full_name: string });
        await this.setById(
          'users',
          { email: '', full_name: '' },
          rows.map((r) => r.id),
          [profiles.map((p) => p.email), profiles.map((p) => p.full_name)],
        );
      });
      await this.execute(`alter table "users" alter column "email" set not null, alter column "full_name" set not null`);
      await this.execute(`alter table "users" drop column "email_hash", drop column "profile_enc"`);
      await this.execute(`alter table "users" add constraint "users_org_id_email_key" unique ("org_id", "email")`);

      await this.execute(`alter table "consents" add column "consent_language" text null`);
      await this.batches<{ id: string; consent_language_enc: string }>(
        `select id, consent_language_enc from consents where consent_language is null`,
        async (rows) => {
          const clear = rows.map((r) =>
            r.consent_language_enc.startsWith(ERASED_PREFIX) ? r.consent_language_enc : need().cipher.decrypt(r.consent_language_enc, consentAad(r.id)),
          );
          await this.setById(
            'consents',
            { consent_language: '' },
            rows.map((r) => r.id),
            [clear],
          );
        },
      );
      await this.execute(`alter table "consents" alter column "consent_language" set not null`);
      await this.execute(`alter table "consents" drop column "consent_language_enc"`);
    }
  };
}
