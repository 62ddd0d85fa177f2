import { Migration } from '@mikro-orm/migrations';

/**
 * What the HR admin is told, and who may establish an org (docs/connect.md "The notice (DPDP Act 2023)", "What an e-mail code can set up"):
 * - `orgs.purpose`, `orgs.privacy_url`: a vendor's purpose and privacy policy link, set by the
 *   operator (`hrx org update`) and shown on the Connect page.
 * - `connect_sessions.email_verified_at`: the session's holder proved they read the token's
 *   e-mail (a one-time code), which a new org's first HRMS configuration needs.
 * - `connect_email_codes`: those codes, only as a keyed hash (HMAC-SHA256 under a key derived
 *   from the master key), with their expiry, tries and use; deleted with their session.
 * - `connect_proof_audit` also records e-mail codes (`method` `email`; `outcome` `sent`).
 */
export class Migration20261123150000 extends Migration {
  override up(): void {
    this.addSql(`alter table "orgs" add column "purpose" text null, add column "privacy_url" text null;`);
    this.addSql(`alter table "connect_sessions" add column "email_verified_at" timestamptz(3) null;`);
    this.addSql(`create table "connect_email_codes" (
      "id" uuid primary key,
      "session_id" uuid not null references "connect_sessions" ("id") on delete cascade,
      "client_org_id" integer not null references "orgs" ("id") on delete cascade,
      "code_hash" bytea not null,
      "created_at" timestamptz(3) not null default now(),
      "expires_at" timestamptz(3) not null,
      "attempts" integer not null default 0,
      "used_at" timestamptz(3) null
    );`);
    this.addSql(`create index "connect_email_codes_session_idx" on "connect_email_codes" ("session_id", "created_at");`);
    this.addSql(`create index "connect_email_codes_org_idx" on "connect_email_codes" ("client_org_id", "created_at");`);
    this.addSql(`alter table "connect_proof_audit" drop constraint "connect_proof_audit_method_check",
      add constraint "connect_proof_audit_method_check" check ("method" in ('hrms', 'app_credentials', 'approve', 'email'));`);
    this.addSql(`alter table "connect_proof_audit" drop constraint "connect_proof_audit_outcome_check",
      add constraint "connect_proof_audit_outcome_check" check ("outcome" in ('proven', 'failed', 'locked', 'error', 'configured', 'approved', 'refused', 'sent'));`);
  }

  override down(): void {
    this.addSql(`delete from "connect_proof_audit" where "method" = 'email';`);
    this.addSql(`alter table "connect_proof_audit" drop constraint "connect_proof_audit_outcome_check",
      add constraint "connect_proof_audit_outcome_check" check ("outcome" in ('proven', 'failed', 'locked', 'error', 'configured', 'approved', 'refused'));`);
    this.addSql(`alter table "connect_proof_audit" drop constraint "connect_proof_audit_method_check",
      add constraint "connect_proof_audit_method_check" check ("method" in ('hrms', 'app_credentials', 'approve'));`);
    this.addSql(`drop table if exists "connect_email_codes";`);
    this.addSql(`alter table "connect_sessions" drop column if exists "email_verified_at";`);
    this.addSql(`alter table "orgs" drop column if exists "purpose", drop column if exists "privacy_url";`);
  }
}
