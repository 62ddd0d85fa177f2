import { Migration } from '@mikro-orm/migrations';

/**
 * Squat-then-replace (docs/connect.md "Squat, then replace"): `connections.approved_on_config_session` records, on a
 * Connect approval, the Connect session that entered the client org's HRMS configuration the
 * approval rested on (the approving session entered it, or proved control against it with the
 * HRMS step). When setup-config replaces that configuration, those connections go back to
 * `pending`. Null: approved on the strength of setup-config's configuration, the org's app
 * credentials, or by the operator.
 *
 * Rows approved before this migration are backfilled from the proof audit: an approved connection
 * of an org whose current configuration was entered through Connect, approved in a session that
 * did not prove control with the app credentials.
 */
export class Migration20261123060000 extends Migration {
  override up(): void {
    this.addSql(`alter table "connections" add column "approved_on_config_session" uuid null;`);
    this.addSql(`update "connections" c set "approved_on_config_session" = h."connect_session_id"
      from "hrms_configs" h
     where h."org_id" = c."client_org_id" and h."connect_session_id" is not null and c."status" = 'approved'
       and exists (select 1 from "connect_proof_audit" a join "connect_sessions" s on s."id" = a."session_id"
                    where a."connection_id" = c."id" and a."method" = 'approve' and a."outcome" = 'approved'
                      and s."proof_method" is distinct from 'app_credentials');`);
  }

  override down(): void {
    this.addSql(`alter table "connections" drop column if exists "approved_on_config_session";`);
  }
}
