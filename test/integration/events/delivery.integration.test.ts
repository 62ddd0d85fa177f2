/**
 * Delivery of events (docs/events.md "Delivery"): retries on the configured schedule with every attempt
 * recorded, success on any 2xx and only once, `failed` after the last attempt, redirects not
 * followed, network errors recorded by class, the outbox relay queueing what its producer did
 * not, and the operator command line (`hrx endpoint ... --json`). Real hrx, PostgreSQL,
 * Redis/BullMQ and a real HTTP receiver; the retry schedule is 50, 100, 150 ms (4 attempts).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCompletedEvent } from '../../../src/events/catalog';
import { endpointSecretAad } from '../../../src/events/signing';
import { EVENT_TYPES } from '../../../src/events/types';
import { HRX_BIN, hrxJson } from '../../support/cli';
import { client, connection, vendor } from '../../support/factories';
import { startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';
import { ormQuery, transactorOf } from '../../support/db';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const runHrx = promisify(execFile);

let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  app = await startTestApp({
    worker: false,
    env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '50,100,150', HRX_EVENTS_RELAY_MS: '300' },
  });
  await app.startEventsWorker();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await app?.stop();
});

const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
const attemptsOf = (deliveryId: string) =>
  sql(`select attempt, http_status, error, status_text, duration_ms >= 0 as timed from event_attempts where delivery_id = ? order by attempt`, [deliveryId]);
const deliveryOf = (id: string) =>
  sql(`select status, attempts, finished_at is not null as finished from event_deliveries where id = ?`, [id]).then((r) => r[0]);
const settled = (id: string) =>
  waitFor(
    async () => {
      const d = await deliveryOf(id);
      return d.status !== 'pending' ? d : null;
    },
    15_000,
    25,
  );

/** A vendor with an approved connection and one endpoint at `path` for sync.completed. */
async function subscribed(path: string) {
  const v = await vendor(app.ctx);
  const c = await client(app.ctx);
  await connection(app.ctx, v.org.uuid, c.org.uuid);
  const ep = await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url(path), events: ['sync.completed'] });
  const emit = () =>
    app.ctx.services.events.emit(
      syncCompletedEvent({
        clientOrgId: c.org.id,
        runId: '00000000-0000-4000-8000-00000000000a',
        startedAt: new Date(),
        finishedAt: new Date(),
        employeesSeen: 5,
        employeesRemoved: 0,
      }),
    );
  return { v, c, ep, emit };
}

describe('events to vendors: delivery, retries and the relay', () => {
  it('retries 500, 500, then 200: three attempts, all recorded, delivered once', async () => {
    const { ep, emit } = await subscribed('/flaky');
    rx.plan('/flaky', [500, 500, 200]);
    const {
      deliveryIds: [id],
    } = await emit();
    expect(await settled(id!)).toEqual({ status: 'delivered', attempts: 3, finished: true });
    // Queued by its producer right after the commit, not left to the relay.
    expect(await sql(`select enqueued_at is not null as queued from event_deliveries where id = ?`, [id])).toEqual([{ queued: true }]);
    expect(await attemptsOf(id!)).toEqual([
      { attempt: 1, http_status: 500, error: null, status_text: 'Internal Server Error', timed: true },
      { attempt: 2, http_status: 500, error: null, status_text: 'Internal Server Error', timed: true },
      { attempt: 3, http_status: 200, error: null, status_text: 'OK', timed: true },
    ]);
    await sleep(600);
    const got = rx.at('/flaky');
    expect(got).toHaveLength(3);
    // One event, one webhook-id, each attempt signed afresh and verifiable.
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got.every((r) => verifySignature(ep.secret, r))).toBe(true);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
  });

  it('a receiver that always fails ends failed after the configured attempts', async () => {
    const { emit } = await subscribed('/down');
    rx.setDefault('/down', 500);
    const {
      deliveryIds: [id],
    } = await emit();
    expect(await settled(id!)).toEqual({ status: 'failed', attempts: 4, finished: true });
    expect((await attemptsOf(id!)).map((a) => [a.attempt, a.http_status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
    ]);
    await sleep(600);
    expect(rx.at('/down')).toHaveLength(4);
    expect(await (await app.ctx.eventsQueue.queue.getJob(id!))?.getState()).toBe('failed');
  });

  it('does not follow redirects and records network errors by class', async () => {
    const { emit } = await subscribed('/moved');
    rx.plan('/moved', [302, 204]);
    const {
      deliveryIds: [moved],
    } = await emit();
    expect(await settled(moved!)).toEqual({ status: 'delivered', attempts: 2, finished: true });
    expect((await attemptsOf(moved!)).map((a) => a.http_status)).toEqual([302, 204]);
    expect(rx.at('/redirected-here')).toHaveLength(0);

    // A port nobody listens on: refused connections, no status.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: `http://127.0.0.1:${port}/x`, events: ['employee.updated'] });
    const {
      deliveryIds: [refused],
    } = await app.ctx.services.events.employeesUpdated(c.org.id, [{ employeeId: 'E1', updatedFields: ['dob'] }]);
    expect(await settled(refused!)).toMatchObject({ status: 'failed', attempts: 4 });
    expect((await attemptsOf(refused!)).map((a) => [a.http_status, a.error])).toEqual(Array(4).fill([null, 'ECONNREFUSED']));
  });

  it('the relay delivers events written in a transaction whose deliveries were never queued', async () => {
    const { c, ep } = await subscribed('/relayed');
    const written = await transactorOf(app).transaction((tx) =>
      app.ctx.services.events.writeIn(
        tx,
        syncCompletedEvent({
          clientOrgId: c.org.id,
          runId: '00000000-0000-4000-8000-00000000000b',
          startedAt: new Date(),
          finishedAt: new Date(),
          employeesSeen: 1,
          employeesRemoved: 0,
        }),
      ),
    );
    expect(written.deliveryIds).toHaveLength(1);
    // No dispatch: only the relay (every 300 ms, for rows older than 2 s) can queue it.
    const [got] = await rx.waitForCount('/relayed', 1, 'sync.completed', 15_000);
    expect(got!.headers['webhook-id']).toBe(written.eventIds[0]);
    expect(verifySignature(ep.secret, got!)).toBe(true);
    expect(await settled(written.deliveryIds[0]!)).toEqual({ status: 'delivered', attempts: 1, finished: true });
  });
});

describe('events to vendors: the hrx endpoint command', () => {
  it('hrx endpoint add|list|remove --json, https only unless loopback http is allowed, vendor orgs only', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const added = await hrxJson(['endpoint', 'add', '--org', v.org.uuid, '--url', rx.url('/cli'), '--events', 'sync.completed,connection.approved'], app.env);
    expect(added).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: rx.url('/cli'),
      events: ['connection.approved', 'sync.completed'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    // Stored encrypted and bound to its row; never listed.
    const [row] = await sql(`select secret_enc from event_endpoints where id = ?`, [added.id]);
    expect(row.secret_enc).not.toContain(added.secret.slice(6));
    expect(app.ctx.cipher.decrypt(row.secret_enc, endpointSecretAad(added.id))).toBe(added.secret);
    expect(() => app.ctx.cipher.decrypt(row.secret_enc, endpointSecretAad(v.org.uuid))).toThrow();
    const listed = await hrxJson(['endpoint', 'list', '--org', v.org.uuid], app.env);
    expect(listed).toEqual({ endpoints: [{ id: added.id, url: added.url, events: added.events, created_at: expect.any(String) }] });
    // The secret shown is the one deliveries are signed with.
    await app.ctx.services.events.emit(
      syncCompletedEvent({
        clientOrgId: c.org.id,
        runId: '00000000-0000-4000-8000-00000000000c',
        startedAt: new Date(),
        finishedAt: new Date(),
        employeesSeen: 0,
        employeesRemoved: 0,
      }),
    );
    const [got] = await rx.waitForCount('/cli', 1);
    expect(verifySignature(added.secret, got!)).toBe(true);

    const strict = { ...app.env, HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '0' };
    const refused = await runHrx(process.execPath, [HRX_BIN, 'endpoint', 'add', '--org', v.org.uuid, '--url', rx.url('/plain'), '--json'], {
      env: { ...process.env, ...strict },
    }).then(
      () => null,
      (err: { code: number; stderr: string; stdout: string }) => err,
    );
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused!.stderr).toContain('url: must use https');
    const https = await hrxJson(['endpoint', 'add', '--org', v.org.uuid, '--url', 'https://hooks.example.com/hrx'], strict);
    expect(https).toMatchObject({
      url: 'https://hooks.example.com/hrx',
      events: expect.arrayContaining(['consent.expired', 'consent.revoked', 'employee.removed']),
    });
    // Every event type: an endpoint added without --events takes them all.
    expect([...https.events].sort()).toStrictEqual([...EVENT_TYPES].sort());
    const notVendor = await runHrx(process.execPath, [HRX_BIN, 'endpoint', 'add', '--org', c.org.uuid, '--url', 'https://hooks.example.com/c', '--json'], {
      env: { ...process.env, ...strict },
    }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(notVendor).toMatchObject({ code: 1 });
    expect(notVendor!.stderr).toContain('org: no vendor org with this uuid');

    expect(await hrxJson(['endpoint', 'remove', added.id], app.env)).toEqual({ id: added.id, removed: true, cancelled_deliveries: 0 });
    expect((await hrxJson(['endpoint', 'list', '--org', v.org.uuid], app.env)).endpoints.map((e: { id: string }) => e.id)).toEqual([https.id]);
  });
});
