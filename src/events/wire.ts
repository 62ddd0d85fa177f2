/** Wiring of the events feature: events to vendors, their endpoints and delivery (decisions §10). */
import type { Infra } from '../infra';
import type { OrgStore } from '../orgs/store';
import { createDeliverer } from './delivery';
import { createEndpointService } from './endpoints';
import { createEventsQueue } from './queue';
import { createEventService } from './service';
import { createEventStore } from './store';

/**
 * Builds the event store, the events queue (on the request-path Redis), the event service, the
 * endpoint service (`endpoints`) and the deliverer the events worker runs. Takes the org store
 * (endpoints are registered per org uuid); registers the queue's close.
 */
export function wireEvents(infra: Infra, deps: { orgs: OrgStore }) {
  const { config, cipher, log } = infra;
  const store = createEventStore(infra.db.orm);
  // BullMQ's own attempts exceed the schedule's so a passing database error does not use up a
  // delivery's attempts (the delivery row counts those).
  const queue = createEventsQueue(infra.requestRedis, infra.prefix, config.HRX_EVENTS_RETRY_SCHEDULE_MS.length + 4);
  // Connection errors are logged once per outage by infra's watchRedis; BullMQ would print each one.
  queue.queue.on('error', () => undefined);
  // A queue still connecting would report its late error to a listener close() removed.
  infra.onClose('events queue', async () => {
    await queue.queue.waitUntilReady().catch(() => undefined);
    await queue.close();
  });
  const service = createEventService({ store, queue, log });
  const endpoints = createEndpointService({
    store, orgs: deps.orgs, cipher, queue, allowHttpLoopback: config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK,
  });
  const deliverer = createDeliverer({
    store, cipher, scheduleMs: config.HRX_EVENTS_RETRY_SCHEDULE_MS, timeoutMs: config.HRX_EVENTS_TIMEOUT_MS, log,
    // Vendor endpoints are outside hosts: the same SSRF guard as HRMS hosts, unless allowed.
    hostPolicy: infra.hostPolicies.events,
  });
  return { service, store, queue, endpoints, deliverer };
}
