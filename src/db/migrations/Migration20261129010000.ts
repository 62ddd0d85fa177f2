import { Migration } from '@mikro-orm/migrations';

/**
 * Which API key issued each SDK token (docs/connect.md "Reference: the SDK token and the Connect
 * endpoints"): revoking a vendor's key revokes the tokens it issued, and with them their Connect
 * sessions, so a leaked key's tokens do not outlive it. Tokens issued before this migration name
 * no key (they expire within the hour).
 */
export class Migration20261129010000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sdk_tokens" add column "issued_by_api_key_id" uuid null references "api_keys" ("id");`);
    this.addSql(`create index "sdk_tokens_issued_by_api_key_idx" on "sdk_tokens" ("issued_by_api_key_id") where "revoked_at" is null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "sdk_tokens_issued_by_api_key_idx";`);
    this.addSql(`alter table "sdk_tokens" drop column "issued_by_api_key_id";`);
  }
}
