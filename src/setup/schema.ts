/**
 * Request schemas of HRMS setup that another feature shares: the Connect flow's `hrms` step
 * (sdk/routes.ts) takes the same `access_credentials` as the setup webhook. A schema module, so
 * sdk imports it without a route → route edge.
 */
import { z } from 'zod';

/**
 * An `access_credentials` object (interface.md "Setup configuration"). `hrms_host` must parse as
 * a URL; its scheme and address are the setup service's and the host policy's to refuse (`400
 * HRMS credentials rejected: host not allowed`).
 */
export const accessCredentialsSchema = z.strictObject({
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  api_key: z.string().optional(),
  grant_type: z.string().min(1, 'required'),
  hrms_host: z.string().url(),
});
