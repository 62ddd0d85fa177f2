/**
 * Routes of the API's own description (docs/api.md "Health, reference and dashboard"): `GET /openapi.json`, the OpenAPI 3.1
 * document generated from the route table, and `GET /docs`, a page rendering it with Swagger UI
 * served from node_modules (src/openapi/assets.ts): nothing is fetched from the internet.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { docsPageHeaders, renderDocsPage } from './assets';
import type { OpenApiDocument } from './document';

/** hrx's version, from package.json: the document's `info.version`. */
export const HRX_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Builds the two routes. `table` answers the whole route table (these rows included); the
 * document is generated on the first request and kept, since the table never changes at run time.
 */
export function openApiRoutes(table: () => readonly RouteDef[], opts: { basePath: string; serverUrl: string }): RouteDef[] {
  let document: OpenApiDocument | undefined;
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      credential: 'none',
      // The document's top-level fields, each as hrx writes it; what paths and components hold is the rest of the document.
      response: z.object({
        openapi: z.string().startsWith('3.1'),
        info: z.object({
          title: z.string(),
          version: z.string(),
          description: z.string().optional(),
          license: z.object({ name: z.string(), identifier: z.string().optional() }).optional(),
        }),
        servers: z.array(z.object({ url: z.string() })).optional(),
        tags: z.array(z.object({ name: z.string() })).optional(),
        paths: z.record(z.string(), z.unknown()).optional(),
        components: z
          .object({ schemas: z.record(z.string(), z.unknown()).optional(), securitySchemes: z.record(z.string(), z.unknown()).optional() })
          .optional(),
      }),
      doc: {
        operationId: 'getOpenApiDocument',
        tag: 'reference',
        answer: 'raw',
        summary: 'This document: the OpenAPI 3.1 description of every route, generated from the route table.',
      },
      async handler() {
        // Loaded on first use: every hrx command imports the app, and none but this route needs zod-openapi.
        if (!document) document = (await import('./document')).openApiDocument(table(), { version: HRX_VERSION, serverUrl: opts.serverUrl });
        return { raw: document };
      },
    }),
    route({
      method: 'GET',
      path: '/docs',
      credential: 'none',
      doc: {
        operationId: 'getDocsPage',
        tag: 'reference',
        answer: 'html',
        summary: 'A page rendering this document (Swagger UI, served by hrx itself; nothing is loaded from elsewhere).',
      },
      handler: () => Promise.resolve({ html: renderDocsPage(opts.basePath), headers: docsPageHeaders() }),
    }),
  ];
}
