/**
 * The OpenAPI document (src/openapi/document.ts) against the route table it is generated from:
 * every row is an operation and every operation a row, every row is documented, the document is
 * valid OpenAPI 3.1 (the official schema, @seriousme/openapi-schema-validator), and the
 * credentials and the error table show as they should.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { routeTable, type RouteServices } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openApiDocument, openApiPath } from '../../src/openapi/document';
import { checkedInDocument } from '../../scripts/docs/generate';

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'] as const;
/** The table as the app builds it; building it calls no service, so an empty stand-in will do. */
const routes = routeTable({} as RouteServices, loadConfig({}));
const doc = checkedInDocument();

type Operation = {
  operationId: string;
  tags?: string[];
  summary?: string;
  security: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};
function operations(d = doc): { method: string; path: string; op: Operation }[] {
  return Object.entries(d.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((m) => (item[m] ? [{ method: m.toUpperCase(), path, op: item[m] as unknown as Operation }] : [])),
  );
}

describe('the OpenAPI document covers the route table', () => {
  it('has one operation per row and no other', () => {
    const fromTable = routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    const fromDoc = operations()
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(fromDoc).toEqual(fromTable);
    // Every feature with routes is there (a route table that lost a module would show here).
    for (const p of [
      '/api/employee_details/{id}',
      '/api/org_details/{org}/',
      '/api/vendor/connections/',
      '/api/webhook/v1/setup-config/',
      '/api/v1/employee/consent-data/',
      '/api/external/employee/',
      '/api/sdk/token/',
      '/openapi.json',
      '/docs',
    ]) {
      expect(Object.keys(doc.paths ?? {})).toContain(p);
    }
  });

  it('documents every row: an operationId, a tag and a summary', () => {
    const undocumented = routes.filter((r) => !r.doc?.summary || !r.doc.operationId || !r.doc.tag).map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is listed, route by route, in the endpoint table of docs/api.md', () => {
    const md = readFileSync(path.resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');
    const table = md.slice(md.indexOf('\n## Endpoints'), md.indexOf('\n### ', md.indexOf('\n## Endpoints')));
    // A row's first cell: `GET /a/b/?q=`, or `POST /a/b/hrms/`, `proof/` (a sibling of the path before).
    const listed = new Set<string>();
    for (const row of table.split('\n').filter((l) => l.startsWith('| `'))) {
      let method = '';
      let last = '';
      for (const [, code] of row.split(' | ')[0]!.matchAll(/`([^`]+)`/g)) {
        const full = /^([A-Z]+) (\/\S*)$/.exec(code!);
        if (full) [method, last] = [full[1]!, full[2]!.replace(/[?#].*$/, '')];
        else last = last.replace(/[^/]+\/?$/, '') + code;
        listed.add(`${method} ${last}`);
      }
    }
    const missing = routes.map((r) => `${r.method} ${openApiPath(r.path)}`).filter((r) => !listed.has(r));
    expect(missing).toEqual([]);
  });

  it('refuses a table with a method and path twice', () => {
    const twice = [...routes, routes[0]!];
    expect(() => openApiDocument(twice, { version: '0', serverUrl: '/' })).toThrow(/twice/);
  });
});

describe('the OpenAPI document says how to call', () => {
  const byId = (id: string) => operations().find((o) => o.op.operationId === id)!.op;

  it('names each credential as a security scheme', () => {
    expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual([
      'adminBasic',
      'adminBearer',
      'apiKey',
      'apiKeyUsername',
      'clientBasic',
      'connectSession',
      'vendorBasic',
    ]);
    expect(doc.components?.securitySchemes?.apiKeyUsername).toMatchObject({ type: 'apiKey', in: 'header', name: 'username' });
    expect(doc.components?.securitySchemes?.connectSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'hrx_connect' });
    expect(byId('getEmployeeDetails').security).toEqual([{ apiKeyUsername: [] }]);
    expect(byId('listVendorConnections').security).toEqual([{ apiKey: [] }]);
    expect(byId('updateEmployees').security).toEqual([{ clientBasic: [] }]);
    expect(byId('getEmployeeEncrypted').security).toEqual([{ vendorBasic: [] }]);
    expect(byId('approveConnection').security).toEqual([{ connectSession: [] }]);
    expect(byId('setupConfig').security).toEqual([]);
    expect(byId('getOpenApiDocument').security).toEqual([]);
  });

  it("lists each operation's errors from the error table, with the envelope", () => {
    const details = byId('getEmployeeDetails').responses;
    expect(Object.keys(details).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(JSON.stringify(details['404'])).toMatch(/Invalid Organisation ID.*Employee not found/);
    expect(JSON.stringify(details['403'])).toContain('#/components/schemas/PermissionDenied');
    expect(JSON.stringify(details['401'])).toContain('Authentication credentials were not provided.');
    expect(Object.keys(byId('terminateConnection').responses)).toEqual(expect.arrayContaining(['404', '409', '423']));
    expect(JSON.stringify(byId('terminateConnection').responses['409'])).toContain('#/components/schemas/StatusError');
    // No credential, no 401: the JWKS and the docs page answer anyone.
    expect(Object.keys(byId('getJwks').responses).sort()).toEqual(['200', '500', '503']);
    expect(doc.components?.schemas?.ValidationError).toMatchObject({ properties: { code: { const: 400 } } });
  });

  it('wraps data in the envelope, or not, as the route answers', () => {
    const schemaOf = (id: string) => JSON.stringify(byId(id).responses['200']!.content!['application/json']!.schema);
    expect(schemaOf('listVendorConnections')).toMatch(/"requestId".*"message".*"pageInfo".*"data"/);
    expect(schemaOf('getOrgDetails')).toBe('{"$ref":"#/components/schemas/OrgRecord"}');
    expect(schemaOf('getEmployeeEncrypted')).toMatch(/"status_code":\{"type":"string","const":"success"\}/);
    expect(schemaOf('terminateConnection')).toContain('"const":"Connection terminated successfully"');
    expect(Object.keys(byId('getDocsPage').responses['200']!.content!)).toEqual(['text/html']);
  });

  it('takes the data_model_flags names from the data points', () => {
    const flags = JSON.stringify(doc.paths?.['/api/sdk/token/']?.post?.requestBody);
    expect(flags).toContain('"dependentDetails_mobileNumber"');
    expect(flags).toContain('"enum":[-1,0,1]');
  });
});
