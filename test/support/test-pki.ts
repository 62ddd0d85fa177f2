/**
 * A throw-away PKI for tests of mutual TLS, made with the `openssl` command line (node cannot sign
 * X.509 itself): a CA, a server certificate for 127.0.0.1 and localhost, a client certificate, an
 * expired client certificate and a key of no certificate, all PEM, all signed by the CA. The
 * files live in a temporary folder removed at once; only the PEM strings are kept.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A certificate and its private key, PEM. */
export interface TestCert {
  cert: string;
  key: string;
}

/** The test PKI: `ca` (PEM) signs every certificate. */
export interface TestPki {
  ca: string;
  server: TestCert;
  client: TestCert;
  /** A client certificate whose validity ended yesterday. */
  expired: TestCert;
  /** A private key that belongs to no certificate here. */
  strayKey: string;
}

/** Whether the `openssl` command line is installed (the PKI needs it). */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes a new PKI (P-256 keys; about a second). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'hrx-pki-'));
  const at = (f: string): string => path.join(dir, f);
  const ssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore', cwd: dir });
  };
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    ssl('req', '-x509', ...newKey, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=hrx test CA');
    const issue = (name: string, days: string, ext?: string): TestCert => {
      ssl('req', ...newKey, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', `/CN=hrx test ${name}`);
      const extArgs = ext ? (writeFileSync(at(`${name}.ext`), ext), ['-extfile', at(`${name}.ext`)]) : [];
      ssl(
        'x509',
        '-req',
        '-in',
        at(`${name}.csr`),
        '-CA',
        at('ca.pem'),
        '-CAkey',
        at('ca.key'),
        '-CAcreateserial',
        '-out',
        at(`${name}.pem`),
        '-days',
        days,
        ...extArgs,
      );
      return { cert: readFileSync(at(`${name}.pem`), 'utf8'), key: readFileSync(at(`${name}.key`), 'utf8') };
    };
    const server = issue('server', '2', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    const client = issue('client', '2', 'extendedKeyUsage=clientAuth\n');
    const expired = issue('expired', '-1', 'extendedKeyUsage=clientAuth\n');
    ssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('stray.key'));
    return { ca: readFileSync(at('ca.pem'), 'utf8'), server, client, expired, strayKey: readFileSync(at('stray.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
