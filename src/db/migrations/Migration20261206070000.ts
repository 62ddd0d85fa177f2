import { Migration } from '@mikro-orm/migrations';

/**
 * Erasure and the retention purge blank the employee id of every credential row about an employee,
 * revoked or not (docs/erasure-and-retention.md); most of those rows are already revoked, so the
 * index on live rows alone left them to a scan of the table. One index over all rows serves both
 * those updates and the revocations of live rows (consent withdrawn, erasure).
 */
export class Migration20261206070000 extends Migration {
  override up(): void {
    this.addSql(`create index "credentials_employee_idx" on "credentials" ("client_org_id", "employee_id");`);
    this.addSql(`drop index if exists "credentials_live_employee_idx";`);
  }

  override down(): void {
    this.addSql(`create index "credentials_live_employee_idx" on "credentials" ("client_org_id", "employee_id") where "revoked_at" is null;`);
    this.addSql(`drop index if exists "credentials_employee_idx";`);
  }
}
