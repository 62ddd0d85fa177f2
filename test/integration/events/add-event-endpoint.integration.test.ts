/**
 * `POST /api/vendor/endpoints/` (docs/api.md "Vendor self-service"): the operator's rules over
 * the vendor's key. 201 with the secret shown once (stored encrypted); https only; a host that
 * is, or resolves to, a private, loopback, link-local or reserved address refused at
 * registration (the guard is on here: no loopback allowance); unknown event types refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointSecretAad } from '../../../src/events/signing';
import { ormQuery } from '../../support/db';
import { expectError, invalid } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

describe('POST /api/vendor/endpoints/', () => {
  let app: TestApp;
  let v: Awaited<ReturnType<typeof vendor>>;
  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '0', HRX_EVENTS_ALLOW_PRIVATE_HOSTS: '0' } });
    v = await vendor(app.ctx);
  });
  afterAll(async () => app?.stop());
  const add = (body: unknown) => vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', body);

  it('201 with the signing secret, shown once and kept only encrypted', async () => {
    // A public address literal: nothing is resolved or connected to at registration.
    const res = await add({ url: 'https://93.184.215.14/hooks/hrx', events: ['connection.approved', 'sync.completed'] });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toEqual({
      id: expect.any(String),
      url: 'https://93.184.215.14/hooks/hrx',
      events: ['connection.approved', 'sync.completed'],
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const [row] = await ormQuery(app, `select org_id, secret_enc from event_endpoints where id = ?`, [d.id]);
    expect(row.org_id).toBe(v.org.id);
    expect(row.secret_enc).not.toContain(d.secret.slice(6));
    expect(app.ctx.cipher.decrypt(row.secret_enc, endpointSecretAad(d.id))).toBe(d.secret);
    const listed = await vendorCall(app, v.apiKey, 'GET', '/api/vendor/endpoints/');
    expect(JSON.stringify(listed.body)).not.toContain(d.secret);
  });

  it('a retry with the same Idempotency-Key registers one endpoint and answers the first answer, secret included (kept encrypted)', async () => {
    const idem = `add-endpoint-${v.org.uuid}`;
    const body = JSON.stringify({ url: 'https://93.184.215.14/hooks/idempotent' });
    const send = () =>
      call(`${app.url}/api/vendor/endpoints/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/json', 'idempotency-key': idem },
        body,
      });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.data.secret).toMatch(/^whsec_/);
    const rows = await ormQuery(app, `select id from event_endpoints where org_id = ? and url = ?`, [v.org.id, 'https://93.184.215.14/hooks/idempotent']);
    expect(rows).toEqual([{ id: first.body.data.id }]);
    // docs/api.md "Idempotency": the kept answer is encrypted at rest; the secret is not readable in the table.
    const kept = await ormQuery(app, `select answer from idempotency_keys where answer is not null`);
    expect(kept.length).toBeGreaterThan(0);
    expect(JSON.stringify(kept)).not.toContain(first.body.data.secret.slice(6));
  });

  it.each([
    ['https://10.0.0.7/hook', 'a private address'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata (link-local)'],
    ['https://[::1]/hook', 'IPv6 loopback'],
    ['https://[::ffff:192.168.1.1]/hook', 'an IPv4-mapped private address'],
    ['https://localhost/hook', 'a name resolving to loopback'],
  ])('400 for %s (%s), and nothing registered', async (url) => {
    expectError(await add({ url }), 400, invalid('url', 'must not point to a private, loopback, link-local or reserved address'));
    expect(await ormQuery(app, `select 1 from event_endpoints where url like ?`, [`${url.slice(0, 20)}%`])).toEqual([]);
  });

  it('400 for http (no loopback allowance), an unknown event type, a missing url', async () => {
    expectError(
      await add({ url: 'http://hooks.example.com/x' }),
      400,
      invalid('url', 'must use https (plain http only to a loopback host with HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1)'),
    );
    const bad = await add({ url: 'https://93.184.215.14/x', events: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.data.errors[0].field).toBe('events.0');
    expect((await add({})).status).toBe(400);
  });
});
