/**
 * Routes of the SDK token and the Connect flow (interface.md "Generate SDK token"; decisions §2,
 * §8): the token (vendor API key); the Connect page (`/connect#token=...`: the token stays in the
 * fragment, the server never sees it); the one-time exchange of the token for the session cookie;
 * and the Connect JSON endpoints, which accept only that cookie.
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { sessionCookie } from '../http/cookie';
import { parseWith, route, type RouteDef } from '../http/router';
import { accessCredentialsSchema } from '../setup/schema';
import { dataModelFlagsSchema, requestsNothing } from './flags';
import { pageHeaders, renderConnectPage } from './page';
import type { SdkService, SdkTokenRequest } from './service';

const requiredText = (max: number) =>
  z.string({ error: (i) => (i.input === undefined ? 'required' : 'must be a string') }).trim().min(1, 'required').max(max);

const tokenBody = z.strictObject({
  email: z.string(),
  org_name: requiredText(200),
  fullname: requiredText(200),
  remote_org_id: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(128).optional(),
  corporate_reference_data: z.looseObject({ unique_id: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object' }).optional(),
  data_model_flags: dataModelFlagsSchema.optional(),
}, { error: 'must be a JSON object' });

const emailSchema = z.email().max(254);

/**
 * Validates the token request (decisions §8): a missing or invalid `email` first, as 400
 * `Invalid Email Passed!`; then the body schema, as the 400 validation failure; flags that request
 * no data point at all are refused too (a connection to nothing helps no one).
 */
export function parseTokenRequest(raw: unknown): SdkTokenRequest {
  const email = raw !== null && typeof raw === 'object' ? (raw as { email?: unknown }).email : undefined;
  if (typeof email !== 'string' || !emailSchema.safeParse(email.trim()).success) throw new AppError('INVALID_EMAIL');
  const body = parseWith(tokenBody, raw, 'body');
  if (body.data_model_flags && requestsNothing(body.data_model_flags)) {
    throw AppError.validation([{ field: 'data_model_flags', message: 'must request at least one data point' }]);
  }
  return { ...body, email: body.email.trim() } as SdkTokenRequest;
}

const listsSchema = {
  shared_data_points: z.array(z.string()), not_shared_data_points: z.array(z.string()), not_requested_data_points: z.array(z.string()),
};
const outcomeSchema = z.strictObject({ connection_id: z.string().uuid(), status: z.enum(['approved', 'rejected']), ...listsSchema });
const sessionSchema = z.strictObject({
  connection_id: z.string().uuid(), status: z.enum(['pending', 'approved', 'rejected', 'terminated']),
  vendor: z.strictObject({ org_id: z.string().uuid(), org_name: z.string() }),
  org: z.strictObject({ org_id: z.string().uuid(), org_name: z.string(), invite_status: z.string() }),
  user: z.strictObject({ email: z.string(), fullname: z.string() }),
  required_data_points: z.array(z.string()), optional_data_points: z.array(z.string()),
  hrms: z.strictObject({ supported: z.array(z.string()), configured: z.string().nullable(), entered: z.boolean() }),
  proof: z.strictObject({ required: z.boolean(), proven: z.boolean() }),
  ...listsSchema,
});

const names = z.array(z.string().max(100)).max(1000).default([]);

const hrmsBody = z.strictObject({
  hrms_id: z.string().min(1, 'required'),
  access_credentials: accessCredentialsSchema,
  api_configs: z.array(z.strictObject({ api_id: z.string().min(1), access_credentials: accessCredentialsSchema })).max(20).optional(),
});
const provenSchema = z.strictObject({ proven: z.literal(true) });
const setupResultSchema = z.strictObject({ org_id: z.string().uuid(), hrms_id: z.string(), configured_apis: z.array(z.string()), next_sync_at: z.string() });

/**
 * Builds the SDK routes over the service. `basePath` is HRX_BASE_PATH (the page's API calls and
 * the cookie's Path); `secureCookie`: the session cookie is `Secure` (HRX_PUBLIC_URL is https).
 */
export function sdkRoutes(sdk: SdkService, opts: { basePath: string; frameAncestors: string; secureCookie: boolean }): RouteDef[] {
  const apiBase = `${opts.basePath}/api/sdk/connect`;
  const meta = (ctx: { requestId: string; source: string }) => ({ requestId: ctx.requestId, sourceAddress: ctx.source });
  return [
    route({
      method: 'POST',
      path: '/api/sdk/token/',
      credential: 'apiKey',
      bodyType: 'json',
      response: z.strictObject({
        org_id: z.string().uuid(), access_token: z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/), exp: z.literal(3600),
        corporate_reference_data: z.record(z.string(), z.unknown()),
      }),
      handler: async ({ body, principal }) => ({ data: await sdk.issueToken(principal, parseTokenRequest(body)) }),
    }),
    route({
      method: 'GET',
      path: '/connect',
      credential: 'none',
      // The token rides in the URL fragment, which browsers never send: the page is the same for everyone.
      async handler() {
        const { html, nonce } = renderConnectPage({ apiBase });
        return { html, headers: pageHeaders(nonce, opts.frameAncestors) };
      },
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/session/',
      credential: 'none',
      bodyType: 'json',
      body: z.strictObject({ token: z.string({ error: 'required' }).min(1, 'required').max(4096) }),
      response: z.strictObject({ connection_id: z.string().uuid(), expires_at: z.string() }),
      async handler({ body, source }) {
        const s = await sdk.openSession(body.token, { source });
        return {
          data: { connection_id: s.connectionId, expires_at: s.expiresAt.toISOString() },
          headers: { 'set-cookie': sessionCookie(s.secret, { path: apiBase, expires: s.expiresAt, secure: opts.secureCookie }), 'cache-control': 'no-store' },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/api/sdk/connect/',
      credential: 'connectSession',
      response: sessionSchema,
      handler: async ({ principal }) => ({ data: await sdk.session(principal) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/hrms/',
      credential: 'connectSession',
      bodyType: 'json',
      body: hrmsBody,
      response: z.union([setupResultSchema, provenSchema]),
      handler: async (ctx) => ({ data: await sdk.hrms(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/proof/',
      credential: 'connectSession',
      bodyType: 'json',
      body: z.strictObject({ app_key: z.string({ error: 'required' }).min(1, 'required'), app_secret: z.string({ error: 'required' }).min(1, 'required') }),
      response: provenSchema,
      handler: async (ctx) => ({ data: await sdk.proof(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/approve/',
      credential: 'connectSession',
      bodyType: 'json',
      body: z.strictObject({ opted_in: names, opted_out: names }),
      response: outcomeSchema,
      handler: async (ctx) => ({ data: await sdk.approve(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/reject/',
      credential: 'connectSession',
      bodyType: 'none',
      response: outcomeSchema,
      handler: async ({ principal }) => ({ data: await sdk.reject(principal) }),
    }),
  ];
}
