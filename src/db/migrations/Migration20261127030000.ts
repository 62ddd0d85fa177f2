import { Migration } from '@mikro-orm/migrations';

/**
 * An org stays established (docs/connect.md "Who may approve"): `orgs.established_at` is set,
 * in the same transaction, by the org's first HRMS configuration or first employee row, and is
 * never cleared, so an employer that erases every employee (and has no HRMS configuration) still
 * needs proof of control in the Connect flow. Orgs that are established today (a configuration,
 * or any employee row, removed or not) are backfilled: the configuration's time, else now.
 *
 * Every copy (docs/erasure-and-retention.md): an erasure looks up its org's outbox events
 * (`events_client_org_idx`), and the retention purge takes ended events by age
 * (`events_created_idx`) and ended `employee.removed` events of any age (`events_removed_idx`).
 */
export class Migration20261127030000 extends Migration {
  override up(): void {
    this.addSql(`alter table "orgs" add column "established_at" timestamptz(3) null;`);
    this.addSql(`update "orgs" o set "established_at" = coalesce((select c."created_at" from "hrms_configs" c where c."org_id" = o."id"), now())
      where exists (select 1 from "hrms_configs" c where c."org_id" = o."id") or exists (select 1 from "employees" e where e."org_id" = o."id");`);
    this.addSql(`create index "events_client_org_idx" on "events" ("client_org_id");`);
    this.addSql(`create index "events_created_idx" on "events" ("created_at");`);
    this.addSql(`create index "events_removed_idx" on "events" ("created_at") where "type" = 'employee.removed';`);
  }

  override down(): void {
    this.addSql(`drop index if exists "events_removed_idx";`);
    this.addSql(`drop index if exists "events_created_idx";`);
    this.addSql(`drop index if exists "events_client_org_idx";`);
    this.addSql(`alter table "orgs" drop column "established_at";`);
  }
}
