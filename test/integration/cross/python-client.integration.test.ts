/**
 * The Python client (`clients/python`, docs/clients.md) against a real hrx: this suite starts hrx
 * with its events worker (delivering to loopback, where the client's tests run their receiver),
 * seeds a vendor with an API key, a registered RSA key and a V2 Basic credential, an employer,
 * an approved connection and an employee, and runs the client's own tests with
 * `/usr/bin/python3 -m pytest` (Debian's python3-requests, python3-jwcrypto, python3-pytest),
 * the URL, keys and ids in `HRX_*` variables. Its pay history and credential tests skip
 * themselves while this hrx's OpenAPI document lists no such route. The presentation the client
 * makes (chosen disclosures and a KB-JWT by the vendor's key) is then verified by hrx's own
 * `hrx credential verify --aud --nonce`, online against this hrx (its HRX_PUBLIC_URL).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/domain/record';
import { storesOf } from '../../support/db';
import { runHrx } from '../../support/cli';
import { client, connection, v2Vendor } from '../../support/factories';
import { freePort, startTestApp, type TestApp } from '../../support/harness';

const PYTHON = '/usr/bin/python3';
const CLIENT_DIR = path.resolve(__dirname, '../../../clients/python');

/** Runs the client's pytest suite with `env`; resolves with its exit code and output. */
function pytest(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', 'tests'], {
      cwd: CLIENT_DIR,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the Python client against a running hrx', () => {
  let app: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The issuer (and so each credential's status list `uri`) is this hrx's own URL, as in production.
    const port = await freePort();
    app = await startTestApp({
      worker: false,
      port,
      env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '200,200', HRX_PUBLIC_URL: `http://127.0.0.1:${port}` },
    });
    await app.startEventsWorker();
    const v = await v2Vendor(app.ctx, { kid: 'lender-2026' });
    const c = await client(app.ctx);
    const conn = await connection(app.ctx, v.org.uuid, c.org.uuid);
    const person = { employeeId: 'EMP00042', name: 'Asha Rao', pan: 'ABCDE1234F', salaryDetails: { ctc: { basic: 600000 } } };
    await storesOf(app).employees.upsertBatch(c.org.id, null, [normalizeRecord(person, randomUUID())]);
    env = {
      HRX_BASE_URL: app.url,
      HRX_API_KEY: v.apiKey,
      HRX_VENDOR_ORG: v.org.uuid,
      HRX_CLIENT_ORG: c.org.uuid,
      HRX_CONNECTION_ID: conn.id,
      HRX_EMPLOYEE_ID: person.employeeId,
      HRX_EMPLOYEE_NAME: person.name,
      HRX_EMPLOYEE_PAN: person.pan,
      HRX_V2_USERNAME: v.username,
      HRX_V2_PASSWORD: v.password,
      HRX_V2_PRIVATE_JWK: JSON.stringify(v.privateJwk),
    };
  });
  afterAll(async () => app?.stop());

  it('passes its own tests: plain and V2 reads, a signed event verified, self-service, offline SD-JWT checks, the credential', async () => {
    const presentation = path.join(mkdtempSync(path.join(tmpdir(), 'hrx-py-')), 'vp.txt');
    const { code, out } = await pytest({ ...env, HRX_PRESENTATION_OUT: presentation });
    expect(out, out).toMatch(/\d+ passed/);
    expect(out).not.toMatch(/SKIPPED.*test_credential/);
    // The client's presentation, verified by hrx's verifier (online: JWKS and status list from this hrx).
    const args = ['credential', 'verify', presentation, '--json', '--aud', 'https://co-lender.example'];
    const good = await runHrx([...args, '--nonce', 'n-123'], app.env);
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ result: 'valid', claims: { employee: { employee_id: 'EMP00042' } } });
    expect(JSON.parse(good.stdout).claims).not.toHaveProperty('employer');
    const wrong = await runHrx([...args, '--nonce', 'n-456'], app.env);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ result: 'invalid' });
    expect(code, out).toBe(0);
    // The reads, the webhook and the offline checks ran (not skipped) against this hrx.
    expect(out).not.toMatch(/SKIPPED.*(test_reads|test_webhooks|test_offline)/);
    const passed = Number(/(\d+) passed/.exec(out)![1]);
    expect(passed).toBeGreaterThanOrEqual(9);
  }, 120_000);

  it('fails when a check cannot pass: a wrong V2 key makes pytest fail (the suite can fail)', async () => {
    const { publicKey: _p, privateKey } = await import('node:crypto').then((m) => m.generateKeyPairSync('rsa', { modulusLength: 2048 }));
    const { code, out } = await pytest({ ...env, HRX_V2_PRIVATE_JWK: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'lender-2026' }) });
    expect(code, out).toBe(1);
    expect(out).toMatch(/test_v2_read_is_unmasked_signed_and_sealed/);
  }, 120_000);
});
