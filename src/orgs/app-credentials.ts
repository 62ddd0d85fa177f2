/**
 * The check of an org's application credentials (`application.app_key` / `app_secret`,
 * docs/api.md "Credentials"), shared by setup-config's body credentials, the update webhook's Basic
 * credential and the Connect flow's proof of control. The secret is stored as a scrypt hash and,
 * since Migration20261123020000, as a keyed hash checked first (auth/secret-check.ts).
 */
import type { KeyObject } from 'node:crypto';
import { checkSecret } from '../auth/secret-check';
import type { Org } from '../db/entities';
import type { OrgStore } from './store';

/**
 * The org whose `app_key` is `appKey` and whose `app_secret` is `appSecret`, or null (unknown
 * key or wrong secret, told apart by neither result nor timing). The caller checks the org's
 * kind (client / vendor) after this, so that too costs the same. `peppers` (context.ts
 * `secretPeppers`): with them a wrong secret costs no scrypt (see auth/secret-check.ts); without
 * them (older callers) every check is scrypt. The caller applies the failed-authentication
 * limit (auth/failure-guard.ts) before calling this.
 */
export async function checkAppCredentials(
  orgs: Pick<OrgStore, 'findByAppKey'> & Partial<Pick<OrgStore, 'setAppSecretKeyedHash'>>,
  appKey: string,
  appSecret: string,
  peppers: readonly KeyObject[] = [],
): Promise<Org | null> {
  // A real app_key is 36 characters and a secret 43: far longer input is refused unread, so
  // nobody makes the service hash megabytes (the refusal depends on the input alone).
  if (appKey.length > 200 || appSecret.length > 1024) return null;
  const org = await orgs.findByAppKey(appKey);
  const r = await checkSecret(appSecret, org ? { slowHash: org.appSecretHash, keyedHash: org.appSecretKeyedHash } : null, peppers);
  if (!r.ok || !org) return null;
  // A row from before keyed hashes: from now on a wrong secret for it costs no scrypt either.
  if (r.keyedHashToStore && orgs.setAppSecretKeyedHash) {
    await orgs.setAppSecretKeyedHash(org.id, r.keyedHashToStore, org.appSecretHash).catch(() => undefined);
  }
  return org;
}
