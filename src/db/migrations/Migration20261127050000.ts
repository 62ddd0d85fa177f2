import { Migration } from '@mikro-orm/migrations';

/**
 * Coverage is visible (docs/behaviour.md "Coverage"):
 * - `sync_runs.coverage`: per run, how many of the employees it synced have a value for each
 *   data point, exactly `{"employees": <int>, "points": {"<data point>": <int>, ...}}`; null for
 *   runs before this migration.
 * - `sync.degraded` is a new event type (docs/events.md). An endpoint that subscribed to every
 *   type there was (what `hrx endpoint add` does without `--events`) subscribes to it too; an
 *   endpoint that chose its types keeps its choice.
 */
export class Migration20261127050000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sync_runs" add column if not exists "coverage" jsonb null;`);
    this.addSql(`update "event_endpoints" set "event_types" = "event_types" || '{sync.degraded}'::text[]
      where "event_types" @> '{connection.approved,connection.rejected,connection.terminated,sync.completed,sync.failed,employee.updated,employee.removed,consent.expired,consent.revoked}'::text[]
        and not ('sync.degraded' = any("event_types"));`);
  }

  override down(): void {
    this.addSql(`update "event_endpoints" set "event_types" = array_remove("event_types", 'sync.degraded');`);
    this.addSql(`alter table "sync_runs" drop column if exists "coverage";`);
  }
}
