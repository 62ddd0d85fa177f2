import { Migration } from '@mikro-orm/migrations';

/**
 * A vendor's connection list at 10,000 connections (docs/operations.md "Job schedulers at
 * scale"): pages are numbers, so a deep page walks the vendor's index up to its offset. With the
 * status and the client org in the index itself, that walk (and the page's ids) is read from the
 * index alone (an index-only scan) instead of visiting every skipped row's table page to check
 * its status. Same name and key as before; only the included columns are new.
 */
export class Migration20261128130000 extends Migration {
  override up(): void {
    this.addSql(`drop index if exists "connections_vendor_idx";`);
    this.addSql(`create index "connections_vendor_idx" on "connections" ("vendor_org_id", "created_at" desc, "id" desc) include ("status", "client_org_id");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "connections_vendor_idx";`);
    this.addSql(`create index "connections_vendor_idx" on "connections" ("vendor_org_id", "created_at" desc, "id" desc);`);
  }
}
