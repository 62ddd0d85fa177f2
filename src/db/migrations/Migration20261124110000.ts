import { Migration } from '@mikro-orm/migrations';

/**
 * The read path's storage (bench/: `employee_details`). An envelope is ciphertext and does not
 * compress, so PostgreSQL's default (`extended`) moved every `masked_enc` over ~2 kB out of line
 * into the TOAST table: each vendor read paid a second index lookup and heap fetch. `main` keeps
 * `masked_enc` in the row (it goes out of line only if the row could not fit a page otherwise);
 * `external` sends `record_enc`, which the plain read never asks for, out of line without trying
 * to compress it. Applies to values written from now on; rows already stored are rewritten so
 * the change holds for them too (see `up`).
 *
 * Every stored read inserts one `audit_log` row, so every index on it is paid per read.
 * `audit_log_actor_idx` (by vendor and time) serves no query: the access log goes by employee
 * (`audit_log_employee_idx`), retention by time (`audit_log_at_idx`). It is dropped.
 */
export class Migration20261124110000 extends Migration {
  override up(): void {
    this.addSql(`alter table "employees" alter column "masked_enc" set storage main;`);
    this.addSql(`alter table "employees" alter column "record_enc" set storage external;`);
    // A new value (not the same TOAST pointer) makes PostgreSQL store it by the new rule.
    this.addSql(`update "employees" set "masked_enc" = "masked_enc" || '' where "masked_enc" is not null;`);
    this.addSql(`drop index if exists "audit_log_actor_idx";`);
  }

  override down(): void {
    this.addSql(`create index if not exists "audit_log_actor_idx" on "audit_log" ("actor_org_id", "at" desc);`);
    this.addSql(`alter table "employees" alter column "masked_enc" set storage extended;`);
    this.addSql(`alter table "employees" alter column "record_enc" set storage extended;`);
  }
}
