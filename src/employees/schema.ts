/**
 * zod schemas of the employee record, derived from `emptyRecord()` so the schema and the shape
 * can never drift: text → string, money and integers → number|null, `taxRegime` → string|null,
 * arrays → arrays of dependents. `strict` refuses unknown fields (decisions §1).
 */
import { z } from 'zod';
import { emptyDependent, emptyRecord } from './record';

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
  if (key === 'taxRegime') return z.string().nullable();
  if (template === null) return z.number().nullable();
  return z.string();
}

/** The full record as responses carry it. */
export const employeeRecordSchema = schemaOf(emptyRecord(), 'record', false);

/** A partial record as the update webhook accepts it (`employeeId` required, decisions §6). */
export const employeeUpdateSchema = (schemaOf(emptyRecord(), 'record', true) as z.ZodObject).extend({
  employeeId: z.string().trim().min(1).max(128),
});
