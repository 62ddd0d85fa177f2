import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail codes limited per recipient and per vendor, across sessions, tokens and orgs
 * (docs/connect.md "E-mail verification before an organisation is set up"):
 * - `connect_email_codes.recipient_hash`: HMAC-SHA256 of the lower-cased address under a key
 *   derived from the master key (never the address itself); null for codes sent before this
 *   migration (the address is stored encrypted only, so they cannot be hashed here; they leave
 *   the hour's window within an hour of the upgrade).
 * - `connect_email_codes.vendor_org_id`: the vendor whose token asked for the code, filled in
 *   from the session's token for codes sent before.
 */
export class Migration20261127020000 extends Migration {
  override up(): void {
    this.addSql(`alter table "connect_email_codes" add column "recipient_hash" bytea null,
      add column "vendor_org_id" integer null references "orgs" ("id") on delete cascade;`);
    this.addSql(`update "connect_email_codes" c set "vendor_org_id" = t."vendor_org_id"
      from "connect_sessions" s join "sdk_tokens" t on t."jti" = s."jti" where s."id" = c."session_id";`);
    this.addSql(`create index "connect_email_codes_recipient_idx" on "connect_email_codes" ("recipient_hash", "created_at");`);
    this.addSql(`create index "connect_email_codes_vendor_idx" on "connect_email_codes" ("vendor_org_id", "created_at");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "connect_email_codes_vendor_idx";`);
    this.addSql(`drop index if exists "connect_email_codes_recipient_idx";`);
    this.addSql(`alter table "connect_email_codes" drop column if exists "vendor_org_id", drop column if exists "recipient_hash";`);
  }
}
