/**
 * The "dependency did not answer" classifier (docs/operations.md "Redis or PostgreSQL down; shutdown"): what the real clients throw when
 * Redis or PostgreSQL is away becomes 503 + Retry-After; everything else is left alone.
 */
import { describe, expect, it } from 'vitest';
import { AppError, renderError } from '../../src/errors';
import { bestEffort, classifyUnavailable, DependencyUnreachableError, failedDependency } from '../../src/unavailable';

const withCode = (message: string, code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, ...extra });

describe('failedDependency', () => {
  it.each([
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'redis'],
    [new Error('Command timed out'), 'redis'],
    [new Error('Connection is closed.'), 'redis'],
    [Object.assign(new Error('Reached the max retries per request limit (which is 0).'), { name: 'MaxRetriesPerRequestError' }), 'redis'],
    [new Error('Connection terminated unexpectedly'), 'postgres'],
    [new Error('timeout exceeded when trying to connect'), 'postgres'],
    [new Error('Query read timeout'), 'postgres'],
    [withCode('terminating connection due to administrator command', '57P01'), 'postgres'],
    [withCode('canceling statement due to statement timeout', '57014'), 'postgres'],
    [withCode('connection failure', '08006'), 'postgres'],
    [Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }), 'postgres'],
    [withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED', { port: 5432 }), 'postgres'],
    [new Error('wrapped', { cause: withCode('x', '57P03') }), 'postgres'],
    // MikroORM's DriverException: `<sql> - <driver message>`.
    [Object.assign(new Error('select "o0".* from "orgs" as "o0" limit 1 - Query read timeout'), { name: 'DriverException' }), 'postgres'],
    [Object.assign(new Error('insert into "x" - Connection terminated unexpectedly'), { name: 'DriverException' }), 'postgres'],
    [Object.assign(new Error('timeout expired'), { name: 'DriverException' }), 'postgres'],
  ])('%s → %s', (err, dep) => {
    expect(failedDependency(err)).toBe(dep);
    const rendered = renderError(classifyUnavailable(err), 'rid');
    expect(rendered).toEqual({
      status: 503,
      body: { requestId: 'rid', error: 'service_unavailable', message: 'Service temporarily unavailable', data: null },
      headers: { 'retry-after': '5' },
    });
  });

  it.each([
    new AppError('NOT_FOUND'),
    withCode('duplicate key value violates unique constraint', '23505'),
    withCode('value too long', '22001'),
    new TypeError('x is undefined'),
    // An HRMS call refused: got's RequestError, never ours.
    Object.assign(withCode('connect ECONNREFUSED 10.0.0.1:443', 'ECONNREFUSED'), { name: 'RequestError' }),
    'a string',
    null,
  ])('leaves %s alone', (err) => {
    expect(failedDependency(err)).toBeNull();
    expect(classifyUnavailable(err)).toBe(err);
  });
});

describe('bestEffort', () => {
  it('resolves after at most its bound, reports the failure once, and never rejects', async () => {
    const errors: unknown[] = [];
    const t = Date.now();
    await bestEffort(
      () => new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 300)),
      50,
      (e) => errors.push(e),
    );
    expect(Date.now() - t).toBeLessThan(250);
    await new Promise((r) => setTimeout(r, 400));
    expect(errors.map((e) => (e as Error).message)).toEqual(['no answer within 50 ms']);
    await bestEffort(
      () => Promise.reject(new Error('now')),
      1000,
      (e) => errors.push(e),
    );
    expect(errors.map((e) => (e as Error).message)).toEqual(['no answer within 50 ms', 'now']);
  });
});

describe('DependencyUnreachableError', () => {
  it('names the dependency and never the password of a URL', () => {
    const e = new DependencyUnreachableError('PostgreSQL', 'DATABASE_URL', new Error('bad postgresql://hrx:s3cret@db:5432/hrx'));
    expect(e.message).toBe('PostgreSQL is unreachable (DATABASE_URL): bad postgresql://***@db:5432/hrx');
  });
});
