/**
 * Events to vendors, the parts that need nothing running: Standard Webhooks signing against
 * known answers, endpoint URL rules, event type lists, per-vendor `employee.updated` data and the
 * retry schedule's configuration.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { EMPLOYEES_PER_EVENT, employeesUpdatedEvents } from '../../src/events/catalog';
import { isLoopbackHost, parseEventTypes, validateEndpointUrl } from '../../src/events/endpoints';
import { newEventId } from '../../src/events/service';
import { newSigningSecret, secretKey, sign, webhookHeaders } from '../../src/events/signing';
import { EVENT_TYPES, type Recipient } from '../../src/events/types';

describe('Standard Webhooks signing', () => {
  it("matches the reference library's known answer", () => {
    // Vector of the "sign function works" test of the Standard Webhooks reference JavaScript
    // library (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts).
    const sig = sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('equals an HMAC-SHA256 computed independently over id.timestamp.body', () => {
    const key = randomBytes(32);
    const secret = 'whsec_' + key.toString('base64');
    const body = JSON.stringify({ type: 'sync.completed', timestamp: '2026-11-21T05:00:00.000Z', data: { a: 'é' } });
    const expected = createHmac('sha256', key).update(`msg_x1.1763701200.${body}`).digest('base64');
    expect(sign(secret, 'msg_x1', 1763701200, body)).toBe(`v1,${expected}`);
    // A changed byte anywhere changes the signature.
    expect(sign(secret, 'msg_x1', 1763701201, body)).not.toBe(`v1,${expected}`);
    expect(webhookHeaders(secret, 'msg_x1', 1763701200, body)).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'msg_x1',
      'webhook-timestamp': '1763701200',
      'webhook-signature': `v1,${expected}`,
    });
  });

  it('makes whsec_ secrets of 32 random bytes and refuses malformed ones', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
    expect(() => secretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/whsec_/);
    expect(() => secretKey('whsec_' + randomBytes(16).toString('base64'))).toThrow(/24 to 64/);
    expect(() => secretKey('whsec_not base64!')).toThrow(/base64/);
    expect(() => sign(a, 'msg_1', 1.5, '{}')).toThrow(RangeError);
  });

  it('event ids are msg_ + time-ordered base36 + random hex, without dots', () => {
    const a = newEventId(1_700_000_000_000);
    const b = newEventId(1_700_000_000_001);
    expect(a).toMatch(/^msg_[0-9a-z]{9}[0-9a-f]{20}$/);
    expect(a < b).toBe(true);
  });
});

describe('endpoint URLs and event types', () => {
  const strict = { allowHttpLoopback: false };
  const loose = { allowHttpLoopback: true };

  it('accepts https and normalizes it', () => {
    expect(validateEndpointUrl('https://Hooks.Example.com/hrx?x=1', strict)).toBe('https://hooks.example.com/hrx?x=1');
  });

  it('refuses http unless loopback http is allowed, and then only for loopback hosts', () => {
    expect(() => validateEndpointUrl('http://127.0.0.1:9000/h', strict)).toThrow(/url: must use https/);
    expect(validateEndpointUrl('http://127.0.0.1:9000/h', loose)).toBe('http://127.0.0.1:9000/h');
    expect(validateEndpointUrl('http://localhost/h', loose)).toBe('http://localhost/h');
    expect(validateEndpointUrl('http://[::1]:8/h', loose)).toBe('http://[::1]:8/h');
    expect(() => validateEndpointUrl('http://10.0.0.1/h', loose)).toThrow(/must use https/);
    expect(() => validateEndpointUrl('http://example.com/h', loose)).toThrow(/must use https/);
    expect(() => validateEndpointUrl('http://127.0.0.1.example.com/h', loose)).toThrow(/must use https/);
  });

  it('refuses other schemes, user info, fragments and garbage', () => {
    expect(() => validateEndpointUrl('ftp://example.com/x', strict)).toThrow(/must use https/);
    expect(() => validateEndpointUrl('https://user:pw@example.com/x', strict)).toThrow(/user info/);
    expect(() => validateEndpointUrl('https://example.com/x#frag', strict)).toThrow(/fragment/);
    expect(() => validateEndpointUrl('not a url', strict)).toThrow(/not a valid URL/);
    expect(() => validateEndpointUrl('https://example.com/' + 'a'.repeat(2100), strict)).toThrow(/characters/);
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '127.9.8.7', 'localhost', 'api.localhost', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['128.0.0.1', 'example.com', '[::2]', '0.0.0.0'].map(isLoopbackHost)).toEqual([false, false, false, false]);
  });

  it('parses --events lists: known names, catalogue order, all when absent', () => {
    expect(parseEventTypes(undefined)).toEqual([...EVENT_TYPES]);
    expect(parseEventTypes(' sync.failed , connection.approved,sync.failed')).toEqual(['connection.approved', 'sync.failed']);
    expect(() => parseEventTypes('connection.approved,employee.created')).toThrow(/unknown event type employee.created/);
  });
});

describe('employee.updated data', () => {
  const recipient = (shared: string[] | null): Recipient => ({ vendorOrgId: 1, vendorOrgUuid: 'v-uuid', clientOrgUuid: 'c-uuid', sharedDataPoints: shared });
  const changes = [
    { employeeId: 'EMP00001', id: 'id-1', updatedFields: ['gender', 'ctc_basic'] },
    { employeeId: 'EMP00002', updatedFields: ['ctc_basic'] },
    { employeeId: 'EMP00003', updatedFields: [] },
  ];

  it('carries ids and changed data point names, filtered to what each vendor is shared', () => {
    const [event] = employeesUpdatedEvents(42, changes);
    expect(event!.type).toBe('employee.updated');
    expect(event!.clientOrgId).toBe(42);
    expect(event!.data(recipient(null))).toEqual({
      client_org_id: 'c-uuid',
      employees: [
        { id: 'id-1', employee_id: 'EMP00001', updated_fields: ['gender', 'ctc_basic'] },
        { employee_id: 'EMP00002', updated_fields: ['ctc_basic'] },
      ],
    });
    expect(event!.data(recipient(['gender', 'dob']))).toEqual({
      client_org_id: 'c-uuid',
      employees: [{ id: 'id-1', employee_id: 'EMP00001', updated_fields: ['gender'] }],
    });
    // Nothing this vendor may hear of: no event for it.
    expect(event!.data(recipient(['dob']))).toBeNull();
  });

  it('splits large changes into events of at most EMPLOYEES_PER_EVENT employees', () => {
    const many = Array.from({ length: 2 * EMPLOYEES_PER_EVENT + 5 }, (_, i) => ({ employeeId: `E${i}`, updatedFields: ['dob'] }));
    const events = employeesUpdatedEvents(1, many);
    expect(events.map((e) => (e.data(recipient(null)) as { employees: unknown[] }).employees.length)).toEqual([1000, 1000, 5]);
    expect(employeesUpdatedEvents(1, [{ employeeId: 'E', updatedFields: [] }])).toEqual([]);
  });
});

describe('events configuration', () => {
  const base = { HRX_MASTER_KEY: randomBytes(32).toString('base64') };

  it('defaults to a retry schedule spanning more than 24 hours, https only', () => {
    const c = loadConfig(base);
    expect(c.HRX_EVENTS_RETRY_SCHEDULE_MS).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(c.HRX_EVENTS_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    expect(c.HRX_EVENTS_ALLOW_HTTP_LOOPBACK).toBe(false);
    expect(c.HRX_EVENTS_TIMEOUT_MS).toBe(10_000);
  });

  it('takes a schedule in milliseconds and refuses a malformed one', () => {
    const c = loadConfig({ ...base, HRX_EVENTS_RETRY_SCHEDULE_MS: '10, 20,40', HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1' });
    expect(c.HRX_EVENTS_RETRY_SCHEDULE_MS).toEqual([10, 20, 40]);
    expect(c.HRX_EVENTS_ALLOW_HTTP_LOOPBACK).toBe(true);
    for (const bad of ['10,,20', '10,-5', 'abc', '1.5']) {
      expect(() => loadConfig({ ...base, HRX_EVENTS_RETRY_SCHEDULE_MS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ ...base, HRX_EVENTS_ALLOW_HTTP_LOOPBACK: 'yes' })).toThrow(/HRX_EVENTS_ALLOW_HTTP_LOOPBACK/);
  });
});
