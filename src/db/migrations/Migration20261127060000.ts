import { Migration } from '@mikro-orm/migrations';

/** Event types there were before this migration: an endpoint holding all of them subscribed to every type. */
const EVERY_TYPE_BEFORE =
  'connection.approved,connection.rejected,connection.terminated,sync.completed,sync.failed,employee.updated,employee.removed,consent.expired,consent.revoked';

/**
 * Connection health and sync on demand (docs/sync.md "Connection health"):
 * - `org_health`: a client org's HRMS health as its sync runs left it (`state`: `syncing`,
 *   `healthy`, `needs_reauth`, `failing`), the health its last finished run settled on
 *   (`settled`, what the `connection.*` health events compare), the runs failed in a row for
 *   reasons other than credentials (`failures`) and the last run. Written in the transaction of
 *   the run's start and end.
 * - `sync_requests`: a vendor's last sync on demand per connection (at most one an hour) and the
 *   run id it was promised.
 * - `connection.needs_reauth`, `connection.failing`, `connection.healthy` are new event types:
 *   an endpoint that subscribed to every type there was subscribes to them too.
 */
export class Migration20261127060000 extends Migration {
  override up(): void {
    this.addSql(`create table if not exists "org_health" (
      "org_id" integer primary key references "orgs" ("id") on delete cascade,
      "state" text not null,
      "settled" text null,
      "failures" integer not null default 0,
      "last_run_id" uuid null,
      "last_attempt_at" timestamptz(3) null,
      "last_success_at" timestamptz(3) null,
      "changed_at" timestamptz(3) not null
    );`);
    this.addSql(`create table if not exists "sync_requests" (
      "connection_id" uuid primary key references "connections" ("id") on delete cascade,
      "requested_at" timestamptz(3) not null,
      "run_id" uuid not null
    );`);
    this.addSql(`update "event_endpoints" set "event_types" = "event_types" || '{connection.needs_reauth,connection.failing,connection.healthy}'::text[]
      where "event_types" @> '{${EVERY_TYPE_BEFORE}}'::text[]
        and not ('connection.healthy' = any("event_types"));`);
  }

  override down(): void {
    this.addSql(`update "event_endpoints" set "event_types" =
      array_remove(array_remove(array_remove("event_types", 'connection.needs_reauth'), 'connection.failing'), 'connection.healthy');`);
    this.addSql(`drop table if exists "sync_requests";`);
    this.addSql(`drop table if exists "org_health";`);
  }
}
