import { Migration } from '@mikro-orm/migrations';

/**
 * Keyed hashes (HMAC-SHA256 with a key derived from the master key) of `app_secret`s and V2 Basic
 * passwords, beside their scrypt hashes (docs/api.md "Credentials"): a wrong secret is refused without scrypt.
 * Null for rows created before; those fall back to scrypt and get their keyed hash on their
 * first successful check (src/auth/secret-check.ts).
 */
export class Migration20261123020000 extends Migration {
  override up(): void {
    this.addSql(`alter table "orgs" add column "app_secret_keyed_hash" text null;`);
    this.addSql(`alter table "basic_credentials" add column "password_keyed_hash" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "basic_credentials" drop column "password_keyed_hash";`);
    this.addSql(`alter table "orgs" drop column "app_secret_keyed_hash";`);
  }
}
