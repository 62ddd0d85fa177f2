/** Wiring of retention (see `context.ts`). */
import type { Infra } from '../infra';
import { createRetentionQueue } from './queue';
import { createRetentionService } from './service';
import { createRetentionStore } from './store';

/**
 * Builds the retention queue (request-path Redis, like the other producers) and the retention
 * service over the syncs' pool (a worker's background pool: no 2 s statement limit) with the
 * `HRX_*_RETENTION_DAYS` settings; registers the queue's close.
 */
export function wireRetention(infra: Infra) {
  const { config, log } = infra;
  const queue = createRetentionQueue(infra.requestRedis, infra.prefix);
  // Connection errors are logged once per outage by infra's watchRedis.
  queue.queue.on('error', () => undefined);
  infra.onClose('retention queue', async () => {
    await queue.queue.waitUntilReady().catch(() => undefined);
    await queue.close();
  });
  const service = createRetentionService({
    store: createRetentionStore(infra.syncPool),
    auditDays: config.HRX_AUDIT_RETENTION_DAYS,
    removedDays: config.HRX_REMOVED_RETENTION_DAYS,
    eventDays: config.HRX_EVENT_RETENTION_DAYS,
    log,
  });
  return { queue, service };
}
