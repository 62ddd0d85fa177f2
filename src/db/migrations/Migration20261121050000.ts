import { Migration } from '@mikro-orm/migrations';

/**
 * Events to vendors (docs/events.md "Outbox"): vendors' endpoints (signing secret encrypted, bound to its
 * row), the outbox of events (one row per event and vendor org), one delivery per subscribed
 * endpoint, every delivery attempt, and what the consent-expiry scan already announced.
 */
export class Migration20261121050000 extends Migration {
  override up(): void {
    this.addSql(`create table "event_endpoints" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "url" text not null,
      "event_types" text[] not null,
      "secret_enc" text not null,
      "created_at" timestamptz(3) not null default now(),
      "removed_at" timestamptz(3) null
    );`);
    this.addSql(`create index "event_endpoints_org_idx" on "event_endpoints" ("org_id") where "removed_at" is null;`);

    // The outbox. `payload` is json (not jsonb) so the body sent is byte for byte the one written.
    this.addSql(`create table "events" (
      "id" text primary key,
      "type" text not null,
      "vendor_org_id" integer not null references "orgs" ("id") on delete cascade,
      "client_org_id" integer null references "orgs" ("id") on delete cascade,
      "connection_id" uuid null,
      "payload" json not null,
      "created_at" timestamptz(3) not null default now()
    );`);
    this.addSql(`create index "events_vendor_idx" on "events" ("vendor_org_id", "created_at" desc);`);

    this.addSql(`create table "event_deliveries" (
      "id" uuid primary key,
      "event_id" text not null references "events" ("id") on delete cascade,
      "endpoint_id" uuid not null references "event_endpoints" ("id") on delete cascade,
      "status" text not null default 'pending' check ("status" in ('pending','delivered','failed','cancelled')),
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz(3) not null default now(),
      "enqueued_at" timestamptz(3) null,
      "finished_at" timestamptz(3) null,
      "created_at" timestamptz(3) not null default now(),
      unique ("event_id", "endpoint_id")
    );`);
    // The relay's scan and "stop an endpoint's pending deliveries" only ever look at pending rows.
    this.addSql(`create index "event_deliveries_pending_idx" on "event_deliveries" ("next_attempt_at") where "status" = 'pending';`);
    this.addSql(`create index "event_deliveries_endpoint_idx" on "event_deliveries" ("endpoint_id") where "status" = 'pending';`);
    this.addSql(`create index "event_deliveries_unqueued_idx" on "event_deliveries" ("created_at") where "status" = 'pending' and "enqueued_at" is null;`);

    this.addSql(`create table "event_attempts" (
      "id" bigserial primary key,
      "delivery_id" uuid not null references "event_deliveries" ("id") on delete cascade,
      "attempt" integer not null,
      "at" timestamptz(3) not null,
      "http_status" integer null,
      "error" text null,
      "status_text" text null,
      "duration_ms" integer not null,
      unique ("delivery_id", "attempt")
    );`);

    // Consent expiry scan: a cursor (consents expired before it were looked at) and the consents
    // already announced, so each expiry is announced once even across overlapping scans. The
    // cursor starts now: expiries from before events existed are not announced.
    this.addSql(`create table "event_cursors" ("name" text primary key, "at" timestamptz(3) not null);`);
    this.addSql(`insert into "event_cursors" ("name", "at") values ('consent.expired', now());`);
    this.addSql(`create table "consent_expiry_announcements" (
      "consent_id" uuid primary key references "consents" ("id") on delete cascade,
      "announced_at" timestamptz(3) not null default now()
    );`);
    this.addSql(`create index "consents_expiry_idx" on "consents" ("consent_expiry");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "consents_expiry_idx";`);
    for (const t of ['consent_expiry_announcements', 'event_cursors', 'event_attempts', 'event_deliveries', 'events', 'event_endpoints']) {
      this.addSql(`drop table if exists "${t}" cascade;`);
    }
  }
}
