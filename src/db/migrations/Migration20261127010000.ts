import { Migration } from '@mikro-orm/migrations';

/**
 * How an org came to be, and whose `remote_org_id` it holds (docs/connect.md "Which org a token
 * names"). `created_via` is `operator` (`hrx org create`), `email_domain`, `name` or
 * `remote_org_id` (the SDK token's rules): the name rule finds only orgs it made itself.
 * `remote_org_vendor_id` is the vendor whose token first used the org's `remote_org_id`: the
 * same id from another vendor names another org, so `remote_org_id` is unique per vendor, not
 * across the service.
 *
 * Existing rows: an org holding a `remote_org_id` was made by that rule, for the vendor of its
 * oldest connection; an org still `pending` was made by a token, by its domain when it has one,
 * else by its name; every other org counts as the operator's (the safe side: the name rule never
 * finds it again, a token naming it by name gets a new org).
 */
export class Migration20261127010000 extends Migration {
  override up(): void {
    this.addSql(`alter table "orgs" add column "created_via" text not null default 'operator';`);
    this.addSql(`alter table "orgs" add column "remote_org_vendor_id" integer null references "orgs" ("id");`);
    this.addSql(`alter table "orgs" add constraint "orgs_created_via_check" check ("created_via" in ('operator', 'email_domain', 'name', 'remote_org_id'));`);
    this.addSql(`update "orgs" set "created_via" = case
        when "remote_org_id" is not null then 'remote_org_id'
        when "invite_status" = 'pending' and "email_domain" is not null then 'email_domain'
        when "invite_status" = 'pending' then 'name'
        else 'operator' end;`);
    this.addSql(`update "orgs" o set "remote_org_vendor_id" = (
        select c."vendor_org_id" from "connections" c where c."client_org_id" = o."id" order by c."created_at", c."id" limit 1)
      where o."remote_org_id" is not null;`);
    this.addSql(`alter table "orgs" drop constraint if exists "orgs_remote_org_id_key";`);
    this.addSql(`create unique index "orgs_remote_org_id_vendor_key" on "orgs" ("remote_org_vendor_id", "remote_org_id") where "remote_org_id" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "orgs_remote_org_id_vendor_key";`);
    this.addSql(`alter table "orgs" drop column "remote_org_vendor_id";`);
    this.addSql(`alter table "orgs" drop column "created_via";`);
    this.addSql(`alter table "orgs" add constraint "orgs_remote_org_id_key" unique ("remote_org_id");`);
  }
}
