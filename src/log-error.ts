/**
 * What of an error may reach a log line (docs/privacy.md: no personal data and no SQL bound values
 * in any log line, at any level). Driver errors carry data in their messages: knex (under
 * MikroORM) writes the whole statement with its bound values into the message, PostgreSQL's
 * `detail` quotes the offending values ("Key (email)=(...)"), `JSON.parse` quotes the text it
 * failed on. So an error is logged by its name, its codes (SQLSTATE, errno, driver code) and the
 * names of the objects involved (table, constraint), never by its message, except for the
 * errors whose messages hrx itself writes to be safe (`SAFE_MESSAGE_ERRORS`).
 */
import { AppError } from './errors';
import { HrmsError } from './hrms/connector';
import { HostNotAllowedError } from './outbound/host-policy';
import { ResponseTooLargeError } from './outbound/bounded-response';

/** The loggable form of an error. */
export interface LoggedError {
  name: string;
  /** Driver or Node code: SQLSTATE (`23505`), `ECONNREFUSED`, an `AppError` code... */
  code?: string | number;
  /** MikroORM's copy of the SQLSTATE. */
  sqlState?: string;
  errno?: number;
  /** Names (not values) PostgreSQL reports with the error. */
  table?: string;
  constraint?: string;
  routine?: string;
  /** Only for errors hrx writes itself (see `SAFE_MESSAGE_ERRORS`). */
  message?: string;
  /** An HrmsError's kind. */
  kind?: string;
  /** Stack frames (`at fn (file:line)`), without the message lines. */
  stack?: string[];
  cause?: LoggedError;
}

/** Error classes whose messages hrx writes without values or secrets (their docs say so). */
const SAFE_MESSAGE_ERRORS: ReadonlyArray<abstract new (...args: never[]) => Error> = [AppError, HrmsError, HostNotAllowedError, ResponseTooLargeError];

/**
 * Further hrx errors with hrx-written messages, by class name (importing them here would make
 * import cycles through the logger): JOSE key and payload checks, key registration, sync lock, an unreachable dependency (its
 * connection error with any URL credentials masked, src/unavailable.ts).
 */
const SAFE_MESSAGE_NAMES: ReadonlySet<string> = new Set([
  'InvalidKeyError',
  'KidConflictError',
  'InvalidEncryptedPayload',
  'SyncLockedError',
  'DependencyUnreachableError',
]);

/** A short identifier-like string (a code or a name), or undefined. */
function ident(v: unknown, max = 64): string | undefined {
  return typeof v === 'string' && v.length <= max && /^[A-Za-z0-9_.:-]+$/.test(v) ? v : undefined;
}

/**
 * The loggable form of `err` (any thrown value): name and codes always; the message only for
 * `SAFE_MESSAGE_ERRORS`; stack frames without the message; `cause` likewise (3 levels deep).
 * A non-error value is logged by its type only.
 */
export function errorForLog(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) {
    return { name: err === null ? 'null' : typeof err };
  }
  const e = err as Error & Record<string, unknown>;
  const ctor = ident(e.constructor?.name);
  const out: LoggedError = { name: (e.name === 'Error' ? ctor : undefined) ?? ident(e.name) ?? ctor ?? 'Error' };
  const code = e.code;
  if (typeof code === 'number' || ident(code)) out.code = code as string | number;
  const sqlState = ident(e.sqlState, 5);
  if (sqlState) out.sqlState = sqlState;
  if (typeof e.errno === 'number') out.errno = e.errno;
  const table = ident(e.table);
  if (table) out.table = table;
  const constraint = ident(e.constraint);
  if (constraint) out.constraint = constraint;
  const routine = ident(e.routine);
  if (routine) out.routine = routine;
  // A validation failure's message names fields, which a caller chose (an unknown key).
  const validation = err instanceof AppError && err.code === 'VALIDATION';
  const safe = SAFE_MESSAGE_ERRORS.some((k) => err instanceof k) || SAFE_MESSAGE_NAMES.has(err.constructor?.name);
  if (!validation && safe) {
    out.message = err.message;
    if (err instanceof HrmsError) out.kind = err.kind;
  }
  if (typeof err.stack === 'string') {
    const frames = err.stack
      .split('\n')
      .filter((l) => /^\s+at /.test(l))
      .slice(0, 12)
      .map((l) => l.trim());
    if (frames.length) out.stack = frames;
  }
  if (err.cause !== undefined && depth < 3) out.cause = errorForLog(err.cause, depth + 1);
  return out;
}

/** One line for people (the CLI's stderr): the safe message, or the name and codes. */
export function describeError(err: unknown): string {
  const e = errorForLog(err);
  if (e.message) return e.message;
  const codes = [e.code, e.sqlState && e.sqlState !== e.code ? e.sqlState : undefined].filter((c) => c !== undefined);
  const inner = e.cause && e.cause.code !== undefined ? `; cause ${e.cause.name} ${e.cause.code}` : '';
  return `${e.name}${codes.length ? ` (${codes.join(', ')})` : ''}${inner}`;
}

/**
 * A line of PostgreSQL's own log (the embedded server) safe to log: lines that may quote data
 * (ERROR, DETAIL, STATEMENT, HINT, CONTEXT, WARNING...) keep only their severity.
 */
export function pgLogLine(line: string): string {
  const m = /\b(ERROR|FATAL|PANIC|DETAIL|STATEMENT|HINT|CONTEXT|WARNING|QUERY|LOCATION):/.exec(line);
  return m ? `${m[1]}: (text omitted)` : line;
}
