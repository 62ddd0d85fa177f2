/**
 * Entities of the SDK token and Connect flow (docs/connect.md "Reference: the SDK token and the Connect endpoints"). Table layout is fixed by
 * `Migration20261121040000`; these schemas must match it.
 */
import { EntitySchema } from '@mikro-orm/core';

/**
 * A person of a client org named by an SDK token request (the HR admin). Nothing of the person in
 * clear (docs/at-rest.md): the e-mail and full name sit in one envelope bound to the row
 * (`profileEnc`, sdk/store.ts), and the e-mail is found by its blind index (`emailHash`, unique
 * per org; crypto/blind-index.ts).
 */
export class User {
  id!: string;
  orgId!: number;
  /** Blind index of the lower-cased e-mail (`user-email`, scoped to the org). */
  emailHash!: string;
  /** Envelope of `{"email", "full_name"}` bound to `user:<id>`. */
  profileEnc!: string;
  createdAt: Date = new Date();
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    emailHash: { type: 'text' },
    profileEnc: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/**
 * An issued SDK access token, by its `jti` (RFC 7519 §4.1.7). The JWT is valid only while this
 * row is unrevoked and unexpired. `hrmsConfiguredAt`: when HRMS credentials were stored through
 * this token's Connect session (approval requires it).
 */
export class SdkToken {
  jti!: string;
  connectionId!: string;
  vendorOrgId!: number;
  clientOrgId!: number;
  userId!: string;
  issuedAt!: Date;
  expiresAt!: Date;
  revokedAt: Date | null = null;
  hrmsConfiguredAt: Date | null = null;
  /** The vendor API key that issued it (its revocation revokes the token), or null (issued otherwise, or before keys were recorded). */
  issuedByApiKeyId: string | null = null;
  /** Envelope of the request's `fullname`, bound to `sdk_token_fullname:<jti>` (sdk/store.ts); null for tokens issued before it was kept. */
  fullnameEnc: string | null = null;
}

export const SdkTokenSchema = new EntitySchema<SdkToken>({
  class: SdkToken,
  tableName: 'sdk_tokens',
  properties: {
    jti: { type: 'uuid', primary: true },
    connectionId: { type: 'uuid' },
    vendorOrgId: { type: 'integer' },
    clientOrgId: { type: 'integer' },
    userId: { type: 'uuid' },
    issuedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    hrmsConfiguredAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    issuedByApiKeyId: { type: 'uuid', nullable: true },
    fullnameEnc: { type: 'text', nullable: true },
  },
});

/** Every entity schema of this module, for the ORM configuration. */
export const SDK_ENTITIES = [UserSchema, SdkTokenSchema];
