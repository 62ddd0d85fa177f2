/**
 * Entities of pay history (docs/pay-history.md). Table layout is fixed by
 * `Migration20261206010000` and `Migration20261206090000`; this schema must match them. The value is an envelope
 * (employees/pay-months.ts), never clear text.
 */
import { EntitySchema } from '@mikro-orm/core';

/** One pay month of one employee: the `monthly` shape plus `netPay` and `paidOn`, encrypted. */
export class PayMonth {
  employeeRowId!: string;
  year!: number;
  month!: number;
  orgId!: number;
  /** Envelope of the month's JSON, bound to employee row, year and month. */
  valueEnc!: string;
  /** Keyed digest of the month's JSON: an equal rewrite is no correction. */
  valueDigest!: string;
  recordedAt: Date = new Date();
}

export const PayMonthSchema = new EntitySchema<PayMonth>({
  class: PayMonth,
  tableName: 'pay_months',
  properties: {
    employeeRowId: { type: 'uuid', primary: true },
    year: { type: 'smallint', primary: true },
    month: { type: 'smallint', primary: true },
    orgId: { type: 'integer' },
    valueEnc: { type: 'text' },
    valueDigest: { type: 'text' },
    recordedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/** One employee's pay months in their served form, one envelope (employees/pay-envelope.ts); derived from `pay_months`. */
export class PayEnvelope {
  employeeRowId!: string;
  orgId!: number;
  /** Envelope of the served months, bound to the employee row; null until built. */
  valueEnc: string | null = null;
  builtAt: Date | null = null;
}

export const PayEnvelopeSchema = new EntitySchema<PayEnvelope>({
  class: PayEnvelope,
  tableName: 'pay_envelopes',
  properties: {
    employeeRowId: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    valueEnc: { type: 'text', nullable: true },
    builtAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

export const PAY_ENTITIES = [PayMonthSchema, PayEnvelopeSchema];
