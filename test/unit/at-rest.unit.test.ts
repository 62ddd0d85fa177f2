/**
 * At rest (docs/at-rest.md): the blind index (crypto/blind-index.ts) and the employee record's
 * envelopes (employees/codec.ts). A blind index finds the equal value and only it, differs per
 * org, purpose and key, and matches a known HMAC-SHA256 (RFC 2104) answer; a record goes into its
 * envelopes whole and comes back equal, in the record's key order, and an envelope moved to
 * another row or swapped with the other one does not open.
 */
import { createCipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blindIndex, blindIndexes, blindIndexKeys } from '../../src/crypto/blind-index';
import { createFieldCipher, DecryptionError, keyId } from '../../src/crypto/field-cipher';
import { normalizeRecord } from '../../src/domain/record';
import { decodeEmployee, encodeEmployee, employeeRowsValues, MAX_ROWS_PER_STATEMENT, maskedAad, recordAad } from '../../src/employees/codec';
import { deriveKey } from '../../src/infra';

const master = randomBytes(32);
const [key] = blindIndexKeys([deriveKey(master, 'blind-index')]);

describe('blind index', () => {
  it('is HMAC-SHA256 of the scoped value under the purpose key: 64 hex characters', () => {
    const k = Buffer.alloc(32, 7);
    const expected = createHmac('sha256', k).update('hrx-blind-index\0user-email\x0042\0asha@acme.example').digest('hex');
    expect(blindIndex(createSecretKey(k), 'user-email', 42, 'asha@acme.example')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('finds the equal value, not a different one, and is scoped by org', () => {
    const h = (org: number, v: string) => blindIndex(key!, 'user-email', org, v);
    expect(h(1, 'asha@acme.example')).toBe(h(1, 'asha@acme.example'));
    expect(h(1, 'asha@acme.example')).not.toBe(h(1, 'asha@acme.exampl'));
    expect(h(1, 'asha@acme.example')).not.toBe(h(1, 'Asha@acme.example'));
    // The same e-mail in two orgs: two unrelated hashes (rows of one org cannot be linked to another's).
    expect(h(1, 'asha@acme.example')).not.toBe(h(2, 'asha@acme.example'));
    // The org and the value cannot be shifted into each other (NUL between the parts).
    expect(h(1, '2asha@acme.example')).not.toBe(h(12, 'asha@acme.example'));
  });

  it('differs per master key; lookups hash under every key, the current first', () => {
    const other = randomBytes(32);
    const keys = blindIndexKeys([deriveKey(other, 'blind-index'), deriveKey(master, 'blind-index')]);
    const all = blindIndexes(keys, 'user-email', 1, 'asha@acme.example');
    expect(all).toHaveLength(2);
    expect(all[1]).toBe(blindIndex(key!, 'user-email', 1, 'asha@acme.example'));
    expect(all[0]).not.toBe(all[1]);
    // Not the key of another purpose (the tombstones', the api keys' pepper).
    expect(blindIndex(createSecretKey(deriveKey(master, 'employee-tombstone')), 'user-email', 1, 'x')).not.toBe(blindIndex(key!, 'user-email', 1, 'x'));
    expect(() => blindIndexKeys([])).toThrow(/no key/);
  });
});

describe('employee record envelopes', () => {
  const cipher = createFieldCipher(deriveKey(master, 'field-cipher'));
  const rec = normalizeRecord(
    {
      employeeId: 'EMP-7',
      name: 'Meera Iyer',
      email: 'meera@acme.example',
      dob: '1991-04-12',
      pan: 'ABCPM1234Z',
      fatherName: 'Raman Iyer',
      currentAddress: { addressLine: '4 Lake Road', addressCity: 'Chennai' },
      dependentDetails: [{ name: 'Kiran Iyer', mobileNumber: '9876543210' }],
    },
    'b4c5d6e7-0000-4000-8000-000000000001',
  );

  it('holds no value in clear and gives the record back equal, in the record key order', () => {
    const stored = encodeEmployee(rec, 5, cipher);
    for (const v of ['Meera Iyer', 'meera@acme.example', '1991-04-12', 'ABCPM1234Z', 'Raman Iyer', '4 Lake Road', '9876543210']) {
      expect(stored.recordEnc).not.toContain(v);
      expect(stored.maskedEnc).not.toContain(v);
    }
    const back = decodeEmployee({ id: rec.id, employeeId: rec.employeeId, recordEnc: stored.recordEnc }, 5, cipher);
    expect(back).toStrictEqual(rec);
    expect(Object.keys(back)).toEqual(Object.keys(rec));
    // The envelope leaves the ids to the row's columns.
    expect(JSON.parse(cipher.decrypt(stored.recordEnc, recordAad(5, 'EMP-7')))).not.toHaveProperty('employeeId');
  });

  it('orders keys whatever order the envelope holds them in (rows moved from JSONB)', () => {
    const { id: _i, employeeId: _e, ...values } = rec;
    const shuffled = Object.fromEntries(Object.entries(values).reverse());
    const env = cipher.encrypt(JSON.stringify(shuffled), recordAad(5, 'EMP-7'));
    expect(Object.keys(decodeEmployee({ id: rec.id, employeeId: 'EMP-7', recordEnc: env }, 5, cipher))).toEqual(Object.keys(rec));
  });

  it('an envelope moved to another row, another org, or swapped with the masked one does not open', () => {
    const stored = encodeEmployee(rec, 5, cipher);
    expect(() => decodeEmployee({ id: rec.id, employeeId: 'EMP-8', recordEnc: stored.recordEnc }, 5, cipher)).toThrow(DecryptionError);
    expect(() => decodeEmployee({ id: rec.id, employeeId: 'EMP-7', recordEnc: stored.recordEnc }, 6, cipher)).toThrow(DecryptionError);
    expect(() => decodeEmployee({ id: rec.id, employeeId: 'EMP-7', recordEnc: stored.maskedEnc }, 5, cipher)).toThrow(DecryptionError);
    expect(() => cipher.decrypt(stored.recordEnc, maskedAad(5, 'EMP-7'))).toThrow(DecryptionError);
  });
});

describe('field cipher IVs', () => {
  it('gives every encryption its own 96-bit IV, across the batches IVs are drawn in, and each envelope opens', () => {
    const cipher = createFieldCipher(deriveKey(master, 'field-cipher'));
    // 600 encryptions cross two draws of the IV source (256 IVs each).
    const envelopes = Array.from({ length: 600 }, (_, i) => cipher.encrypt(`value ${i}`, `aad:${i}`));
    const ivs = envelopes.map((e) => e.split('.')[2]!);
    for (const iv of ivs) expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(new Set(ivs).size).toBe(600);
    envelopes.forEach((e, i) => expect(cipher.decrypt(e, `aad:${i}`)).toBe(`value ${i}`));
  });

  it('opens an envelope made the way every earlier version made it (one randomBytes(12) IV per encryption)', () => {
    const k = deriveKey(master, 'field-cipher');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', k, iv);
    c.setAAD(Buffer.from('employee-record:1:E1', 'utf8'));
    const body = Buffer.concat([c.update('{"name":"A"}', 'utf8'), c.final(), c.getAuthTag()]);
    const envelope = `v1.${keyId(k)}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    expect(createFieldCipher(k).decrypt(envelope, 'employee-record:1:E1')).toBe('{"name":"A"}');
  });
});

describe('employee rows as a VALUES list of bind parameters', () => {
  const row = (n: number) => ({ id: `id-${n}`, employeeId: `E${n}`, recordEnc: `v1.r${n}`, maskedEnc: `v1.m${n}` });

  it('numbers four parameters per row from the first one given, and sends every value as a parameter in row order', () => {
    const list = employeeRowsValues([row(1), row(2)], 6);
    expect(list.sql).toBe('($6::uuid,$7::text,$8::text,$9::text),($10::uuid,$11::text,$12::text,$13::text)');
    expect(list.values).toEqual(['id-1', 'E1', 'v1.r1', 'v1.m1', 'id-2', 'E2', 'v1.r2', 'v1.m2']);
  });

  it('a value that would need quoting in SQL or an array literal stays a parameter, never part of the text', () => {
    const hostile = { id: 'x', employeeId: "E1'); drop table employees; --", recordEnc: '"},{', maskedEnc: 'NULL' };
    const list = employeeRowsValues([hostile], 1);
    expect(list.sql).toBe('($1::uuid,$2::text,$3::text,$4::text)');
    expect(list.values).toEqual(['x', "E1'); drop table employees; --", '"},{', 'NULL']);
  });

  it(`refuses more than ${MAX_ROWS_PER_STATEMENT} rows (a statement's bind parameters are counted in 16 bits)`, () => {
    const rows = Array.from({ length: MAX_ROWS_PER_STATEMENT + 1 }, (_, i) => row(i));
    expect(() => employeeRowsValues(rows, 1)).toThrow(RangeError);
    expect(employeeRowsValues(rows.slice(1), 6).values).toHaveLength(4 * MAX_ROWS_PER_STATEMENT);
  });
});
