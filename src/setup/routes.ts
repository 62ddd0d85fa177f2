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

/** Builds the setup routes over the service. */
export function setupRoutes(setup: SetupService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/webhook/v1/setup-config/',
      credential: 'none',
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
