/**
 * What an employee id (the HRMS's `employeeId`, docs/api.md "Employee details") may be. Ids travel
 * as path segments of HRMS calls (`/api/v1/employees/{id}`): an id made only of dots (`.`, `..`)
 * is a dot-segment that URL resolution turns into the collection or its parent (RFC 3986
 * §5.2.4), so such ids are refused on the way in and never looked up. NUL is refused with every
 * text of a request (docs/limits.md, src/http/body.ts).
 */
import { z } from 'zod';
import { canonicalEmployeeId } from '../domain/ids';

export { canonicalEmployeeId };

/** Longest employee id, in characters after trimming. */
export const EMPLOYEE_ID_MAX = 128;

/**
 * Whether `id` can name an employee once canonical (`canonicalEmployeeId`): 1..128 characters,
 * not only dots, no NUL. An id that is empty once canonical (only white space) names nobody.
 */
export function isUsableEmployeeId(id: string): boolean {
  const t = canonicalEmployeeId(id);
  return t.length > 0 && t.length <= EMPLOYEE_ID_MAX && !/^\.+$/.test(t) && !t.includes('\u0000');
}

/** The message of an id made only of dots. */
export const DOTS_MESSAGE = 'must not be made only of dots';

/**
 * zod schema of an employee id in a request body or query: canonical (`canonicalEmployeeId`),
 * then required (an id of white space only is the 400 `required`), at most 128, not only dots.
 */
export const employeeIdSchema = z
  .string()
  .overwrite(canonicalEmployeeId)
  .min(1, 'required')
  .max(EMPLOYEE_ID_MAX)
  .refine((v) => !/^\.+$/.test(v), DOTS_MESSAGE);
