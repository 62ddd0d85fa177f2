/**
 * Event deliveries go through the same SSRF guard as HRMS calls (src/outbound/host-policy.ts):
 * with HRX_EVENTS_ALLOW_PRIVATE_HOSTS and HRX_EVENTS_ALLOW_HTTP_LOOPBACK off, an endpoint on a
 * loopback address (an IP literal, or a name resolving to one) is never connected to; each
 * attempt is recorded as `ERR_HOST_NOT_ALLOWED` and the delivery ends `failed`. The control: the
 * same URL without the guard does reach the listener.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCompletedEvent } from '../../../src/events/catalog';
import { postOnce } from '../../../src/events/delivery';
import { randomUUID } from 'node:crypto';
import { endpointSecretAad, newSigningSecret } from '../../../src/events/signing';
import { ormQuery, storesOf } from '../../support/db';
import { client, connection, vendor } from '../../support/factories';
import { startTestApp, waitFor, type TestApp } from '../../support/harness';

describe('events: the outbound host guard', () => {
  let app: TestApp;
  let listener: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    app = await startTestApp({
      worker: false,
      env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '0', HRX_EVENTS_ALLOW_PRIVATE_HOSTS: '0', HRX_EVENTS_RETRY_SCHEDULE_MS: '50' },
    });
    await app.startEventsWorker();
    // A raw TCP listener: it counts connections whatever the client would have said (TLS or not).
    listener = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => listener?.close(r));
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);

  it('records ERR_HOST_NOT_ALLOWED for an IP literal and a name on loopback, and never connects', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    for (const url of [`https://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`]) {
      // Registration refuses these now; an endpoint whose name resolved elsewhere then (DNS
      // rebinding) is what the delivery-time guard is for: such rows are written straight.
      await expect(app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url, events: ['sync.completed'] })).rejects.toMatchObject({ code: 'VALIDATION' });
      const id = randomUUID();
      const secretEnc = app.ctx.cipher.encrypt(newSigningSecret(), endpointSecretAad(id));
      await storesOf(app).events.insertEndpoint({ id, orgId: v.org.id, url, eventTypes: ['sync.completed'], secretEnc });
    }
    const { deliveryIds } = await app.ctx.services.events.emit(
      syncCompletedEvent({
        clientOrgId: c.org.id,
        runId: '00000000-0000-4000-8000-00000000000b',
        startedAt: new Date(),
        finishedAt: new Date(),
        employeesSeen: 1,
        employeesRemoved: 0,
      }),
    );
    expect(deliveryIds).toHaveLength(2);
    for (const id of deliveryIds) {
      const d = await waitFor(
        async () => {
          const [row] = await sql(`select status, attempts from event_deliveries where id = ?`, [id]);
          return row.status !== 'pending' ? row : null;
        },
        15_000,
        25,
      );
      expect(d).toEqual({ status: 'failed', attempts: 2 });
      const attempts = await sql(`select attempt, http_status, error from event_attempts where delivery_id = ? order by attempt`, [id]);
      expect(attempts).toEqual([
        { attempt: 1, http_status: null, error: 'ERR_HOST_NOT_ALLOWED' },
        { attempt: 2, http_status: null, error: 'ERR_HOST_NOT_ALLOWED' },
      ]);
    }
    expect(connections).toBe(0);

    // Control: without the guard the same address is reached.
    const unguarded = await postOnce(`http://127.0.0.1:${port}/hook`, {}, '{}', 2_000);
    expect(unguarded.httpStatus).toBeNull();
    expect(connections).toBe(1);
  });
});
