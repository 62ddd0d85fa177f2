import { Migration } from '@mikro-orm/migrations';

/**
 * Vendor self-service of event endpoints (docs/events.md "Self-service"):
 * - `event_endpoints.previous_secret_enc` / `previous_secret_until`: after a secret rotation the
 *   old secret (still encrypted, bound to the same row) signs beside the new one until then
 *   (Standard Webhooks' multiple signatures);
 * - `event_deliveries.replay_base`: the attempt count when the delivery was last replayed, so a
 *   replayed delivery gets the whole retry schedule again while its attempt numbers keep rising
 *   (every attempt stays recorded).
 */
export class Migration20261206060000 extends Migration {
  override up(): void {
    this.addSql(`alter table "event_endpoints" add column "previous_secret_enc" text null, add column "previous_secret_until" timestamptz(3) null;`);
    this.addSql(`alter table "event_deliveries" add column "replay_base" integer not null default 0;`);
    // The self-service list of one endpoint's deliveries, newest first.
    this.addSql(`create index "event_deliveries_endpoint_created_idx" on "event_deliveries" ("endpoint_id", "created_at" desc);`);
  }

  override down(): void {
    this.addSql(`drop index if exists "event_deliveries_endpoint_created_idx";`);
    this.addSql(`alter table "event_deliveries" drop column "replay_base";`);
    this.addSql(`alter table "event_endpoints" drop column "previous_secret_enc", drop column "previous_secret_until";`);
  }
}
