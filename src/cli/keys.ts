/**
 * V2 commands (docs/v2.md, docs/cli.md):
 * - `hrx keys add --org UUID --jwk FILE` → `{kid}`; `hrx keys list --org UUID` → `{keys:[...]}`;
 *   `hrx keys revoke --org UUID --kid K` → `{kid, revoked: true}` (vendor public RSA keys);
 * - `hrx basic create --org UUID` → `{username, password}` (shown once);
 *   `hrx basic revoke --org UUID --username U` → `{username, revoked: true}`;
 * - `hrx service-keys rotate [--grace-hours H]` → `{enc, sig, credential_sig, retired, retired_until}`;
 * - `hrx client employee --base-url URL --username U --password P --key PRIVATE_JWK_FILE [--kid K]
 *   --connection ID --employee EMP [--source db|hrms] [--jwks FILE]` → `{employee, iat, jti}`;
 *   with `--pay-history [--months N]` → `{pay_history, iat, jti}` (docs/v2.md "Pay history"):
 *   the vendor side of the V2 call, run against a running hrx.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { JSONWebKeySet, JWK } from 'jose';
import { choiceOption, intValue, jsonOption, numberValue, output, UsageError, uuidValue } from './args';
import { CommandError, withContext, type Cli } from './runtime';

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

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new CommandError(`${url}: HTTP ${res.status}, body is not JSON`);
  }
}

/** Options of `hrx client employee`. */
interface ClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  key: string;
  kid?: string;
  connection: string;
  employee: string;
  source?: 'db' | 'hrms';
  /** Read the pay history (`resource: "pay_history"`) instead of the record. */
  payHistory?: boolean;
  /** With `payHistory`: months 1..36 (the service's default is 12). */
  months?: number;
  jwks?: string;
  json?: boolean;
}

/** `hrx client employee ...`: builds the V2 request, calls hrx, prints the opened response. */
async function clientEmployee(values: ClientOptions): Promise<void> {
  const base = values.baseUrl.replace(/\/+$/, '');
  const privateJwk = readJsonFile(values.key, 'private JWK') as JWK;
  if (typeof privateJwk !== 'object' || privateJwk === null || privateJwk.kty !== 'RSA' || typeof privateJwk.d !== 'string') {
    throw new UsageError('--key must name a file holding a private RSA JWK');
  }
  const source = values.source;
  if (values.months !== undefined && !values.payHistory) throw new UsageError('--months needs --pay-history');
  if (values.payHistory && source) throw new UsageError('--source does not apply to --pay-history (pay months are read from the store)');
  // The JWKS is fetched from the service unless pinned with --jwks (its trust then rests on TLS).
  let jwks: JSONWebKeySet;
  if (values.jwks) jwks = readJsonFile(values.jwks, 'JWKS') as JSONWebKeySet;
  else {
    const r = await getJson(`${base}/.well-known/jwks.json`);
    if (r.status !== 200) throw new CommandError(`JWKS: HTTP ${r.status}`);
    // A body without a `keys` array holds no key to encrypt to (refused just below).
    jwks = { keys: Array.isArray(r.body.keys) ? (r.body.keys as JWK[]) : [] };
  }
  // Keys are listed current first: the first `enc` key is the one to encrypt to.
  const encJwk = (jwks.keys ?? []).find((k) => k.use === 'enc' && k.alg === 'RSA-OAEP-256');
  if (!encJwk) throw new CommandError('the service JWKS has no RSA-OAEP-256 encryption key');
  const kid = values.kid ?? (typeof privateJwk.kid === 'string' ? privateJwk.kid : undefined);
  const { buildEncryptedRequest, openEncryptedResponse } = await import('../crypto/jose/client');
  const encrypted = await buildEncryptedRequest({
    connectionId: values.connection,
    employeeId: values.employee,
    ...(source ? { source } : {}),
    ...(values.payHistory ? { resource: 'pay_history' as const } : {}),
    ...(values.months === undefined ? {} : { months: values.months }),
    vendorPrivateKey: privateJwk,
    ...(kid ? { vendorKid: kid } : {}),
    servicePublicJwk: encJwk,
  });
  const r = await getJson(`${base}/api/external/employee/`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${values.username}:${values.password}`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ encrypted_payload: encrypted }),
  });
  if (r.status !== 200 || typeof r.body.data !== 'string')
    throw new CommandError(`HTTP ${r.status}: ${typeof r.body.message === 'string' ? r.body.message : 'unexpected response'}`);
  const opened = await openEncryptedResponse({ data: r.body.data, vendorPrivateKey: privateJwk, serviceSigningJwks: jwks });
  if (opened.jti !== r.body.requestId) throw new CommandError('response jti does not match its requestId');
  const body = values.payHistory ? { pay_history: opened.pay_history } : { employee: opened.employee };
  output({ ...body, iat: opened.iat, jti: opened.jti }, values.json);
}

/** Registers `keys`, `basic`, `service-keys` and `client`. */
export function registerKeyCommands(program: Command, cli: Cli): void {
  const keys = program.command('keys').description("a vendor's public RSA keys (V2 request signatures and response encryption)");
  keys
    .command('add')
    .description("register a vendor's public RSA key (>= 2048 bits); prints {kid}")
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .requiredOption('--jwk <file>', 'a file holding the PUBLIC JWK')
    .addOption(jsonOption())
    .action(async (opts: { org: string; jwk: string; json?: boolean }) => {
      const jwk = readJsonFile(opts.jwk, 'JWK');
      await withContext(cli, async (ctx) => output(await ctx.services.external.addVendorKey(opts.org, jwk), opts.json));
    });
  keys
    .command('list')
    .description("list a vendor's keys; prints {keys: [{kid, bits, use, alg, status, created_at, revoked_at}]}")
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .addOption(jsonOption())
    .action(async (opts: { org: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ keys: await ctx.services.external.listVendorKeys(opts.org) }, opts.json));
    });
  keys
    .command('revoke')
    .description("revoke a vendor's key; prints {kid, revoked: true}")
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .requiredOption('--kid <kid>', "the key's kid (from keys list)")
    .addOption(jsonOption())
    .action(async (opts: { org: string; kid: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => {
        await ctx.services.external.revokeVendorKey(opts.org, opts.kid);
        output({ kid: opts.kid, revoked: true }, opts.json);
      });
    });

  const basic = program.command('basic').description("a vendor's V2 Basic credentials (POST /api/external/employee/)");
  basic
    .command('create')
    .description('create a Basic credential; prints {username, password} (the password is shown once)')
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .addOption(jsonOption())
    .action(async (opts: { org: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ ...(await ctx.services.external.basic.create(opts.org)) }, opts.json));
    });
  basic
    .command('revoke')
    .description('revoke a Basic credential: every API process refuses it within 1 s; prints {username, revoked: true}')
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .requiredOption('--username <username>', "the credential's username")
    .addOption(jsonOption())
    .action(async (opts: { org: string; username: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => {
        await ctx.services.external.basic.revoke(opts.org, opts.username);
        output({ username: opts.username, revoked: true }, opts.json);
      });
    });

  program
    .command('service-keys')
    .description("the service's own V2 keys (signing and encryption, published in its JWKS)")
    .command('rotate')
    .description('make a new key pair current; the old ones stay published for the grace period; prints {enc, sig, credential_sig, retired, retired_until}')
    .option('--grace-hours <hours>', 'hours the old keys stay published (0 retires them at once)', numberValue(0, 24 * 365), 24)
    .addOption(jsonOption())
    .action(async (opts: { graceHours: number; json?: boolean }) => {
      await withContext(cli, async (ctx) => {
        await ctx.services.external.ensureServiceKeys();
        output({ ...(await ctx.services.external.rotateServiceKeys(opts.graceHours)) }, opts.json);
      });
    });

  program
    .command('client')
    .description('the vendor side of the V2 API, against a running hrx')
    .command('employee')
    .description(
      'read one employee through POST /api/external/employee/ (signed, encrypted); prints {employee, iat, jti}, or {pay_history, iat, jti} with --pay-history',
    )
    .requiredOption('--base-url <url>', 'the hrx to call, e.g. http://127.0.0.1:8080')
    .requiredOption('--username <username>', "the vendor's Basic username (hrx basic create)")
    .requiredOption('--password <password>', 'its password')
    .requiredOption('--key <file>', "a file holding the vendor's PRIVATE RSA JWK")
    .option('--kid <kid>', "the kid of that key (default: the JWK's own kid)")
    .requiredOption('--connection <id>', "the connection's id")
    .requiredOption('--employee <id>', 'the employee id, e.g. EMP00001')
    .addOption(choiceOption('--source <source>', 'where the record is read (default: as the connection says)', ['db', 'hrms']))
    .option('--pay-history', "read the employee's pay months (resource: pay_history) instead of the record")
    .option('--months <n>', 'with --pay-history: how many months, 1 to 36 (default 12)', intValue(1, 36))
    .option('--jwks <file>', 'use this service JWKS instead of fetching /.well-known/jwks.json')
    .addOption(jsonOption())
    .action(clientEmployee);
}
