import { Migration } from '@mikro-orm/migrations';

/**
 * The name each SDK token's request gave the person it is for (`fullname`), sealed with the token
 * (docs/connect.md "Whose name the page shows"): the Connect page shows the name the issuing
 * vendor gave, never the one another vendor's token stored for the same address first. An
 * envelope like every name at rest (docs/at-rest.md); tokens issued before this migration have
 * none (the page then shows no name; they expire within the hour).
 */
export class Migration20261206030000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sdk_tokens" add column "fullname_enc" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "sdk_tokens" drop column "fullname_enc";`);
  }
}
