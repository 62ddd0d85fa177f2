/**
 * The simulators' one kit (`src/hrms/sim/kit/`): the deterministic fault roll (lazy and eager),
 * fault checking, Basic credentials, the token store, the served employees, the auth preamble
 * (`basicOk`, `bearerToken`, `tokenOk`, `credentialsOk`) and `dialectSim`.
 */
import { describe, expect, it } from 'vitest';
import {
  basicCredentials,
  basicOk,
  bearerToken,
  credentialsOk,
  dialectSim,
  FaultRoller,
  mergeFaults,
  REVISION_NAMED,
  REVISION_NUMBERED,
  sameSecret,
  SimCore,
  Staff,
  tokenOk,
  Tokens,
  type Faults,
} from '../../src/hrms/sim/kit';

const NONE: Faults = { latencyMs: 0, rateThrottle: 0, rate5xx: 0, tokenExpiresAfterCalls: 0 };
const rolls = (roller: FaultRoller, f: Pick<Faults, 'rateThrottle' | 'rate5xx'>, n: number) => Array.from({ length: n }, () => roller.next(f) ?? '-');

describe('FaultRoller', () => {
  it('lazy: exactly rate of the calls, the first at the 1/rate-th call', () => {
    expect(rolls(new FaultRoller(), { rateThrottle: 0.3, rate5xx: 0 }, 10)).toEqual(['-', '-', '-', 'throttle', '-', '-', 'throttle', '-', '-', 'throttle']);
    expect(rolls(new FaultRoller(), { rateThrottle: 0, rate5xx: 0.1 }, 10).filter((r) => r === '5xx')).toHaveLength(1);
  });

  it('eager: the first call already meets the fault (a sync of one or two requests)', () => {
    expect(rolls(new FaultRoller(true), { rateThrottle: 0.3, rate5xx: 0 }, 7)).toEqual(['throttle', '-', '-', 'throttle', '-', '-', 'throttle']);
    expect(rolls(new FaultRoller(true), { rateThrottle: 0, rate5xx: 0 }, 3)).toEqual(['-', '-', '-']);
  });

  it('throttling wins a tie and the 5xx comes on the next call; reset starts over', () => {
    const r = new FaultRoller();
    expect(rolls(r, { rateThrottle: 0.5, rate5xx: 0.5 }, 4)).toEqual(['-', 'throttle', '5xx', 'throttle']);
    r.reset();
    expect(rolls(r, { rateThrottle: 0.5, rate5xx: 0 }, 2)).toEqual(['-', 'throttle']);
    expect([r.alternatingStatus(), r.alternatingStatus(), r.alternatingStatus()]).toEqual([503, 500, 503]);
  });
});

describe('kit helpers', () => {
  it('mergeFaults keeps earlier settings and refuses rates out of range', () => {
    expect(mergeFaults({ ...NONE, latencyMs: 5 }, { rate5xx: 0.2 })).toEqual({ ...NONE, latencyMs: 5, rate5xx: 0.2 });
    expect(() => mergeFaults(NONE, { rateThrottle: 1.5 })).toThrow(RangeError);
    expect(() => mergeFaults(NONE, { rateThrottle: 0.6, rate5xx: 0.6 })).toThrow(RangeError);
    expect(() => mergeFaults(NONE, { latencyMs: -1 })).toThrow(RangeError);
  });

  it('basicCredentials splits at the first colon; malformed headers give nothing', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(basicCredentials(`Basic ${b64('api:pa:ss')}`)).toEqual({ user: 'api', password: 'pa:ss' });
    expect(basicCredentials(`basic ${b64('key:')}`)).toEqual({ user: 'key', password: '' });
    expect(basicCredentials(`Basic ${b64('nocolon')}`)).toBeUndefined();
    expect(basicCredentials('Bearer abc')).toBeUndefined();
    expect(basicCredentials(undefined)).toBeUndefined();
    expect([sameSecret('a', 'a'), sameSecret('a', 'ab'), sameSecret(undefined, 'a'), sameSecret(7, '7')]).toEqual([true, false, false, false]);
  });

  it('Tokens expire by call count and on revocation; a dropped token is gone', () => {
    const t = new Tokens();
    t.callsPerToken = 2;
    const a = t.issue(60_000, 'papi-');
    expect(a.startsWith('papi-')).toBe(true);
    expect([t.use(a), t.use(a), t.use(a)]).toEqual([true, true, false]);
    const b = t.issue(60_000);
    t.drop(b);
    expect(t.use(b)).toBe(false);
    const c = t.issue(60_000);
    t.revokeAll();
    expect([t.use(c), t.use(undefined), t.use(t.issue(-1))]).toEqual([false, false, false]);
  });

  it('Staff: changes by revision style, exits, deletions with their instant', () => {
    const s = new Staff('kit', 5, { unchangedAt: () => 42 });
    s.change('EMP00002');
    expect(s.employee(2).designation).toBe('Principal Consultant (revision 1)');
    expect(s.modifiedAt(2)).toBeGreaterThan(42);
    expect(s.modifiedAt(3)).toBe(42);
    s.remove('EMP00003', 'exit');
    expect([s.employee(3).employment_status, s.working(3), s.served()]).toEqual(['TERMINATED', false, [1, 2, 3, 4, 5]]);
    s.remove('EMP00004');
    expect([s.served(), s.isServed(4), s.deletedAt(4)! > 0, s.indexOf('EMP00004')]).toEqual([[1, 2, 3, 5], false, true, undefined]);
    expect(() => s.change('EMP00004')).toThrow(RangeError);
    const n = new Staff('kit', 2, { revision: REVISION_NUMBERED });
    n.change('EMP00001');
    n.change('EMP00001');
    expect(n.employee(1).designation).toBe('Principal Consultant 2');
    expect(REVISION_NAMED).not.toBe(REVISION_NUMBERED);
    expect(() => new Staff('kit', -1)).toThrow(RangeError);
  });
});

describe('auth preamble and dialectSim', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  const newCore = (tokens: Tokens[] = []) => new SimCore({ employees: 3, seed: 1 }, { requests: 10, windowMs: 1000 }, tokens);

  it('basicOk checks the user (and the password when given), counting each refusal', () => {
    const core = newCore();
    expect(basicOk(core, basic('key:x'), 'key')).toBe(true);
    expect(basicOk(core, basic('key:pw'), 'key', 'pw')).toBe(true);
    expect(basicOk(core, basic('key:other'), 'key', 'pw')).toBe(false);
    expect(basicOk(core, basic('kez:x'), 'key')).toBe(false);
    expect(basicOk(core, undefined, 'key')).toBe(false);
    expect(core.stats().authFailures).toBe(3);
  });

  it('bearerToken reads its scheme only; tokenOk spends a call of an issued token and counts a refusal', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc')).toBe('abc');
    expect(bearerToken('Zoho-oauthtoken abc', 'Zoho-oauthtoken')).toBe('abc');
    expect(bearerToken('Zoho-oauthtoken abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    const tokens = new Tokens();
    const core = newCore([tokens]);
    const t = tokens.issue(60_000);
    expect(tokenOk(core, tokens, t)).toBe(true);
    expect(tokenOk(core, tokens, 'forged')).toBe(false);
    expect(tokenOk(core, tokens, undefined)).toBe(false);
    expect(core.stats().authFailures).toBe(2);
  });

  it('credentialsOk needs every expected field as that text, from a form or a body', () => {
    const core = newCore();
    const expected = { client_id: 'id', client_secret: 's' };
    expect(credentialsOk(core, new URLSearchParams({ client_id: 'id', client_secret: 's', extra: '1' }), expected)).toBe(true);
    expect(credentialsOk(core, { client_id: 'id', client_secret: 's' }, expected)).toBe(true);
    expect(credentialsOk(core, new URLSearchParams({ client_id: 'id' }), expected)).toBe(false);
    expect(credentialsOk(core, { client_id: 'id', client_secret: 5 }, expected)).toBe(false);
    expect(core.stats().authFailures).toBe(2);
  });

  it('dialectSim: setups name the product, employees come from the staff, resetStats clears the product logs too', async () => {
    const core = newCore();
    const staff = new Staff(1, 3);
    let log = ['x'];
    const sim = dialectSim(
      {
        hrmsId: 'acme',
        url: 'http://sim.invalid',
        core,
        staff,
        issuesTokens: false,
        secret: 'right',
        setupWith: (secret) => ({ access_credentials: { hrms_host: 'http://sim.invalid', grant_type: 'api_key', api_key: secret }, api_configs: [] }),
        expected: (i) => ({ employeeId: `E${i}` }),
        idOf: String,
        codeOf: (id) => `EMP0000${id}`,
        resetStats: () => {
          log = [];
        },
      },
      { log: () => log },
    );
    expect(sim.setup()).toEqual({
      hrms_id: 'acme',
      access_credentials: { hrms_host: 'http://sim.invalid', grant_type: 'api_key', api_key: 'right' },
      api_configs: [],
    });
    expect(sim.wrongSetup().access_credentials.api_key).toBe('right-wrong');
    expect(sim.issuesTokens).toBe(false);
    expect(sim.employeeIds()).toEqual(['1', '2', '3']);
    sim.remove('2');
    expect(sim.employeeIds()).toEqual(['1', '3']);
    expect(sim.expected()).toEqual([{ employeeId: 'E1' }, { employeeId: 'E3' }]);
    basicOk(core, undefined, 'k');
    expect(sim.stats().authFailures).toBe(1);
    sim.resetStats();
    expect([sim.stats().authFailures, sim.log()]).toEqual([0, []]);
    await sim.close();
  });
});
