/**
 * The one line the CLI prints for a failed command (stderr, `hrx: <line>`, exit code 1). Driver
 * errors carry SQL and bound values in their messages (docs/privacy.md), so a PostgreSQL error is
 * told by its SQLSTATE in plain words, never by its message; hrx's own errors keep theirs.
 */
import { ConfigError } from '../config';
import { AppError, renderError } from '../errors';
import { describeError, errorForLog } from '../log-error';
import { CommandError } from './runtime';

/** Plain words for the SQLSTATEs an operator meets (PostgreSQL Appendix A), exact code first, then class. */
const SQLSTATE_WORDS: Record<string, string> = {
  '42P01': 'the database has no hrx tables: run `hrx migrate` first',
  '3F000': 'the database schema (HRX_DB_SCHEMA) does not exist: run `hrx migrate` first',
  '23505': 'that exists already (a value that must be unique is taken)',
  '23503': 'that refers to a record that does not exist',
  '23502': 'a required value is missing',
  '28P01': 'PostgreSQL refused the user or password of DATABASE_URL',
  '28000': 'PostgreSQL refused the user or password of DATABASE_URL',
  '3D000': 'the database named in DATABASE_URL does not exist',
  '57014': 'PostgreSQL did not finish the statement in time',
  '40001': 'a concurrent change got in the way: run the command again',
  '40P01': 'a concurrent change got in the way: run the command again',
  '22': 'a value is not in the form the database expects',
  '23': 'the change breaks a rule of the database',
  '53': 'PostgreSQL is out of resources (connections, memory or disk)',
  '08': 'the connection to PostgreSQL failed',
};

/** The plain words of SQLSTATE `code`, or undefined. */
function sqlStateWords(code: string | undefined): string | undefined {
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return SQLSTATE_WORDS[code] ?? SQLSTATE_WORDS[code.slice(0, 2)];
}

/** The line to print for `err` (without the `hrx: ` prefix). Never a statement, a bound value or a secret. */
export function plainError(err: unknown): string {
  if (err instanceof CommandError || err instanceof ConfigError) return err.message;
  if (err instanceof AppError) return String(renderError(err, '-').body.message);
  const e = errorForLog(err);
  const code = e.sqlState ?? (typeof e.code === 'string' ? e.code : undefined) ?? (typeof e.cause?.code === 'string' ? e.cause.code : undefined);
  const words = sqlStateWords(code);
  if (words) return `${words} (PostgreSQL ${code})`;
  return describeError(err);
}
