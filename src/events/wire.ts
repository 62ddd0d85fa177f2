/** Wiring of the events feature: events to vendors, their endpoints and delivery (docs/events.md "Delivery"). */
import type { Infra } from '../infra';
import type { WorkCounters } from '../ops/counters';
import type { OrgStore } from '../orgs/store';
import { createDeliverer } from './delivery';
import { createEndpointService } from './endpoints';
import { createEventsQueue } from './queue';
import { createEventService } from './service';
import { createEventStore } from './store';
import { createSelfService } from './self-service';
import { createSelfServiceStore } from './self-service-store';

/**
 * Builds the event store, the events queue (on the request-path Redis), the event service, the
 * endpoint service (`endpoints`), the vendor's self-service over them (`selfService`) and the deliverer the events worker runs. Takes the org store
 * (endpoints are registered per org uuid) and the work counters (each delivery's end is
 * counted); registers the queue's close.
 */
export function wireEvents(infra: Infra, deps: { orgs: OrgStore; counters: Pick<WorkCounters, 'deliveries'> }) {
  const { config, cipher, log } = infra;
  const store = createEventStore(infra.db.orm);
  // BullMQ's own attempts exceed the schedule's so a passing database error does not use up a
  // delivery's attempts (the delivery row counts those).
  const queue = infra.adoptQueue('events queue', createEventsQueue(infra.requestRedis, infra.prefix, config.HRX_EVENTS_RETRY_SCHEDULE_MS.length + 4));
  const service = createEventService({ store, transactor: infra.transactor, queue, log });
  const endpoints = createEndpointService({
    store,
    transactor: infra.transactor,
    orgs: deps.orgs,
    cipher,
    queue,
    allowHttpLoopback: config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK,
    hostPolicy: infra.hostPolicies.events,
    onCancelled: (n) => deps.counters.deliveries('cancelled', n),
  });
  const deliverer = createDeliverer({
    store,
    cipher,
    scheduleMs: config.HRX_EVENTS_RETRY_SCHEDULE_MS,
    timeoutMs: config.HRX_EVENTS_TIMEOUT_MS,
    log,
    // Vendor endpoints are outside hosts: the same SSRF guard as HRMS hosts, unless allowed.
    hostPolicy: infra.hostPolicies.events,
    onEnd: (outcome) => deps.counters.deliveries(outcome),
  });
  const selfService = createSelfService({
    endpoints,
    store: createSelfServiceStore(infra.db.orm),
    outbox: store,
    events: service,
    queue,
    transactor: infra.transactor,
    cipher,
  });
  return { service, store, queue, endpoints, selfService, deliverer };
}
