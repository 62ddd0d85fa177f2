import { Migration } from '@mikro-orm/migrations';

/**
 * Pay months the update webhook recorded keep its write sequence (`webhook_seq`, a value of
 * `employee_write_seq`, the sequence the sync's write marks read): a sync page asked for before
 * that write does not replace the month (docs/pay-history.md "A sync never reverts the webhook").
 * Null: last written by a sync, or before this migration.
 */
export class Migration20261206071500 extends Migration {
  override up(): void {
    this.addSql(`alter table "pay_months" add column "webhook_seq" bigint null;`);
  }

  override down(): void {
    this.addSql(`alter table "pay_months" drop column if exists "webhook_seq";`);
  }
}
