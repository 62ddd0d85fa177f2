/**
 * The OpenAPI 3.1 document of hrx, generated from the route table (docs/api.md "Health, reference and dashboard"): every row's
 * path, method, credential, params/query/body schemas (the same zod schemas that validate the
 * requests) and response schema, plus what the row's `doc` says (src/http/router.ts `RouteDoc`).
 * Errors come from the one error table (src/errors.ts): each operation lists the answers its
 * credential and body kind can give, plus its own. zod 4 emits the JSON Schema; zod-openapi
 * wraps it into the document.
 */
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import type { oas31 } from 'zod-openapi';
import type { CredentialKind } from '../auth/credential';
import { ERRORS, type ErrorCode } from '../errors';
import type { RouteDef } from '../http/router';

/** The document object (OpenAPI 3.1). */
export type OpenApiDocument = oas31.OpenAPIObject;

/**
 * Security schemes by name. The SDK `access_token` is not among them: it is never a header
 * credential, only the body of `POST /api/sdk/connect/session/`, which trades it for the
 * `connectSession` cookie (a Bearer token on any route is refused).
 */
const SECURITY_SCHEMES: Record<string, oas31.SecuritySchemeObject> = {
  apiKeyUsername: {
    type: 'apiKey',
    in: 'header',
    name: 'username',
    description: "The vendor org's API key (`hrx_...`, from `hrx apikey create`) in a header named `username`: employee details only.",
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: "The vendor org's API key as the whole `Authorization` header (`Authorization: hrx_...`); `Bearer hrx_...` is accepted too.",
  },
  clientBasic: {
    type: 'http',
    scheme: 'basic',
    description: "The client (employer) org's application credentials: `Authorization: Basic base64(app_key:app_secret)` (from `hrx org create --client`).",
  },
  vendorBasic: {
    type: 'http',
    scheme: 'basic',
    description: "The vendor org's V2 credential: `Authorization: Basic base64(username:password)` (from `hrx basic create`).",
  },
  connectSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'hrx_connect',
    description: 'The Connect session cookie, set by `POST /api/sdk/connect/session/` in exchange for an SDK access_token (HttpOnly, SameSite=Strict).',
  },
  adminBearer: { type: 'http', scheme: 'bearer', description: 'The operator token `HRX_ADMIN_TOKEN`: `Authorization: Bearer <token>`.' },
  adminBasic: { type: 'http', scheme: 'basic', description: 'The operator token `HRX_ADMIN_TOKEN` as the Basic password, any user name (for a browser).' },
};

/** Which schemes satisfy a credential kind (alternatives). */
const SECURITY_OF: Record<CredentialKind, oas31.SecurityRequirementObject[]> = {
  none: [],
  apiKeyUsername: [{ apiKeyUsername: [] }],
  apiKey: [{ apiKey: [] }],
  clientBasic: [{ clientBasic: [] }],
  vendorBasic: [{ vendorBasic: [] }],
  connectSession: [{ connectSession: [] }],
  admin: [{ adminBearer: [] }, { adminBasic: [] }],
};

const requestId = z.uuid().meta({ description: 'The id of this request; equals the `X-Request-Id` header.' });
const nullData = z.null();
/** Every code of the error table (docs/errors.md "Error codes"): the `error` field of each error body. */
const errorCode = z.enum(Object.values(ERRORS).map((e) => e.error) as [string, ...string[]]).meta({
  id: 'ErrorCode',
  description: 'The stable snake_case code of the error (docs/errors.md "Error codes"); the operation\'s answer lists which it sends.',
});

/** Error bodies by the shapes of the error table (src/errors.ts). */
const ERROR_SCHEMAS = {
  Error: z
    .object({ requestId, error: errorCode, message: z.string(), data: nullData })
    .meta({ id: 'Error', description: 'The error envelope: `{requestId, error, message, data: null}`.' }),
  CodeError: z
    .object({ requestId, error: errorCode, code: z.number().int(), message: z.string(), data: nullData })
    .meta({ id: 'CodeError', description: 'The error envelope with the HTTP status repeated in `code`.' }),
  StatusError: z
    .object({ requestId, error: errorCode, status: z.number().int(), message: z.string(), data: nullData })
    .meta({ id: 'StatusError', description: 'The error envelope with the HTTP status repeated in `status`.' }),
  ValidationError: z
    .object({
      requestId,
      error: z.literal('validation_failed'),
      code: z.literal(400),
      message: z.string().meta({ description: 'Names the first bad field: `<field>: <reason>`.' }),
      data: z.object({ errors: z.array(z.object({ field: z.string(), message: z.string() })) }),
    })
    .meta({
      id: 'ValidationError',
      description: 'A validation failure: every bad field, by its path (`salaryDetails.ctc.basic`, `2.employeeId` in an array body, `page_size`).',
    }),
  PermissionDenied: z
    .object({ error: z.literal('source_permission_denied'), message: z.literal('Source Permission denied'), data: z.object({}).strict() })
    .meta({ id: 'PermissionDenied', description: 'The one error body without `requestId`.' }),
} as const;

type ErrorSchemaName = keyof typeof ERROR_SCHEMAS;

function errorSchemaOf(code: ErrorCode): ErrorSchemaName {
  if (code === 'VALIDATION') return 'ValidationError';
  const shape = ERRORS[code].shape;
  if (shape === 'noRequestId') return 'PermissionDenied';
  if (shape === 'code') return 'CodeError';
  if (shape === 'status') return 'StatusError';
  return 'Error';
}

/** The errors a route answers by its kind, before its own `doc.errors`. */
function implicitErrors(r: RouteDef): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (r.credential !== 'none') codes.push('AUTH_MISSING', 'AUTH_INVALID', 'THROTTLED');
  if (r.bodyType === 'json' || r.bodyType === 'optionalJson') codes.push('MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'BODY_TOO_LARGE');
  if (r.bodyType === 'form') codes.push('UNSUPPORTED_MEDIA_TYPE', 'BODY_TOO_LARGE');
  if (r.params || r.query || r.body || r.doc?.body || r.bodyType === 'json' || r.bodyType === 'optionalJson' || r.bodyType === 'form') codes.push('VALIDATION');
  // docs/api.md "Idempotency": a bad key is a validation failure; a running or reused one its own answer.
  if (r.idempotent) codes.push('VALIDATION', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED');
  codes.push('INTERNAL', 'UNAVAILABLE');
  return codes;
}

const RETRY_AFTER: oas31.HeaderObject = { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } };
const REQUEST_ID_HEADER: oas31.HeaderObject = { description: 'The request id (UUID v4), on every answer.', schema: { type: 'string', format: 'uuid' } };

/** A row of the error table as a reader sees it: its code and message (`{seconds}` → `N`). */
function messageOf(code: ErrorCode): string {
  if (code === 'VALIDATION') return '`validation_failed`: `<field>: <reason>` (validation failure)';
  return '`' + ERRORS[code].error + '`: `' + ERRORS[code].message.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'seconds' ? 'N' : `<${k}>`)) + '`';
}

function errorResponses(r: RouteDef): ZodOpenApiResponsesObject {
  const codes = [...new Set([...implicitErrors(r), ...(r.doc?.errors ?? [])])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERRORS[c].status, [...(byStatus.get(ERRORS[c].status) ?? []), c]);
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const names = [...new Set(list.map(errorSchemaOf))];
    const schemas = names.map((n) => ERROR_SCHEMAS[n]);
    const schema = schemas.length === 1 ? schemas[0]! : z.union(schemas);
    const headers: Record<string, oas31.HeaderObject> = { 'X-Request-Id': REQUEST_ID_HEADER };
    if (status === 429 || status === 503) headers['Retry-After'] = RETRY_AFTER;
    out[`${status}` as `4${string}`] = {
      description: list.map(messageOf).join('; '),
      headers,
      content: { 'application/json': { schema } },
    };
  }
  return out;
}

/** The route's own non-envelope answers (`doc.answers`), each with its body (the `response` schema unless given). */
function otherResponses(r: RouteDef): ZodOpenApiResponsesObject {
  const out: ZodOpenApiResponsesObject = {};
  for (const a of r.doc?.answers ?? []) {
    const headers: Record<string, oas31.HeaderObject> = { 'X-Request-Id': REQUEST_ID_HEADER };
    out[`${a.status}` as `4${string}`] = {
      description: a.description,
      headers,
      content: { 'application/json': { schema: a.schema ?? r.response ?? z.unknown() } },
    };
  }
  return out;
}

function successResponse(r: RouteDef): ZodOpenApiResponsesObject {
  const answer = r.doc?.answer ?? 'envelope';
  const headers = { 'X-Request-Id': REQUEST_ID_HEADER };
  if (answer === 'html') {
    return { '200': { description: 'An HTML page.', headers, content: { 'text/html': { schema: z.string() } } } };
  }
  if (answer === 'text') {
    return { '200': { description: 'Plain text.', headers, content: { 'text/plain': { schema: z.string() } } } };
  }
  const data = r.response ?? z.unknown();
  const schema =
    answer === 'raw'
      ? data
      : z.object({
          requestId,
          message: r.doc?.message ? z.literal(r.doc.message) : z.literal('success'),
          ...r.doc?.extra,
          data,
        });
  return { [String(r.doc?.status ?? 200)]: { description: r.doc?.message ?? 'Success.', headers, content: { 'application/json': { schema } } } };
}

function requestBody(r: RouteDef): ZodOpenApiOperationObject['requestBody'] {
  const schema = r.doc?.body ?? r.body;
  if (r.bodyType === 'json') return { required: true, content: { 'application/json': { schema: schema ?? z.unknown() } } };
  if (r.bodyType === 'optionalJson') return { required: false, content: { 'application/json': { schema: schema ?? z.unknown() } } };
  if (r.bodyType === 'form') {
    const s = schema ?? z.object({});
    // The router takes a form route's fields as a JSON object too (docs/api.md "Terminate connection").
    return {
      required: true,
      content: { 'multipart/form-data': { schema: s }, 'application/x-www-form-urlencoded': { schema: s }, 'application/json': { schema: s } },
    };
  }
  return undefined;
}

/** The `Idempotency-Key` request header of the routes that take one (docs/api.md "Idempotency"). */
const IDEMPOTENCY_HEADER = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/)
    .optional()
    .meta({
      description:
        'draft-ietf-httpapi-idempotency-key-header: 1–255 printable characters. The same credential, key and request within 24 h answer the first answer again (with `Idempotent-Replayed: true`) and change nothing; the same key with another request is 422, one still running 409.',
    }),
});

/** `/api/employee_details/:id` → `/api/employee_details/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function operation(r: RouteDef): ZodOpenApiOperationObject {
  const doc = r.doc;
  const params: Record<string, z.ZodType> = {};
  if (r.params) params.path = r.params;
  if (r.query) params.query = r.query;
  if (r.idempotent) params.header = IDEMPOTENCY_HEADER;
  const body = requestBody(r);
  return {
    operationId:
      doc?.operationId ??
      `${r.method.toLowerCase()}${openApiPath(r.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(doc ? { tags: [doc.tag], summary: doc.summary } : {}),
    ...(doc?.description ? { description: doc.description } : {}),
    security: SECURITY_OF[r.credential],
    ...(Object.keys(params).length ? { requestParams: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successResponse(r), ...errorResponses(r), ...otherResponses(r) },
  };
}

/** What the document says of the service as a whole. */
export interface DocumentInfo {
  /** hrx's version (package.json). */
  version: string;
  /** The server URL the paths are relative to: `HRX_PUBLIC_URL` + `HRX_BASE_PATH`, or the base path alone (`/` when empty). */
  serverUrl: string;
}

const DESCRIPTION = `hrx syncs employers' HRMS data into its own store and serves it, masked and filtered to what each connection shares, to vendor orgs.

Every JSON answer carries \`X-Request-Id\` and (but for \`Source Permission denied\`) a body \`requestId\` equal to it. Errors use the envelope \`{requestId, message, data}\`; a path is served the same with or without its trailing slash; an unknown path is \`404 Not found.\` and a known path with another method \`405 Method "X" not allowed.\`, before any credential is looked at. The reference in words, with the limits and settings, is in the repository's \`docs/\` folder.`;

/** Builds the document from the route table. Throws when two rows share a method and path or an operationId. */
export function openApiDocument(routes: readonly RouteDef[], info: DocumentInfo): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const ids = new Set<string>();
  for (const r of routes) {
    const p = openApiPath(r.path);
    const item = (paths[p] ??= {});
    const method = r.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    if (item[method]) throw new Error(`openapi: ${r.method} ${r.path} is in the route table twice`);
    const op = operation(r);
    if (ids.has(op.operationId!)) throw new Error(`openapi: operationId ${op.operationId} is used twice`);
    ids.add(op.operationId!);
    item[method] = op;
  }
  const tags = [...new Set(routes.flatMap((r) => (r.doc ? [r.doc.tag] : [])))].map((name) => ({ name }));
  return createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'hrx — HR data exchange', version: info.version, description: DESCRIPTION, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
      servers: [{ url: info.serverUrl }],
      tags,
      paths,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    {
      // z.custom (e.g. a data_model_flags flag) carries its JSON Schema in .meta().
      allowEmptySchema: { custom: true },
    },
  );
}
