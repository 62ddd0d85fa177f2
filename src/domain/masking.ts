/**
 * Masking of identity and bank values in plain (non-encrypted) responses (docs/data-points.md):
 * the value is replaced by asterisks of the same length; `NOT AVAILABLE` stays as it is.
 */
import { NOT_AVAILABLE, type EmployeeRecord } from './record';

/** Replaces every character of `value` by `*`, keeping its length; `NOT AVAILABLE` is kept. */
export function maskValue(value: string): string {
  if (value === NOT_AVAILABLE) return value;
  return '*'.repeat([...value].length);
}

/**
 * Returns a copy of `record` with `pan`, `aadhar`, `uan`, `mobileNumber`,
 * `bankDetails.accountNumber`, `bankDetails.ifscCode` and `dependentDetails[].mobileNumber` masked.
 */
export function maskRecord(record: EmployeeRecord): EmployeeRecord {
  return {
    ...record,
    pan: maskValue(record.pan),
    aadhar: maskValue(record.aadhar),
    uan: maskValue(record.uan),
    mobileNumber: maskValue(record.mobileNumber),
    bankDetails: {
      ...record.bankDetails,
      accountNumber: maskValue(record.bankDetails.accountNumber),
      ifscCode: maskValue(record.bankDetails.ifscCode),
    },
    dependentDetails: record.dependentDetails.map((d) => ({ ...d, mobileNumber: maskValue(d.mobileNumber) })),
  };
}
