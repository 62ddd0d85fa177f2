/**
 * A read after termination (docs/api.md "Errors"): the vendor whose own connection ended gets
 * the unknown org's `404 Invalid Organisation ID` message (the contract's) with its own code,
 * `connection_terminated`; another vendor, which never had a
 * connection with that org, still gets exactly the unknown org's answer. The termination itself is
 * sent as JSON (docs/api.md "Terminate connection").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, invalid, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

describe('employee details after termination', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers connection_terminated to the connection's vendor and the unknown org to any other", async () => {
    const v = await f.vendor(app.ctx);
    const other = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    await f.employees(app.ctx, c.org.id, [{ employeeId: 'E1' }]);
    const read = (apiKey: string, vendorUuid: string) =>
      call(`${app.url}/api/employee_details/E1?org=${c.org.uuid}&vendor_org=${vendorUuid}`, { headers: { username: apiKey } });
    // Termination takes its one field as JSON too: an empty object names the field, not the media type.
    const terminate = (body: unknown) =>
      call(`${app.url}/api/terminate_connection/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expectError(await terminate({}), 400, invalid('client_org', 'required'));
    const ended = await terminate({ client_org: c.org.uuid });
    expect({ status: ended.status, message: ended.body.message }).toEqual({ status: 200, message: 'Connection terminated successfully' });
    expectError(await read(v.apiKey, v.org.uuid), 404, { error: 'connection_terminated', ...plain('Invalid Organisation ID') });
    expectError(await read(other.apiKey, other.org.uuid), 404, { error: 'invalid_organisation_id', ...plain('Invalid Organisation ID') });
  });
});
