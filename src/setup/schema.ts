/**
 * Request schemas of HRMS setup that another feature shares: the Connect flow's `hrms` step
 * (sdk/routes.ts) takes the same `access_credentials` as the setup webhook. A schema module, so
 * sdk imports it without a route → route edge.
 */
import { z } from 'zod';

/**
 * An `access_credentials` object (docs/api.md "Setup config"). `hrms_host` must parse as
 * a URL; its scheme and address are the setup service's and the host policy's to refuse (`400
 * HRMS credentials rejected: host not allowed`).
 */
export const accessCredentialsSchema = z
  .strictObject({
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    api_key: z.string().optional(),
    grant_type: z.string().min(1, 'required'),
    hrms_host: z.string().url(),
    enum_labels: z
      .record(
        z.string().min(1).max(40),
        z.record(z.string().min(1).max(20), z.string().trim().min(1).max(100)).refine((t) => Object.keys(t).length <= 200, 'at most 200 codes'),
      )
      .refine((t) => Object.keys(t).length <= 20, 'at most 20 fields')
      .optional()
      .meta({
        description:
          'Label tables for enumerations a product sends as numbers without published meanings (only products whose page, listed in docs/hrms/README.md, says they take them): per product field, code → hrx word, e.g. `{"gender": {"0": "Male", "1": "Female"}}`.',
      }),
    tls_client_cert: z
      .string()
      .max(64 * 1024)
      .optional()
      .meta({
        description:
          'The TLS client certificate hrx presents to the HRMS on every request (mutual TLS), PEM (`-----BEGIN CERTIFICATE-----`), with `tls_client_key`; only products whose page says they take it. Checked at setup: readable, not expired, matching the key. Stored encrypted, never echoed.',
      }),
    tls_client_key: z
      .string()
      .max(64 * 1024)
      .optional()
      .meta({ description: 'The private key of `tls_client_cert`, unencrypted PEM (`-----BEGIN PRIVATE KEY-----`). Stored encrypted, never echoed.' }),
    payroll_currency: z.string().max(16).optional().meta({
      description:
        "The currency the HRMS's payroll pays in (ISO 4217), on the products whose page offers it: only `INR` is accepted (hrx stores pay amounts only in rupees).",
    }),
  })
  .meta({ id: 'AccessCredentials', description: 'HRMS credentials: `hrms_host` (the HRMS base URL), `grant_type`, and what that grant type needs.' });

/**
 * The HRMS configuration fields of a setup body (docs/api.md "Setup config"): the setup
 * webhook adds the org's app credentials to them; the Connect flow's `hrms` step takes them alone.
 */
export const hrmsConfigFields = {
  hrms_id: z.string().min(1, 'required'),
  access_credentials: accessCredentialsSchema,
  api_configs: z
    .array(z.strictObject({ api_id: z.string().min(1), access_credentials: accessCredentialsSchema }))
    .max(20)
    .optional(),
};
