/**
 * zod schemas of the employee record, derived from `emptyRecord()` so the schema and the shape
 * can never drift: text → string, money and integers → number|null, `taxRegime` → string|null,
 * arrays → arrays of dependents. `strict` refuses unknown fields (docs/api.md "Conventions").
 */
import { z } from 'zod';
import { employeeIdSchema } from './employee-id';
import { NOT_AVAILABLE, emptyDependent, emptyRecord } from '../domain/record';

// PostgreSQL text and jsonb cannot hold NUL, and a lone UTF-16 surrogate would be stored as
// U+FFFD: such text is refused up front instead of failing (or changing) at write time.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storableText = (s: z.ZodString) =>
  s.refine((v) => !v.includes('\u0000'), 'must not contain NUL characters').refine((v) => !LONE_SURROGATE.test(v), 'must be well-formed Unicode');

/** `YYYY-MM-DD` naming a real calendar day. */
function isIsoDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/**
 * Extra checks of the update webhook where docs/api.md "Employee update webhook" gives a field more than a type:
 * `doj`/`dob` are dates `YYYY-MM-DD` (blank or `NOT AVAILABLE` allowed: they leave or clear the
 * value), `month` an integer 1–12, `year` an integer.
 */
function updateLeaf(key: string, template: unknown): z.ZodType {
  if (key === 'taxRegime') return storableText(z.string()).nullable();
  if (key === 'paidOn')
    return storableText(z.string())
      .refine((v) => isIsoDate(v.trim()), 'must be a date YYYY-MM-DD')
      .nullable();
  if (key === 'month') return z.number().int().min(1).max(12);
  if (key === 'year') return z.number().int().min(1900).max(9999);
  if (template === null) return z.number();
  if (key === 'doj' || key === 'dob') {
    return storableText(z.string()).refine((v) => v.trim() === '' || v.trim() === NOT_AVAILABLE || isIsoDate(v.trim()), 'must be a date YYYY-MM-DD');
  }
  return storableText(z.string());
}

function schemaOf(template: unknown, key: string, partial: boolean): z.ZodType {
  if (Array.isArray(template)) return z.array(schemaOf(emptyDependent(), 'dependent', partial));
  if (template !== null && typeof template === 'object') {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, v] of Object.entries(template)) {
      const s = schemaOf(v, k, partial);
      shape[k] = partial ? s.nullable().optional() : s;
    }
    return z.strictObject(shape);
  }
  if (partial) return updateLeaf(key, template);
  if (key === 'taxRegime' || key === 'paidOn') return z.string().nullable();
  if (template === null) return z.number().nullable();
  return z.string();
}

/** The full record as responses carry it. */
export const employeeRecordSchema = schemaOf(emptyRecord(), 'record', false).meta({
  id: 'EmployeeRecord',
  description:
    'The full employee record. Text without a value is `NOT AVAILABLE`; money without a value is `null`; a data point the connection does not share carries its empty value.',
});

/** Most pay months one record's `salaryHistory` may carry (docs/pay-history.md "The update webhook"). */
export const MAX_SALARY_HISTORY = 36;

/** The first pay year `salaryHistory` accepts; the last is next year (UTC). */
export const FIRST_PAY_YEAR = 1990;

const monthlyTemplate = emptyRecord().salaryDetails.monthly;

/**
 * One item of `salaryHistory`: the `monthly` fields, `month` (1..12) and `year`
 * (`FIRST_PAY_YEAR`..next year) required, amounts numbers, unknown fields refused.
 */
const payMonthSchema = (schemaOf(monthlyTemplate, 'monthly', true) as z.ZodObject).extend({
  month: z.number().int().min(1).max(12),
  year: z
    .number()
    .int()
    .min(FIRST_PAY_YEAR)
    .refine((y) => y <= new Date().getUTCFullYear() + 1, 'must not be after next year'),
});

/**
 * `salaryHistory` (docs/pay-history.md "The update webhook"): up to `MAX_SALARY_HISTORY` pay
 * months, no (`year`, `month`) twice (the second is named, at its `month`).
 */
const salaryHistorySchema = z
  .array(payMonthSchema)
  .max(MAX_SALARY_HISTORY)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = `${String(item.year)}-${String(item.month)}`;
      if (seen.has(k)) ctx.addIssue({ code: 'custom', message: 'duplicate (year, month)', path: [i, 'month'] });
      seen.add(k);
    });
  });

/**
 * A partial record as the update webhook accepts it (docs/api.md "Employee update webhook"): `employeeId` required (1–128
 * characters after trimming, not only dots), every other field optional and nullable (null leaves it unchanged),
 * types as the record's, unknown fields refused. `id` is accepted and ignored (hrx assigns it).
 */
export const employeeUpdateSchema = (schemaOf(emptyRecord(), 'record', true) as z.ZodObject)
  .extend({
    employeeId: storableText(employeeIdSchema),
    salaryHistory: salaryHistorySchema.optional(),
  })
  .meta({ id: 'EmployeeUpdate', description: 'A partial employee record: `employeeId` required, every other field optional (`null` leaves it unchanged).' });

/** `template`'s schema as served, every field optional (a pay month carries only the shared points). */
function subsetOf(template: unknown, key: string): z.ZodType {
  if (template !== null && typeof template === 'object' && !Array.isArray(template)) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, v] of Object.entries(template)) shape[k] = subsetOf(v, k).optional();
    return z.strictObject(shape);
  }
  return schemaOf(template, key, false);
}

/** One served pay month (docs/pay-history.md "Read"): `month`, `year` and the `monthly_*` points the connection shares. */
export const payMonthResponseSchema = (subsetOf(monthlyTemplate, 'monthly') as z.ZodObject)
  .extend({ month: z.number().int(), year: z.number().int() })
  .meta({ id: 'PayMonth', description: 'One pay month: `month`, `year` and, of the rest, only the `monthly_*` data points the connection shares.' });

/** The pay history answer (docs/pay-history.md "Read"). */
export const payHistorySchema = z
  .strictObject({
    employeeId: z.string(),
    as_of: z.string().datetime().nullable(),
    months: z.array(payMonthResponseSchema),
  })
  .meta({ id: 'PayHistory', description: "An employee's pay months, newest first; `as_of` is the client org's last successful sync (null when none)." });
