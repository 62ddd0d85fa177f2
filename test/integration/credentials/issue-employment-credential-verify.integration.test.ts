/**
 * What a verifier of an hrx credential rejects (docs/credentials.md "Verifying"), with the
 * maintained library hrx uses and, independently, with node:crypto alone: a disclosure not in
 * `_sd`, a changed claim, `alg: none` and HS256 headers, another token of the issuer (its status
 * list) for a credential, an expired credential, a KB-JWT by
 * another key than `cnf`, a wrong `aud` or `nonce`, a wrong `sd_hash`.
 */
import { createHash, createPublicKey, generateKeyPairSync, verify as nodeVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, onApp, present, verifyOnApp } from '../../support/credentials';

let app: TestApp;
let w: Awaited<ReturnType<typeof credentialWorld>>;
let sdJwt: string;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  w = await credentialWorld(app.ctx);
  const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
  expect(res.status).toBe(201);
  sdJwt = res.body.data.sd_jwt as string;
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const parts = (s: string) => {
  const [jwt, ...rest] = s.split('~');
  const [h, p, sig] = jwt!.split('.');
  return { h: h!, p: p!, sig: sig!, disclosures: rest.filter(Boolean), kb: rest[rest.length - 1] ?? '' };
};

describe('the issuer-signed JWT and disclosures', () => {
  it('verifies as issued', async () => {
    expect(await verifyOnApp(app.url, sdJwt)).toMatchObject({ ok: true });
  });

  it('rejects a disclosure not in _sd', async () => {
    const extra = b64(['c2FsdA', 'employment', { status: 'Active', designation: 'CEO' }]);
    expect(await verifyOnApp(app.url, `${sdJwt}${extra}~`)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('rejects a changed claim value (in a disclosure or in the payload)', async () => {
    const { h, p, sig, disclosures } = parts(sdJwt);
    const changed = disclosures.map((d) => Buffer.from(d, 'base64url').toString('utf8').replace('Engineer', 'Director'));
    const forged = `${h}.${p}.${sig}~${changed.map((d) => Buffer.from(d).toString('base64url')).join('~')}~`;
    expect(await verifyOnApp(app.url, forged)).toMatchObject({ ok: false, reason: 'invalid' });
    const payload = decodeJwt(`${h}.${p}.${sig}`);
    const forgedPayload = `${h}.${b64({ ...payload, exp: (payload.exp as number) + 86_400 * 365 })}.${sig}~${disclosures.join('~')}~`;
    expect(await verifyOnApp(app.url, forgedPayload)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('rejects alg none and HS256 headers', async () => {
    const { p, disclosures } = parts(sdJwt);
    const none = `${b64({ typ: 'dc+sd-jwt', alg: 'none' })}.${p}.~${disclosures.join('~')}~`;
    expect(await verifyOnApp(app.url, none)).toMatchObject({ ok: false, reason: 'invalid' });
    const jwks = (await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string; x?: string }[] };
    const es = jwks.keys.find((k) => k.alg === 'ES256')!;
    // HS256 keyed with the public key's own bytes: the classic algorithm-confusion forgery.
    const h = b64({ typ: 'dc+sd-jwt', alg: 'HS256', kid: es.kid });
    const { createHmac } = await import('node:crypto');
    const mac = createHmac('sha256', Buffer.from(es.x!, 'base64url')).update(`${h}.${p}`).digest('base64url');
    expect(await verifyOnApp(app.url, `${h}.${p}.${mac}~${disclosures.join('~')}~`)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('rejects another token the issuer signed (its status list) presented as a credential, by its typ', async () => {
    const { uri } = (decodeJwt(sdJwt.split('~')[0]!) as { status: { status_list: { uri: string } } }).status.status_list;
    const listToken = await (await fetch(onApp(app.url, uri))).text();
    expect(await verifyOnApp(app.url, `${listToken}~`)).toStrictEqual({ ok: false, reason: 'invalid', detail: 'header typ is not dc+sd-jwt' });
  });

  it('rejects an expired credential', async () => {
    const exp = decodeJwt(sdJwt.split('~')[0]!).exp as number;
    expect(await verifyOnApp(app.url, sdJwt, { now: exp + 1 })).toMatchObject({ ok: false, reason: 'expired' });
  });
});

describe('presentations (KB-JWT)', () => {
  it('verifies with the chosen disclosures only', async () => {
    const vp = await present(sdJwt, w.v.privateJwk, ['employment', 'pay']);
    const verdict = await verifyOnApp(app.url, vp, { keyBinding: { nonce: 'n-1', aud: 'https://co-lender.example' } });
    expect(verdict).toMatchObject({ ok: true });
    if (verdict.ok)
      expect(
        Object.keys(verdict.claims)
          .filter((k) => ['employer', 'employee', 'employment', 'pay'].includes(k))
          .sort(),
      ).toEqual(['employment', 'pay']);
  });

  it('rejects a KB-JWT by another key than cnf, a wrong aud or nonce, a wrong sd_hash', async () => {
    const kb = { keyBinding: { nonce: 'n-1', aud: 'https://co-lender.example' } };
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    expect(await verifyOnApp(app.url, await present(sdJwt, stranger, ['employment']), kb)).toMatchObject({ ok: false, reason: 'invalid' });
    expect(await verifyOnApp(app.url, await present(sdJwt, w.v.privateJwk, ['employment'], 'https://other.example'), kb)).toMatchObject({ ok: false });
    expect(await verifyOnApp(app.url, await present(sdJwt, w.v.privateJwk, ['employment'], undefined, 'n-2'), kb)).toMatchObject({ ok: false });
    // A KB-JWT made for one presentation, put on another (its sd_hash names the first).
    const a = await present(sdJwt, w.v.privateJwk, ['employment']);
    const b = await present(sdJwt, w.v.privateJwk, ['pay']);
    const swapped = `${b.slice(0, b.lastIndexOf('~') + 1)}${a.slice(a.lastIndexOf('~') + 1)}`;
    expect(await verifyOnApp(app.url, swapped, kb)).toMatchObject({ ok: false, reason: 'invalid' });
  });
});

describe('an independent check (node:crypto only, nothing of hrx)', () => {
  it('checks the ES256 signature against the JWKS over HTTP and every disclosure digest against _sd', async () => {
    const { h, p, sig, disclosures } = parts(sdJwt);
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { kid: string; alg: string; typ: string };
    expect(header).toMatchObject({ alg: 'ES256', typ: 'dc+sd-jwt' });
    const jwks = (await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    const jwk = jwks.keys.find((k) => k.kid === header.kid)!;
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    expect(nodeVerify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))).toBe(true);
    expect(nodeVerify('sha256', Buffer.from(`${h}.${p}x`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))).toBe(false);
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { _sd: string[]; _sd_alg: string };
    expect(payload._sd_alg).toBe('sha-256');
    const names: string[] = [];
    for (const d of disclosures) {
      expect(payload._sd).toContain(createHash('sha256').update(d).digest('base64url'));
      names.push((JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as [string, string, unknown])[1]);
    }
    expect(names.sort()).toEqual(['employee', 'employer', 'employment', 'pay']);
  });
});
