/**
 * The API as its OpenAPI document describes it: `apiClient(app)` is an openapi-fetch client typed
 * by test/support/openapi.d.ts (generated from docs/openapi.json by `npm run docs`), and
 * `expectDocumented(...)` checks a real answer against the document's schema for that operation
 * and status (ajv, JSON Schema 2020-12), so a test fails when the document says something the
 * server does not do.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from './openapi';

/** docs/openapi.json, as checked in. */
export const DOCUMENT = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as {
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses: Record<string, { description?: string; content?: Record<string, { schema: object }> }> }>>;
  components: Record<string, unknown>;
  servers: { url: string }[];
};

/** A typed client of the API at `baseUrl`. */
export function apiClient(baseUrl: string) {
  return createClient<paths>({ baseUrl });
}

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/**
 * Asserts that `body` is what the document promises for `method path` answering `status`
 * (`path` as in the document, e.g. `/api/employee_details/{id}`). Returns the body.
 */
export function expectDocumented<T>(method: string, docPath: string, status: number, body: T): T {
  const key = `${method.toLowerCase()} ${docPath} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    const response = DOCUMENT.paths[docPath]?.[method.toLowerCase()]?.responses[String(status)];
    expect(response, `${method} ${docPath} documents no ${status} answer`).toBeDefined();
    const schema = response!.content?.['application/json']?.schema;
    expect(schema, `${method} ${docPath} ${status} has no JSON schema`).toBeDefined();
    // `#/components/...` references resolve against the root: carry the components along.
    validate = ajv.compile({ ...schema, components: DOCUMENT.components });
    compiled.set(key, validate);
  }
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${method} ${docPath} ${status} answered outside its documented schema`).toEqual([]);
  return body;
}
