/**
 * The compose profile `sandbox` (docs/docker.md "Sandbox"), run without a container engine: the
 * `hrms-sim` and `sandbox` services' commands, read from docker-compose.yml itself, run with the
 * real `hrx` executable against this file's hrx (API and sync worker on a fresh schema and Redis
 * prefix), with only the compose network's names and the simulator's port replaced by this
 * machine's. The one-shot must leave a vendor whose API key reads a synced employee; run again
 * (`docker compose up` starts it again), it creates no second pair of orgs and issues a new key;
 * without the simulator's host and port in HRX_HRMS_ALLOWED_HOSTS it says which setting the sandbox
 * needs. As docs/docker.md "Sandbox" has it, hrx keeps its HRMS host guard on and names only the
 * simulator's host and port (`hrms-sim:9100` there, `localhost:<port>` here).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HRX_BIN, runHrx } from '../../support/cli';
import { call, startTestApp, type TestApp } from '../../support/harness';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command: string[] }>;
  'x-hrx': { environment: Record<string, string> };
};

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A compose service's command without its leading `hrx`, each argument passed through `swap`. */
const commandOf = (service: string, swap: (arg: string) => string): string[] => compose.services[service]!.command.slice(1).map(swap);

describe('compose profile sandbox: its commands, run for real', () => {
  let app: TestApp;
  let sim: ChildProcess;
  let sandboxArgs: string[];
  let simPort: string;

  beforeAll(async () => {
    simPort = String(await freePort());
    app = await startTestApp({ env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', HRX_HRMS_ALLOWED_HOSTS: `localhost:${simPort}` } });
    const simArgs = commandOf('hrms-sim', (a) => (a === '0.0.0.0' ? '127.0.0.1' : a === '9100' ? simPort : a));
    sim = spawn(process.execPath, [HRX_BIN, ...simArgs], { env: { ...process.env, ...app.env }, stdio: ['ignore', 'pipe', 'inherit'] });
    // It prints {url, port} once it listens.
    await new Promise<void>((resolve, reject) => {
      sim.stdout!.on('data', (d: Buffer) => (d.toString().includes('"port"') ? resolve() : undefined));
      sim.on('exit', (code) => reject(new Error(`hrms-sim exited ${code}`)));
    });
    sandboxArgs = commandOf('sandbox', (a) => (a === 'http://hrx:8080' ? app.url : a.replace('http://hrms-sim:9100', `http://localhost:${simPort}`)));
  }, 60_000);

  afterAll(async () => {
    sim?.kill('SIGTERM');
    await app?.stop();
  });

  it('the one-shot leaves a vendor whose API key reads a synced employee', async () => {
    const run = await runHrx([...sandboxArgs, '--json'], app.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { created: boolean; vendor_org: string; client_org: string; api_key: string; read_url: string; employee: string };
    expect(out.created).toBe(true);
    expect(out.api_key).toMatch(/^hrx_/);
    expect(out.read_url).toBe(`${app.url}/api/employee_details/EMP00001?org=${out.client_org}&vendor_org=${out.vendor_org}`);
    const read = await call(out.read_url, { headers: { username: out.api_key } });
    expect(read.status).toBe(200);
    expect(read.body.data.employeeId).toBe('EMP00001');
    expect(read.body.data.name).toBe(out.employee);
    const connections = await call(`${app.url}/api/vendor/connections/`, { headers: { Authorization: out.api_key } });
    expect(
      connections.body.data.map((c: { org_name: string; application_connection_status: string }) => [c.org_name, c.application_connection_status]),
    ).toEqual([['Sandbox Employer', 'Active']]);
  }, 120_000);

  it('run again (compose starts it on every `up`): the same orgs, a new working API key, curl lines', async () => {
    const run = await runHrx(sandboxArgs, app.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The sandbox was set up before');
    const key = /API key \(shown this once\): (hrx_\S+)/.exec(run.stdout)![1]!;
    const url = /curl -s -H 'username: hrx_\S+' '([^']+)'/.exec(run.stdout)![1]!;
    expect((await call(url, { headers: { username: key } })).status).toBe(200);
    const orgs = await app.ctx.services.orgList.list({}, { page: 1, pageSize: 100 });
    expect(orgs.orgs.map((o) => o.org_name).sort()).toEqual(['Sandbox Employer', 'Sandbox Lender']);
  }, 120_000);

  it('compose names the simulator in HRX_HRMS_ALLOWED_HOSTS for hrx and its worker, and lifts no guard by default', () => {
    const env = compose['x-hrx'].environment;
    expect(env.HRX_HRMS_ALLOWED_HOSTS).toBe('${HRX_HRMS_ALLOWED_HOSTS:-}');
    expect(env.HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe('${HRX_HRMS_ALLOW_PRIVATE_HOSTS:-0}');
    expect(readFileSync(path.join(ROOT, 'docs/docker.md'), 'utf8')).toContain('export HRX_HRMS_ALLOWED_HOSTS=hrms-sim:9100\n');
  });

  it("without the simulator's host in HRX_HRMS_ALLOWED_HOSTS it names the setting, and creates nothing", async () => {
    const run = await runHrx(sandboxArgs, { ...app.env, HRX_HRMS_ALLOWED_HOSTS: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`set HRX_HRMS_ALLOWED_HOSTS=localhost:${simPort} (or HRX_HRMS_ALLOW_PRIVATE_HOSTS=1)`);
    expect((await app.ctx.services.orgList.list({}, { page: 1, pageSize: 100 })).pageInfo.totalItems).toBe(2);
  }, 60_000);
});
