/**
 * `hrx credential present` and `hrx credential verify` through the real executable
 * (docs/credentials.md "Verifying", "Presenting"): offline with a saved JWKS and status list, a
 * presentation with its nonce and audience, and `revoked` once the vendor revoked the credential.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHrx } from '../../support/cli';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, onApp } from '../../support/credentials';

let app: TestApp;
let dir: string;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  dir = mkdtempSync(path.join(tmpdir(), 'hrx-cred-'));
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

const save = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};

describe('hrx credential verify and present', () => {
  it('valid offline, a presentation checks its nonce and aud, and revoked after DELETE', async () => {
    const w = await credentialWorld(app.ctx);
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
    expect(res.status).toBe(201);
    const sdJwt = res.body.data.sd_jwt as string;
    const cred = save('cred.txt', sdJwt);
    const jwks = save('jwks.json', await (await fetch(`${app.url}/.well-known/jwks.json`)).text());
    const uri = (decodeJwt(sdJwt.split('~')[0]!) as { status: { status_list: { uri: string } } }).status.status_list.uri;
    const list = async () => save('list.jwt', await (await fetch(onApp(app.url, uri))).text());

    const ok = await runHrx(['credential', 'verify', cred, '--jwks', jwks, '--status-list', await list(), '--json'], app.env);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ result: 'valid', claims: { employee: { employee_id: 'E1' }, employment: { status: 'Active' } } });

    const key = save('key.json', JSON.stringify(w.v.privateJwk));
    const p = await runHrx(
      ['credential', 'present', cred, '--key', key, '--disclose', 'employment', '--aud', 'https://co-lender.example', '--nonce', 'abc'],
      app.env,
    );
    expect(p.code).toBe(0);
    const vp = save('vp.txt', p.stdout.trim());
    const args = ['credential', 'verify', vp, '--jwks', jwks, '--status-list', await list(), '--json'];
    const good = await runHrx([...args, '--aud', 'https://co-lender.example', '--nonce', 'abc'], app.env);
    expect(JSON.parse(good.stdout)).toMatchObject({ result: 'valid', claims: { employment: { status: 'Active' } } });
    expect(JSON.parse(good.stdout).claims).not.toHaveProperty('employee');
    const wrong = await runHrx([...args, '--aud', 'https://co-lender.example', '--nonce', 'other'], app.env);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ result: 'invalid' });

    expect(
      (await call(`${app.url}/api/credentials/${res.body.data.credential_id}/`, { method: 'DELETE', headers: { authorization: w.v.apiKey } })).status,
    ).toBe(200);
    const revoked = await runHrx(['credential', 'verify', cred, '--jwks', jwks, '--status-list', await list(), '--json'], app.env);
    expect(revoked.code).toBe(1);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ result: 'revoked' });
  });
});
