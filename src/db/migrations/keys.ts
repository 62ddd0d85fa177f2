/**
 * What a migration that moves clear values into envelopes needs (Migration20261123190000,
 * docs/at-rest.md): the field cipher of the current master key (crypto/field-cipher)
 * and the current blind index key (crypto/blind-index). `migrate()` (db/orm.ts) hands them to
 * the migrations it runs; an ORM opened without them runs such a migration only on empty tables.
 */
import type { KeyObject } from 'node:crypto';
import type { FieldCipher } from '../../crypto/field-cipher';

export interface MigrationKeys {
  cipher: FieldCipher;
  /** The current blind index key (`deriveKey(master, 'blind-index')`). */
  blindIndexKey: KeyObject;
}

/** The error of a migration that found rows to encrypt but was given no keys (no value is named). */
export function keysRequired(migration: string): Error {
  return new Error(`${migration} encrypts existing rows and needs the master key: run it through \`hrx migrate\``);
}
