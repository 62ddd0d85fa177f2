import { Migration } from '@mikro-orm/migrations';

/**
 * Incremental syncs (docs/hrms/connectors.md "Full and incremental syncs"): `sync_runs.kind` records whether a run listed every employee
 * (`full`, which also finds removals) or only those changed since the previous run
 * (`incremental`). Every run before this migration was full.
 */
export class Migration20261123160000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sync_runs" add column "kind" text not null default 'full';`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_kind_check" check ("kind" in ('full', 'incremental'));`);
    this.addSql(`create index "sync_runs_org_succeeded_idx" on "sync_runs" ("org_id", "started_at" desc) where "status" = 'succeeded';`);
  }

  override down(): void {
    this.addSql(`drop index if exists "sync_runs_org_succeeded_idx";`);
    this.addSql(`alter table "sync_runs" drop column if exists "kind";`);
  }
}
