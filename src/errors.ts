/**
 * The one error type of hrx and its closed set of codes, each mapped to HTTP status, message and
 * body shape in one table (docs/errors.md). Services throw `AppError`; only the HTTP layer turns
 * it into a response. Nothing below the routes knows HTTP statuses except through this table.
 */

/** Body shape variants of docs/api.md "Conventions". */
type Shape =
  | 'envelope' // requestId, message, data null
  | 'code' // requestId?, code, message, data null
  | 'status' // requestId, status, message, data null
  | 'noRequestId'; // message, data (no requestId)

interface ErrorSpec {
  /**
   * The stable snake_case code of this row, sent as the body's `error` (docs/errors.md "Error
   * codes"): one per row, never reused, never changing meaning once published.
   */
  error: string;
  status: number;
  message: string;
  shape: Shape;
  /** The `data` value of the body. */
  data?: null | Record<string, never>;
  /**
   * The row whose status and message this one answers with, telling a case of it apart by its own
   * code only: clients written against the message keep working.
   */
  refines?: string;
}

/** Every error hrx answers with. Adding a code means adding a row here, nowhere else. */
export const ERRORS = {
  AUTH_MISSING: { error: 'credentials_missing', status: 401, message: 'Authentication credentials were not provided.', shape: 'envelope' },
  AUTH_INVALID: { error: 'invalid_token', status: 401, message: 'Invalid token.', shape: 'envelope' },
  CLIENT_CREDENTIALS_INVALID: { error: 'invalid_client_credentials', status: 401, message: 'Invalid client credentials.', shape: 'envelope' },
  SOURCE_PERMISSION_DENIED: { error: 'source_permission_denied', status: 403, message: 'Source Permission denied', shape: 'noRequestId', data: {} },
  /** Connect flow: approving a connection to an established org without proof of control, a wrong proof, or a locked pair (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
  PROOF_FAILED: { error: 'proof_failed', status: 403, message: 'Proof of control failed', shape: 'envelope' },
  CONSENT_MISSING: { error: 'consent_not_found', status: 403, message: 'Consent not found or expired', shape: 'envelope' },
  /** Withdrawal of a consent when none of the caller's is in force (docs/consent.md "How consent works": 404, same message as the read's 403). */
  CONSENT_NOT_IN_FORCE: { error: 'consent_not_in_force', status: 404, message: 'Consent not found or expired', shape: 'envelope' },
  INVALID_CONNECTION: { error: 'invalid_connection_id', status: 404, message: 'Invalid Connection ID', shape: 'envelope' },
  INVALID_ORGANISATION: { error: 'invalid_organisation_id', status: 404, message: 'Invalid Organisation ID', shape: 'envelope' },
  /** A read over the caller's own connection after its termination (docs/api.md "Errors": the unknown org's status and message, its own code). */
  CONNECTION_TERMINATED: {
    error: 'connection_terminated',
    status: 404,
    message: 'Invalid Organisation ID',
    shape: 'envelope',
    refines: 'INVALID_ORGANISATION',
  },
  EMPLOYEE_NOT_FOUND: { error: 'employee_not_found', status: 404, message: 'Employee not found', shape: 'envelope' },
  NOT_FOUND: { error: 'not_found', status: 404, message: 'Not found.', shape: 'envelope' },
  INVALID_PAGE: { error: 'invalid_page', status: 404, message: 'Invalid page.', shape: 'envelope' },
  CLIENT_ORG_NOT_FOUND: { error: 'client_org_not_found', status: 404, message: 'No organisation found with the given client_org', shape: 'code' },
  METHOD_NOT_ALLOWED: { error: 'method_not_allowed', status: 405, message: 'Method "{method}" not allowed.', shape: 'envelope' },
  CONNECTION_ALREADY_TERMINATED: { error: 'connection_already_terminated', status: 409, message: 'Conflict! Connection already terminated', shape: 'status' },
  /** Connect flow: the connection was approved or rejected already (README "SDK token and Connect flow"). */
  CONNECTION_DECIDED: { error: 'connection_already_decided', status: 409, message: 'Connection already {status}', shape: 'envelope' },
  /** docs/api.md "Idempotency": a request with the same `Idempotency-Key` is still running. */
  IDEMPOTENCY_KEY_IN_USE: { error: 'idempotency_key_in_use', status: 409, message: 'A request with this idempotency key is still running', shape: 'envelope' },
  /** docs/api.md "Idempotency": the key was used with another request (method, path or body). */
  IDEMPOTENCY_KEY_REUSED: { error: 'idempotency_key_reused', status: 422, message: 'Idempotency key reused with another request', shape: 'envelope' },
  /** A credential asked for by a vendor with no active key to bind as `cnf` (docs/credentials.md "Issuing"). */
  NO_REGISTERED_KEY: { error: 'no_registered_key', status: 409, message: 'No registered key', shape: 'envelope' },
  SYNC_IN_PROGRESS: { error: 'sync_in_progress', status: 423, message: 'Connection cannot be terminated while sync is in progress', shape: 'envelope' },
  INVALID_EMAIL: { error: 'invalid_email', status: 400, message: 'Invalid Email Passed!', shape: 'code' },
  VALIDATION: { error: 'validation_failed', status: 400, message: 'Invalid request', shape: 'code' },
  MALFORMED_JSON: { error: 'malformed_json', status: 400, message: 'Malformed JSON body', shape: 'code' },
  HRMS_CREDENTIALS_REJECTED: { error: 'hrms_credentials_rejected', status: 400, message: 'HRMS credentials rejected: {reason}', shape: 'code' },
  INVALID_ENCRYPTED_PAYLOAD: { error: 'invalid_encrypted_payload', status: 400, message: 'Invalid encrypted payload', shape: 'envelope' },
  BODY_TOO_LARGE: { error: 'body_too_large', status: 413, message: 'Request body too large', shape: 'envelope' },
  UNSUPPORTED_MEDIA_TYPE: { error: 'unsupported_media_type', status: 415, message: 'Unsupported media type', shape: 'envelope' },
  THROTTLED: { error: 'throttled', status: 429, message: 'Request was throttled. Expected available in {seconds} seconds.', shape: 'envelope' },
  INTERNAL: { error: 'internal_error', status: 500, message: 'Internal Server Error', shape: 'envelope' },
  /** Redis or PostgreSQL did not answer in time (docs/operations.md "Redis or PostgreSQL down; shutdown"); sent with `Retry-After`. */
  UNAVAILABLE: { error: 'service_unavailable', status: 503, message: 'Service temporarily unavailable', shape: 'envelope' },
} as const satisfies Record<string, ErrorSpec>;

/** The closed set of error codes. */
export type ErrorCode = keyof typeof ERRORS;

/** One field-level validation problem (docs/errors.md, validation failure body). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * The error every layer throws. `params` fill `{placeholders}` of the table's message;
 * `fieldErrors` (VALIDATION only) become `data.errors`; `headers` are added to the response
 * (e.g. `Retry-After`). `cause` is for logs only and never reaches a client.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly params: Record<string, string | number>;
  readonly fieldErrors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    opts: { params?: Record<string, string | number>; fieldErrors?: FieldError[]; headers?: Record<string, string>; message?: string; cause?: unknown } = {},
  ) {
    super(opts.message ?? code, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.params = opts.params ?? {};
    this.fieldErrors = opts.fieldErrors;
    this.headers = opts.headers;
  }

  /** A validation failure naming the first bad field (docs/errors.md). */
  static validation(fieldErrors: FieldError[]): AppError {
    const first = fieldErrors[0];
    return new AppError('VALIDATION', {
      fieldErrors,
      message: first ? `${first.field}: ${first.message}` : 'Invalid request',
    });
  }
}

/** The HTTP rendering of an error: status, JSON body and extra headers. */
export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Renders `err` for the wire (docs/errors.md). Unknown errors become a plain 500 with no detail.
 * `requestId` is included where the table's shape carries it.
 */
export function renderError(err: unknown, requestId: string): RenderedError {
  const appErr = err instanceof AppError ? err : new AppError('INTERNAL');
  const spec: ErrorSpec = ERRORS[appErr.code];
  let message: string = spec.message.replace(/\{(\w+)\}/g, (_, k: string) => String(appErr.params[k] ?? ''));
  let data: unknown = spec.data === undefined ? null : spec.data;
  if (appErr.code === 'VALIDATION') {
    message = appErr.message;
    data = { errors: appErr.fieldErrors ?? [] };
  }
  const body: Record<string, unknown> = {};
  // docs/api.md "Conventions": every JSON body carries requestId except `Source Permission denied`.
  if (spec.shape !== 'noRequestId') body.requestId = requestId;
  // docs/errors.md "Error codes": every shape carries the row's stable code.
  body.error = spec.error;
  if (spec.shape === 'code') body.code = spec.status;
  if (spec.shape === 'status') body.status = spec.status;
  body.message = message;
  body.data = data;
  return { status: spec.status, body, headers: appErr.headers ?? {} };
}
