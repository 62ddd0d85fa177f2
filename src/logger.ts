/**
 * pino logger factory. Redacts every path that could carry a secret or PII, so that neither
 * credentials nor employee values reach the logs even when an object is logged whole.
 */
import { destination, pino, type Logger } from 'pino';

export type { Logger };

/** Paths pino replaces by `[redacted]` wherever they appear (one level of nesting covered by `*`). */
export const REDACT_PATHS = [
  'authorization', 'username', 'password', 'app_secret', 'client_secret', 'api_key', 'access_token',
  'encrypted_payload', 'pan', 'aadhar', 'uan', 'mobileNumber', 'accountNumber', 'ifscCode',
  'req.headers.authorization', 'req.headers.username', 'headers.authorization', 'headers.username',
  '*.authorization', '*.password', '*.app_secret', '*.client_secret', '*.api_key', '*.access_token',
  '*.pan', '*.aadhar', '*.uan', '*.mobileNumber', '*.accountNumber', '*.ifscCode', '*.salaryDetails',
];

/**
 * Creates the service logger at `level` (pino levels, plus `silent`). Logs go to stderr so that
 * the CLI's `--json` output on stdout stays one clean JSON object.
 */
export function createLogger(level: string, name = 'hrx'): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination(2));
}
