/**
 * Helpers of the vendor self-service suites (docs/api.md "Vendor self-service"): an app that
 * delivers to a loopback receiver, and calls with a vendor's API key.
 */
import { call, startTestApp, type TestApp } from './harness';

/** An app and its events worker delivering to loopback receivers, retries in 100 ms steps. */
export async function selfServiceApp(): Promise<TestApp> {
  const app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,100' } });
  await app.startEventsWorker();
  return app;
}

/** `method path` on `app` with API key `key` (none when null), JSON `body` when given. */
export function vendorCall(app: Pick<TestApp, 'url'>, key: string | null, method: string, path: string, body?: unknown) {
  return call(`${app.url}${path}`, {
    method,
    headers: { ...(key ? { authorization: key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
