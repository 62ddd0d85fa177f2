import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys (docs/api.md "Idempotency"): one row per credential scope and
 * `Idempotency-Key`, holding a keyed hash of the request (method, path, query, body) and, once
 * answered, the answer (status, extra headers, the body encrypted at rest: it may hold personal
 * data or a token). `answered_at` null: the first request is still running. Rows older than 24 h
 * are purged by the retention job and never replayed.
 */
export class Migration20261206050000 extends Migration {
  override up(): void {
    this.addSql(`create table "idempotency_keys" (
      "scope" text not null,
      "idem_key" text not null,
      "fingerprint" text not null,
      "created_at" timestamptz(3) not null default now(),
      "answered_at" timestamptz(3) null,
      "status" integer null,
      "headers" jsonb null,
      "answer" text null,
      constraint "idempotency_keys_pkey" primary key ("scope", "idem_key"));`);
    this.addSql(`create index "idempotency_keys_created_at_idx" on "idempotency_keys" ("created_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "idempotency_keys";`);
  }
}
