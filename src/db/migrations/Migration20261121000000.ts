import { Migration } from '@mikro-orm/migrations';

/** Initial schema: orgs, API keys, connections, HRMS configurations, employees, sync runs, consents, audit log. */
export class Migration20261121000000 extends Migration {
  override up(): void {
    this.addSql(`create table "orgs" (
      "id" serial primary key,
      "uuid" uuid not null unique,
      "org_name" text not null,
      "org_name_key" text not null,
      "app_name" text not null,
      "app_key" text not null unique,
      "app_secret_hash" text not null,
      "app_secret_last4" text not null,
      "org_cin" text null,
      "website_url" text not null default '',
      "logo_url" text null,
      "email_domain" text null,
      "invite_status" text not null default 'accepted',
      "is_client" boolean not null default false,
      "is_vendor" boolean not null default false,
      "brand_name" text null,
      "remote_org_id" text null unique,
      "hrms" text null,
      "invited_by" integer not null default 0,
      "created_by" integer not null default 0,
      "created_on" timestamptz(3) not null default now(),
      "modified_on" timestamptz(3) not null default now()
    );`);
    this.addSql(`create index "orgs_org_name_key_idx" on "orgs" ("org_name_key");`);
    this.addSql(`create index "orgs_email_domain_idx" on "orgs" ("email_domain");`);

    this.addSql(`create table "api_keys" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "key_hash" text not null unique,
      "prefix" text not null,
      "created_at" timestamptz(3) not null default now(),
      "revoked_at" timestamptz(3) null
    );`);

    this.addSql(`create table "connections" (
      "id" uuid primary key,
      "vendor_org_id" integer not null references "orgs" ("id"),
      "client_org_id" integer not null references "orgs" ("id"),
      "status" text not null check ("status" in ('pending','approved','rejected','terminated')),
      "shared_data_points" text[] null,
      "not_shared_data_points" text[] not null default '{}',
      "not_requested_data_points" text[] not null default '{}',
      "data_model_flags" jsonb null,
      "sync_frequency" text not null default 'daily'
        check ("sync_frequency" in ('hourly','every_6_hours','every_12_hours','daily','weekly')),
      "live_source" boolean not null default false,
      "consent_required" boolean not null default true,
      "csm_user" text not null default '',
      "created_by_user" text not null default '',
      "phone" text not null default '',
      "email" text not null default '',
      "int_type" text not null default 'API',
      "is_international" boolean not null default false,
      "salary_details_flag" boolean not null default true,
      "status_changed_at" timestamptz(3) not null default now(),
      "created_at" timestamptz(3) not null default now(),
      "terminated_at" timestamptz(3) null
    );`);
    this.addSql(`create index "connections_vendor_idx" on "connections" ("vendor_org_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "connections_client_idx" on "connections" ("client_org_id", "status");`);
    // At most one active (not terminated) connection per vendor/client pair.
    this.addSql(`create unique index "connections_live_pair_uq" on "connections" ("vendor_org_id", "client_org_id") where "status" <> 'terminated';`);

    this.addSql(`create table "hrms_configs" (
      "org_id" integer primary key references "orgs" ("id") on delete cascade,
      "hrms_id" text not null,
      "credentials_enc" text not null,
      "configured_apis" text[] not null default '{}',
      "valid" boolean not null default true,
      "invalid_reason" text null,
      "created_at" timestamptz(3) not null default now(),
      "updated_at" timestamptz(3) not null default now()
    );`);

    this.addSql(`create table "employees" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "employee_id" text not null,
      "record" jsonb not null,
      "sensitive_enc" text not null,
      "last_sync_run_id" uuid null,
      "removed_at" timestamptz(3) null,
      "updated_at" timestamptz(3) not null default now(),
      unique ("org_id", "employee_id")
    );`);

    this.addSql(`create table "sync_runs" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "trigger" text not null,
      "status" text not null check ("status" in ('running','succeeded','failed')),
      "started_at" timestamptz(3) not null default now(),
      "finished_at" timestamptz(3) null,
      "pages" integer not null default 0,
      "employees_seen" integer not null default 0,
      "employees_removed" integer not null default 0,
      "error" text null
    );`);
    this.addSql(`create index "sync_runs_org_idx" on "sync_runs" ("org_id", "status", "finished_at" desc);`);

    this.addSql(`create table "consents" (
      "id" uuid primary key,
      "vendor_org_id" integer not null references "orgs" ("id"),
      "client_org_id" integer not null references "orgs" ("id"),
      "employee_id" text not null,
      "consent_language" text not null,
      "consent_timestamp" timestamptz(3) not null,
      "consent_expiry" timestamptz(3) not null,
      "revoked_at" timestamptz(3) null,
      "created_at" timestamptz(3) not null default now(),
      "request_id" uuid not null
    );`);
    this.addSql(`create index "consents_lookup_idx" on "consents" ("vendor_org_id", "client_org_id", "employee_id", "created_at" desc);`);

    this.addSql(`create table "audit_log" (
      "id" bigserial primary key,
      "at" timestamptz(3) not null default now(),
      "request_id" uuid not null,
      "actor_org_id" integer not null,
      "action" text not null,
      "client_org_id" integer null,
      "connection_id" uuid null,
      "employee_id" text null,
      "data_points" text[] null
    );`);
    this.addSql(`create index "audit_log_actor_idx" on "audit_log" ("actor_org_id", "at" desc);`);
  }

  override down(): void {
    for (const t of ['audit_log', 'consents', 'sync_runs', 'employees', 'hrms_configs', 'connections', 'api_keys', 'orgs']) {
      this.addSql(`drop table if exists "${t}" cascade;`);
    }
  }
}
