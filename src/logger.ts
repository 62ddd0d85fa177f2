/**
 * pino logger factory. Redacts every path that could carry a secret or PII, so that neither
 * credentials nor employee values reach the logs even when an object is logged whole, and
 * serializes `err` through `errorForLog` (name and codes; messages only of hrx's own errors), so
 * that no driver message (SQL with bound values) reaches a log line (docs/privacy.md).
 */
import { destination, pino, type DestinationStream, type Logger } from 'pino';
import { errorForLog } from './log-error';

export type { Logger };

/** Paths pino replaces by `[redacted]` wherever they appear (one level of nesting covered by `*`). */
export const REDACT_PATHS = [
  'authorization',
  'username',
  'password',
  'app_secret',
  'client_secret',
  'tls_client_cert',
  'tls_client_key',
  'api_key',
  'access_token',
  'encrypted_payload',
  'pan',
  'aadhar',
  'uan',
  'mobileNumber',
  'accountNumber',
  'ifscCode',
  'req.headers.authorization',
  'req.headers.username',
  'headers.authorization',
  'headers.username',
  '*.authorization',
  '*.password',
  '*.app_secret',
  '*.client_secret',
  '*.tls_client_cert',
  '*.tls_client_key',
  '*.api_key',
  '*.access_token',
  '*.pan',
  '*.aadhar',
  '*.uan',
  '*.mobileNumber',
  '*.accountNumber',
  '*.ifscCode',
  '*.salaryDetails',
  // Defence in depth: credentials, names and e-mail addresses under the names hrx's bodies use.
  'app_key',
  '*.app_key',
  'client_id',
  '*.client_id',
  'api_key',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'email',
  '*.email',
  'fullname',
  '*.fullname',
  'org_name',
  '*.org_name',
  'consent_language',
  '*.consent_language',
  'aadhaar',
  '*.aadhaar',
  'bankDetails',
  '*.bankDetails',
  'personalDetails',
  '*.personalDetails',
  'req.headers.cookie',
  'headers.cookie',
  '*.cookie',
];

/**
 * Creates the service logger at `level` (pino levels, plus `silent`). Logs go to stderr so that
 * the CLI's `--json` output on stdout stays one clean JSON object.
 */
export function createLogger(level: string, name = 'hrx', stream: DestinationStream = destination(2)): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Whatever is logged as `err` goes through errorForLog, a raw driver error too.
      serializers: { err: errorForLog },
    },
    stream,
  );
}
