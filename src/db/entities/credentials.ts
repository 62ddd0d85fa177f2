/**
 * Entity of the employment and income credentials (docs/credentials.md). Table layout is fixed
 * by `Migration20261206020000`; this schema must match it. No claim of a credential is kept.
 */
import { EntitySchema } from '@mikro-orm/core';

/** One issued credential: its holder, what it relied on, its status list place and revocation. */
export class Credential {
  id!: string;
  vendorOrgId!: number;
  clientOrgId!: number;
  employeeId!: string;
  connectionId!: string;
  vendorKid!: string;
  consentRequired!: boolean;
  statusList!: number;
  statusIdx!: number;
  issuedAt!: Date;
  expiresAt!: Date;
  checkedAt!: Date;
  revokedAt: Date | null = null;
  revokedReason: string | null = null;
}

export const CredentialSchema = new EntitySchema<Credential>({
  class: Credential,
  tableName: 'credentials',
  properties: {
    id: { type: 'uuid', primary: true },
    vendorOrgId: { type: 'integer' },
    clientOrgId: { type: 'integer' },
    employeeId: { type: 'text' },
    connectionId: { type: 'uuid' },
    vendorKid: { type: 'text' },
    consentRequired: { type: 'boolean' },
    statusList: { type: 'integer' },
    statusIdx: { type: 'integer' },
    issuedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    checkedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    revokedReason: { type: 'text', nullable: true },
  },
});

export const CREDENTIAL_ENTITIES = [CredentialSchema];
