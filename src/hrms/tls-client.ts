/**
 * A TLS client certificate an HRMS asks hrx to present (mutual TLS, RFC 8446 §4.4.2): the
 * `access_credentials` fields `tls_client_cert` and `tls_client_key` (PEM), checked at
 * setup-config with `node:crypto` (docs/api.md "Setup config") and handed to the shared HTTP
 * client, which presents them on every request of that connector. Problems name the field and
 * never quote a value (a private key must not reach a response or a log line).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { HrmsFieldError, type CredentialProblem, type HrmsCredentials } from './connector';

/** A client certificate and its private key, PEM, as the HTTP client presents them. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/** The `access_credentials` fields of a client certificate. */
export const TLS_CLIENT_FIELDS = ['tls_client_cert', 'tls_client_key'] as const;

const CERT = 'access_credentials.tls_client_cert';
const KEY = 'access_credentials.tls_client_key';

/** The certificate of `c`, or undefined when it carries none (both fields blank or absent). */
export function clientCertificateOf(c: HrmsCredentials): ClientCertificate | undefined {
  const cert = c.tls_client_cert?.trim();
  const key = c.tls_client_key?.trim();
  return cert && key ? { cert, key } : undefined;
}

/**
 * The problems of `c`'s client certificate, empty when it has none or a usable one: both fields
 * or neither; a certificate that is not one PEM X.509 certificate, not yet valid or expired at
 * `now`; a key that is not an unencrypted PEM private key, or not the certificate's.
 */
export function clientCertificateProblems(c: HrmsCredentials, now = new Date()): CredentialProblem[] {
  const certText = c.tls_client_cert?.trim();
  const keyText = c.tls_client_key?.trim();
  if (!certText && !keyText) return [];
  if (!certText) return [{ field: CERT, message: 'required with tls_client_key' }];
  if (!keyText) return [{ field: KEY, message: 'required with tls_client_cert' }];
  const problems: CredentialProblem[] = [];
  let cert: X509Certificate | undefined;
  if (!/^-----BEGIN CERTIFICATE-----/.test(certText)) {
    problems.push({ field: CERT, message: 'must be a PEM certificate (-----BEGIN CERTIFICATE-----)' });
  } else {
    try {
      cert = new X509Certificate(certText);
    } catch {
      problems.push({ field: CERT, message: 'is not a readable PEM certificate' });
    }
  }
  if (cert) {
    if (now.getTime() > Date.parse(cert.validTo)) problems.push({ field: CERT, message: `expired on ${isoDay(cert.validTo)}` });
    else if (now.getTime() < Date.parse(cert.validFrom)) problems.push({ field: CERT, message: `not valid before ${isoDay(cert.validFrom)}` });
  }
  let key: KeyObject | undefined;
  if (!/^-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(keyText)) {
    problems.push({ field: KEY, message: 'must be an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)' });
  } else {
    try {
      key = createPrivateKey({ key: keyText, format: 'pem' });
    } catch {
      problems.push({ field: KEY, message: 'is not a readable PEM private key' });
    }
  }
  if (cert && key && !cert.checkPrivateKey(key)) problems.push({ field: KEY, message: 'is not the private key of tls_client_cert' });
  return problems;
}

/**
 * OpenSSL's codes (as node names them) of a TLS alert the server sends over the client's
 * certificate (RFC 8446 §4.4.2.4, §6.2): `certificate_required`, `bad_certificate`,
 * `certificate_expired|revoked|unknown`, `unsupported_certificate`, `unknown_ca`, `access_denied`.
 */
const CLIENT_CERTIFICATE_REFUSED =
  /^ERR_SSL_(TLSV13_ALERT_CERTIFICATE_REQUIRED|SSLV3_ALERT_(BAD_CERTIFICATE|UNSUPPORTED_CERTIFICATE|CERTIFICATE_(EXPIRED|REVOKED|UNKNOWN))|TLSV1_ALERT_(UNKNOWN_CA|ACCESS_DENIED))$/;

/**
 * The error of a failed exchange of `what` whose transport error `code` says the HRMS ended the
 * TLS handshake over the client certificate (none `presented`, or one it does not accept), else
 * undefined. An `HrmsFieldError`: never retried, setup-config names the certificate field (the
 * Connect page marks it), a sync stops as for refused credentials.
 */
export function certificateRefusal(code: unknown, presented: boolean, what: string): HrmsFieldError | undefined {
  if (typeof code !== 'string' || !CLIENT_CERTIFICATE_REFUSED.test(code)) return undefined;
  return presented
    ? new HrmsFieldError(CERT, `the HRMS did not accept this TLS client certificate on ${what}`)
    : new HrmsFieldError(CERT, `the HRMS asks for a TLS client certificate on ${what}: enter it with its private key`);
}

/** YYYY-MM-DD of an X509Certificate date (`Dec  6 13:15:00 2026 GMT`). */
const isoDay = (text: string): string => new Date(text).toISOString().slice(0, 10);
