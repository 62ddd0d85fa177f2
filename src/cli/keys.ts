/**
 * V2 commands (decisions §9, §12):
 * - `hrx keys add --org UUID --jwk FILE` → `{kid}`; `hrx keys list --org UUID` → `{keys:[...]}`;
 *   `hrx keys revoke --org UUID --kid K` → `{kid, revoked: true}` (vendor public RSA keys);
 * - `hrx basic create --org UUID` → `{username, password}` (shown once);
 *   `hrx basic revoke --org UUID --username U` → `{username, revoked: true}`;
 * - `hrx service-keys rotate [--grace-hours H]` → `{enc, sig, retired, retired_until}`;
 * - `hrx client employee --base-url URL --username U --password P --key PRIVATE_JWK_FILE [--kid K]
 *   --connection ID --employee EMP [--source db|hrms] [--jwks FILE]` → `{employee, iat, jti}`:
 *   the vendor side of the V2 call, run against a running hrx.
 */
import { readFileSync } from 'node:fs';
import type { JSONWebKeySet, JWK } from 'jose';
import type { Config } from '../config';
import { openContext, type Context } from '../context';
import { buildEncryptedRequest, openEncryptedResponse } from '../crypto/jose/client';
import type { Logger } from '../logger';
import { output, parse, required, UsageError } from './args';

async function withContext<T>(config: Config, log: Logger, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const ctx = await openContext(config, log, { poolMax: 2 });
  try {
    return await fn(ctx);
  } finally {
    // close() lets BullMQ's queue initialisation settle first, each step bounded.
    await ctx.close();
  }
}

function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${what} file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${what} file ${path} is not JSON`);
  }
}

/** `hrx keys add|list|revoke --org UUID ...`. */
export async function keysCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, { org: { type: 'string' }, jwk: { type: 'string' }, kid: { type: 'string' } });
  const sub = positionals[0];
  if (sub !== 'add' && sub !== 'list' && sub !== 'revoke') {
    throw new UsageError('usage: hrx keys add --org UUID --jwk FILE | hrx keys list --org UUID | hrx keys revoke --org UUID --kid K');
  }
  const org = required(values, 'org');
  const jwk = sub === 'add' ? readJsonFile(required(values, 'jwk'), 'JWK') : undefined;
  const kid = sub === 'revoke' ? required(values, 'kid') : undefined;
  await withContext(config, log, async (ctx) => {
    const ext = ctx.services.external;
    if (sub === 'add') output(await ext.addVendorKey(org, jwk), values.json);
    else if (sub === 'list') output({ keys: await ext.listVendorKeys(org) }, values.json);
    else {
      await ext.revokeVendorKey(org, kid!);
      output({ kid, revoked: true }, values.json);
    }
  });
}

/** `hrx basic create --org UUID` | `hrx basic revoke --org UUID --username U`. */
export async function basicCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, { org: { type: 'string' }, username: { type: 'string' } });
  const sub = positionals[0];
  if (sub !== 'create' && sub !== 'revoke') throw new UsageError('usage: hrx basic create --org UUID | hrx basic revoke --org UUID --username U');
  const org = required(values, 'org');
  const username = sub === 'revoke' ? required(values, 'username') : '';
  await withContext(config, log, async (ctx) => {
    const basic = ctx.services.external.basic;
    if (sub === 'create') output(await basic.create(org), values.json);
    else {
      await basic.revoke(org, username);
      output({ username, revoked: true }, values.json);
    }
  });
}

/** `hrx service-keys rotate [--grace-hours H]` (default 24 h; 0 retires the old keys at once). */
export async function serviceKeysCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, { 'grace-hours': { type: 'string' } });
  if (positionals[0] !== 'rotate') throw new UsageError('usage: hrx service-keys rotate [--grace-hours H]');
  const grace = values['grace-hours'] === undefined ? 24 : Number(values['grace-hours']);
  if (!Number.isFinite(grace) || grace < 0 || grace > 24 * 365) throw new UsageError('--grace-hours must be a number of hours between 0 and 8760');
  await withContext(config, log, async (ctx) => {
    await ctx.services.external.ensureServiceKeys();
    output({ ...(await ctx.services.external.rotateServiceKeys(grace)) }, values.json);
  });
}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new Error(`${url}: HTTP ${res.status}, body is not JSON`);
  }
}

/** `hrx client employee ...`: builds the V2 request, calls hrx, prints the opened response. */
export async function clientCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    'base-url': { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, key: { type: 'string' },
    kid: { type: 'string' }, connection: { type: 'string' }, employee: { type: 'string' }, source: { type: 'string' }, jwks: { type: 'string' },
  });
  if (positionals[0] !== 'employee') {
    throw new UsageError('usage: hrx client employee --base-url URL --username U --password P --key PRIVATE_JWK_FILE [--kid K] --connection ID --employee EMP [--source db|hrms] [--jwks FILE]');
  }
  const base = required(values, 'base-url').replace(/\/+$/, '');
  const username = required(values, 'username');
  const password = required(values, 'password');
  const privateJwk = readJsonFile(required(values, 'key'), 'private JWK') as JWK;
  if (typeof privateJwk !== 'object' || privateJwk === null || privateJwk.kty !== 'RSA' || typeof privateJwk.d !== 'string') {
    throw new UsageError('--key must name a file holding a private RSA JWK');
  }
  const source = values.source;
  if (source !== undefined && source !== 'db' && source !== 'hrms') throw new UsageError('--source must be db or hrms');
  // The JWKS is fetched from the service unless pinned with --jwks (its trust then rests on TLS).
  let jwks: JSONWebKeySet;
  if (values.jwks) jwks = readJsonFile(values.jwks, 'JWKS') as JSONWebKeySet;
  else {
    const r = await getJson(`${base}/.well-known/jwks.json`);
    if (r.status !== 200) throw new Error(`JWKS: HTTP ${r.status}`);
    // A body without a `keys` array holds no key to encrypt to (refused just below).
    jwks = { keys: Array.isArray(r.body.keys) ? r.body.keys : [] };
  }
  // Keys are listed current first: the first `enc` key is the one to encrypt to.
  const encJwk = (jwks.keys ?? []).find((k) => k.use === 'enc' && k.alg === 'RSA-OAEP-256');
  if (!encJwk) throw new Error('the service JWKS has no RSA-OAEP-256 encryption key');
  const kid = values.kid ?? (typeof privateJwk.kid === 'string' ? privateJwk.kid : undefined);
  const encrypted = await buildEncryptedRequest({
    connectionId: required(values, 'connection'), employeeId: required(values, 'employee'),
    ...(source ? { source } : {}), vendorPrivateKey: privateJwk, ...(kid ? { vendorKid: kid } : {}), servicePublicJwk: encJwk,
  });
  const r = await getJson(`${base}/api/external/employee/`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ encrypted_payload: encrypted }),
  });
  if (r.status !== 200 || typeof r.body.data !== 'string') throw new Error(`HTTP ${r.status}: ${String(r.body.message ?? 'unexpected response')}`);
  const opened = await openEncryptedResponse({ data: r.body.data, vendorPrivateKey: privateJwk, serviceSigningJwks: jwks });
  if (opened.jti !== r.body.requestId) throw new Error('response jti does not match its requestId');
  output({ employee: opened.employee, iat: opened.iat, jti: opened.jti }, values.json);
}
