/**
 * Erasure's keyed hashes (src/crypto/tombstone.ts) and the retention settings (src/config.ts,
 * docs/erasure-and-retention.md "Erasing an employee"): tombstones are keyed (another key, another hash; no plain hash of the id),
 * bound to the org, and a rotated master key still matches through its retired key; consent
 * statements become a keyed digest; the retention days default to 400, 30 and 30 (events) and
 * refuse anything but whole days from 0. One canonical employee id (docs/erasure-and-retention.md
 * "One form of an employee id"): Unicode white space around it goes, wherever the id comes from
 * (a body, a connector's record); white space inside stays; white space only names nobody.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { ERASED_STATEMENT_PREFIX, statementDigest, tombstoneHash, tombstoneKeys } from '../../src/crypto/tombstone';
import { deriveKey } from '../../src/infra';
import { canonicalEmployeeId } from '../../src/domain/ids';
import { normalizeRecord } from '../../src/domain/record';
import { employeeIdSchema, isUsableEmployeeId } from '../../src/employees/employee-id';
import { employeeUpdateSchema } from '../../src/employees/schema';

describe('tombstone hashes', () => {
  const master = randomBytes(32);
  const [key] = tombstoneKeys([deriveKey(master, 'employee-tombstone')]);

  it('are keyed, bound to the org, and name nothing in clear', () => {
    const h = tombstoneHash(key!, 7, 'EMP00042');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(tombstoneHash(key!, 7, 'EMP00042')).toBe(h);
    expect(tombstoneHash(key!, 8, 'EMP00042')).not.toBe(h);
    expect(tombstoneHash(key!, 7, 'EMP00043')).not.toBe(h);
    const [otherKey] = tombstoneKeys([deriveKey(randomBytes(32), 'employee-tombstone')]);
    expect(tombstoneHash(otherKey!, 7, 'EMP00042')).not.toBe(h);
    // Not a plain hash anyone could compute from a guessed id.
    for (const plain of ['EMP00042', '7\0EMP00042', 'hrx-tombstone\x007\x00EMP00042']) {
      expect(createHash('sha256').update(plain).digest('hex')).not.toBe(h);
    }
    // A key derived for another purpose from the same master gives another hash.
    const [pepper] = tombstoneKeys([deriveKey(master, 'api-key-pepper')]);
    expect(tombstoneHash(pepper!, 7, 'EMP00042')).not.toBe(h);
  });

  it('consent statements become a keyed digest with a fixed prefix', () => {
    const d = statementDigest(key!, 'I, Asha Rao, agree.');
    expect(d).toMatch(new RegExp(`^${ERASED_STATEMENT_PREFIX}[0-9a-f]{64}$`));
    expect(d).not.toContain('Asha');
    expect(statementDigest(key!, 'I, Asha Rao, agree.')).toBe(d);
    expect(statementDigest(key!, 'I, Asha Rao, agree!')).not.toBe(d);
  });
});

describe('retention settings', () => {
  it('default to 400 days of audit and consent, 30 days of removed employees, an hourly purge', () => {
    const c = loadConfig({});
    expect([c.HRX_AUDIT_RETENTION_DAYS, c.HRX_REMOVED_RETENTION_DAYS, c.HRX_RETENTION_PURGE_MS]).toEqual([400, 30, 3_600_000]);
  });

  it('keep ended events 30 days by default, whole days from 0', () => {
    expect(loadConfig({}).HRX_EVENT_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ HRX_EVENT_RETENTION_DAYS: '0' }).HRX_EVENT_RETENTION_DAYS).toBe(0);
    expect(() => loadConfig({ HRX_EVENT_RETENTION_DAYS: '-1' })).toThrow(/^Invalid configuration: HRX_EVENT_RETENTION_DAYS /);
  });

  it('take whole days from 0, and refuse the rest naming the variable', () => {
    const c = loadConfig({ HRX_AUDIT_RETENTION_DAYS: '0', HRX_REMOVED_RETENTION_DAYS: '7' });
    expect([c.HRX_AUDIT_RETENTION_DAYS, c.HRX_REMOVED_RETENTION_DAYS]).toEqual([0, 7]);
    expect(() => loadConfig({ HRX_AUDIT_RETENTION_DAYS: '-1' })).toThrow(/^Invalid configuration: HRX_AUDIT_RETENTION_DAYS /);
    expect(() => loadConfig({ HRX_REMOVED_RETENTION_DAYS: '1.5' })).toThrow(/^Invalid configuration: HRX_REMOVED_RETENTION_DAYS /);
    expect(() => loadConfig({ HRX_AUDIT_RETENTION_DAYS: 'a year' })).toThrow(/^Invalid configuration: HRX_AUDIT_RETENTION_DAYS /);
    expect(() => loadConfig({ HRX_RETENTION_PURGE_MS: '10' })).toThrow(/^Invalid configuration: HRX_RETENTION_PURGE_MS /);
  });
});

describe('one canonical employee id', () => {
  const SPELLINGS = ['EMP1 ', '\tEMP1', 'EMP1\u00a0', '\u2003EMP1\r\n', '\ufeffEMP1', 'EMP1'];

  it('drops Unicode white space around the id, keeps what is inside and what is not white space', () => {
    for (const s of SPELLINGS) expect(canonicalEmployeeId(s)).toBe('EMP1');
    expect(canonicalEmployeeId(' EMP 1 ')).toBe('EMP 1');
    // A zero-width space is a format character, not white space: it stays part of the id.
    expect(canonicalEmployeeId('EMP1\u200b')).toBe('EMP1\u200b');
  });

  it('is the form of every body, of the update webhook, and of a connector record', () => {
    for (const s of SPELLINGS) {
      expect(employeeIdSchema.parse(s)).toBe('EMP1');
      expect((employeeUpdateSchema.parse({ employeeId: s }) as { employeeId: string }).employeeId).toBe('EMP1');
      expect(normalizeRecord({ employeeId: s }, 'row-id').employeeId).toBe('EMP1');
    }
  });

  it('an id of white space only names nobody: required in a body, unusable in a path', () => {
    expect(employeeIdSchema.safeParse('\u00a0 \t').success).toBe(false);
    expect(isUsableEmployeeId('\u00a0 \t')).toBe(false);
    expect(isUsableEmployeeId('\tEMP1\u00a0')).toBe(true);
  });
});
