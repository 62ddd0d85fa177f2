/**
 * Entities of the encrypted employee-details flow (V2, docs/api.md "Credentials", docs/v2.md "Basic credentials"): the service's own RSA
 * keys, the vendors' registered public keys and the vendors' Basic credentials. Table layout is
 * fixed by `Migration20261121010000`; these schemas must match it.
 */
import { EntitySchema } from '@mikro-orm/core';

/**
 * A service RSA key pair (`use: enc` RSA-OAEP-256 or `use: sig` RS256). `privateJwkEnc` is the
 * private JWK as a FieldCipher envelope bound to `service_key:<kid>`. Current while `retiredAt`
 * is null; after rotation usable (decryption, JWKS) until `expiresAt`.
 */
export class ServiceKey {
  kid!: string;
  use!: 'enc' | 'sig';
  alg!: string;
  privateJwkEnc!: string;
  publicJwk!: Record<string, unknown>;
  createdAt: Date = new Date();
  retiredAt: Date | null = null;
  expiresAt: Date | null = null;
}

export const ServiceKeySchema = new EntitySchema<ServiceKey>({
  class: ServiceKey,
  tableName: 'service_keys',
  properties: {
    kid: { type: 'text', primary: true },
    use: { type: 'text' },
    alg: { type: 'text' },
    privateJwkEnc: { type: 'text' },
    publicJwk: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    retiredAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

/** A vendor's registered public RSA key (≥ 2048 bits); `kid` is unique per org, forever. */
export class VendorKey {
  id!: string;
  orgId!: number;
  kid!: string;
  publicJwk!: Record<string, unknown>;
  bits!: number;
  createdAt: Date = new Date();
  revokedAt: Date | null = null;
}

export const VendorKeySchema = new EntitySchema<VendorKey>({
  class: VendorKey,
  tableName: 'vendor_keys',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    kid: { type: 'text' },
    publicJwk: { type: 'json' },
    bits: { type: 'integer' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

/** A V2 Basic credential of a vendor org; the password is stored only as a scrypt hash. */
export class BasicCredential {
  id!: string;
  orgId!: number;
  username!: string;
  passwordHash!: string;
  /** Keyed hash of the password (crypto/secrets `keyedSecretHash`); null on credentials made before it existed. */
  passwordKeyedHash: string | null = null;
  createdAt: Date = new Date();
  revokedAt: Date | null = null;
}

export const BasicCredentialSchema = new EntitySchema<BasicCredential>({
  class: BasicCredential,
  tableName: 'basic_credentials',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    username: { type: 'text', unique: true },
    passwordHash: { type: 'text' },
    passwordKeyedHash: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

/** The V2 entity schemas (spread into `ALL_ENTITIES`). */
export const EXTERNAL_ENTITIES = [ServiceKeySchema, VendorKeySchema, BasicCredentialSchema];
