/**
 * Routes of the SDK token and the Connect flow (docs/api.md "SDK token and the Connect flow"; docs/api.md "Credentials",
 * docs/connect.md): the token (vendor API key); the Connect page (`/connect#token=...`: the token stays in the
 * fragment, the server never sees it); the one-time exchange of the token for the session cookie;
 * and the Connect JSON endpoints, which accept only that cookie.
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { sessionCookie } from '../http/cookie';
import { parseWith, route, type RouteDef } from '../http/router';
import { hrmsConfigFields } from '../setup/schema';
import { dataModelFlagsSchema, requestsNothing } from './flags';
import { pageHeaders, renderConnectPage, type PageOperator } from './page';
import { connectScript } from './page-script';
import type { SdkService, SdkTokenRequest } from './service';

const requiredText = (max: number) =>
  z
    .string({ error: (i) => (i.input === undefined ? 'required' : 'must be a string') })
    .trim()
    .min(1, 'required')
    .max(max);

const tokenBody = z.strictObject(
  {
    email: z.string(),
    org_name: requiredText(200),
    fullname: requiredText(200),
    remote_org_id: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(128).optional(),
    corporate_reference_data: z.looseObject({ unique_id: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object' }).optional(),
    data_model_flags: dataModelFlagsSchema.optional(),
  },
  { error: 'must be a JSON object' },
);

const emailSchema = z.email().max(254);

/**
 * Validates the token request (docs/connect.md "E-mail verification before an organisation is set up"): a missing or invalid `email` first, as 400
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
  return { ...body, email: body.email.trim() };
}

const listsSchema = {
  shared_data_points: z.array(z.string()),
  not_shared_data_points: z.array(z.string()),
  not_requested_data_points: z.array(z.string()),
};
const outcomeSchema = z
  .strictObject({ connection_id: z.string().uuid(), status: z.enum(['approved', 'rejected']), ...listsSchema })
  .meta({ id: 'ConnectOutcome' });
/** One input of an HRMS product's form on the Connect page (src/hrms/product-info.ts). */
const connectField = z.strictObject({
  target: z.string(),
  label: z.string(),
  help: z.string(),
  required: z.boolean(),
  secret: z.boolean(),
  placeholder: z.string().nullable(),
  multiline: z.boolean().meta({ description: 'A value of several lines (a PEM certificate or key): a text area, line breaks kept.' }),
});

const sessionSchema = z.strictObject({
  connection_id: z.string().uuid(),
  status: z.enum(['pending', 'approved', 'rejected', 'terminated']),
  vendor: z.strictObject({ org_id: z.string().uuid(), org_name: z.string() }),
  org: z.strictObject({ org_id: z.string().uuid(), org_name: z.string(), invite_status: z.string() }),
  user: z.strictObject({
    email: z.string(),
    fullname: z
      .string()
      .nullable()
      .describe("The name this session's SDK token request gave (the issuing vendor's words, never another vendor's), or null when it kept none."),
  }),
  required_data_points: z.array(z.string()),
  optional_data_points: z.array(z.string()),
  hrms: z.strictObject({
    supported: z.array(z.string()),
    configured: z.string().nullable(),
    entered: z.boolean(),
    products: z.array(
      z.strictObject({
        hrms_id: z.string(),
        display_name: z.string(),
        grant_type: z.string(),
        grant_label: z.string().nullable().describe("The product's words for the sign-in of `grant_type` and `fields`; null when it offers no other."),
        fields: z.array(connectField),
        other_grants: z
          .array(z.strictObject({ grant_type: z.string(), label: z.string(), fields: z.array(connectField) }))
          .describe("The other sign-ins the product offers (empty for most): each its own `grant_type` and fields, the employer's choice."),
      }),
    ),
  }),
  proof: z.strictObject({ required: z.boolean(), proven: z.boolean() }),
  email_verification: z.strictObject({
    required: z.boolean(),
    available: z.boolean(),
    establishes: z.boolean(),
    verified: z.boolean(),
    sent_to: z.string(),
    code_expires_at: z.string().nullable(),
  }),
  lock: z.strictObject({ locked_until: z.string().nullable() }),
  notice: z.strictObject({
    vendor_purpose: z.string().nullable(),
    vendor_privacy_url: z.string().nullable(),
    operator_name: z.string(),
    operator_contact: z.string().nullable(),
    sync_frequency: z.string(),
  }),
  data_points: z.array(
    z.strictObject({
      name: z.string(),
      label: z.string(),
      category: z.string(),
      sensitive: z.boolean(),
      required: z.boolean(),
    }),
  ),
  data_point_categories: z.array(z.strictObject({ id: z.string(), title: z.string() })),
  always_shared: z.array(z.strictObject({ name: z.string(), label: z.string() })),
  decided_at: z.string().nullable(),
  decided_by: z.enum(['admin', 'operator', 'vendor']).nullable().meta({
    description:
      'Who decided (docs/connect.md "After the decision"): `admin` (an HR admin of the org on the Connect page), `operator` (the hrx operator, from the command line), `vendor` (the vendor ended the connection); null while pending or when not recorded.',
  }),
  reauth: z.strictObject({ hrms_id: z.string(), product_name: z.string(), refused_at: z.string() }).nullable(),
  ...listsSchema,
});

const names = z.array(z.string().max(100)).max(1000).default([]);

const hrmsBody = z.strictObject(hrmsConfigFields);
const provenSchema = z.strictObject({ proven: z.literal(true) });
const setupResultSchema = z.strictObject({ org_id: z.string().uuid(), hrms_id: z.string(), configured_apis: z.array(z.string()), next_sync_at: z.string() });

/**
 * Builds the SDK routes over the service. `basePath` is HRX_BASE_PATH (the page's API calls and
 * the cookie's Path); `secureCookie`: the session cookie is `Secure` (HRX_PUBLIC_URL is https);
 * `operator`: the name and contact every Connect page shows (HRX_OPERATOR_NAME, `operatorContact` of config.ts).
 */
export function sdkRoutes(sdk: SdkService, opts: { basePath: string; frameAncestors: string; secureCookie: boolean; operator: PageOperator }): RouteDef[] {
  // Bundle the page's script now, at app creation, not on the first page request (./page-script.ts).
  connectScript();
  const apiBase = `${opts.basePath}/api/sdk/connect`;
  const meta = (ctx: { requestId: string; source: string }) => ({ requestId: ctx.requestId, sourceAddress: ctx.source });
  return [
    route({
      method: 'POST',
      path: '/api/sdk/token/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'json',
      response: z.strictObject({
        org_id: z.string().uuid(),
        access_token: z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        exp: z.literal(3600),
        corporate_reference_data: z.record(z.string(), z.unknown()),
      }),
      doc: {
        operationId: 'createSdkToken',
        tag: 'sdk',
        body: tokenBody,
        summary: "Issues the token that opens the Connect page for an employer's HR admin, and makes sure a pending connection exists.",
        description: [
          "The employer org is resolved by `remote_org_id`, else by the e-mail's domain (a private one), else by `org_name` (common",
          'e-mail domains). `data_model_flags` maps data point names of each group to `-1` (required), `1` (optional) or `0` (not',
          'requested); absent, every data point is requested as optional. A missing or malformed `email` is `400 Invalid Email Passed!`.',
          'The token is valid 3600 s; send the HR admin to `/connect#token=<access_token>`. A vendor creates at most',
          '`HRX_SDK_CREATIONS_PER_DAY` (100) client orgs, and as many users, in any 24 hours: past it `429` with `Retry-After`, nothing created.',
        ].join(' '),
        errors: ['INVALID_EMAIL'],
      },
      // The credential is an API key (above), so the principal's credential id is the key's id.
      handler: async ({ body, principal }) => ({ data: await sdk.issueToken(principal, parseTokenRequest(body), { apiKeyId: principal.credentialId }) }),
    }),
    route({
      method: 'GET',
      path: '/connect',
      credential: 'none',
      doc: {
        operationId: 'getConnectPage',
        tag: 'sdk',
        answer: 'html',
        summary: "The Connect page for the employer's HR admin, opened as `/connect#token=<access_token>`.",
        description: 'The token stays in the URL fragment (never sent to a server); the page exchanges it once for a session cookie.',
      },
      // The token rides in the URL fragment, which browsers never send: the page is the same for everyone.
      handler() {
        const { html, nonce } = renderConnectPage({ apiBase, operator: opts.operator });
        return Promise.resolve({ html, headers: pageHeaders(nonce, opts.frameAncestors) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/session/',
      credential: 'none',
      bodyType: 'json',
      body: z.strictObject({ token: z.string({ error: 'required' }).min(1, 'required').max(4096) }),
      response: z.strictObject({ connection_id: z.string().uuid(), expires_at: z.string() }),
      doc: {
        operationId: 'openConnectSession',
        tag: 'sdk',
        summary: 'Exchanges an SDK access_token, once, for the Connect session cookie `hrx_connect`.',
        description: 'A second exchange of the same token, or an expired or revoked one, is `401 Invalid token.`',
        errors: ['AUTH_INVALID', 'THROTTLED'],
      },
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
      doc: {
        operationId: 'getConnectSession',
        tag: 'sdk',
        summary: 'What the Connect page shows: the vendor, the employer, the requested data points, the HRMS and proof state.',
      },
      handler: async ({ principal }) => ({ data: await sdk.session(principal) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/hrms/',
      credential: 'connectSession',
      bodyType: 'json',
      body: hrmsBody,
      response: z.union([setupResultSchema, provenSchema]),
      doc: {
        operationId: 'connectHrms',
        tag: 'sdk',
        summary:
          "The HRMS step: a new org's HRMS credentials are checked and stored; an established org's are only compared (proof of control); while the org's HRMS refuses its stored credentials (`reauth` in the view), new ones for the same HRMS and host replace them after proof of control.",
        errors: ['HRMS_CREDENTIALS_REJECTED', 'PROOF_FAILED', 'CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async (ctx) => ({ data: await sdk.hrms(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/proof/',
      credential: 'connectSession',
      bodyType: 'json',
      body: z.strictObject({ app_key: z.string({ error: 'required' }).min(1, 'required'), app_secret: z.string({ error: 'required' }).min(1, 'required') }),
      response: provenSchema,
      doc: {
        operationId: 'connectProof',
        tag: 'sdk',
        summary: "Proof of control by the employer's application credentials (`app_key`, `app_secret`).",
        description: 'Five failed proofs lock approval of that vendor and employer pair for 15 minutes.',
        errors: ['PROOF_FAILED', 'THROTTLED', 'CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async (ctx) => ({ data: await sdk.proof(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/email-code/',
      credential: 'connectSession',
      bodyType: 'none',
      response: z.strictObject({ sent_to: z.string(), expires_at: z.string() }),
      doc: {
        operationId: 'sendConnectEmailCode',
        tag: 'sdk',
        summary: "Sends a one-time code to the Connect session's e-mail (needed before a brand-new org's HRMS step); valid 10 minutes.",
        description: [
          'Connect session cookie. At most one code every 30 s and 5 per session; in any hour at most 20 per org, 5 to one address and 50 per vendor',
          '(across its sessions, tokens and orgs): past a limit `429` with `Retry-After`. The subject is fixed text and the code.',
          '`400` (naming `email`) when no code is needed (the org is set up), when this service sends no e-mail (no SMTP server',
          'configured: the operator approves instead), or when the session has sent all its codes; `503` when the SMTP server refused it.',
        ].join(' '),
        errors: ['VALIDATION', 'THROTTLED', 'CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async (ctx) => ({ data: await sdk.sendEmailCode(ctx.principal, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/verify-email/',
      credential: 'connectSession',
      bodyType: 'json',
      body: z.strictObject({
        code: z
          .string({ error: 'required' })
          .trim()
          .regex(/^[0-9]{6}$/, 'must be the 6 digits of the code'),
      }),
      response: z.strictObject({ verified: z.literal(true) }),
      doc: {
        operationId: 'verifyConnectEmail',
        tag: 'sdk',
        summary: "Checks the e-mailed code; single use, 5 tries, and wrong codes count toward the session's proof lock-out.",
        description: 'A wrong code, or one tried while the pair is locked, is `403 Proof of control failed`; no code waiting is `400` naming `code`.',
        errors: ['PROOF_FAILED', 'CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async (ctx) => ({ data: await sdk.verifyEmail(ctx.principal, ctx.body.code, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/approve/',
      credential: 'connectSession',
      bodyType: 'json',
      body: z.strictObject({ opted_in: names, opted_out: names }),
      response: outcomeSchema,
      doc: {
        operationId: 'approveConnection',
        tag: 'sdk',
        summary: 'The HR admin approves the connection, opting optional data points in or out.',
        description: 'An established org needs proof of control in the same session first (`403 Proof of control failed`).',
        errors: ['PROOF_FAILED', 'CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async (ctx) => ({ data: await sdk.approve(ctx.principal, ctx.body, meta(ctx)) }),
    }),
    route({
      method: 'POST',
      path: '/api/sdk/connect/reject/',
      credential: 'connectSession',
      bodyType: 'none',
      response: outcomeSchema,
      doc: {
        operationId: 'rejectConnection',
        tag: 'sdk',
        summary: 'The HR admin rejects the connection: nothing is shared.',
        errors: ['CONNECTION_DECIDED', 'CONNECTION_ALREADY_TERMINATED'],
      },
      handler: async ({ principal }) => ({ data: await sdk.reject(principal) }),
    }),
  ];
}
