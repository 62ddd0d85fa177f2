/**
 * V2 Basic credentials of vendor orgs (docs/api.md "Credentials"): `Authorization: Basic base64(username:password)`.
 * The password (256 random bits) is shown once and stored as a scrypt hash (RFC 7914) and a keyed
 * hash checked first, so a wrong password costs no scrypt (auth/secret-check.ts); the
 * failed-authentication limit (auth/failure-guard.ts) is applied by the authenticator before.
 *
 * Successful checks are cached per process for `cacheTtlMs` (default 1 s, as API keys), keyed by
 * a SHA-256 of username and password, and concurrent checks of the same pair share one check. A
 * revocation is announced to every process over `revocations` (auth/revocations.ts, like API
 * keys): each drops the credential from its cache when the message arrives, so a revoked
 * credential stops working everywhere within 1 s; the TTL bounds staleness should the message be
 * lost. A process subscribes on its first check (API processes; not the CLI).
 */
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { checkSecret } from '../auth/secret-check';
import { hashSecret, keyedSecretHash, newSecret } from '../crypto/secrets';
import { AppError } from '../errors';
import type { Principal } from '../auth/principal';
import type { RevocationFeed } from '../auth/revocations';
import type { OrgStore } from '../orgs/store';
import type { ExternalStore } from './store';
import { isUuid } from '../domain/ids';

/** Basic credential management and checks. */
export interface BasicCredentials {
  /** Issues a credential for vendor org `orgUuid`: `{username, password}` (password shown once). Throws 404 NOT_FOUND / 400 VALIDATION (not a vendor). */
  create(orgUuid: string): Promise<{ username: string; password: string }>;
  /** Revokes `username` of org `orgUuid`. Throws 404 NOT_FOUND when the org has no such active credential. */
  revoke(orgUuid: string, username: string): Promise<void>;
  /** The vendor principal of an active credential, or null (unknown, revoked, wrong password, not a vendor). */
  verify(username: string, password: string): Promise<Principal | null>;
}

/**
 * The vendor org named by `orgUuid` (an operator's CLI argument). Throws `AppError` NOT_FOUND for
 * no such org, a 400 validation failure on `org` for an org that is not a vendor.
 */
export async function findVendorOrg(orgs: OrgStore, orgUuid: string) {
  const org = isUuid(orgUuid) ? await orgs.findByUuid(orgUuid.toLowerCase()) : null;
  if (!org) throw new AppError('NOT_FOUND');
  if (!org.isVendor) throw AppError.validation([{ field: 'org', message: 'not a vendor org' }]);
  return org;
}

/** Builds the Basic credential service. */
export function createBasicCredentials(deps: {
  store: ExternalStore;
  orgs: OrgStore;
  cacheTtlMs?: number;
  secretPeppers?: KeyObject[];
  /** Announcements of revoked usernames between processes; absent: this process only. */
  revocations?: Pick<RevocationFeed, 'publish' | 'subscribe'> | undefined;
}): BasicCredentials {
  const peppers = deps.secretPeppers ?? [];
  const ttl = deps.cacheTtlMs ?? 1000;
  const cache = new Map<string, { principal: Principal; until: number; username: string }>();
  const inflight = new Map<string, Promise<Principal | null>>();
  // Bumped on every revocation, so a check that started before one is not cached after it.
  let generation = 0;
  const forget = (username: string): void => {
    generation++;
    for (const [k, v] of cache) if (v.username === username) cache.delete(k);
    inflight.clear();
  };
  let listening = false;
  const listen = (): void => {
    if (listening || !deps.revocations) return;
    listening = true;
    deps.revocations.subscribe(forget);
  };

  const vendorOrg = (orgUuid: string) => findVendorOrg(deps.orgs, orgUuid);

  async function check(username: string, password: string): Promise<Principal | null> {
    const hit = await deps.store.findBasicCredential(username);
    // An unknown username costs the same keyed-hash check as a known one (auth/secret-check.ts).
    const r = await checkSecret(password, hit ? { slowHash: hit.passwordHash, keyedHash: hit.passwordKeyedHash } : null, peppers);
    if (!r.ok || !hit || !hit.isVendor) return null;
    if (r.keyedHashToStore) await deps.store.setBasicKeyedHash(hit.credentialId, r.keyedHashToStore).catch(() => undefined);
    return { orgId: hit.orgId, orgUuid: hit.orgUuid, isVendor: true, isClient: hit.isClient, credentialId: hit.credentialId };
  }

  return {
    async create(orgUuid) {
      const org = await vendorOrg(orgUuid);
      const username = `hrxv2_${randomBytes(12).toString('hex')}`;
      const password = newSecret();
      await deps.store.addBasicCredential({
        orgId: org.id,
        username,
        passwordHash: await hashSecret(password),
        passwordKeyedHash: peppers[0] ? keyedSecretHash(password, peppers[0]) : null,
      });
      return { username, password };
    },
    async revoke(orgUuid, username) {
      const org = await vendorOrg(orgUuid);
      if (!(await deps.store.revokeBasicCredential(org.id, username))) throw new AppError('NOT_FOUND');
      forget(username);
      // Bounded (auth/revocations.ts): the revocation is committed; the others' TTL is the backstop.
      await deps.revocations?.publish(username);
    },
    async verify(username, password) {
      if (username.length > 200 || password.length > 1024) return null;
      listen();
      const key = createHash('sha256').update(username).update('\0').update(password).digest('hex');
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.until > now) return hit.principal;
      const gen = generation;
      let p = inflight.get(key);
      if (!p) {
        p = check(username, password).finally(() => inflight.delete(key));
        inflight.set(key, p);
      }
      const principal = await p;
      if (principal && gen === generation) {
        if (cache.size > 10_000) cache.clear();
        cache.set(key, { principal, until: Date.now() + ttl, username });
      }
      return principal;
    },
  };
}
