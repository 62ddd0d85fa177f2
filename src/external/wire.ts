/** Wiring of the V2 (encrypted employee details) feature (see `context.ts`). */
import type { ConnectionAccess } from '../connections/access-cache';
import type { RevocationFeed } from '../auth/revocations';
import type { Infra } from '../infra';
import type { OrgStore } from '../orgs/store';
import { createBasicCredentials } from './credentials';
import { createServiceKeyring, createVendorKeyCache } from './keyring';
import { createExternalService, type V2Reads } from './service';
import { createExternalStore } from './store';

/**
 * Builds the V2 store, the service keyring (`keyring`: JWKS, response signing, request
 * decryption; the SDK feature signs its tokens with it too), the vendor key cache, the Basic
 * credentials (`basic`: checks cached per process for `HRX_API_KEY_CACHE_TTL_MS`, revocations
 * announced to every process over `basicRevocations`) and the V2 service over them (replay check
 * on the request-path Redis). Takes the org store (keys and credentials are managed per org
 * uuid), the employee read service (the unmasked read of docs/api.md "Employee details" and the pay
 * history read of docs/pay-history.md "Read"), the Basic revocation
 * feed (from `wireAuth`) and the connection access cache of the reads (`wireEmployees`).
 */
export function wireExternal(
  infra: Infra,
  deps: {
    orgs: OrgStore;
    employees: V2Reads;
    basicRevocations: RevocationFeed;
    connectionAccess: (vendorOrgId: number, clientOrgUuid: string) => Promise<ConnectionAccess | null>;
  },
) {
  const { cipher, log } = infra;
  const store = createExternalStore(infra.db.orm);
  const keyring = createServiceKeyring({ store, cipher, log });
  const vendorKeys = createVendorKeyCache({ store, log });
  const basic = createBasicCredentials({
    store,
    orgs: deps.orgs,
    secretPeppers: infra.secretPeppers,
    revocations: deps.basicRevocations,
    cacheTtlMs: infra.config.HRX_API_KEY_CACHE_TTL_MS,
  });
  const service = createExternalService({
    store,
    keyring,
    vendorKeys,
    basic,
    redis: infra.requestRedis,
    prefix: infra.prefix,
    orgs: deps.orgs,
    employees: deps.employees,
    connectionAccess: deps.connectionAccess,
  });
  return { service, store, keyring, vendorKeys, basic };
}
