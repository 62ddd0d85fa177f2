/**
 * How an employee record is kept at rest (decisions §3): the sensitive part (PAN, Aadhaar, UAN,
 * mobile numbers, bank details, dependents, salary) as one AES-256-GCM envelope bound to
 * `employee:<orgId>:<employeeId>`, the rest as plain JSONB. `id` and `employeeId` live in columns.
 *
 * Beside it, the whole record as the plain endpoint serves it (masked, every data point) is kept
 * serialized in its own envelope (`employee-masked:<orgId>:<employeeId>`): it still carries
 * salary, so it is encrypted too. Reads of connections that share every data point send it as it
 * is, with no parse and no re-serialization (the hottest path of the service, see bench/).
 */
import type { FieldCipher } from '../crypto/field-cipher';
import { maskRecord } from '../domain/masking';
import type { EmployeeRecord } from '../domain/record';

const SENSITIVE_KEYS = ['pan', 'aadhar', 'uan', 'mobileNumber', 'bankDetails', 'dependentDetails', 'salaryDetails'] as const;

/** The stored form of a record. */
export interface StoredEmployee {
  record: Record<string, unknown>;
  sensitiveEnc: string;
  /** Envelope of `JSON.stringify(maskRecord(record))`. */
  maskedEnc: string;
}

/** Associated data of the masked envelope (distinct, so the two envelopes cannot be swapped). */
export function maskedAad(orgId: number, employeeId: string): string {
  return `employee-masked:${orgId}:${employeeId}`;
}

/** Additional authenticated data binding an envelope to its row. */
export function employeeAad(orgId: number, employeeId: string): string {
  return `employee:${orgId}:${employeeId}`;
}

/** Splits and encrypts a record for storage. */
export function encodeEmployee(rec: EmployeeRecord, orgId: number, cipher: FieldCipher): StoredEmployee {
  const plain: Record<string, unknown> = { ...rec };
  const sensitive: Record<string, unknown> = {};
  for (const k of SENSITIVE_KEYS) {
    sensitive[k] = plain[k];
    delete plain[k];
  }
  delete plain.id;
  delete plain.employeeId;
  return {
    record: plain,
    sensitiveEnc: cipher.encrypt(JSON.stringify(sensitive), employeeAad(orgId, rec.employeeId)),
    maskedEnc: cipher.encrypt(JSON.stringify(maskRecord(rec)), maskedAad(orgId, rec.employeeId)),
  };
}

/**
 * Rebuilds the full record from its stored parts, in the key order of `emptyRecord()`.
 * Throws `DecryptionError` when the envelope does not open (wrong key, tampering, moved row).
 */
export function decodeEmployee(
  row: { id: string; employeeId: string; record: Record<string, unknown>; sensitiveEnc: string },
  orgId: number,
  cipher: FieldCipher,
): EmployeeRecord {
  const sensitive = JSON.parse(cipher.decrypt(row.sensitiveEnc, employeeAad(orgId, row.employeeId))) as Record<string, unknown>;
  const r = row.record;
  return {
    id: row.id, employeeId: row.employeeId, name: r.name, email: r.email, personalEmail: r.personalEmail,
    doj: r.doj, dob: r.dob, status: r.status, employmentType: r.employmentType, gender: r.gender,
    maritalStatus: r.maritalStatus, pan: sensitive.pan, aadhar: sensitive.aadhar, uan: sensitive.uan,
    mobileNumber: sensitive.mobileNumber, nationality: r.nationality, fatherName: r.fatherName,
    bloodGroup: r.bloodGroup, designation: r.designation, department: r.department, grade: r.grade,
    groupName: r.groupName, costCenter: r.costCenter, companyName: r.companyName,
    terminationDate: r.terminationDate, manager: r.manager, managerEmail: r.managerEmail,
    managerEmail2: r.managerEmail2, managerEmail3: r.managerEmail3, managerEmail4: r.managerEmail4,
    managerEmail5: r.managerEmail5, countryCode: r.countryCode, bankDetails: sensitive.bankDetails,
    currentAddress: r.currentAddress, permanentAddress: r.permanentAddress, jobLocation: r.jobLocation,
    employeeMetadata: r.employeeMetadata, dependentDetails: sensitive.dependentDetails,
    salaryDetails: sensitive.salaryDetails,
  } as EmployeeRecord;
}

/**
 * Orders employee ids as PostgreSQL's `collate "C"` does (for ids without characters outside the
 * Basic Multilingual Plane): the order in which writers lock employee rows, so they never deadlock.
 */
export function byEmployeeId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The one row encoder of the employee writes: `records` of `orgId` encoded (`encodeEmployee`) in
 * `byEmployeeId` order, as the JSON array that `jsonb_to_recordset($n::jsonb) as r(id uuid,
 * employee_id text, record jsonb, sensitive_enc text, masked_enc text)` reads. One parameter for
 * a whole batch (the sync's pages are megabytes: see db/tx.ts for why it goes to `pg` directly).
 */
export function employeeRowsJson(orgId: number, records: readonly EmployeeRecord[], cipher: FieldCipher): string {
  return JSON.stringify([...records].sort((a, b) => byEmployeeId(a.employeeId, b.employeeId)).map((r) => {
    const stored = encodeEmployee(r, orgId, cipher);
    return { id: r.id, employee_id: r.employeeId, record: stored.record, sensitive_enc: stored.sensitiveEnc, masked_enc: stored.maskedEnc };
  }));
}

/** The column list matching `employeeRowsJson` in `jsonb_to_recordset(...) as r(...)`. */
export const EMPLOYEE_ROW_COLUMNS = 'r(id uuid, employee_id text, record jsonb, sensitive_enc text, masked_enc text)';
