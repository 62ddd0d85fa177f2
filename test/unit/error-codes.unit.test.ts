/**
 * The error table's codes (docs/errors.md "Error codes"): one stable snake_case code per row,
 * never shared by two rows, each listed in docs/errors.md and sent in every body shape.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, ERRORS, renderError, type ErrorCode } from '../../src/errors';

const ERRORS_MD = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
const OPENAPI = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, { enum?: string[] }> };
};

describe('error codes', () => {
  it('every row has its own snake_case code', () => {
    const codes = Object.values(ERRORS).map((e) => e.error);
    for (const c of codes) expect(c).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('a row that refines another answers its status and message, with its own code', () => {
    const refining = Object.values(ERRORS).filter((e): e is typeof e & { refines: keyof typeof ERRORS } => 'refines' in e);
    expect(refining.map((e) => e.error)).toEqual(['connection_terminated']);
    for (const e of refining) {
      const base = ERRORS[e.refines];
      expect({ status: e.status, message: e.message, shape: e.shape }).toEqual({ status: base.status, message: base.message, shape: base.shape });
      expect(e.error).not.toBe(base.error);
    }
  });

  it('docs/errors.md and the OpenAPI enum list every code', () => {
    for (const e of Object.values(ERRORS)) expect(ERRORS_MD).toContain(`| \`${e.error}\` | ${e.status} |`);
    expect(OPENAPI.components.schemas.ErrorCode?.enum?.toSorted()).toEqual(
      Object.values(ERRORS)
        .map((e) => e.error)
        .toSorted(),
    );
  });

  it('every body shape carries the code beside its message and fields', () => {
    const shapes: [ErrorCode, Record<string, unknown>][] = [
      ['AUTH_INVALID', { requestId: 'r', error: 'invalid_token', message: 'Invalid token.', data: null }],
      ['INVALID_EMAIL', { requestId: 'r', error: 'invalid_email', code: 400, message: 'Invalid Email Passed!', data: null }],
      [
        'CONNECTION_ALREADY_TERMINATED',
        { requestId: 'r', error: 'connection_already_terminated', status: 409, message: 'Conflict! Connection already terminated', data: null },
      ],
      ['SOURCE_PERMISSION_DENIED', { error: 'source_permission_denied', message: 'Source Permission denied', data: {} }],
    ];
    for (const [code, body] of shapes) expect(renderError(new AppError(code), 'r').body).toStrictEqual(body);
    expect(renderError(AppError.validation([{ field: 'org', message: 'required' }]), 'r').body).toStrictEqual({
      requestId: 'r',
      error: 'validation_failed',
      code: 400,
      message: 'org: required',
      data: { errors: [{ field: 'org', message: 'required' }] },
    });
  });
});
