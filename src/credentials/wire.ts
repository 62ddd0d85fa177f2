/** Wiring of the credentials feature (see `context.ts`). */
import type { Infra } from '../infra';
import type { ServiceKeyring, VendorKeyCache } from '../external/keyring';
import { createCredentialService, type CredentialServiceDeps, type PayMonths } from './service';
import { createCredentialStore } from './store';

/**
 * Builds the credential store and service. Takes the service keyring and vendor key cache of the
 * V2 feature (the ES256 issuer key, the vendor key bound as `cnf`), the employee read service
 * (the read a credential is issued from) and the pay months (`payMonths`: the recorded pay history,
 * docs/pay-history.md). `iss` is `HRX_PUBLIC_URL` plus the base path
 * (`http://localhost` when unset, docs/settings.md).
 */
export function wireCredentials(
  infra: Infra,
  deps: { keyring: ServiceKeyring; vendorKeys: VendorKeyCache; employees: CredentialServiceDeps['employees']; payMonths: PayMonths },
) {
  const store = createCredentialStore(infra.db.orm);
  const issuer = `${infra.config.HRX_PUBLIC_URL?.replace(/\/$/, '') ?? 'http://localhost'}${infra.config.HRX_BASE_PATH}`;
  const service = createCredentialService({
    store,
    keyring: deps.keyring,
    vendorKeys: deps.vendorKeys,
    employees: deps.employees,
    cipher: infra.cipher,
    payMonths: deps.payMonths,
    issuer,
    ttlDays: infra.config.HRX_CREDENTIAL_TTL_DAYS,
  });
  return { service, store };
}
