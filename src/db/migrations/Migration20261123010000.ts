import { Migration } from '@mikro-orm/migrations';

/**
 * Who may approve in the Connect flow (docs/connect.md "Who may approve"):
 * - `connect_sessions`: the session an SDK token is exchanged for, once (unique `jti`); only a
 *   SHA-256 of the session secret is stored. `proven_at` / `proof_method`: proof of control
 *   given in this session; a new org's first HRMS configuration entered through a session is
 *   marked by `hrms_configs.connect_session_id`.
 * - `connect_proof_locks`: failed proofs per vendor/client pair (the pair's active connection) and
 *   the lock they set (5 failures → 15 minutes), shared by every API process.
 * - `connect_proof_audit`: every proof and approval attempt (never the credentials).
 */
export class Migration20261123010000 extends Migration {
  override up(): void {
    this.addSql(`create table "connect_sessions" (
      "id" uuid primary key,
      "secret_hash" bytea not null unique,
      "jti" uuid not null unique references "sdk_tokens" ("jti") on delete cascade,
      "connection_id" uuid not null references "connections" ("id") on delete cascade,
      "created_at" timestamptz(3) not null default now(),
      "expires_at" timestamptz(3) not null,
      "proven_at" timestamptz(3) null,
      "proof_method" text null check ("proof_method" in ('hrms', 'app_credentials'))
    );`);
    this.addSql(`alter table "hrms_configs" add column "connect_session_id" uuid null;`);
    this.addSql(`create table "connect_proof_locks" (
      "vendor_org_id" integer not null references "orgs" ("id") on delete cascade,
      "client_org_id" integer not null references "orgs" ("id") on delete cascade,
      "failures" integer not null default 0,
      "locked_until" timestamptz(3) null,
      primary key ("vendor_org_id", "client_org_id")
    );`);
    this.addSql(`create table "connect_proof_audit" (
      "id" bigserial primary key,
      "at" timestamptz(3) not null default now(),
      "request_id" uuid not null,
      "connection_id" uuid not null,
      "vendor_org_id" integer not null,
      "client_org_id" integer not null,
      "session_id" uuid not null,
      "user_id" uuid not null,
      "method" text not null check ("method" in ('hrms', 'app_credentials', 'approve')),
      "outcome" text not null check ("outcome" in ('proven', 'failed', 'locked', 'error', 'configured', 'approved', 'refused')),
      "source_address" text null
    );`);
    this.addSql(`create index "connect_proof_audit_connection_idx" on "connect_proof_audit" ("connection_id", "at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "connect_proof_audit";`);
    this.addSql(`drop table if exists "connect_proof_locks";`);
    this.addSql(`alter table "hrms_configs" drop column if exists "connect_session_id";`);
    this.addSql(`drop table if exists "connect_sessions";`);
  }
}
