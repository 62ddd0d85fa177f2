/**
 * A product's mapping as rows (src/hrms/README.md "The mapping as rows"): the mapping, the fields
 * asked for and the README table all come from the same rows (src/hrms/mapping-table.ts).
 */
import { describe, expect, it } from 'vitest';
import { BAMBOOHR_FIELDS, BAMBOOHR_MAPPING, mapBambooHrEmployee } from '../../src/hrms/bamboohr/mapping';
import { HRMS_CATALOG } from '../../src/hrms/catalog';
import { mapByRows, mappingMarkdown, mapWith, requestedFields, type MappingTable } from '../../src/hrms/mapping-table';

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

describe('nested mapping rows', () => {
  const NESTED: MappingTable<{ upper: boolean }> = {
    rows: [
      { point: 'employeeId', fields: ['id'], read: (r) => r.id, source: 'doc 1' },
      {
        point: 'currentAddress',
        fields: ['home'],
        read: (r) => r.home,
        source: 'doc 2',
        rows: [{ point: 'addressCity', fields: ['town'], read: (a, ctx) => (ctx.upper ? String(a.town).toUpperCase() : a.town), source: 'doc 3' }],
      },
      {
        point: 'dependentDetails',
        fields: ['kin'],
        read: (r) => r.kin,
        source: 'doc 4',
        many: true,
        rows: [{ point: 'name', fields: ['who'], read: (k) => k.who, source: 'doc 5' }],
      },
    ],
  };

  it('map a nested record with its own rows and each item of a list on its own (kept even when empty), with the context handed in', () => {
    expect(mapWith(NESTED, { id: '1', home: { town: 'Pune' }, kin: [{ who: 'A' }, {}, 'junk'] }, { upper: true })).toEqual({
      employeeId: '1',
      currentAddress: { addressCity: 'PUNE' },
      dependentDetails: [{ name: 'A' }, {}],
    });
    expect(mapWith(NESTED, { id: '2', home: 'not an object', kin: 'not a list' }, { upper: false })).toEqual({ employeeId: '2' });
  });

  it('list nested rows in the README under their parent point and field', () => {
    expect(mappingMarkdown(NESTED, 'Acme').split('\n').slice(2)).toEqual([
      '| employeeId | `id` | doc 1 |',
      '| currentAddress.addressCity | `home.town` | doc 3 |',
      '| dependentDetails[].name | `kin[].who` | doc 5 |',
    ]);
  });

  it("every product of the catalog with a users' page keeps its mapping as rows", () => {
    expect(HRMS_CATALOG.filter((p) => p.docsPage && !p.mapping).map((p) => p.hrmsId)).toEqual([]);
  });
});
