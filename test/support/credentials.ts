/**
 * Helpers of the credential suites (docs/credentials.md): a vendor with a registered key, a client
 * with employees, issuing over HTTP, and a verifier that fetches the JWKS and status list from the
 * test app (the credential's `uri` names HRX_PUBLIC_URL, here `http://localhost`).
 */
import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Context } from '../../src/context';
import { presentCredential, verifyCredential, type Verdict } from '../../src/credentials/sd-jwt';
import { normalizeRecord } from '../../src/domain/record';
import { client, connection, v2Vendor } from './factories';
import { call } from './harness';
import { storesOf } from './db';
import { randomUUID } from 'node:crypto';

/** A full employee record of the tests (no real person). */
export function employeeRecord(employeeId: string, over: Record<string, unknown> = {}) {
  return normalizeRecord(
    {
      employeeId,
      name: 'Asha Rao',
      doj: '2021-04-01',
      status: 'Active',
      employmentType: 'Full Time',
      designation: 'Engineer',
      pan: 'ABCDE1234F',
      salaryDetails: { monthly: { month: 10, year: 2026, grossPay: 91234, basic: 45000 } },
      ...over,
    },
    randomUUID(),
  );
}

/** A vendor with a V2 key, a client with employees E1..E3 and an approved connection (consent not required unless told). */
export async function credentialWorld(ctx: Context, conn: { consentRequired?: boolean; shared?: string[] } = {}) {
  const v = await v2Vendor(ctx);
  const c = await client(ctx);
  await connection(ctx, v.org.uuid, c.org.uuid, conn);
  await storesOf(ctx).employees.upsertBatch(c.org.id, null, [employeeRecord('E1'), employeeRecord('E2'), employeeRecord('E3')]);
  return { v, c };
}

/** `POST /api/credentials/employment/` as the holder of `apiKey`. */
export function issue(base: string, apiKey: string, body: unknown) {
  return call(`${base}/api/credentials/employment/`, {
    method: 'POST',
    headers: { authorization: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Maps a URI of `http://localhost` (the test app's HRX_PUBLIC_URL) onto the app's real address. */
export const onApp = (base: string, uri: string) => `${base}${new URL(uri).pathname}`;

/** Verifies with the JWKS and status list fetched from the app over HTTP. */
export async function verifyOnApp(base: string, sdJwt: string, extra: { keyBinding?: { nonce: string; aud: string }; now?: number } = {}): Promise<Verdict> {
  const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  return verifyCredential(sdJwt, { jwks, statusList: async (uri) => (await fetch(onApp(base, uri))).text(), ...extra });
}

/** A presentation by the vendor's private JWK (RS256) disclosing `disclose`. */
export async function present(sdJwt: string, privateJwk: JWK, disclose: string[], aud = 'https://co-lender.example', nonce = 'n-1') {
  const key = (await importJWK(privateJwk, 'RS256')) as CryptoKey;
  return presentCredential(sdJwt, { disclose, key, alg: 'RS256', aud, nonce });
}
