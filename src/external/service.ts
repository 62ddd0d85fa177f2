/**
 * Encrypted employee details (V2): docs/api.md "Encrypted employee details (V2)",
 * docs/api.md "Credentials", docs/api.md "Employee details", docs/v2.md "Basic credentials". Also the key and credential management behind `hrx keys`, `hrx basic`
 * and `hrx service-keys`.
 *
 * Request flow of {@link ExternalService.employee}:
 * 1. decrypt the JWE with the current or an in-grace service `enc` key and verify the inner JWS
 *    with one of the caller's non-revoked keys that can verify (RS256), then validate the claims
 *    (clock tolerance 30 s, `exp - iat ≤ 300`): any failure → 400 INVALID_ENCRYPTED_PAYLOAD;
 * 2. refuse a replayed `jti`: `SET <prefix>:jti:<vendorOrgId>:<jti> 1 NX EXAT <exp + 30>` in the
 *    Redis every API process shares; an existing key → 400 INVALID_ENCRYPTED_PAYLOAD;
 * 3. `connection_id` must be an approved connection of the caller, else 404 INVALID_CONNECTION
 *    (another vendor's connection is indistinguishable from a nonexistent one). Which client org a
 *    connection joins never changes, so that pairing is cached per process; whether the connection
 *    is approved now comes from the connection access cache every read uses (connections/access-cache:
 *    cleared in every process on each connection change), and the read itself checks it again;
 * 4. read the employee unmasked and filtered (consent, source and audit as the plain endpoint:
 *    404 EMPLOYEE_NOT_FOUND, 403 CONSENT_MISSING, 403 SOURCE_PERMISSION_DENIED);
 *    A `resource: "pay_history"` claim reads the pay history instead (docs/v2.md "Pay history"):
 *    the plain pay history read with the same checks, errors, filtering and audit;
 * 5. seal `{employee, iat, jti: requestId}` (or `{pay_history, iat, jti}`): JWS RS256 by the current service `sig` key inside a
 *    JWE RSA-OAEP-256/A256GCM to the vendor's most recently registered active key that can
 *    encrypt (RFC 7515, 7516, 7518 §3.3, §4.3, §5.3).
 */
import type { RedisClient } from '../redis';
import { InvalidKeyError, importVendorPublicJwk } from '../crypto/jose/keys';
import { InvalidEncryptedPayload, MAX_CLOCK_TOLERANCE_SEC, openEncryptedRequest } from '../crypto/jose/request';
import { sealResponse } from '../crypto/jose/response';
import type { EmployeeRecord } from '../domain/record';
import type { PayHistory, ReadQuery } from '../employees/service';
import { AppError } from '../errors';
import type { Principal } from '../auth/principal';
import type { Logger } from '../logger';
import type { OrgStore } from '../orgs/store';
import { findVendorOrg, type BasicCredentials } from './credentials';
import type { AnyServicePublicJwk, RotationResult, ServiceKeyring, VendorKeyCache } from './keyring';
import { KidConflictError, type ExternalStore } from './store';

/** Clock tolerance of the V2 claims, seconds (docs/v2.md, at most 30). */
export const V2_CLOCK_TOLERANCE_SEC = MAX_CLOCK_TOLERANCE_SEC;

/** Dependencies of {@link createExternalService} (built by `external/wire.ts`). */
export interface ExternalServiceDeps {
  store: ExternalStore;
  /** The service's own keys (JWKS, response signing, request decryption). */
  keyring: ServiceKeyring;
  /** The vendors' registered public keys, cached. */
  vendorKeys: VendorKeyCache;
  /** The V2 Basic credentials. */
  basic: BasicCredentials;
  redis: RedisClient;
  /** Redis key prefix (`HRX_REDIS_PREFIX`). */
  prefix: string;
  orgs: OrgStore;
  /** The employee read of docs/api.md "Employee details" (`mask: false` here). */
  employees: V2Reads;
  /** The vendor's approved connection with a client org (the read's cached check), or null. */
  connectionAccess: (vendorOrgId: number, clientOrgUuid: string) => Promise<{ connectionId: string } | null>;
}

/**
 * The reads V2 serves: the employee read of docs/api.md "Employee details" (`mask: false` here)
 * and the pay history read of docs/pay-history.md "Read".
 */
export interface V2Reads {
  read(q: ReadQuery): Promise<EmployeeRecord>;
  payHistory(q: Omit<ReadQuery, 'mask' | 'source'>, months: number): Promise<PayHistory>;
}

/** Bound on the cached connection → client org pairings of one process. */
const MAX_CONNECTION_PAIRINGS = 10_000;

/** One row of `hrx keys list`. */
export interface VendorKeyInfo {
  kid: string;
  bits: number;
  use: string | null;
  alg: string | null;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

export type ExternalService = ReturnType<typeof createExternalService>;

/** The JWE protected header's kid, if it is readable; never throws (the real checks come later). */
function jweKid(token: string): string | undefined {
  try {
    const h = JSON.parse(Buffer.from(token.slice(0, Math.min(token.indexOf('.'), 2048)), 'base64url').toString('utf8')) as { kid?: unknown };
    return typeof h.kid === 'string' ? h.kid : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the V2 service. */
export function createExternalService(deps: ExternalServiceDeps) {
  const { store, keyring, vendorKeys, basic } = deps;

  const invalid = (log: () => Logger, reason: string, extra: Record<string, unknown> = {}): never => {
    log().info({ reason, ...extra }, 'encrypted payload refused');
    throw new AppError('INVALID_ENCRYPTED_PAYLOAD');
  };

  const vendorOrg = (orgUuid: string) => findVendorOrg(deps.orgs, orgUuid);

  // `<vendorOrgId>:<connectionId>` → client org uuid; only found pairings are kept.
  const pairings = new Map<string, string>();
  /** The client org uuid of the caller's approved connection `connectionId`, or null. */
  const approvedClient = async (vendorOrgId: number, connectionId: string): Promise<string | null> => {
    const key = `${vendorOrgId}:${connectionId}`;
    let clientOrgUuid = pairings.get(key) ?? null;
    if (clientOrgUuid === null) {
      clientOrgUuid = await store.connectionClient(vendorOrgId, connectionId);
      if (clientOrgUuid === null) return null;
      if (pairings.size >= MAX_CONNECTION_PAIRINGS) pairings.clear();
      pairings.set(key, clientOrgUuid);
    }
    const access = await deps.connectionAccess(vendorOrgId, clientOrgUuid);
    return access?.connectionId === connectionId ? clientOrgUuid : null;
  };

  return {
    keyring,
    basic,

    /** Checks a V2 Basic credential (the authenticator's `verifyVendorBasic`). */
    verifyBasic: (username: string, password: string): Promise<Principal | null> => basic.verify(username, password),

    /** The service JWKS (`GET /.well-known/jwks.json`): current then in-grace keys. */
    jwks: (): Promise<{ keys: AnyServicePublicJwk[] }> => keyring.jwks(),

    /**
     * Serves one V2 request (see the module doc). Returns the response JWE compact string.
     * Throws AppError INVALID_ENCRYPTED_PAYLOAD, INVALID_CONNECTION, EMPLOYEE_NOT_FOUND,
     * CONSENT_MISSING, SOURCE_PERMISSION_DENIED.
     */
    async employee(input: { principal: Principal; encryptedPayload: string; requestId: string; log: Logger }): Promise<string> {
      const { principal, requestId } = input;
      // A child logger only for the refusals that log (most requests never do).
      const log = () => input.log.child({ requestId, vendorOrgId: principal.orgId });
      const decryptKeys = await keyring.decryptKeys(jweKid(input.encryptedPayload));
      const open = async () => {
        const keys = await vendorKeys.forOrg(principal.orgId);
        const verifyKeys = keys.filter((k) => k.verifyKey).map((k) => ({ kid: k.kid, publicKey: k.verifyKey!, bits: k.bits }));
        return { keys, claims: await openEncryptedRequest(input.encryptedPayload, decryptKeys, verifyKeys, { clockToleranceSec: V2_CLOCK_TOLERANCE_SEC }) };
      };
      let opened: Awaited<ReturnType<typeof open>>;
      try {
        try {
          opened = await open();
        } catch (err) {
          // A kid registered by another process moments ago: reload the vendor's keys once.
          if (!(err instanceof InvalidEncryptedPayload && err.reason === 'jws: unknown kid' && vendorKeys.expireIfOlder(principal.orgId))) throw err;
          opened = await open();
        }
      } catch (err) {
        if (err instanceof InvalidEncryptedPayload) return invalid(log, err.reason);
        throw err;
      }
      const { keys, claims } = opened;
      const replayKey = `${deps.prefix}:jti:${principal.orgId}:${claims.jti}`;
      const fresh = await deps.redis.set(replayKey, '1', 'EXAT', claims.exp + V2_CLOCK_TOLERANCE_SEC, 'NX');
      if (fresh !== 'OK') return invalid(log, 'jti: replayed');
      const clientOrgUuid = await approvedClient(principal.orgId, claims.connection_id);
      if (!clientOrgUuid) throw new AppError('INVALID_CONNECTION');
      const recipient = keys.find((k) => k.encryptKey);
      // Checked before the read, so nothing is read (or audited) that cannot be delivered.
      if (!recipient) return invalid(log, 'no vendor key usable for response encryption');
      let body: { employee: EmployeeRecord } | { pay_history: PayHistory };
      const q = { vendorOrgId: principal.orgId, clientOrgUuid, employeeRef: claims.employee_id, requestId, connectionId: claims.connection_id };
      try {
        body =
          claims.resource === 'pay_history'
            ? { pay_history: await deps.employees.payHistory(q, claims.months) }
            : { employee: await deps.employees.read({ ...q, source: claims.source, mask: false }) };
      } catch (err) {
        // The connection was terminated between the two reads: same answer as no connection.
        if (err instanceof AppError && err.code === 'INVALID_ORGANISATION') throw new AppError('INVALID_CONNECTION');
        throw err;
      }
      return sealResponse({
        body,
        jti: requestId,
        signingKey: await keyring.signingKey(),
        vendorKey: { kid: recipient.kid, publicKey: recipient.encryptKey! },
      });
    },

    /** Creates the service keys when missing (at start; also done lazily on first use). */
    ensureServiceKeys: (): Promise<void> => keyring.ensure(),

    /** New current service keys; the previous ones stay usable for `graceHours` (default 24). */
    rotateServiceKeys: (graceHours = 24): Promise<RotationResult> => keyring.rotate(graceHours * 3_600_000),

    /**
     * Registers a vendor public RSA JWK (≥ 2048 bits) for org `orgUuid`; returns its kid (the
     * JWK's `kid`, else its RFC 7638 thumbprint). Throws InvalidKeyError, KidConflictError,
     * AppError NOT_FOUND (unknown org) / VALIDATION (not a vendor).
     */
    async addVendorKey(orgUuid: string, jwk: unknown): Promise<{ kid: string }> {
      const org = await vendorOrg(orgUuid);
      const key = await importVendorPublicJwk(jwk);
      await store.addVendorKey({ orgId: org.id, kid: key.kid, publicJwk: { ...key.jwk }, bits: key.bits });
      vendorKeys.invalidate(org.id);
      return { kid: key.kid };
    },

    /**
     * `addVendorKey` for the vendor's own API (docs/api.md "Vendor self-service"): the same
     * checks (RSA, 2048 to 8192 bits, public members only), a refused JWK or a `kid` the org
     * already used (revoked keys included) answered as VALIDATION naming `jwk`. Returns the key as
     * listed.
     */
    async addOwnVendorKey(orgUuid: string, jwk: unknown): Promise<VendorKeyInfo> {
      let kid: string;
      try {
        ({ kid } = await this.addVendorKey(orgUuid, jwk));
      } catch (err) {
        if (err instanceof InvalidKeyError || err instanceof KidConflictError) throw AppError.validation([{ field: 'jwk', message: err.message }]);
        throw err;
      }
      const listed = (await this.listVendorKeys(orgUuid)).find((k) => k.kid === kid);
      if (!listed) throw new AppError('INTERNAL', { message: 'registered key not listed' });
      return listed;
    },

    /** Every key of the vendor org, newest first. */
    async listVendorKeys(orgUuid: string): Promise<VendorKeyInfo[]> {
      const org = await vendorOrg(orgUuid);
      return (await store.listVendorKeys(org.id)).map((k) => ({
        kid: k.kid,
        bits: k.bits,
        use: typeof k.publicJwk.use === 'string' ? k.publicJwk.use : null,
        alg: typeof k.publicJwk.alg === 'string' ? k.publicJwk.alg : null,
        status: k.revokedAt ? 'revoked' : 'active',
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt?.toISOString() ?? null,
      }));
    },

    /** Revokes a vendor key. Throws AppError NOT_FOUND when the org has no such active key. */
    async revokeVendorKey(orgUuid: string, kid: string): Promise<void> {
      const org = await vendorOrg(orgUuid);
      if (!(await store.revokeVendorKey(org.id, kid))) throw new AppError('NOT_FOUND');
      vendorKeys.invalidate(org.id);
    },
  };
}

export { InvalidKeyError, KidConflictError };
