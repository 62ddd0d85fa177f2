/**
 * Routes of HRMS setup (interface.md "Setup config"; decisions §5).
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { accessCredentialsSchema } from './schema';
import type { SetupService } from './service';

const setupBody = z.strictObject({
  client_id: z.string().min(1, 'required'),
  client_secret: z.string().min(1, 'required'),
  hrms_id: z.string().min(1, 'required'),
  access_credentials: accessCredentialsSchema,
  api_configs: z.array(z.strictObject({ api_id: z.string().min(1), access_credentials: accessCredentialsSchema })).max(20).optional(),
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
        org_id: z.string().uuid(), hrms_id: z.string(), configured_apis: z.array(z.string()), next_sync_at: z.string(),
      }),
      handler: async ({ body, source }) => ({ data: await setup.configure(body, { source }) }),
    }),
  ];
}
