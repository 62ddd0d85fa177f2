/**
 * The idempotency keys of docs/api.md "Idempotency". Table layout is fixed by
 * `Migration20261206050000`; this schema must match it. The store (src/idempotency/store.ts)
 * works on it in SQL: its claim is one conditional upsert.
 */
import { EntitySchema } from '@mikro-orm/core';

/** One credential scope's use of one `Idempotency-Key`: the request's keyed hash and, once answered, the answer. */
export class IdempotencyKey {
  scope!: string;
  idemKey!: string;
  fingerprint!: string;
  createdAt: Date = new Date();
  answeredAt: Date | null = null;
  status: number | null = null;
  headers: Record<string, string> | null = null;
  /** The answer's body, encrypted (field cipher). */
  answer: string | null = null;
}

export const IdempotencyKeySchema = new EntitySchema<IdempotencyKey>({
  class: IdempotencyKey,
  tableName: 'idempotency_keys',
  properties: {
    scope: { type: 'text', primary: true },
    idemKey: { type: 'text', primary: true },
    fingerprint: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    answeredAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    status: { type: 'integer', nullable: true },
    headers: { type: 'json', nullable: true },
    answer: { type: 'text', nullable: true },
  },
});

export const IDEMPOTENCY_ENTITIES = [IdempotencyKeySchema];
