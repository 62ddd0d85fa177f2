/**
 * In-process views of V2 keys (docs/v2.md), each loaded from the store with a short cache:
 *
 * - {@link createServiceKeyring}: the service's keys. One current `enc` (RSA-OAEP-256), one
 *   current `sig` (RS256) and one current `sig` ES256 key (credentials and status lists,
 *   docs/credentials.md "Keys and metadata"), created on first use when missing (race-safe across
 *   processes, see store); retired keys stay usable for decryption and stay in the JWKS until their
 *   grace period ends. Private JWKs are stored as FieldCipher envelopes bound to `service_key:<kid>`.
 * - {@link createVendorKeyCache}: a vendor org's registered public keys, imported once per TTL.
 */
import type { JWK } from 'jose';
import type { FieldCipher } from '../crypto/field-cipher';
import { exportEcPrivateJwk, exportEcPublicJwk, generateEcServiceKeyPair, importEcPrivateJwk, type EcServicePublicJwk } from '../crypto/jose/ec-keys';
import {
  exportPublicJwk,
  exportServicePrivateJwk,
  generateServiceKeyPair,
  importServicePrivateJwk,
  importVendorPublicJwk,
  type ServicePublicJwk,
  type ServiceKeyPair,
  type VendorPublicKey,
} from '../crypto/jose/keys';
import type { DecryptKey } from '../crypto/jose/request';
import type { Logger } from '../logger';
import { SERVICE_KEY_SLOTS, type ExternalStore, type NewServiceKey, type ServiceKeySlot } from './store';

/** A loaded service key. `expiresAt` null while current. */
interface LoadedServiceKey {
  pair: ServiceKeyPair;
  publicJwk: ServicePublicJwk;
  current: boolean;
  expiresAt: number | null;
}

/** A loaded ES256 key (credentials), as {@link LoadedServiceKey}. */
interface LoadedEcKey {
  kid: string;
  privateKey: ServiceKeyPair['privateKey'];
  publicJwk: EcServicePublicJwk;
  current: boolean;
  expiresAt: number | null;
}

/** One entry of the service JWKS: an RSA key of docs/v2.md or the ES256 key of docs/credentials.md. */
export type AnyServicePublicJwk = ServicePublicJwk | EcServicePublicJwk;

/** Result of a rotation (`hrx service-keys rotate`). */
export interface RotationResult {
  enc: string;
  sig: string;
  /** The new ES256 key that signs credentials and status lists. */
  credential_sig: string;
  retired: string[];
  /** ISO time when the retired keys stop being usable. */
  retired_until: string;
}

/** The service keyring. */
export interface ServiceKeyring {
  /** Makes sure current `enc` and `sig` keys exist (creates the missing ones). */
  ensure(): Promise<void>;
  /**
   * Current and in-grace `enc` keys for decryption. `kidHint` (the JWE header's kid) unknown to
   * the cache forces a reload (at most once a second), so keys rotated by another process are
   * picked up at once.
   */
  decryptKeys(kidHint?: string): Promise<DecryptKey[]>;
  /** The current RS256 signing key. */
  signingKey(): Promise<{ kid: string; privateKey: ServiceKeyPair['privateKey'] }>;
  /** The current ES256 key that signs credentials and status lists (docs/credentials.md "Keys and metadata"). */
  credentialSigningKey(): Promise<{ kid: string; privateKey: ServiceKeyPair['privateKey'] }>;
  /** JWKS of current and in-grace public keys, current first (RFC 7517 §5). */
  jwks(): Promise<{ keys: AnyServicePublicJwk[] }>;
  /** New current keys; the old ones stay usable for `graceMs`. */
  rotate(graceMs: number): Promise<RotationResult>;
  /** Drops the cache (next use reloads). */
  invalidate(): void;
}

const aadOf = (kid: string) => `service_key:${kid}`;

/** Builds the service keyring. `cacheTtlMs` (default 5 s) bounds how stale a process's view is. */
export function createServiceKeyring(deps: {
  store: ExternalStore;
  cipher: FieldCipher;
  log: Logger;
  cacheTtlMs?: number;
  bits?: 2048 | 3072;
}): ServiceKeyring {
  const ttl = deps.cacheTtlMs ?? 5000;
  let cache: { keys: LoadedServiceKey[]; ec: LoadedEcKey[]; at: number } | null = null;
  let loading: Promise<LoadedServiceKey[]> | null = null;

  async function newKey(slot: ServiceKeySlot): Promise<NewServiceKey> {
    if (slot.alg === 'ES256') {
      const ec = await generateEcServiceKeyPair();
      const privateJwk = await exportEcPrivateJwk(ec);
      return {
        kid: ec.kid,
        use: 'sig',
        alg: 'ES256',
        privateJwkEnc: deps.cipher.encrypt(JSON.stringify(privateJwk), aadOf(ec.kid)),
        publicJwk: { ...(await exportEcPublicJwk(ec)) },
      };
    }
    const use = slot.use;
    const pair = await generateServiceKeyPair(use, { bits: deps.bits ?? 2048 });
    const priv = await exportServicePrivateJwk(pair);
    return {
      kid: pair.kid,
      use,
      alg: pair.alg,
      privateJwkEnc: deps.cipher.encrypt(JSON.stringify(priv), aadOf(pair.kid)),
      publicJwk: { ...(await exportPublicJwk(pair)) },
    };
  }

  async function ensure(): Promise<void> {
    const n = await deps.store.createMissingServiceKeys((missing) => Promise.all(missing.map(newKey)));
    if (n > 0) deps.log.info({ created: n }, 'service keys created');
  }

  async function loadOnce(): Promise<LoadedServiceKey[]> {
    let rows = await deps.store.usableServiceKeys();
    if (SERVICE_KEY_SLOTS.some((slot) => !rows.some((r) => r.use === slot.use && r.alg === slot.alg && !r.retiredAt))) {
      await ensure();
      rows = await deps.store.usableServiceKeys();
    }
    const keys: LoadedServiceKey[] = [];
    const ec: LoadedEcKey[] = [];
    for (const r of rows) {
      try {
        const jwk = JSON.parse(deps.cipher.decrypt(r.privateJwkEnc, aadOf(r.kid))) as JWK;
        const life = { current: r.retiredAt === null, expiresAt: r.expiresAt?.getTime() ?? null };
        if (r.alg === 'ES256') {
          const pair = await importEcPrivateJwk(jwk);
          ec.push({ kid: pair.kid, privateKey: pair.privateKey, publicJwk: await exportEcPublicJwk(pair), ...life });
          continue;
        }
        const pair = await importServicePrivateJwk(jwk, r.use);
        keys.push({ pair, publicJwk: await exportPublicJwk(pair), ...life });
      } catch (err) {
        deps.log.error({ kid: r.kid, err }, 'service key unusable');
      }
    }
    cache = { keys, ec, at: Date.now() };
    return keys;
  }

  function load(force = false): Promise<LoadedServiceKey[]> {
    if (!force && cache && Date.now() - cache.at < ttl) return Promise.resolve(cache.keys);
    loading ??= loadOnce().finally(() => {
      loading = null;
    });
    return loading;
  }

  /** Keys usable now: current, or retired with a grace end still ahead. */
  const usable = <K extends { current: boolean; expiresAt: number | null }>(keys: K[]): K[] => {
    const now = Date.now();
    return keys.filter((k) => k.current || (k.expiresAt !== null && k.expiresAt > now));
  };
  const ecKeys = async (): Promise<LoadedEcKey[]> => {
    await load();
    return cache?.ec ?? [];
  };

  return {
    ensure,
    async decryptKeys(kidHint) {
      let keys = await load();
      if (kidHint !== undefined && !keys.some((k) => k.pair.kid === kidHint) && cache && Date.now() - cache.at > 1000) keys = await load(true);
      return usable(keys)
        .filter((k) => k.pair.use === 'enc')
        .map((k) => ({ kid: k.pair.kid, privateKey: k.pair.privateKey }));
    },
    async signingKey() {
      const k = (await load()).find((x) => x.current && x.pair.use === 'sig');
      if (!k) throw new Error('no current service signing key');
      return { kid: k.pair.kid, privateKey: k.pair.privateKey };
    },
    async credentialSigningKey() {
      const k = (await ecKeys()).find((x) => x.current);
      if (!k) throw new Error('no current credential signing key');
      return { kid: k.kid, privateKey: k.privateKey };
    },
    async jwks() {
      // Current keys first, RSA before ES256, then those in their grace period (RFC 7517 §5 leaves the order to us).
      const all: { current: boolean; expiresAt: number | null; publicJwk: AnyServicePublicJwk }[] = [...usable(await load()), ...usable(await ecKeys())];
      return { keys: [...all.filter((k) => k.current), ...all.filter((k) => !k.current)].map((k) => k.publicJwk) };
    },
    async rotate(graceMs) {
      if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError('grace must be a non-negative duration');
      const [enc, sig, es] = await Promise.all(SERVICE_KEY_SLOTS.map(newKey));
      const retired = await deps.store.rotateServiceKeys([enc!, sig!, es!], graceMs);
      cache = null;
      deps.log.info({ enc: enc!.kid, sig: sig!.kid, credential_sig: es!.kid, retired }, 'service keys rotated');
      return { enc: enc!.kid, sig: sig!.kid, credential_sig: es!.kid, retired, retired_until: new Date(Date.now() + graceMs).toISOString() };
    },
    invalidate() {
      cache = null;
    },
  };
}

/** A vendor org's usable public keys, most recently registered first. */
export interface VendorKeyCache {
  /** Active keys of `orgId` (cached `ttlMs`); stored rows that no longer import are skipped. */
  forOrg(orgId: number): Promise<VendorPublicKey[]>;
  /** Forgets `orgId` (after add/revoke in this process). */
  invalidate(orgId: number): void;
  /** Forgets `orgId` when its entry is older than `minAgeMs` (default 1 s); true when it did. */
  expireIfOlder(orgId: number, minAgeMs?: number): boolean;
}

/** Builds the vendor key cache (default TTL 5 s: a revocation is in force everywhere within it). */
export function createVendorKeyCache(deps: { store: ExternalStore; log: Logger; ttlMs?: number }): VendorKeyCache {
  const ttl = deps.ttlMs ?? 5000;
  const cache = new Map<number, { keys: VendorPublicKey[]; until: number; at: number }>();
  return {
    async forOrg(orgId) {
      const hit = cache.get(orgId);
      if (hit && hit.until > Date.now()) return hit.keys;
      const rows = await deps.store.activeVendorKeys(orgId);
      const keys: VendorPublicKey[] = [];
      for (const r of rows) {
        try {
          // Re-validated on every load (≥ 2048 bits, RSA only), whatever the row says.
          const k = await importVendorPublicJwk(r.publicJwk);
          keys.push(k.kid === r.kid ? k : { ...k, kid: r.kid });
        } catch (err) {
          deps.log.warn({ orgId, kid: r.kid, err }, 'vendor key unusable, skipped');
        }
      }
      if (cache.size > 10_000) cache.clear();
      cache.set(orgId, { keys, until: Date.now() + ttl, at: Date.now() });
      return keys;
    },
    invalidate(orgId) {
      cache.delete(orgId);
    },
    expireIfOlder(orgId, minAgeMs = 1000) {
      const hit = cache.get(orgId);
      if (!hit || Date.now() - hit.at < minAgeMs) return false;
      cache.delete(orgId);
      return true;
    },
  };
}
