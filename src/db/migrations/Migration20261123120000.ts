import { Migration } from '@mikro-orm/migrations';

/**
 * Erasure and retention (docs/erasure-and-retention.md "Erasing an employee"):
 * - `employee_tombstones`: one row per erased employee, holding only a keyed hash of its
 *   `employeeId` (HMAC-SHA256 under a key derived from the master key, src/crypto/tombstone.ts)
 *   and when it was erased. Syncs skip employees with a tombstone; the update webhook removes it.
 * - Indexes the retention purge (src/retention/) walks: audit rows by time, removed employees by
 *   removal time.
 */
export class Migration20261123120000 extends Migration {
  override up(): void {
    this.addSql(`create table "employee_tombstones" (
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "id_hash" text not null,
      "erased_at" timestamptz(3) not null default now(),
      primary key ("org_id", "id_hash")
    );`);
    this.addSql(`create index "audit_log_at_idx" on "audit_log" ("at");`);
    this.addSql(`create index "connect_proof_audit_at_idx" on "connect_proof_audit" ("at");`);
    this.addSql(`create index "employees_removed_at_idx" on "employees" ("removed_at") where "removed_at" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "employees_removed_at_idx";`);
    this.addSql(`drop index if exists "connect_proof_audit_at_idx";`);
    this.addSql(`drop index if exists "audit_log_at_idx";`);
    this.addSql(`drop table if exists "employee_tombstones";`);
  }
}
