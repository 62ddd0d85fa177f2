import { Migration } from '@mikro-orm/migrations';

/**
 * Encrypted employee details (V2, docs/v2.md "Basic credentials"): the service's RSA keys, vendors' public keys and
 * vendors' Basic credentials.
 */
export class Migration20261121010000 extends Migration {
  override up(): void {
    this.addSql(`create table "service_keys" (
      "kid" text primary key,
      "use" text not null check ("use" in ('enc','sig')),
      "alg" text not null check ("alg" in ('RSA-OAEP-256','RS256')),
      "private_jwk_enc" text not null,
      "public_jwk" jsonb not null,
      "created_at" timestamptz(3) not null default now(),
      "retired_at" timestamptz(3) null,
      "expires_at" timestamptz(3) null
    );`);
    // At most one current key per use: a backstop to the advisory lock of key creation/rotation.
    this.addSql(`create unique index "service_keys_current_uq" on "service_keys" ("use") where "retired_at" is null;`);

    this.addSql(`create table "vendor_keys" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "kid" text not null,
      "public_jwk" jsonb not null,
      "bits" integer not null,
      "created_at" timestamptz(3) not null default now(),
      "revoked_at" timestamptz(3) null,
      unique ("org_id", "kid")
    );`);

    this.addSql(`create table "basic_credentials" (
      "id" uuid primary key,
      "org_id" integer not null references "orgs" ("id") on delete cascade,
      "username" text not null unique,
      "password_hash" text not null,
      "created_at" timestamptz(3) not null default now(),
      "revoked_at" timestamptz(3) null
    );`);
    this.addSql(`create index "basic_credentials_org_idx" on "basic_credentials" ("org_id");`);
  }

  override down(): void {
    for (const t of ['basic_credentials', 'vendor_keys', 'service_keys']) this.addSql(`drop table if exists "${t}" cascade;`);
  }
}
