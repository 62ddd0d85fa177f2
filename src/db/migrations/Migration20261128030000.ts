import { Migration } from '@mikro-orm/migrations';

/**
 * `/metrics` at 10,000 client orgs (docs/operations.md "Job schedulers at scale"): the connection
 * health gauge reads, for an org without a stored health, its latest run's status. This index
 * answers that with one index-only probe per org instead of sorting the org's runs, and keeps the
 * grouped query's estimated cost low enough that PostgreSQL does not JIT-compile it on every scrape.
 */
export class Migration20261128030000 extends Migration {
  override up(): void {
    this.addSql(`create index "sync_runs_org_started_idx" on "sync_runs" ("org_id", "started_at" desc) include ("status");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "sync_runs_org_started_idx";`);
  }
}
