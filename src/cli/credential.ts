/**
 * `hrx credential verify` and `hrx credential present` (docs/credentials.md "Verifying",
 * "Presenting"): what a lender, its co-lender or its auditor runs on an employment and income
 * credential, offline (a saved JWKS and status list) or online (fetched from the issuer).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { JWK } from 'jose';
import { jsonOption, output, UsageError } from './args';
import { CommandError } from './runtime';

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new UsageError(`cannot read ${what} file ${path}: ${(err as Error).message}`);
  }
}

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readText(path, what)) as unknown;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${what} file ${path} is not JSON`);
  }
}

async function fetchText(url: string, accept: string): Promise<string> {
  const res = await fetch(url, { headers: { accept }, signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new CommandError(`${url}: HTTP ${res.status}`);
  return res.text();
}

interface VerifyOptions {
  jwks?: string;
  issuer?: string;
  statusList?: string;
  nonce?: string;
  aud?: string;
  json?: boolean;
}

async function verify(file: string, o: VerifyOptions): Promise<void> {
  if (o.jwks && o.issuer) throw new UsageError('give --jwks or --issuer, not both');
  if ((o.nonce === undefined) !== (o.aud === undefined)) throw new UsageError('--nonce and --aud go together (they check a presentation)');
  const compact = readText(file, 'credential');
  const { decodeJwt } = await import('jose');
  let iss: unknown;
  try {
    iss = decodeJwt(compact.split('~')[0] ?? '').iss;
  } catch {
    throw new CommandError('the file does not hold an SD-JWT');
  }
  let jwks: { keys: JWK[] };
  if (o.jwks) jwks = readJson(o.jwks, 'JWKS') as { keys: JWK[] };
  else {
    const issuer = (o.issuer ?? (typeof iss === 'string' ? iss : '')).replace(/\/+$/, '');
    if (!issuer) throw new UsageError('the credential names no issuer: give --jwks or --issuer');
    if (o.issuer && iss !== issuer) throw new CommandError(`the credential's iss is not ${issuer}`);
    const meta = JSON.parse(await fetchText(`${issuer}/.well-known/jwt-vc-issuer`, 'application/json')) as { issuer?: string; jwks?: { keys: JWK[] } };
    if (meta.issuer !== issuer || !meta.jwks) throw new CommandError('the issuer metadata does not name this issuer');
    jwks = meta.jwks;
  }
  const saved = o.statusList ? readText(o.statusList, 'status list') : undefined;
  const { verifyCredential } = await import('../credentials/sd-jwt');
  const verdict = await verifyCredential(compact, {
    jwks,
    statusList: (uri) => (saved !== undefined ? Promise.resolve(saved) : fetchText(uri, 'application/statuslist+jwt')),
    ...(o.nonce !== undefined && o.aud !== undefined ? { keyBinding: { nonce: o.nonce, aud: o.aud } } : {}),
  });
  if (verdict.ok) {
    // The disclosed claims, without the SD-JWT machinery (digests, holder key, status reference).
    const claims = Object.fromEntries(Object.entries(verdict.claims).filter(([k]) => !['_sd', '_sd_alg', 'cnf', 'status'].includes(k)));
    output({ result: 'valid', claims }, o.json);
    return;
  }
  output({ result: verdict.reason, detail: verdict.detail }, o.json);
  process.exitCode = 1;
}

interface PresentOptions {
  key: string;
  disclose: string;
  aud: string;
  nonce: string;
}

async function present(file: string, o: PresentOptions): Promise<void> {
  const compact = readText(file, 'credential');
  const jwk = readJson(o.key, 'private JWK') as JWK;
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.d !== 'string') throw new UsageError('--key must name a file holding a private JWK');
  const { holderAlg, presentCredential } = await import('../credentials/sd-jwt');
  const { importJWK } = await import('jose');
  let alg: 'RS256' | 'ES256';
  try {
    alg = holderAlg(jwk);
  } catch {
    throw new UsageError('--key must be an RSA or P-256 private JWK');
  }
  const key = await importJWK(jwk, alg);
  if (key instanceof Uint8Array) throw new UsageError('--key must be an asymmetric private JWK');
  const disclose = o.disclose
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  process.stdout.write(`${await presentCredential(compact, { disclose, key, alg, aud: o.aud, nonce: o.nonce })}\n`);
}

/** Registers `hrx credential verify|present`. */
export function registerCredentialCommands(program: Command): void {
  const credential = program.command('credential').description('check or present an employment and income credential (SD-JWT VC; docs/credentials.md)');
  credential
    .command('verify')
    .description(
      'check the signature, exp, every disclosure and the status list; prints {result: valid, claims} or {result: revoked|expired|invalid, detail} (exit 1)',
    )
    .argument('<file>', 'a file holding the credential or a presentation (SD-JWT compact form)')
    .option('--jwks <file>', "the issuer's JWKS saved earlier (offline)")
    .option('--issuer <url>', "the issuer to fetch /.well-known/jwt-vc-issuer from (default: the credential's iss)")
    .option('--status-list <file>', 'the status list token saved earlier (offline; default: fetched from its uri)')
    .option('--nonce <nonce>', 'require a KB-JWT with this nonce (with --aud)')
    .option('--aud <aud>', 'require a KB-JWT for this audience (with --nonce)')
    .addOption(jsonOption())
    .action(verify);
  credential
    .command('present')
    .description('print a presentation: the chosen disclosures and a KB-JWT signed with the holder key bound in cnf')
    .argument('<file>', 'a file holding the credential as issued')
    .requiredOption('--key <file>', "a file holding the holder's PRIVATE JWK (the vendor's registered RSA key)")
    .requiredOption('--disclose <claims>', 'comma-separated claims to disclose, e.g. employment,pay')
    .requiredOption('--aud <aud>', "the verifier's identifier")
    .requiredOption('--nonce <nonce>', "the verifier's nonce")
    .action(present);
}
