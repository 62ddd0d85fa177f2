/**
 * Routes of organizations (docs/api.md "Org details").
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import type { OrgService } from './service';

const orgRecordSchema = z
  .strictObject({
    id: z.number().int(),
    application: z.strictObject({ app_name: z.string(), app_key: z.string(), app_secret: z.string().regex(/^\*+.{4}$/) }),
    uuid: z.string().uuid(),
    org_name: z.string(),
    org_cin: z.string().nullable(),
    website_url: z.string(),
    logo_url: z.string().url(),
    email_domain: z.string().nullable(),
    invite_status: z.string(),
    created_on: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    modified_on: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    is_client: z.boolean(),
    is_vendor: z.boolean(),
    brand_name: z.string().nullable(),
    remote_org_id: z.string().nullable(),
    hrms: z.string().nullable(),
    invited_by: z.number().int(),
    created_by: z.number().int(),
  })
  .meta({ id: 'OrgRecord' });

/** Builds the org routes over the service. */
export function orgRoutes(orgs: OrgService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/org_details/:org/',
      credential: 'apiKey',
      // Any text: one that is not a UUID names no org, `404 Not found.` as an unknown one (docs/api.md "Conventions").
      params: z.object({ org: z.string().min(1) }),
      response: orgRecordSchema,
      doc: {
        operationId: 'getOrgDetails',
        tag: 'orgs',
        answer: 'raw',
        summary: "An organization record (top-level, not in the envelope): the caller's own org or one it has a connection with.",
        description: "`app_secret` is always masked; `app_key` is shown only for the caller's own org. Any other org is `404 Not found.`",
        errors: ['NOT_FOUND'],
      },
      async handler({ params, principal }) {
        // Top-level record, not wrapped in the envelope (docs/api.md "Org details").
        return { raw: await orgs.detailsFor(principal.orgId, params.org) };
      },
    }),
  ];
}
