/**
 * The `/docs` page and its assets: Swagger UI's standalone bundle and stylesheet, read from the
 * `swagger-ui-dist` package in node_modules (never a CDN), and a small start script naming this
 * service's `/openapi.json`. The page's CSP allows only this origin.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Where the assets are mounted, below `HRX_BASE_PATH`. */
export const DOCS_ASSETS_PREFIX = '/docs/assets';

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files served, by name, with their media types: nothing else of the package is reachable. */
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * The page's headers: scripts, styles, images, fonts and fetches from this origin only (`data:`
 * images are Swagger UI's inline icons); no frames, forms or base URL.
 */
export function docsPageHeaders(): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { 'content-security-policy': csp, 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' };
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page: Swagger UI's stylesheet and bundle, then the start script, all from `basePath`. */
export function renderDocsPage(basePath: string): string {
  const a = escapeAttr(basePath + DOCS_ASSETS_PREFIX);
  // The icon is the service's own logo, so the browser does not ask for a /favicon.ico there is none of.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>hrx API reference</title><link rel="icon" href="${escapeAttr(basePath)}/static/org-logo.svg">
<link rel="stylesheet" href="${a}/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="${a}/swagger-ui-bundle.js"></script>
<script src="${a}/start.js"></script>
</body></html>
`;
}

/** Starts Swagger UI on this service's document; no validator badge (it would call out). */
function startScript(basePath: string): string {
  return `window.ui = SwaggerUIBundle(${JSON.stringify({ url: `${basePath}/openapi.json`, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null })});\n`;
}

/**
 * The raw handler of `DOCS_ASSETS_PREFIX` (a router mount): the listed files and `start.js`,
 * cacheable for an hour; any other name is a plain 404. Files are read once, on first use.
 */
export function docsAssetsHandler(basePath: string): (req: IncomingMessage, res: ServerResponse) => void {
  const cache = new Map<string, Buffer>();
  const start = Buffer.from(startScript(basePath));
  return (req, res) => {
    const name = (req.url ?? '').split('?')[0]!.slice(basePath.length + DOCS_ASSETS_PREFIX.length + 1);
    const type = name === 'start.js' ? 'text/javascript; charset=utf-8' : FILES[name];
    if (!type || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end('Not found.\n');
      return;
    }
    let body = name === 'start.js' ? start : cache.get(name);
    if (!body) {
      body = readFileSync(path.join(DIST, name));
      cache.set(name, body);
    }
    res.writeHead(200, {
      'content-type': type,
      'content-length': body.length,
      'cache-control': 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
