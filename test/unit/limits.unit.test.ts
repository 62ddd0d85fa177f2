/**
 * The pure parts of the request limits and log hygiene (docs/limits.md, docs/privacy.md): the JSON depth scan,
 * the NUL finder, errorForLog, describeError and the embedded PostgreSQL log filter.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { HrmsError } from '../../src/hrms/connector';
import { checkJsonDepth, findNul } from '../../src/http/body';
import { describeError, errorForLog, pgLogLine } from '../../src/log-error';

const depthError = (text: string): unknown => {
  try {
    checkJsonDepth(text);
    return null;
  } catch (err) {
    return (err as AppError).fieldErrors;
  }
};

describe('checkJsonDepth', () => {
  it('accepts 32 levels and refuses 33, naming the top-level key or index', () => {
    expect(depthError('['.repeat(32) + ']'.repeat(32))).toBeNull();
    expect(depthError('['.repeat(33) + ']'.repeat(33))).toEqual([{ field: '0', message: 'nested deeper than 32 levels' }]);
    expect(depthError(`[1,{"a":2},${'['.repeat(40)}${']'.repeat(40)}]`)).toEqual([{ field: '2', message: 'nested deeper than 32 levels' }]);
    expect(depthError(`{"a":"x","b\\"c":${'{"k":'.repeat(40)}1${'}'.repeat(40)}}`)).toEqual([{ field: 'b"c', message: 'nested deeper than 32 levels' }]);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(depthError(JSON.stringify({ a: '['.repeat(100), b: '\\"[[[[', c: ['"{{{{'] }))).toBeNull();
  });

  it('scans 200,000 levels without recursion', () => {
    expect(depthError('{"x":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}')).toEqual([{ field: 'x', message: 'nested deeper than 32 levels' }]);
  });
});

describe('findNul', () => {
  it('names the first string or key holding NUL by its path', () => {
    expect(findNul({ a: 'ok', b: [1, 'x', { c: 'y\u0000' }] })).toBe('b.2.c');
    expect(findNul({ 'k\u0000': 1 })).toBe('k\\u0000');
    expect(findNul('\u0000')).toBe('body');
    expect(findNul({ a: ['clean'], b: { c: 'also clean' } })).toBeUndefined();
  });
});

describe('errorForLog', () => {
  const knexLike = Object.assign(new Error(`insert into "consents" ("consent_language") values ('I, Meera, agree') - relation "consents" does not exist`), {
    name: 'TableNotFoundException',
    code: '42P01',
    sqlState: '42P01',
    errno: undefined,
    detail: 'Key (email)=(meera@example.in)',
    table: 'consents',
  });

  it('keeps name, codes and object names of a driver error, never its message or detail', () => {
    const out = errorForLog(knexLike);
    expect(out).toMatchObject({ name: 'TableNotFoundException', code: '42P01', sqlState: '42P01', table: 'consents' });
    expect(out.message).toBeUndefined();
    expect(JSON.stringify(out)).not.toMatch(/Meera|meera|insert/);
    expect(out.stack?.every((l) => l.startsWith('at '))).toBe(true);
  });

  it("keeps the message of hrx's own errors, not of validation failures, and walks causes", () => {
    expect(errorForLog(new HrmsError('unavailable', 'HRMS failed employee page 3 (HTTP 503)', 503))).toMatchObject({
      name: 'HrmsError',
      kind: 'unavailable',
      message: 'HRMS failed employee page 3 (HTTP 503)',
    });
    expect(errorForLog(new AppError('INTERNAL', { cause: knexLike }))).toMatchObject({
      name: 'AppError',
      code: 'INTERNAL',
      message: 'INTERNAL',
      cause: { code: '42P01' },
    });
    expect(errorForLog(AppError.validation([{ field: 'meera@example.in', message: 'unknown field' }])).message).toBeUndefined();
    expect(errorForLog('a string with meera@example.in')).toEqual({ name: 'string' });
  });

  it('describeError: a safe message, or the name and codes', () => {
    expect(describeError(knexLike)).toBe('TableNotFoundException (42P01)');
    expect(describeError(new HrmsError('auth', 'HRMS rejected the credentials on token request (HTTP 401)'))).toBe(
      'HRMS rejected the credentials on token request (HTTP 401)',
    );
  });
});

describe('pgLogLine', () => {
  it('keeps lifecycle lines and drops the text of lines that may quote values', () => {
    expect(pgLogLine('2026-11-23 LOG:  database system is ready to accept connections')).toContain('ready');
    expect(pgLogLine('2026-11-23 ERROR:  duplicate key value violates unique constraint')).toBe('ERROR: (text omitted)');
    expect(pgLogLine('DETAIL:  Key (email)=(meera@example.in) already exists.')).toBe('DETAIL: (text omitted)');
    expect(pgLogLine("STATEMENT:  insert into orgs values ('x')")).toBe('STATEMENT: (text omitted)');
  });
});
