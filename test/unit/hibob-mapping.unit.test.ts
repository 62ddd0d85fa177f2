/**
 * HiBob's mapping rows (src/hrms/hibob/mapping.ts): the field paths a search asks for, and one
 * machine-format employee as a record, its status from which search listed it.
 */
import { describe, expect, it } from 'vitest';
import { HIBOB_FIELDS, mapHibobEmployee } from '../../src/hrms/hibob/mapping';

describe('hibob mapping', () => {
  it('asks for root fields as root.<field> and Work fields as work.<field>, each once', () => {
    expect(HIBOB_FIELDS).toEqual([
      'root.id',
      'root.fullName',
      'root.email',
      'work.startDate',
      'work.title',
      'work.department',
      'work.reportsTo',
      'work.workMobile',
    ]);
  });

  it('maps a machine-format employee; Active only when the search without showInactive listed it', () => {
    const row = {
      id: '3332883884017000007',
      fullName: ' Asha   Rao ',
      email: 'asha.rao@example.com',
      work: {
        startDate: '2021-04-01',
        title: 'Engineer',
        department: 'Platform',
        workMobile: '+91 98765 43210',
        reportsTo: { displayName: 'Ravi Iyer', email: 'ravi.iyer@example.com', id: '3332883884017000002' },
      },
    };
    expect(mapHibobEmployee(row, true)).toEqual({
      employeeId: '3332883884017000007',
      name: 'Asha Rao',
      email: 'asha.rao@example.com',
      status: 'Active',
      doj: '2021-04-01',
      designation: 'Engineer',
      department: 'Platform',
      manager: 'Ravi Iyer',
      managerEmail: 'ravi.iyer@example.com',
      mobileNumber: '9876543210',
    });
    expect(mapHibobEmployee({ id: '1', work: { startDate: 'not a date' } }, false)).toEqual({ employeeId: '1', status: 'Inactive' });
  });
});
