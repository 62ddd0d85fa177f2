/**
 * The TLS client certificate checks and the handshake refusals (src/hrms/tls-client.ts) on a PKI
 * made with the openssl command line: what setup-config's 400s say (a field, never a value), and
 * which TLS alerts name the certificate field.
 */
import { createPrivateKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { HrmsFieldError } from '../../src/hrms/connector';
import { certificateRefusal, clientCertificateOf, clientCertificateProblems } from '../../src/hrms/tls-client';
import { makeTestPki, type TestPki } from '../support/test-pki';

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
});
const base = { hrms_host: 'https://api.adp.com', grant_type: 'client_credentials' };

describe('TLS client certificate', () => {
  it('a usable certificate and key have no problem; neither given is none; the certificate is handed over trimmed', () => {
    const c = { ...base, tls_client_cert: `\n${pki.client.cert}\n`, tls_client_key: pki.client.key };
    expect(clientCertificateProblems(c)).toEqual([]);
    expect(clientCertificateOf(c)).toEqual({ cert: pki.client.cert.trim(), key: pki.client.key.trim() });
    expect(clientCertificateProblems({ ...base, tls_client_cert: ' ', tls_client_key: '' })).toEqual([]);
    expect(clientCertificateOf({ ...base, tls_client_cert: pki.client.cert })).toBeUndefined();
  });

  it('a certificate before its validity, and an encrypted key, are refused by field', () => {
    const early = clientCertificateProblems({ ...base, tls_client_cert: pki.client.cert, tls_client_key: pki.client.key }, new Date('2000-01-01T00:00:00Z'));
    expect(early).toEqual([{ field: 'access_credentials.tls_client_cert', message: expect.stringMatching(/^not valid before \d{4}-\d\d-\d\d$/) }]);
    const encrypted = createPrivateKey(pki.client.key).export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString();
    expect(clientCertificateProblems({ ...base, tls_client_cert: pki.client.cert, tls_client_key: encrypted })).toEqual([
      { field: 'access_credentials.tls_client_key', message: 'must be an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)' },
    ]);
  });

  it('a TLS alert over the client certificate names the certificate field, never retried; other transport errors are not it', () => {
    const none = certificateRefusal('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', false, 'token request');
    expect(none).toBeInstanceOf(HrmsFieldError);
    expect(none).toMatchObject({ kind: 'auth', field: 'access_credentials.tls_client_cert' });
    expect(none?.message).toBe('the HRMS asks for a TLS client certificate on token request: enter it with its private key');
    for (const code of ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED']) {
      expect(certificateRefusal(code, true, 'worker page at 0')?.message).toBe('the HRMS did not accept this TLS client certificate on worker page at 0');
    }
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ERR_SSL_WRONG_VERSION_NUMBER', undefined, 42])
      expect(certificateRefusal(code, true, 'x')).toBeUndefined();
  });
});
