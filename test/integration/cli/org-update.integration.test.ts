/**
 * `hrx org update UUID --purpose TEXT --privacy-url URL` (docs/connect.md "The notice
 * (DPDP Act 2023)"), through the real executable: what the Connect page then tells the HR admin of that
 * vendor. '' clears a field; a bad URL, an unknown org and no option at all are refused.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HRX_BIN, hrxJson } from '../../support/cli';
import { connectCall, openSession } from '../../support/connect';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';

const run = promisify(execFile);
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

/** Runs hrx expecting failure; its exit code and stderr. */
const fails = async (args: string[]) => {
  try {
    await run(process.execPath, [HRX_BIN, ...args], { env: { ...process.env, ...app.env }, timeout: 60_000 });
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error('hrx succeeded');
};

describe('hrx org update', () => {
  it("sets the purpose and privacy link the Connect page shows, and clears them with ''", async () => {
    const v = await f.vendor(app.ctx, 'Notice Lender');
    const out = await hrxJson(
      ['org', 'update', v.org.uuid, '--purpose', '  Salary advances for employees. ', '--privacy-url', 'https://notice.example/privacy'],
      app.env,
    );
    expect(out).toStrictEqual({
      uuid: v.org.uuid,
      org_name: 'Notice Lender',
      purpose: 'Salary advances for employees.',
      privacy_url: 'https://notice.example/privacy',
    });
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    expect((await connectCall(app.url, s, '')).body.data.notice).toMatchObject({
      vendor_purpose: 'Salary advances for employees.',
      vendor_privacy_url: 'https://notice.example/privacy',
    });
    // One field at a time; '' clears.
    expect(await hrxJson(['org', 'update', v.org.uuid, '--privacy-url', ''], app.env)).toMatchObject({
      purpose: 'Salary advances for employees.',
      privacy_url: null,
    });
    expect((await connectCall(app.url, s, '')).body.data.notice).toMatchObject({ vendor_purpose: 'Salary advances for employees.', vendor_privacy_url: null });
  });

  it('refuses a link that is not http(s), an unknown org, and no option', async () => {
    const v = await f.vendor(app.ctx);
    for (const url of ['javascript:alert(1)', 'ftp://x.example/p', 'https://user:pw@x.example/', 'not a url']) {
      expect(await fails(['org', 'update', v.org.uuid, '--privacy-url', url])).toStrictEqual({
        code: 1,
        stderr: 'hrx: privacy_url: must be an http:// or https:// URL\n',
      });
    }
    expect(await fails(['org', 'update', '5d0c3f55-52a4-4d8e-9a38-6e3a3b0e9a11', '--purpose', 'x'])).toStrictEqual({
      code: 1,
      stderr: 'hrx: no org with uuid 5d0c3f55-52a4-4d8e-9a38-6e3a3b0e9a11\n',
    });
    expect((await fails(['org', 'update', v.org.uuid])).code).toBe(2);
    expect((await app.ctx.services.orgs.byId(v.org.id))?.privacyUrl).toBeNull();
  });
});
