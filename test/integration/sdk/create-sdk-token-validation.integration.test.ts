/**
 * SDK token issuance (docs/api.md "SDK token and the Connect flow"; docs/connect.md "Reference: the SDK token and the Connect endpoints"): validation errors with their
 * exact bodies, and nothing created by a refused request. Org resolution and the pending connection
 * are in create-sdk-token.integration.test.ts. Real HTTP, PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { dbQuery } from '../../support/db';

describe('SDK token: validation', () => {
  let app: TestApp;
  let a: Awaited<ReturnType<typeof f.vendor>>;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    a = await f.vendor(app.ctx, 'Lender V');
  });
  afterAll(async () => {
    await app?.stop();
  });

  const post = (body: string) =>
    call(`${app.url}/api/sdk/token/`, {
      method: 'POST',
      headers: { authorization: a.apiKey, 'content-type': 'application/json' },
      body,
    });
  const ok = { email: 'hr@valid.example', org_name: 'Valid', fullname: 'V' };
  const badEmail = { code: 400, message: 'Invalid Email Passed!', data: null };

  it('a missing or invalid e-mail is 400 Invalid Email Passed!, checked first', async () => {
    for (const body of [
      { org_name: 'X', fullname: 'Y' },
      { ...ok, email: 'not-an-email' },
      { ...ok, email: 'a@b' },
      { ...ok, email: 42 },
      { ...ok, email: '' },
      { email: 'nope' },
      { ...ok, email: `${'x'.repeat(250)}@a.example` },
    ]) {
      expectError(await post(JSON.stringify(body)), 400, badEmail);
    }
    expectError(await post(''), 400, badEmail);
    expectError(await post('[]'), 400, badEmail);
  });

  it('missing or bad fields are the validation failure naming the field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ email: ok.email, fullname: 'V' }, 'org_name', 'required'],
      [{ email: ok.email, org_name: 'V' }, 'fullname', 'required'],
      [{ ...ok, org_name: '   ' }, 'org_name', 'required'],
      [{ ...ok, fullname: 7 }, 'fullname', 'must be a string'],
      [{ ...ok, remote_org_id: 42 }, 'remote_org_id', 'must be a string'],
      [{ ...ok, corporate_reference_data: 'ref' }, 'corporate_reference_data', 'must be an object'],
      [{ ...ok, corporate_reference_data: { unique_id: 5 } }, 'corporate_reference_data.unique_id', 'must be a string'],
      [{ ...ok, colour: 'blue' }, 'colour', 'unknown field'],
    ];
    for (const [body, field, message] of cases) expectError(await post(JSON.stringify(body)), 400, invalid(field, message));
  });

  it('data_model_flags: unknown groups or names, a name in another group, another flag value', async () => {
    const cases: [unknown, string, string][] = [
      [{ salary_fields: { ctc_basic: 1 } }, 'data_model_flags.salary_fields', 'unknown field'],
      [{ detail_info_fields: { shoeSize: 1 } }, 'data_model_flags.detail_info_fields.shoeSize', 'unknown data point'],
      [{ detail_info_fields: { employeeId: 1 } }, 'data_model_flags.detail_info_fields.employeeId', 'unknown data point'],
      [{ detail_info_fields: { ctc_basic: 1 } }, 'data_model_flags.detail_info_fields.ctc_basic', 'not a data point of detail_info_fields'],
      [
        { ctc_details_fields: { dependentDetails_mobileNumber: -1 } },
        'data_model_flags.ctc_details_fields.dependentDetails_mobileNumber',
        'not a data point of ctc_details_fields',
      ],
      [{ dependent_details_fields: { gender: 1 } }, 'data_model_flags.dependent_details_fields.gender', 'not a data point of dependent_details_fields'],
      [{ detail_info_fields: { gender: 2 } }, 'data_model_flags.detail_info_fields.gender', 'must be -1, 0 or 1'],
      [{ detail_info_fields: { gender: '1' } }, 'data_model_flags.detail_info_fields.gender', 'must be -1, 0 or 1'],
      [{ detail_info_fields: { gender: 0.5 } }, 'data_model_flags.detail_info_fields.gender', 'must be -1, 0 or 1'],
      [{ detail_info_fields: [] }, 'data_model_flags.detail_info_fields', 'must be an object'],
      [[], 'data_model_flags', 'must be an object'],
      [{ detail_info_fields: { gender: 0 } }, 'data_model_flags', 'must request at least one data point'],
    ];
    for (const [flags, field, message] of cases) {
      expectError(await post(JSON.stringify({ ...ok, data_model_flags: flags })), 400, invalid(field, message));
    }
    // The names of docs/data-points.md's tables are accepted in their groups.
    const res = await post(
      JSON.stringify({
        ...ok,
        data_model_flags: {
          detail_info_fields: { gender: -1, dob: 1 },
          dependent_details_fields: { dependentDetails_mobileNumber: 0 },
          ctc_details_fields: { ctc_deductions_misc: 1, ctc_deductions_esi: -1 },
        },
      }),
    );
    expect(res.status).toBe(200);
  });

  it('a refused request creates no org, user or connection', async () => {
    const count = async () =>
      (await dbQuery(app, `select (select count(*) from orgs) + (select count(*) from users) + (select count(*) from connections) as n`)).rows[0].n;
    const before = await count();
    await post(JSON.stringify({ email: 'hr@never.example', org_name: 'Never', fullname: 'N', data_model_flags: { detail_info_fields: { bogus: 1 } } }));
    await post(JSON.stringify({ email: 'hr@never.example', org_name: 'Never' }));
    expect(await count()).toBe(before);
  });
});
