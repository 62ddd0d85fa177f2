import { Migration } from '@mikro-orm/migrations';

/**
 * The plain-endpoint form of each employee record, serialized and encrypted (see
 * employees/codec.ts). Null for rows written before it; the next sync fills it, and reads of such
 * rows fall back to building the response from the other columns.
 */
export class Migration20261121020000 extends Migration {
  override up(): void {
    this.addSql(`alter table "employees" add column "masked_enc" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "employees" drop column "masked_enc";`);
  }
}
