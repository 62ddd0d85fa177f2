/**
 * The check of an org's application credentials (`application.app_key` / `app_secret`,
 * decisions §2), shared by setup-config's body credentials and the update webhook's Basic
 * credential. The secret is stored only as a scrypt hash.
 */
import { verifySecret } from '../crypto/secrets';
import type { Org } from '../db/entities';
import type { OrgStore } from './store';

// A well-formed hash with the same scrypt cost as real ones (it matches no secret): an unknown
// app_key is checked against it, so it costs the same slow hash as a known one and the response
// time does not tell whether an app_key exists.
const DECOY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

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
  const ok = await verifySecret(oversized ? '' : appSecret, org?.appSecretHash ?? DECOY_HASH);
  return ok && org ? org : null;
}
