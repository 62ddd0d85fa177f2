/**
 * The files `npm run new:hrms -- <hrms_id>` writes (scripts/new-hrms.ts): a working product folder
 * for a placeholder API (one API key over HTTP Basic, `GET /api/v1/employees?page=&per_page=`,
 * `GET /api/v1/employees/{id}`) on the shared mechanics of src/hrms/README.md, its simulator on the
 * kit (`dialectSim`, `basicOk`) and its test. Every `TODO(new:hrms)` marks what the vendor's own
 * API replaces; until then the product passes the conformance suite against its simulator.
 */

/** The names one `hrms_id` gives the code: `acme_hr` → `ACME_HR`, `AcmeHr`, `Acme Hr`. */
export interface ProductNames {
  id: string;
  /** Constant prefix, `ACME_HR`. */
  upper: string;
  /** Type and function stem, `AcmeHr`. */
  pascal: string;
  /** A display name until the vendor's own is written in, `Acme Hr`. */
  display: string;
}

/** The names of `id` (a valid `hrms_id`: lower case letters, digits and `_`, starting with a letter). */
export function namesOf(id: string): ProductNames {
  const words = id.split('_').filter(Boolean);
  const cap = (w: string): string => w[0]!.toUpperCase() + w.slice(1);
  return { id, upper: id.toUpperCase(), pascal: words.map(cap).join(''), display: words.map(cap).join(' ') };
}

const index = ({
  id,
  upper,
  pascal,
  display,
}: ProductNames): string => `/** The \`${id}\` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { ${upper}_MAX_PAGE } from './connector';
import { ${upper}_DEFINITION } from './definition';
import { ${upper}_MAPPING } from './mapping';
import { ${upper}_PRODUCT } from './product';

/** ${display}. */
export const product: HrmsProductModule<'${id}'> = {
  hrmsId: '${id}',
  definition: ${upper}_DEFINITION,
  info: ${upper}_PRODUCT,
  startSim: async (options) => (await import('./sim')).start${pascal}Sim(options),
  docsPage: 'src/hrms/${id}/README.md',
  // TODO(new:hrms): publishedApi, when the vendor publishes a machine-readable description.
  // One page per \`pageSize\` employees, no token.
  minSyncRequests: (sim, pageSize) => Math.max(1, Math.ceil(sim.employeeIds().length / pageSize(${upper}_MAX_PAGE))),
  mapping: ${upper}_MAPPING,
};
`;

const definition = ({
  id,
  upper,
  pascal,
  display,
}: ProductNames): string => `/** The \`${id}\` product (src/hrms/${id}/README.md): \`grant_type\` \`api_key\`, the key in \`access_credentials.api_key\`, no \`api_configs\`. */
import type { HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { create${pascal}Connector } from './connector';

/**
 * ${display}'s definition. TODO(new:hrms): the vendor's published limit as \`budget\`; \`tenantByClientId\`
 * when every company shares one API host; \`incremental\` and \`reportsRemovals\` once the connector
 * lists changes.
 */
export const ${upper}_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: '${id}',
  checkCredentials: (access) => productCredentialProblems(access, { hrmsId: '${id}', grantType: 'api_key', required: ['api_key'], apiIds: [] }),
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: false,
  create: create${pascal}Connector,
};
`;

const productInfo = ({
  id,
  upper,
  display,
}: ProductNames): string => `/** What an employer enters for ${display} (src/hrms/${id}/README.md), in the vendor's own words (TODO(new:hrms)). */
import type { HrmsProductInfo } from '../product-info';

/** ${display}'s entry of \`HRMS_PRODUCTS\`. */
export const ${upper}_PRODUCT: HrmsProductInfo = {
  hrmsId: '${id}',
  displayName: '${display}',
  grantType: 'api_key',
  fields: [
    {
      target: 'hrms_host',
      label: 'Company address',
      help: 'The address you sign in to ${display} at.',
      required: true,
      secret: false,
      placeholder: 'https://acme.example.com',
    },
    { target: 'api_key', label: 'API key', help: "Created in ${display}'s settings; it is shown once.", required: true, secret: true },
  ],
};
`;

const mapping = ({ upper, pascal, display }: ProductNames): string => `/**
 * ${display} employee -> hrx \`PartialEmployeeRecord\`, as rows (src/hrms/mapping-table.ts): the
 * README's "What is mapped" table is written from them by \`npm run docs\`.
 * TODO(new:hrms): the vendor's field names, each row citing the page or description line that documents it.
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { enumValue, isoDate, text, type FieldWarner } from '../decode';
import { mapByRows, requestedFields, type MappingTable } from '../mapping-table';

const SOURCE = 'TODO(new:hrms): the vendor page documenting the employee fields';
/** \`status\` -> hrx \`status\`. */
const STATUS: Readonly<Record<string, string>> = { ACTIVE: 'Active', INACTIVE: 'Inactive' };

/** ${display}'s mapping rows. */
export const ${upper}_MAPPING: MappingTable = {
  answeredAlways: ['id'],
  rows: [
    { point: 'employeeId', fields: ['id'], read: (r) => text(r.id), source: SOURCE },
    { point: 'name', fields: ['full_name'], read: (r) => text(r.full_name), source: SOURCE },
    { point: 'email', fields: ['work_email'], read: (r) => text(r.work_email), source: SOURCE },
    { point: 'doj', fields: ['date_of_joining'], read: (r) => isoDate(r.date_of_joining), source: SOURCE, note: 'YYYY-MM-DD' },
    { point: 'status', fields: ['status'], read: (r) => enumValue(STATUS, r.status), source: SOURCE, note: 'active, inactive' },
    { point: 'designation', fields: ['job_title'], read: (r) => text(r.job_title), source: SOURCE },
    { point: 'department', fields: ['department'], read: (r) => text(r.department), source: SOURCE },
  ],
};

/** The fields the connector asks for. */
export const ${upper}_FIELDS = requestedFields(${upper}_MAPPING);

/** One ${display} employee as a record. */
export const map${pascal}Employee = (row: Record<string, unknown>, warn?: FieldWarner): PartialEmployeeRecord => mapByRows(${upper}_MAPPING, row, warn);
`;

const connector = ({ id, upper, pascal, display }: ProductNames): string => `/**
 * Connector for \`hrms_id\` \`${id}\` (src/hrms/${id}/README.md "How hrx reads it").
 * TODO(new:hrms): the vendor's handshake, paging and envelope, each citing its documentation.
 *
 * Auth: HTTP Basic with the API key as user name and \`x\` as password; 401/403 are \`HrmsError('auth')\`.
 * - Credential check and full listing: \`GET /api/v1/employees?page=<n>&per_page=<size>&fields=…\` →
 *   \`{employees: [...], has_more}\`. Cursor: \`page:<n>\` (\`offsetCursor\`).
 * - Live read: \`GET /api/v1/employees/{id}\`; 404 is null.
 * Throttling (429 with \`Retry-After\`) and 5xx are retried by the shared client.
 */
import { HrmsError, type ConnectorFactory, type ConnectorOptions, type EmployeePage, type HrmsAccess, type HrmsConnector, type ListOptions } from '../connector';
import { offsetCursor } from '../cursor';
import { basicAuth, HrmsHttpClient } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { isObj, warnOnce, type FieldWarner } from '../decode';
import { ${upper}_FIELDS, map${pascal}Employee } from './mapping';

/** The most employees one page holds (TODO(new:hrms): the vendor's own maximum). */
export const ${upper}_MAX_PAGE = 100;
/** \`page:<pages already yielded>\`. */
const CURSOR = offsetCursor(['page'] as const, 'the ${display} connector');

class ${pascal}Connector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly warn: FieldWarner;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-${id.replace(/_/g, '-')}-connector');
    this.warn = warnOnce(options.onWarning);
  }

  /** A GET of \`path\` under the API root, retried; the JSON of a 200, \`null\` on 404 when \`allow404\`. */
  private getJson(path: string, what: string, allow404 = false): Promise<unknown> {
    const key = this.access.credentials.api_key;
    if (!key) throw new HrmsError('auth', '${id} needs an api_key');
    const url = this.client.url(this.access.credentials.hrms_host, \`api/v1/\${path}\`);
    return this.client.retriedJson(() => this.client.request(url, what, { headers: { authorization: basicAuth(key, 'x') } }), what, {
      nullOn: allow404 ? [404] : [],
    });
  }

  private pageSize(): number {
    return Math.min(${upper}_MAX_PAGE, this.client.opts.pageSize);
  }

  /** One employee page (0-based); throws \`bad_response\` for another shape. */
  private async page(n: number, size: number): Promise<{ employees: unknown[]; more: boolean }> {
    const what = \`employee page \${n + 1}\`;
    const body = await this.getJson(\`employees?page=\${n + 1}&per_page=\${size}&fields=\${${upper}_FIELDS.join(',')}\`, what);
    if (!isObj(body) || !Array.isArray(body.employees)) throw new HrmsError('bad_response', \`HRMS sent an unexpected shape for \${what}\`);
    return { employees: body.employees, more: body.has_more === true };
  }

  /** One call: the first page of one employee, which needs a valid key. */
  async verifyCredentials(): Promise<void> {
    await this.page(0, 1);
  }

  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    let n = CURSOR.offsetIn(options.cursor, 'page');
    const size = this.pageSize();
    for (;;) {
      const { employees, more } = await this.page(n, size);
      n += 1;
      yield { employees: employees.filter(isObj).map((e) => map${pascal}Employee(e, this.warn)), ...(more ? { next: CURSOR.encode('page', n) } : {}) };
      if (!more) return;
    }
  }

  /** Live read; null for a 404 and, without a call, for a blank id. */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '') return null;
    const body = await this.getJson(\`employees/\${encodeURIComponent(id)}\`, 'employee lookup', true);
    return isObj(body) ? map${pascal}Employee(body, this.warn) : null;
  }
}

/** Builds the connector for \`hrms_id\` \`${id}\`. Never throws itself: a missing key is \`HrmsError('auth')\` on first use. */
export const create${pascal}Connector: ConnectorFactory = (access, options = {}) => new ${pascal}Connector(access, options);
`;

const sim = ({ id, upper, pascal, display }: ProductNames): string => `/**
 * The ${display} simulator (\`hrx hrms-sim --dialect ${id}\`), on the shared kit (src/hrms/sim/kit/):
 * - HTTP Basic with the API key as user name (any password); 401 otherwise.
 * - \`GET /api/v1/employees?page=&per_page=\` → \`{employees, has_more}\`; \`GET /api/v1/employees/{id}\`.
 * - Throttling (no published numbers): past \`limitPerMinute\` (default 60) requests a minute, or the
 *   \`rateThrottle\` fault: 429 with \`Retry-After: retryAfterSec\` (default 1). Faults: latency, 5xx.
 * TODO(new:hrms): the vendor's own answers, envelope, formats and wrong-credential answer.
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeEmployee } from '../../sim/data';
import type { DialectSim, DialectSimOptions } from '../../sim/dialect';
import { basicOk, dialectSim, fullNameOf, isoOf, isWorking, json, orNone, SimCore, Staff, unpublishedThrottle, type Reply } from '../../sim/kit';
import { ${upper}_MAX_PAGE } from '../connector';

const API_KEY = '${id.replace(/_/g, '-')}-sim-key-5e1d';

/** Employee \`e\` as ${display} answers it. */
function row(e: NativeEmployee): Record<string, unknown> {
  return {
    id: e.employee_code,
    full_name: fullNameOf(e),
    work_email: e.official_email,
    date_of_joining: isoOf(e.date_of_joining) ?? null,
    status: isWorking(e) ? 'active' : 'inactive',
    job_title: e.designation,
    department: e.department,
  };
}

/** Ground truth of employee \`e\`, computed from the canonical employee (never through the connector's rows). */
function expected(e: NativeEmployee): PartialEmployeeRecord {
  return {
    employeeId: e.employee_code,
    name: fullNameOf(e),
    email: orNone(e.official_email),
    doj: isoOf(e.date_of_joining),
    status: isWorking(e) ? 'Active' : 'Inactive',
    designation: orNone(e.designation),
    department: orNone(e.department),
  };
}

/** Starts the ${display} simulator. */
export async function start${pascal}Sim(options: DialectSimOptions): Promise<DialectSim> {
  const throttling = unpublishedThrottle(options.variants, 60);
  const core = new SimCore(options, throttling.limit);
  const staff = new Staff(options.seed, options.employees);

  async function handle(req: IncomingMessage, url: URL): Promise<Reply> {
    const inWindow = core.window.hit();
    const m = /^\\/api\\/v1\\/employees(?:\\/([^/]+))?$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return json(404, { error: 'not_found' });
    const stop = await core.gate(
      inWindow,
      () => core.throttled(throttling.reply({ error: 'rate_limited' })),
      () => json(500, { error: 'server_error' }),
    );
    if (stop) return stop;
    if (!basicOk(core, req.headers.authorization, API_KEY)) return json(401, { error: 'unauthorized' });
    if (m[1] !== undefined) {
      const i = staff.indexOf(decodeURIComponent(m[1]));
      return i === undefined ? json(404, { error: 'not_found' }) : json(200, row(staff.employee(i)));
    }
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const size = Math.min(${upper}_MAX_PAGE, Math.max(1, Number(url.searchParams.get('per_page') ?? ${upper}_MAX_PAGE) || ${upper}_MAX_PAGE));
    const served = staff.served();
    const slice = served.slice((page - 1) * size, page * size);
    return json(200, { employees: slice.map((i) => row(staff.employee(i))), has_more: page * size < served.length });
  }

  const { url } = await core.listen(handle);
  return dialectSim({
    hrmsId: '${id}',
    url,
    core,
    staff,
    issuesTokens: false,
    secret: API_KEY,
    setupWith: (key) => ({ access_credentials: { hrms_host: url, grant_type: 'api_key', api_key: key }, api_configs: [] }),
    expected: (i) => expected(staff.employee(i)),
  });
}
`;

const readme = ({ id, display }: ProductNames, marker: { start: string; end: string }): string => `# ${display}

TODO(new:hrms): what hrx reads from ${display}, and how the employer connects it. Setup-config (and the
Connect page's HRMS step) carry:

| setup-config field | ${display}'s words | Where the employer finds it |
|---|---|---|
| \`hrms_id\` | | \`${id}\` |
| \`access_credentials.grant_type\` | | \`api_key\` |
| \`access_credentials.hrms_host\` | Company address | The address you sign in at. |
| \`access_credentials.api_key\` | API key | Created in ${display}'s settings; shown once. |

No \`api_configs\`. A missing key is a 400 naming \`access_credentials.api_key\`.

## How hrx reads it

| what | endpoint |
|---|---|
| setup-config's credential check | \`GET /api/v1/employees?page=1&per_page=1\` |
| full sync | \`GET /api/v1/employees?page=<n>&per_page=<size>\` until \`has_more\` is false |
| live read | \`GET /api/v1/employees/{id}\` |

## What is mapped

The table is written by \`npm run docs\` from the mapping rows in \`mapping.ts\`.

${marker.start}
${marker.end}

## The simulator

\`hrx hrms-sim --dialect ${id}\`: switches \`limitPerMinute\` (default 60) and \`retryAfterSec\` (default 1).
`;

const test = ({ id, pascal, display }: ProductNames): string => `/**
 * The ${display} connector against its simulator (src/hrms/${id}/): a full listing equals the ground
 * truth, page by page with its cursors; a live read; a wrong key is \`auth\` and never retried. The
 * conformance suite (conformance.integration.test.ts) runs the product through hrx like every other.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import type { ConnectorOptions, EmployeePage, HrmsConnector } from '../../../src/hrms/connector';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { product } from '../../../src/hrms/${id}';
import { start${pascal}Sim } from '../../../src/hrms/${id}/sim';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 200, timeoutMs: 5_000 };
let sim: DialectSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const connect = (s: DialectSim, setup = s.setup()): HrmsConnector =>
  product.definition.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, fast);
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));

describe('${id}: connector and simulator', () => {
  it('lists every employee in pages of pageSize, equal to the ground truth', async () => {
    sim = await start${pascal}Sim({ employees: 90, seed: '${id}', throttle: false });
    const pages: EmployeePage[] = [];
    for await (const p of connect(sim).listEmployees()) pages.push(p);
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40, 10]);
    expect(pages.map((p) => p.next)).toEqual(['page:1', 'page:2', undefined]);
    expect(norm(pages.flatMap((p) => p.employees))).toEqual(norm(sim.expected()));
  });

  it('reads one employee live; an unknown id is null', async () => {
    sim = await start${pascal}Sim({ employees: 5, seed: '${id}', throttle: false });
    const [first] = sim.employeeIds();
    expect(norm([(await connect(sim).getEmployee(first!))!])).toEqual(norm(sim.expected().slice(0, 1)));
    expect(await connect(sim).getEmployee('EMP99999')).toBeNull();
  });

  it('a wrong key is an auth error after one request', async () => {
    sim = await start${pascal}Sim({ employees: 5, seed: '${id}', throttle: false });
    await expect(connect(sim, sim.wrongSetup()).verifyCredentials()).rejects.toMatchObject({ kind: 'auth' });
    expect(sim.stats()).toMatchObject({ requests: 1, authFailures: 1 });
  });
});
`;

/** Every file of a new product, by repository path. */
export function productFiles(n: ProductNames, marker: { start: string; end: string }): Record<string, string> {
  const dir = `src/hrms/${n.id}`;
  return {
    [`${dir}/index.ts`]: index(n),
    [`${dir}/definition.ts`]: definition(n),
    [`${dir}/product.ts`]: productInfo(n),
    [`${dir}/mapping.ts`]: mapping(n),
    [`${dir}/connector.ts`]: connector(n),
    [`${dir}/sim/index.ts`]: sim(n),
    [`${dir}/README.md`]: readme(n, marker),
    [`test/integration/hrms/${n.id}.integration.test.ts`]: test(n),
  };
}
