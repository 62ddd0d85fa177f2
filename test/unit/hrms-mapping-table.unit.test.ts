/**
 * A product's mapping as rows (src/hrms/README.md "The mapping as rows"): the mapping, the fields
 * asked for and the README table all come from the same rows (src/hrms/mapping-table.ts).
 */
import { describe, expect, it } from 'vitest';
import { BAMBOOHR_FIELDS, BAMBOOHR_MAPPING, mapBambooHrEmployee } from '../../src/hrms/bamboohr/mapping';
import { mapByRows, mappingMarkdown, requestedFields, type MappingTable } from '../../src/hrms/mapping-table';

const TABLE: MappingTable = {
  answeredAlways: ['key'],
  rows: [
    { point: 'employeeId', fields: ['key'], read: (r) => r.key, source: 'doc 1' },
    { point: 'currentAddress.addressCity', fields: ['town'], read: (r) => r.town, source: 'doc 2', note: 'as | is' },
    { point: 'currentAddress.addressState', fields: ['region', 'town'], read: (r, warn) => (warn('region'), undefined), source: 'doc 3' },
  ],
};

describe('mapping rows', () => {
  it('build the record (nested points, empty values dropped), warning through the rows', () => {
    const warned: string[] = [];
    expect(mapByRows(TABLE, { key: '7', town: 'Pune' }, (f) => warned.push(f))).toEqual({ employeeId: '7', currentAddress: { addressCity: 'Pune' } });
    expect(warned).toEqual(['region']);
    expect(mapByRows(TABLE, { key: '8' })).toEqual({ employeeId: '8' });
  });

  it('name the fields to ask for once each, without those answered unasked', () => {
    expect(requestedFields(TABLE)).toEqual(['town', 'region']);
  });

  it("write the README table, one line per row, a cell's pipe escaped", () => {
    expect(mappingMarkdown(TABLE, 'Acme').split('\n')).toEqual([
      '| hrx data point | Acme field | source |',
      '|---|---|---|',
      '| employeeId | `key` | doc 1 |',
      '| currentAddress.addressCity | `town`: as \\| is | doc 2 |',
      '| currentAddress.addressState | `region`, `town` | doc 3 |',
    ]);
  });
});

describe('BambooHR mapping rows', () => {
  it('ask for both spellings of the date of birth and the marital status, and read whichever answers', () => {
    expect(BAMBOOHR_FIELDS).toEqual(expect.arrayContaining(['birthDate', 'dateOfBirth', 'marital', 'maritalStatus']));
    expect(BAMBOOHR_FIELDS).not.toContain('id');
    expect(BAMBOOHR_FIELDS).toEqual(requestedFields(BAMBOOHR_MAPPING));
    const report = mapBambooHrEmployee({ id: '3', dateOfBirth: '1990-02-03', maritalStatus: 'Married' });
    const live = mapBambooHrEmployee({ id: '3', birthDate: '1990-02-03', marital: 'Married' });
    expect(report).toEqual({ employeeId: '3', dob: '1990-02-03', maritalStatus: 'Married' });
    expect(live).toEqual(report);
    expect(mapBambooHrEmployee({ id: '3', birthDate: '0000-00-00', dateOfBirth: '1990-02-03' }).dob).toBe('1990-02-03');
  });
});
