import { Migration } from '@mikro-orm/migrations';

/**
 * Who made a connection's last decision (docs/connect.md "After the decision"):
 * `connections.decided_by` is `admin` (the client org's HR admin on the Connect page),
 * `operator` (`hrx connection create|approve|reject`) or `vendor` (the vendor's terminate call);
 * null while pending, and for decisions made before this column existed (the page then words
 * them without naming anyone).
 */
export class Migration20261128060000 extends Migration {
  override up(): void {
    this.addSql(`alter table "connections" add column if not exists "decided_by" text null
      check ("decided_by" in ('admin', 'operator', 'vendor'));`);
  }

  override down(): void {
    this.addSql(`alter table "connections" drop column if exists "decided_by";`);
  }
}
