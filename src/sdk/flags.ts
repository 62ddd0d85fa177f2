/**
 * `data_model_flags` of the SDK token request (docs/api.md "SDK token and the Connect flow", docs/data-points.md,
 * docs/connect.md "Data point labels"): three groups, each mapping data point names of that group to -1 (required), 0 (disabled)
 * or 1 (optional). Unknown groups, unknown names, a name in another group's object or another
 * flag value are validation failures naming the bad field.
 */
import { z } from 'zod';
import { dataPointLabel } from '../domain/data-point-labels';
import { ALL_DATA_POINTS, groupOf, isDataPoint, type DataPointGroup } from '../domain/data-points';

/** The stored form: group → data point → flag. */
export type DataModelFlags = Partial<Record<DataPointGroup, Record<string, -1 | 0 | 1>>>;

// z.custom has no JSON Schema of its own: the OpenAPI document takes it from the meta.
const flag = z
  .custom<-1 | 0 | 1>((v) => v === -1 || v === 0 || v === 1, 'must be -1, 0 or 1')
  .meta({ type: 'integer', enum: [-1, 0, 1], description: '-1 required, 1 optional, 0 not requested.' });

function group(name: DataPointGroup) {
  return z
    .record(z.string(), flag, { error: 'must be an object' })
    .superRefine((rec, ctx) => {
      for (const field of Object.keys(rec)) {
        if (!isDataPoint(field)) ctx.addIssue({ code: 'custom', path: [field], message: 'unknown data point' });
        else if (groupOf(field) !== name) ctx.addIssue({ code: 'custom', path: [field], message: `not a data point of ${name}` });
      }
    })
    .meta({
      propertyNames: { enum: ALL_DATA_POINTS.filter((p) => groupOf(p) === name) },
      // The same plain labels the Connect page shows (docs/connect.md "Data point labels": one table for page, docs and OpenAPI).
      description: ALL_DATA_POINTS.filter((p) => groupOf(p) === name)
        .map((p) => {
          const l = dataPointLabel(p);
          return `\`${p}\`: ${l?.label ?? p}${l?.sensitive ? ' (sensitive)' : ''}`;
        })
        .join('; '),
    });
}

/** Schema of `data_model_flags` (see {@link requestsNothing} for the check that follows it). */
export const dataModelFlagsSchema: z.ZodType<DataModelFlags> = z.strictObject(
  {
    detail_info_fields: group('detail_info_fields').optional(),
    dependent_details_fields: group('dependent_details_fields').optional(),
    ctc_details_fields: group('ctc_details_fields').optional(),
  },
  { error: 'must be an object' },
);

/** True when valid flags request no data point at all (every flag 0, or none): refused as a 400. */
export function requestsNothing(flags: DataModelFlags): boolean {
  return !Object.values(flags).some((g) => Object.values(g ?? {}).some((f) => f !== 0));
}
