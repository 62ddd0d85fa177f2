import { Migration } from '@mikro-orm/migrations';

/**
 * Employment and income credentials (docs/credentials.md): one current service key per `use`
 * and `alg` (the ES256 key that signs credentials and status lists sits beside the RS256 one), and
 * the `credentials` table: who holds each credential, what it relied on (connection, consent,
 * bound vendor key) and its place in a status list. Nothing of its claims is kept
 * (docs/credentials.md "What hrx keeps").
 */
export class Migration20261206020000 extends Migration {
  override up(): void {
    this.addSql(`alter table "service_keys" drop constraint "service_keys_alg_check";`);
    this.addSql(`alter table "service_keys" add constraint "service_keys_alg_check" check ("alg" in ('RSA-OAEP-256','RS256','ES256'));`);
    this.addSql(`drop index if exists "service_keys_current_uq";`);
    this.addSql(`create unique index "service_keys_current_uq" on "service_keys" ("use", "alg") where "retired_at" is null;`);
    this.addSql(`create sequence "credential_status_seq" minvalue 0 start with 0;`);
    this.addSql(`create table "credentials" (
      "id" uuid primary key,
      "vendor_org_id" integer not null references "orgs" ("id"),
      "client_org_id" integer not null references "orgs" ("id"),
      "employee_id" text not null,
      "connection_id" uuid not null,
      "vendor_kid" text not null,
      "consent_required" boolean not null,
      "status_list" integer not null,
      "status_idx" integer not null,
      "issued_at" timestamptz(3) not null,
      "expires_at" timestamptz(3) not null,
      "checked_at" timestamptz(3) not null,
      "revoked_at" timestamptz(3) null,
      "revoked_reason" text null,
      constraint "credentials_status_uq" unique ("status_list", "status_idx")
    );`);
    this.addSql(`create index "credentials_live_employee_idx" on "credentials" ("client_org_id", "employee_id") where "revoked_at" is null;`);
    this.addSql(`create index "credentials_revoked_list_idx" on "credentials" ("status_list", "status_idx") where "revoked_at" is not null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "credentials";`);
    this.addSql(`drop sequence if exists "credential_status_seq";`);
    this.addSql(`drop index if exists "service_keys_current_uq";`);
    this.addSql(`delete from "service_keys" where "alg" = 'ES256';`);
    this.addSql(`alter table "service_keys" drop constraint "service_keys_alg_check";`);
    this.addSql(`alter table "service_keys" add constraint "service_keys_alg_check" check ("alg" in ('RSA-OAEP-256','RS256'));`);
    this.addSql(`create unique index "service_keys_current_uq" on "service_keys" ("use") where "retired_at" is null;`);
  }
}
