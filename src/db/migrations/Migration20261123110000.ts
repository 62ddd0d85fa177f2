import { Migration } from '@mikro-orm/migrations';

/**
 * Privacy (docs/api.md "Employee details", docs/consent.md "Access log (employer)"; docs/privacy.md):
 * - `audit_log_employee_idx`: the employer's access log lists one employee's reads newest first
 *   (`client_org_id`, `employee_id`, then `at`, `id` descending), without scanning the log.
 * - `consents_employee_idx`: the employer's withdrawal revokes one employee's consents of every
 *   vendor (the existing index leads with the vendor).
 * - `consent.revoked` is a new event type (docs/events.md). An endpoint that subscribed to every
 *   type there was (what `hrx endpoint add` does without `--events`) subscribes to it too; an
 *   endpoint that chose its types keeps its choice.
 */
export class Migration20261123110000 extends Migration {
  override up(): void {
    this.addSql(`create index if not exists "audit_log_employee_idx" on "audit_log" ("client_org_id", "employee_id", "at" desc, "id" desc);`);
    this.addSql(`create index if not exists "consents_employee_idx" on "consents" ("client_org_id", "employee_id");`);
    this.addSql(`update "event_endpoints" set "event_types" = "event_types" || '{consent.revoked}'::text[]
      where "event_types" @> '{connection.approved,connection.rejected,connection.terminated,sync.completed,sync.failed,employee.updated,employee.removed,consent.expired}'::text[]
        and not ('consent.revoked' = any("event_types"));`);
  }

  override down(): void {
    this.addSql(`update "event_endpoints" set "event_types" = array_remove("event_types", 'consent.revoked');`);
    this.addSql(`drop index if exists "consents_employee_idx";`);
    this.addSql(`drop index if exists "audit_log_employee_idx";`);
  }
}
