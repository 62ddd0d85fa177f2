import { Migration } from '@mikro-orm/migrations';

/**
 * What each vendor's SDK token requests created (docs/limits.md "Organisations and users created
 * by SDK tokens"): one row per client org or user, so a vendor creates at most
 * `HRX_SDK_CREATIONS_PER_DAY` of each in any 24 hours. Rows older than a day are deleted as new
 * ones are counted; a deleted vendor takes its rows with it.
 *
 * And a sync run may end `skipped` (docs/api.md "Sync on demand"): a run promised to a vendor
 * that ended before it started is recorded with its reason.
 */
export class Migration20261206040000 extends Migration {
  override up(): void {
    this.addSql(`create table "sdk_creations" (
      "id" bigserial primary key,
      "vendor_org_id" integer not null references "orgs" ("id") on delete cascade,
      "kind" text not null check ("kind" in ('org', 'user')),
      "created_at" timestamptz(3) not null default now()
    );`);
    this.addSql(`create index "sdk_creations_vendor_idx" on "sdk_creations" ("vendor_org_id", "kind", "created_at");`);
    this.addSql(`alter table "sync_runs" drop constraint if exists "sync_runs_status_check";`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_status_check" check ("status" in ('running', 'succeeded', 'failed', 'skipped'));`);
  }

  override down(): void {
    this.addSql(`delete from "sync_runs" where "status" = 'skipped';`);
    this.addSql(`alter table "sync_runs" drop constraint if exists "sync_runs_status_check";`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_status_check" check ("status" in ('running', 'succeeded', 'failed'));`);
    this.addSql(`drop table if exists "sdk_creations";`);
  }
}
