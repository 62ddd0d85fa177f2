import { Migration } from '@mikro-orm/migrations';

/**
 * SDK token and Connect flow (docs/connect.md "Reference: the SDK token and the Connect endpoints"): the users named by SDK token requests (the client
 * org's HR admins) and the issued SDK access tokens, one row per `jti`.
 */
export class Migration20261121040000 extends Migration {
  override up(): void {
    this.addSql(`create table "users" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "email" text not null,
      "full_name" text not null,
      "created_at" timestamptz(3) not null default now(),
      unique ("org_id", "email")
    );`);

    // A token is usable only while its row exists unrevoked and unexpired: issuing a newer token
    // for the same connection revokes the older ones (see src/sdk/store.ts).
    this.addSql(`create table "sdk_tokens" (
      "jti" uuid primary key,
      "connection_id" uuid not null references "connections" ("id") on delete cascade,
      "vendor_org_id" integer not null references "orgs" ("id") on delete cascade,
      "client_org_id" integer not null references "orgs" ("id") on delete cascade,
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "issued_at" timestamptz(3) not null,
      "expires_at" timestamptz(3) not null,
      "revoked_at" timestamptz(3) null,
      "hrms_configured_at" timestamptz(3) null
    );`);
    this.addSql(`create index "sdk_tokens_connection_idx" on "sdk_tokens" ("connection_id");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "sdk_tokens";`);
    this.addSql(`drop table if exists "users";`);
  }
}
