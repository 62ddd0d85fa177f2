/**
 * Routes of HRMS setup (docs/api.md "Setup config").
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { HRMS_PRODUCTS } from '../hrms/products';
import { hrmsConfigFields } from './schema';
import type { SetupService } from './service';

const setupBody = z.strictObject({
  client_id: z.string().min(1, 'required'),
  client_secret: z.string().min(1, 'required'),
  ...hrmsConfigFields,
});

/** The app credential a setup body carries (`client_id`, `client_secret`), as an idempotency scope; undefined without one. */
function bodyCredential(body: unknown): string | undefined {
  const b = body as { client_id?: unknown; client_secret?: unknown } | null | undefined;
  return typeof b?.client_id === 'string' && typeof b.client_secret === 'string' ? `setup:${b.client_id}:${b.client_secret}` : undefined;
}

/** Builds the setup routes over the service. */
export function setupRoutes(setup: SetupService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/webhook/v1/setup-config/',
      credential: 'none',
      // The credential is in the body: keys are scoped by it (docs/api.md "Idempotency").
      idempotent: { scope: bodyCredential },
      bodyType: 'json',
      body: setupBody,
      response: z.strictObject({
        org_id: z.string().uuid(),
        hrms_id: z.string(),
        configured_apis: z.array(z.string()),
        next_sync_at: z.string(),
      }),
      doc: {
        operationId: 'setupConfig',
        tag: 'setup',
        summary: 'The employer stores its HRMS credentials (checked with the HRMS first); a full sync is queued at once.',
        description: [
          "The credential is in the body: `client_id`/`client_secret` are the client org's `app_key`/`app_secret`. `hrms_id` names a",
          `supported HRMS (${HRMS_PRODUCTS.map((p) => '`' + p.hrmsId + '`').join(', ')}); \`access_credentials\` carries what its \`grant_type\` needs`,
          '(`client_credentials`: `client_id` + `client_secret`; `api_key`: `api_key`). Posting again replaces the configuration.',
          'The credentials are stored encrypted and never echoed.',
        ].join(' '),
        errors: ['CLIENT_CREDENTIALS_INVALID', 'HRMS_CREDENTIALS_REJECTED', 'THROTTLED'],
      },
      handler: async ({ body, source }) => ({ data: await setup.configure(body, { source }) }),
    }),
  ];
}
