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

function tokenOk(header: string | undefined, expected: string | undefined): boolean {
  if (!header || !expected) return false;
  const basic = parseBasic(header);
  const given = basic ? basic.pass : header.replace(/^Bearer\s+/i, '');
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A request handler serving Bull Board for `queues` under `basePath` (e.g. `/admin/queues`). */
export function bullBoardHandler(queues: Queue[], basePath: string, adminToken: string | undefined): (req: IncomingMessage, res: ServerResponse) => void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  const app = express();
  app.disable('x-powered-by');
  app.use(basePath, (req, res, next) => {
    if (!tokenOk(req.headers.authorization, adminToken)) {
      const body = JSON.stringify({ requestId: res.getHeader('x-request-id'), message: req.headers.authorization ? 'Invalid token.' : 'Authentication credentials were not provided.', data: null });
      res.status(401).set('www-authenticate', 'Basic realm="hrx admin"').type('application/json').send(body);
      return;
    }
    next();
  }, adapter.getRouter());
  return app;
}
