/**
 * The mechanics every connector shares (src/hrms/README.md, "Shared mechanics"): the bearer-token
 * session (one new token after a refusal, never a loop; a held token kept until refused) and the
 * cursor codec (a cursor the connector did not make is `bad_response`, never quoted back).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HrmsError } from '../../src/hrms/connector';
import { jsonCursor, matchCursor, offsetCursor } from '../../src/hrms/cursor';
import { TokenCache } from '../../src/hrms/token-cache';
import { cachedTokens, TokenSession } from '../../src/hrms/token-session';

/** A session over a real cache whose token request hands out `t1`, `t2`, … and counts itself. */
function counted(hold = false) {
  let issued = 0;
  const issue = () => Promise.resolve({ value: `t${++issued}`, ttlMs: 3_600_000 });
  const session = new TokenSession(cachedTokens(new TokenCache(), { key: () => 'k', issue }), hold);
  return { session, issued: () => issued };
}

describe('TokenSession', () => {
  it('reuses the cached token while the HRMS takes it', async () => {
    const { session, issued } = counted();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++)
      await session.send(
        (t) => Promise.resolve(sent.push(t)),
        () => false,
      );
    expect(sent).toEqual(['t1', 't1', 't1']);
    expect(issued()).toBe(1);
  });

  it('after a refusal asks for one new token and sends once more; a second refusal is reported, not retried', async () => {
    const { session, issued } = counted();
    const sent: string[] = [];
    const first = await session.send(
      (t) => Promise.resolve((sent.push(t), t === 't1' ? 401 : 200)),
      (status) => status === 401,
    );
    expect(first).toEqual({ answer: 200, token: 't2', refused: false });
    const twice = await session.send(
      (t) => Promise.resolve((sent.push(t), 401)),
      (status) => status === 401,
    );
    expect(twice).toEqual({ answer: 401, token: 't3', refused: true });
    expect(sent).toEqual(['t1', 't2', 't2', 't3']);
    expect(issued()).toBe(3);
  });

  it('holds its token when asked to, forgets it when refused, and takes a rotated one', async () => {
    const { session } = counted(true);
    expect(await session.token()).toBe('t1');
    session.rotate('papi-next');
    expect(await session.token()).toBe('papi-next');
    session.forget('papi-next');
    expect(await session.token()).toBe('t1');
    session.release();
    expect(await session.token()).toBe('t1');
  });
});

/** What `f` throws (undefined when it returns). */
function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('cursor codec', () => {
  const codec = jsonCursor(z.object({ page: z.number().int().min(0) }), 'the test connector');

  it('hands back the state it encoded', () => {
    expect(codec.decode(codec.encode({ page: 7 }))).toEqual({ page: 7 });
  });

  it.each([
    ['not base64url JSON', 'secret-looking!value'],
    ['JSON of another shape', Buffer.from('{"page":-1}').toString('base64url')],
    ['a plain word', 'abc'],
  ])('refuses %s as bad_response, naming the connector, never the cursor', (_what, cursor) => {
    const err = thrownBy(() => codec.decode(cursor));
    expect(err).toBeInstanceOf(HrmsError);
    expect(err).toMatchObject({ kind: 'bad_response', message: 'not a cursor of the test connector' });
    expect((err as Error).message).not.toContain(cursor);
  });

  it('matches a text cursor against its whole pattern, or refuses it', () => {
    expect(matchCursor('active:42', /^(active|inactive):(\d{1,9})$/, 'x')[2]).toBe('42');
    expect(() => matchCursor('active:42;drop', /^(active|inactive):(\d{1,9})$/, 'the x connector')).toThrow('not a cursor of the x connector');
  });
});

describe('offset cursor', () => {
  const codec = offsetCursor(['report', 'employees_inactive'] as const, 'the test connector');

  it('writes and reads back `<word>:<offset>`', () => {
    expect(codec.encode('report', 2500)).toBe('report:2500');
    expect(codec.decode('employees_inactive:0')).toEqual({ word: 'employees_inactive', offset: 0 });
    expect(codec.decode(codec.encode('report', 999_999_999))).toEqual({ word: 'report', offset: 999_999_999 });
  });

  it('offsetIn: 0 without a cursor, the offset of its own sequence, another sequence refused', () => {
    expect(codec.offsetIn(undefined, 'report')).toBe(0);
    expect(codec.offsetIn('report:300', 'report')).toBe(300);
    expect(thrownBy(() => codec.offsetIn('employees_inactive:300', 'report'))).toMatchObject({
      kind: 'bad_response',
      message: 'not a cursor of the test connector',
    });
  });

  it.each(['changes:5', 'report:-1', 'report:1.5', 'report:1234567890', 'report:', 'xreport:1', 'report:1 ', 'report'])(
    'refuses %j as not its cursor, without quoting it',
    (cursor) => {
      const err = thrownBy(() => codec.decode(cursor));
      expect(err).toBeInstanceOf(HrmsError);
      expect(err).toMatchObject({ kind: 'bad_response', message: 'not a cursor of the test connector' });
    },
  );
});
