/**
 * The outbox of events to vendors (docs/events.md "Outbox"). Producers hand it `EventInput`s (see
 * catalog.ts); it resolves the receiving vendor orgs and their subscribed endpoints, writes one
 * event row per vendor org (id `msg_...`, the Standard Webhooks `webhook-id`) and one delivery
 * per endpoint, in the producer's transaction where it has one, then queues the deliveries.
 * Vendor orgs without a subscribed endpoint get no row: there is nobody to deliver to.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Transactor } from '../db/tx';
import type { Logger } from '../logger';
import { connectionEvent, consentExpiredEvent, employeesUpdatedEvents, payRecordedEvents, type EmployeeChange, type PayRecorded } from './catalog';
import type { EventsQueue } from './queue';
import type { EventStore, NewEvent } from './store';
import type { EventInput, EventPayload, Recipient, Staged, Tx, Written } from './types';

/** A new event id: `msg_` + time-ordered base36 milliseconds + 80 random bits (no `.`, per the spec). */
export function newEventId(now = Date.now()): string {
  return `msg_${now.toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;
}

export interface EventServiceDeps {
  store: EventStore;
  /** Opens the transactions of `emit` and of the consent-expiry scan (retried after a deadlock). */
  transactor: Transactor;
  queue: Pick<EventsQueue, 'enqueue' | 'requeue'>;
  log: Logger;
  /** How overdue (ms) a pending delivery must be before the relay queues it again. Default 60 s. */
  relayGraceMs?: number;
}

export type EventService = ReturnType<typeof createEventService>;

/** Builds the events service. */
export function createEventService(deps: EventServiceDeps) {
  const { store, queue, log } = deps;
  const list = (i: EventInput | EventInput[]): EventInput[] => (Array.isArray(i) ? i : [i]);

  /** Writes `inputs` (in `tx` when given): events for each receiving vendor, deliveries for each endpoint. */
  async function writeIn(tx: Tx | undefined, inputs: EventInput[]): Promise<Written> {
    const events: NewEvent[] = [];
    const deliveries: { id: string; eventId: string; endpointId: string }[] = [];
    // A large removal is many events of one type to the same audience: resolve it once.
    const resolved = new Map<string, Awaited<ReturnType<EventStore['recipients']>>>();
    for (const input of inputs) {
      const key = `${input.type}|${JSON.stringify(input.audience)}|${input.clientOrgId}`;
      const rows = resolved.get(key) ?? (await store.recipients(input.type, input.audience, input.clientOrgId, tx));
      resolved.set(key, rows);
      const byVendor = new Map<number, typeof rows>();
      for (const r of rows) byVendor.set(r.vendorOrgId, [...(byVendor.get(r.vendorOrgId) ?? []), r]);
      const at = input.occurredAt ?? new Date();
      for (const [vendorOrgId, endpoints] of byVendor) {
        const first = endpoints[0]!;
        const recipient: Recipient = {
          vendorOrgId,
          vendorOrgUuid: first.vendorOrgUuid,
          clientOrgUuid: first.clientOrgUuid,
          sharedDataPoints: first.sharedDataPoints,
        };
        const data = input.data(recipient);
        if (data === null) continue;
        const payload: EventPayload = { type: input.type, timestamp: at.toISOString(), data };
        const id = newEventId();
        events.push({
          id,
          type: input.type,
          vendorOrgId,
          clientOrgId: input.clientOrgId,
          connectionId: input.connectionId ?? null,
          payload: JSON.stringify(payload),
          createdAt: new Date(),
        });
        for (const ep of endpoints) deliveries.push({ id: randomUUID(), eventId: id, endpointId: ep.endpointId });
      }
    }
    await store.insertOutbox(events, deliveries, tx);
    return { eventIds: events.map((e) => e.id), deliveryIds: deliveries.map((d) => d.id) };
  }

  /**
   * Queues written deliveries in the background and returns at once: queueing never blocks nor
   * fails the producer's answer (docs/limits.md); what it cannot queue, the relay job does.
   */
  function dispatch(written: Written | undefined): Promise<void> {
    void queueNow(written);
    return Promise.resolve();
  }

  /** Queues written deliveries; never throws. */
  async function queueNow(written: Written | undefined): Promise<void> {
    const ids = written?.deliveryIds ?? [];
    if (ids.length === 0) return;
    try {
      await queue.enqueue(ids);
      await store.markEnqueued(ids);
    } catch (err) {
      log.warn({ err, deliveries: ids.length }, 'event deliveries not queued; the relay will');
    }
  }

  async function emit(input: EventInput | EventInput[]): Promise<Written> {
    const written = await deps.transactor.transaction((tx) => writeIn(tx, list(input)));
    await dispatch(written);
    return written;
  }

  return {
    /**
     * Writes events in their own transaction and queues their deliveries: for producers whose
     * change is already committed ("right after it"). Throws the database's error.
     */
    emit,

    /** Writes events inside the caller's transaction `tx`; call `dispatch` with the result after commit. */
    writeIn: (tx: Tx, input: EventInput | EventInput[]): Promise<Written> => writeIn(tx, list(input)),

    /** Queues the deliveries of `written` (after its transaction committed). Never throws. */
    dispatch,

    /** `writeIn` + `dispatch` packaged for a caller that hands `write` to a store (see `Staged`). */
    stage(input: EventInput | EventInput[]): Staged {
      let written: Written | undefined;
      return {
        async write(tx) {
          written = await writeIn(tx, list(input));
        },
        dispatch: () => dispatch(written),
      };
    },

    /**
     * `connection.<status>` for the connection's vendor, staged for the transaction of the status
     * change (connections/service passes `write` to its store, then calls `dispatch`).
     */
    connectionChanged(status: 'approved' | 'rejected' | 'terminated', c: { id: string; vendorOrgId: number; clientOrgId: number }): Staged {
      let written: Written | undefined;
      return {
        async write(tx) {
          written = await writeIn(tx, [connectionEvent(`connection.${status}`, c)]);
        },
        dispatch: () => dispatch(written),
      };
    },

    /**
     * Announces changed employees of `clientOrgId` (numeric org id) to every vendor with an
     * approved connection: `employee.updated` with ids and changed data point names only
     * (docs/events.md), each vendor hearing only of the data points its connection shares. Meant
     * for the employee update webhook (docs/api.md "Employee update webhook"): `changes` are its `{employeeId, id,
     * updated_fields}` results; employees without changes are skipped. Pass `tx` to write in the
     * webhook's transaction (then call `dispatch` with the result after commit); without it the
     * events are written and queued at once. Throws the database's error.
     */
    async employeesUpdated(clientOrgId: number, changes: EmployeeChange[], tx?: Tx): Promise<Written> {
      const inputs = employeesUpdatedEvents(clientOrgId, changes);
      if (inputs.length === 0) return { eventIds: [], deliveryIds: [] };
      return tx ? writeIn(tx, inputs) : emit(inputs);
    },

    /**
     * `employee.pay_recorded` for each pay month in `recorded` of `clientOrgId` (docs/pay-history.md
     * "Events"), to the vendors whose connection shares a `monthly_*` point; in `tx` when given
     * (then `dispatch` after commit), else written and queued at once. Throws the database's error.
     */
    async payRecorded(clientOrgId: number, recorded: PayRecorded[], tx?: Tx): Promise<Written> {
      if (recorded.length === 0) return { eventIds: [], deliveryIds: [] };
      const inputs = payRecordedEvents(clientOrgId, recorded);
      return tx ? writeIn(tx, inputs) : emit(inputs);
    },

    /**
     * The consent-expiry scan (a job scheduler runs it): announces `consent.expired` once for each
     * consent that expired since the last scan and was not superseded. Returns how many consents
     * were announced (vendors without a subscribed endpoint included).
     */
    async scanExpiredConsents(batch = 500): Promise<number> {
      let total = 0;
      for (;;) {
        const { claimed, written } = await deps.transactor.transaction(async (tx) => {
          const found = await store.claimExpiredConsents(tx, batch);
          return {
            claimed: found.length,
            written: await writeIn(
              tx,
              found.map((k) => consentExpiredEvent(k)),
            ),
          };
        });
        await dispatch(written);
        total += claimed;
        if (claimed < batch) return total;
      }
    },

    /** The relay (a job scheduler runs it): queues pending deliveries no job carries. Returns how many. */
    async relay(limit = 500): Promise<number> {
      const ids = await store.relayCandidates(deps.relayGraceMs ?? 60_000, limit);
      if (ids.length === 0) return 0;
      await queue.requeue(ids);
      await store.markEnqueued(ids);
      return ids.length;
    },
  };
}
