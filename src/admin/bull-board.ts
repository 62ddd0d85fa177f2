/**
 * Bull Board (the queue dashboard) at `/admin/queues`, behind `HRX_ADMIN_TOKEN` (decisions §2).
 * Browsers authenticate with HTTP Basic (any user name, the token as password) so the
 * dashboard's own asset and API requests carry the credential; scripts may send `Bearer <token>`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express from 'express';
import { parseBasic } from '../auth/authenticator';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { sourceAddress } from '../auth/source';
import { renderError } from '../errors';

function tokenOk(header: string | undefined, expected: string | undefined): boolean {
  if (!header || !expected) return false;
  const basic = parseBasic(header);
  const given = basic ? basic.pass : header.replace(/^Bearer\s+/i, '');
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A request handler serving Bull Board for `queues` under `basePath` (e.g. `/admin/queues`).
 * A wrong token is a failed authentication of the request's source (decisions §2): past the
 * limit of `opts.failures` the answer is 429 THROTTLED whatever the token.
 */
export function bullBoardHandler(
  queues: Queue[],
  basePath: string,
  adminToken: string | undefined,
  opts: { failures?: AuthFailureGuard | undefined; trustProxy?: boolean } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  const app = express();
  app.disable('x-powered-by');
  app.use(
    basePath,
    (req, res, next) => {
      const requestId = String(res.getHeader('x-request-id') ?? '');
      const check = () => Promise.resolve(tokenOk(req.headers.authorization, adminToken) ? true : null);
      const attempt = { source: sourceAddress(req, opts.trustProxy ?? false), kind: 'admin' as const, presented: '' };
      (opts.failures ? opts.failures.run(attempt, check, { concurrent: true }) : check()).then(
        (ok) => {
          if (ok) {
            next();
            return;
          }
          const body = JSON.stringify({
            requestId,
            message: req.headers.authorization ? 'Invalid token.' : 'Authentication credentials were not provided.',
            data: null,
          });
          res.status(401).set('www-authenticate', 'Basic realm="hrx admin"').type('application/json').send(body);
        },
        (err: unknown) => {
          const r = renderError(err, requestId);
          res
            .status(r.status)
            .set(r.headers ?? {})
            .type('application/json')
            .send(JSON.stringify(r.body));
        },
      );
      // bull-board types getRouter() as any; the express adapter's router is an express Router.
    },
    adapter.getRouter() as express.Router,
  );
  return app;
}
