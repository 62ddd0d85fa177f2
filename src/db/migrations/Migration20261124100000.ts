import { Migration } from '@mikro-orm/migrations';

/**
 * One vocabulary: a connection that is pending or approved is "active"; "live" only
 * means read from the HRMS. The unique index allowing one such connection per vendor and client
 * org pair (Migration20261121000000) is renamed accordingly; its definition does not change.
 */
export class Migration20261124100000 extends Migration {
  override up(): void {
    this.addSql(`alter index "connections_live_pair_uq" rename to "connections_active_pair_uq";`);
  }

  override down(): void {
    this.addSql(`alter index "connections_active_pair_uq" rename to "connections_live_pair_uq";`);
  }
}
