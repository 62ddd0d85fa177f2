/**
 * The HRMS host guard (SSRF) over real HTTP: an hrx started with HRX_HRMS_ALLOW_PRIVATE_HOSTS=0
 * refuses setup-config and the Connect flow's HRMS step for loopback, private and link-local hosts
 * with `400 HRMS credentials rejected: the HRMS could not be reached` (the words of a host that
 * did not answer: no oracle, docs/behaviour.md "HRMS hosts") and non-http(s) hosts with `400 HRMS
 * credentials rejected: host not allowed`, storing and queueing
 * nothing and never contacting the host; a name resolving to loopback is refused where the
 * socket is made. A stored configuration pointing at such a host fails its sync at once (a failed
 * run, the configuration marked invalid) and its live reads. An hrx with the guard off (the
 * tests' default) reaches the same hosts: the control of each refusal.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HrmsError, type HrmsCredentials } from '../../../src/hrms/connector';
import { createHostPolicy, type Resolver } from '../../../src/outbound/host-policy';
import { connectorsWith } from '../../../src/hrms/registry';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { expectError } from '../../support/expect-error';
import { dbQuery, storesOf } from '../../support/db';

const REFUSED = { code: 400, error: 'hrms_credentials_rejected', message: 'HRMS credentials rejected: the HRMS could not be reached', data: null };
const NOT_HTTP = { code: 400, error: 'hrms_credentials_rejected', message: 'HRMS credentials rejected: host not allowed', data: null };
const simCreds = { clientId: 'guard-client', clientSecret: 'guard-secret-value-7c1' };

let guarded: TestApp;
let open: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let sim6: Awaited<ReturnType<typeof startSim>>;
let nothingServed: () => void;

beforeAll(async () => {
  [guarded, open] = await Promise.all([startTestApp({ worker: false, env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0' } }), startTestApp({ worker: false })]);
  expect(guarded.config.HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(false);
  expect(open.config.HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(true);
  sim = await startSim({ employees: 3, ...simCreds });
  sim6 = await startSim({ employees: 3, host: '::1', ...simCreds });
  nothingServed = () => {
    for (const s of [sim, sim6]) expect(s.control.stats()).toMatchObject({ tokenRequests: 0, pageRequests: 0, employeeRequests: 0 });
  };
});
afterAll(async () => {
  await sim?.close();
  await sim6?.close();
  await guarded?.stop();
  await open?.stop();
});

const resetStats = () => {
  sim.control.resetStats();
  sim6.control.resetStats();
};
const setup = (app: TestApp, c: Awaited<ReturnType<typeof f.client>>, host: string) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...f.setupBody(c, sim, simCreds), access_credentials: { ...f.setupBody(c, sim, simCreds).access_credentials, hrms_host: host } }),
  });
/** The org's stored configuration rows, its sync queued now (setup's) and its job scheduler. */
const stored = async (app: TestApp, orgId: number) => {
  const configs = Number((await dbQuery(app, `select count(*) from hrms_configs where org_id = $1`, [orgId])).rows[0].count);
  const jobs = (await app.ctx.syncQueue.queue.getJobs(['waiting', 'delayed', 'prioritized', 'paused', 'active'])).filter(
    (j) => j.data.orgId === orgId && j.data.trigger === 'setup',
  ).length;
  const scheduler = await app.ctx.syncQueue.queue.getJobScheduler(`sync-org-${orgId}`);
  return { configs, jobs, scheduler: scheduler ? 1 : 0 };
};

describe('HRMS host guard (HRX_HRMS_ALLOW_PRIVATE_HOSTS)', () => {
  describe('setup-config', () => {
    it('refuses the simulator on 127.0.0.1 with the exact 400 body, stores and queues nothing, contacts nothing', async () => {
      const v = await f.vendor(guarded.ctx);
      const c = await f.client(guarded.ctx);
      await f.connection(guarded.ctx, v.org.uuid, c.org.uuid, { syncFrequency: 'hourly' });
      resetStats();
      const res = await setup(guarded, c, sim.url);
      expectError(res, 400, REFUSED);
      expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
      expect(await stored(guarded, c.org.id)).toEqual({ configs: 0, jobs: 0, scheduler: 0 });
      nothingServed();
    });

    it('the same setup succeeds with the guard off (control): stored, a sync queued, the simulator asked', async () => {
      const v = await f.vendor(open.ctx);
      const c = await f.client(open.ctx);
      await f.connection(open.ctx, v.org.uuid, c.org.uuid, { syncFrequency: 'hourly' });
      resetStats();
      const res = await setup(open, c, sim.url);
      expect(res.status).toBe(200);
      expect(await stored(open, c.org.id)).toEqual({ configs: 1, jobs: 1, scheduler: 1 });
      expect(sim.control.stats().tokenRequests).toBe(1);
    });

    const hosts = () => [
      `http://localhost:${sim.port}`, // a name: refused by the lookup, at connection time
      `http://LOCALHOST:${sim.port}/`,
      `http://127.1:${sim.port}/`, // 127.0.0.1 once the URL is parsed
      `http://[::1]:${sim6.port}`,
      `http://[::ffff:127.0.0.1]:${sim.port}`,
      `http://2130706433:${sim.port}/`, // 127.0.0.1 spelled as one number
      `http://0.0.0.0:${sim.port}`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'https://192.168.1.20:8443/hrms',
      'http://[fd00::1]/',
      `ftp://127.0.0.1:${sim.port}/`,
      'ftp://hrms.example.com/',
      'file:///etc/passwd',
      'gopher://hrms.example.com:70/_x',
    ];

    it('refuses loopback names and IP literals of every refused kind as unreachable, and non-http(s) schemes as not allowed', async () => {
      const c = await f.client(guarded.ctx);
      for (const host of hosts()) {
        resetStats();
        const res = await setup(guarded, c, host);
        expect({ host, status: res.status, body: res.body }).toStrictEqual({
          host,
          status: 400,
          body: { requestId: res.headers.get('x-request-id'), ...(/^https?:/.test(host) ? REFUSED : NOT_HTTP) },
        });
        nothingServed();
      }
      expect(await stored(guarded, c.org.id)).toEqual({ configs: 0, jobs: 0, scheduler: 0 });
    });

    it('refuses a non-http(s) host in api_configs too (stored with the configuration, never called)', async () => {
      const c = await f.client(open.ctx);
      const body = f.setupBody(c, sim, simCreds);
      const apiConfig = (host: string) => ({ api_id: 'payroll', access_credentials: { ...body.access_credentials, hrms_host: host } });
      const post = (host: string) =>
        call(`${open.url}/api/webhook/v1/setup-config/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...body, api_configs: [apiConfig(host)] }),
        });
      expectError(await post('file:///etc/passwd'), 400, NOT_HTTP);
      expect(await stored(open, c.org.id)).toEqual({ configs: 0, jobs: 0, scheduler: 0 });
      expect((await post(`${sim.url}/payroll`)).status).toBe(200);
    });

    it('with the guard off, localhost and [::1] reach the simulators (control of the refusals above)', async () => {
      for (const host of [`http://localhost:${sim.port}`, `http://[::1]:${sim6.port}`]) {
        const c = await f.client(open.ctx);
        expect((await setup(open, c, host)).status, host).toBe(200);
      }
      // Non-http(s) schemes are refused with the guard off too.
      const c = await f.client(open.ctx);
      expectError(await setup(open, c, `ftp://127.0.0.1:${sim.port}/`), 400, NOT_HTTP);
    });
  });

  describe('the Connect flow HRMS step', () => {
    const connectHrms = async (app: TestApp, host: string) => {
      const v = await f.vendor(app.ctx);
      const tok = await f.sdkToken(app.ctx, v.org);
      const session = await openSession(app.url, tok.access_token);
      await verifyEmail(app, session);
      const res = await connectCall(app.url, session, 'hrms/', {
        hrms_id: 'reference',
        access_credentials: { grant_type: 'client_credentials', client_id: simCreds.clientId, client_secret: simCreds.clientSecret, hrms_host: host },
      });
      const orgId = Number((await dbQuery(app, `select id from orgs where uuid = $1`, [tok.org_id])).rows[0].id);
      return { res, orgId };
    };

    it('refuses a loopback host with the same 400 and stores nothing', async () => {
      for (const host of [sim.url, `http://localhost:${sim.port}`, 'http://169.254.169.254/']) {
        resetStats();
        const { res, orgId } = await connectHrms(guarded, host);
        expectError(res, 400, REFUSED);
        expect(await stored(guarded, orgId)).toEqual({ configs: 0, jobs: 0, scheduler: 0 });
        nothingServed();
      }
    });

    it('accepts the same host with the guard off (control)', async () => {
      const { res, orgId } = await connectHrms(open, `http://localhost:${sim.port}`);
      expect(res.status).toBe(200);
      expect((await stored(open, orgId)).configs).toBe(1);
    });
  });
});

describe('HRMS host guard (HRX_HRMS_ALLOW_PRIVATE_HOSTS): a stored configuration whose host is refused (stored while allowed, or its name now resolves privately)', () => {
  describe('a stored configuration whose host is refused (stored while allowed, or its name now resolves privately)', () => {
    const prepare = async (app: TestApp) => {
      const v = await f.vendor(app.ctx);
      const c = await f.client(app.ctx);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
      const credentials: HrmsCredentials = {
        hrms_host: `http://localhost:${sim.port}`,
        grant_type: 'client_credentials',
        client_id: simCreds.clientId,
        client_secret: simCreds.clientSecret,
      };
      await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'reference', credentials, apiConfigs: [] });
      resetStats();
      return { v, c };
    };

    it('fails its sync at once, without retries: a failed run, the configuration marked invalid, the host never contacted', async () => {
      const { c } = await prepare(guarded);
      const started = performance.now();
      const outcome = await guarded.ctx.services.sync.run(c.org.id, 'test', 'guard-job-1');
      // HRX_HRMS_RETRIES=12 from 20 ms with backoff in the tests: a retried failure would take over 80 s.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(outcome).toMatchObject({ status: 'failed', reason: 'host_not_allowed' });
      const runs = (await dbQuery(guarded, `select status, error from sync_runs where org_id = $1`, [c.org.id])).rows;
      expect(runs).toEqual([{ status: 'failed', error: 'host_not_allowed: HRMS host not allowed on token request' }]);
      const cfg = await storesOf(guarded).hrmsConfigs.load(c.org.id);
      expect(cfg).toMatchObject({ valid: false, invalidReason: 'the HRMS host is not allowed' });
      nothingServed();
    });

    it('fails its live reads without contacting the host', async () => {
      const { v, c } = await prepare(guarded);
      const res = await call(`${guarded.url}/api/employee_details/EMP00001?org=${c.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`, {
        headers: { username: v.apiKey },
      });
      expect(res.status).toBe(500);
      nothingServed();
    });

    it('with the guard off the same configuration syncs and serves live reads (control)', async () => {
      const { v, c } = await prepare(open);
      expect(await open.ctx.services.sync.run(c.org.id, 'test', 'guard-job-2')).toMatchObject({ status: 'succeeded', employees: 3 });
      const res = await call(`${open.url}/api/employee_details/EMP00001?org=${c.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`, {
        headers: { username: v.apiKey },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.employeeId).toBe('EMP00001');
    });
  });

  describe('connectors from the registry wiring', () => {
    /** A policy whose resolver answers `answer` for every name and counts its calls (DNS rebinding, pinned). */
    const rebinding = (answer: LookupAddress[]) => {
      const calls: string[] = [];
      const resolve: Resolver = (hostname, _o, cb) => {
        calls.push(hostname);
        queueMicrotask(() => cb(null, answer));
      };
      return { calls, policy: createHostPolicy({ resolve }) };
    };
    const access = (credentials: HrmsCredentials) => ({ credentials, apiConfigs: [] });
    const creds = (host: string): HrmsCredentials => ({
      hrms_host: host,
      grant_type: 'client_credentials',
      client_id: simCreds.clientId,
      client_secret: simCreds.clientSecret,
    });
    const caught = async (p: Promise<unknown>): Promise<HrmsError> => {
      try {
        await p;
      } catch (err) {
        expect(err).toBeInstanceOf(HrmsError);
        return err as HrmsError;
      }
      throw new Error('expected an HrmsError');
    };

    it('checks the address the socket is made to: a name resolving to loopback is refused once, never retried', async () => {
      const { calls, policy } = rebinding([{ address: '127.0.0.1', family: 4 }]);
      // The caller's own options cannot drop the wiring's policy.
      const factory = connectorsWith({ hostPolicy: policy })('reference')!;
      const opts = { retries: 5, minRetryDelayMs: 1, hostPolicy: undefined };
      resetStats();
      const listed = await caught(
        (async () => {
          for await (const _ of factory.create(access(creds(`http://hrms.rebind.invalid:${sim.port}`)), opts).listEmployees()) {
            /* none */
          }
        })(),
      );
      expect([listed.kind, listed.message]).toEqual(['host_not_allowed', 'HRMS host not allowed on token request']);
      expect(calls).toEqual(['hrms.rebind.invalid']);
      const apiKey = factory.create(access({ ...creds(`http://hrms.rebind.invalid:${sim.port}`), grant_type: 'api_key', api_key: 'k' }), opts);
      expect((await caught(apiKey.getEmployee('EMP00001'))).kind).toBe('host_not_allowed');
      expect(calls).toHaveLength(2);
      nothingServed();
    });

    it('never reuses a keep-alive socket another client of the process left open to that host', async () => {
      // A plain request through node's global agent leaves a free keep-alive socket to localhost:PORT.
      await new Promise<void>((resolve, reject) => {
        http
          .get({ host: 'localhost', port: sim.port, path: '/nowhere', agent: http.globalAgent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
      expect(Object.keys(http.globalAgent.freeSockets).some((name) => name.startsWith(`localhost:${sim.port}:`))).toBe(true);
      resetStats();
      const factory = connectorsWith({ hostPolicy: createHostPolicy() })('reference')!;
      expect((await caught(factory.create(access(creds(`http://localhost:${sim.port}`)), { retries: 0 }).verifyCredentials())).kind).toBe('host_not_allowed');
      nothingServed();
    });
  });
});
