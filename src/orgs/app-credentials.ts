/**
 * The check of an org's application credentials (`application.app_key` / `app_secret`,
 * decisions §2), shared by setup-config's body credentials and the update webhook's Basic
 * credential. The secret is stored only as a scrypt hash.
 */
import { DECOY_SECRET_HASH, verifySecret } from '../crypto/secrets';
import type { Org } from '../db/entities';
import type { OrgStore } from './store';


/**
 * The org whose `app_key` is `appKey` and whose `app_secret` is `appSecret`, or null (unknown
 * key or wrong secret, told apart by neither result nor timing). The caller checks the org's
 * kind (client / vendor) after this, so that too costs the same.
 */
export async function checkAppCredentials(orgs: Pick<OrgStore, 'findByAppKey'>, appKey: string, appSecret: string): Promise<Org | null> {
  // A real app_key is 36 characters and a secret 43: far longer input is refused unread (still
  // at the cost of one hash), so nobody makes the service hash megabytes.
  const oversized = appKey.length > 200 || appSecret.length > 1024;
  const org = oversized ? null : await orgs.findByAppKey(appKey);
  const ok = await verifySecret(oversized ? '' : appSecret, org?.appSecretHash ?? DECOY_SECRET_HASH);
  return ok && org ? org : null;
}
