/**
 * The employment and income credential (docs/credentials.md): issuing an SD-JWT VC from the
 * plain read (same checks, errors, consent rule and audit), the status lists, the issuing
 * vendor's view and revocation, and the sweep that revokes credentials whose grounds are gone.
 */
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { SignJWT, type JWK } from 'jose';
import type { ConnectionAccess } from '../connections/access-cache';
import type { FieldCipher } from '../crypto/field-cipher';
import { EVERY_DATA_POINT } from '../domain/data-points';
import type { EmployeeRecord } from '../domain/record';
import { decodeEmployee } from '../employees/codec';
import { AppError } from '../errors';
import type { AnyServicePublicJwk, ServiceKeyring, VendorKeyCache } from '../external/keyring';
import { hrmsProduct } from '../hrms/products';
import type { HousekeepingSchedule } from '../queue/housekeeping';
import { credentialIssuer, STATUS_LIST_TYP } from './sd-jwt';
import { STATUS_LIST_SIZE, type CredentialStore, type RevokedReason } from './store';

/** One pay month of a credential's `pay` claim (docs/credentials.md "Claims"). */
export interface PayMonth {
  year: number;
  month: number;
  grossPay: number | null;
  netPay: number | null;
}

/** The pay months seam: the last `n` months of employee row `employeeRowId` of client org `orgId`, newest first. */
export type PayMonths = (orgId: number, employeeRowId: string, n: number) => Promise<PayMonth[]>;

/** Period of the credential sweep (ms): well inside the 60 s a revocation must show within (docs/credentials.md "Revocation"). */
export const CREDENTIAL_SWEEP_MS = 15_000;

/** The housekeeping schedule of the credential sweep. */
export const credentialSchedules = (): HousekeepingSchedule[] => [{ id: 'credential-sweep', job: 'credential-sweep', everyMs: CREDENTIAL_SWEEP_MS }];

/** `ttl` of a status list token, seconds (docs/credentials.md "Status lists"). */
export const STATUS_LIST_TTL_S = 300;

export interface CredentialServiceDeps {
  store: CredentialStore;
  keyring: Pick<ServiceKeyring, 'credentialSigningKey' | 'jwks'>;
  vendorKeys: Pick<VendorKeyCache, 'forOrg'>;
  employees: {
    readWithAccess(q: { vendorOrgId: number; clientOrgUuid: string; employeeRef: string; requestId: string }): Promise<{
      record: EmployeeRecord;
      access: ConnectionAccess;
      rowId: string;
    }>;
  };
  cipher: FieldCipher;
  /** The pay months; default {@link recordedPayMonth}. */
  payMonths: PayMonths;
  /** `iss`: HRX_PUBLIC_URL plus the base path (docs/credentials.md "Keys and metadata"). */
  issuer: string;
  ttlDays: number;
}

/** A status list's URI under `issuer`. */
export const statusListUri = (issuer: string, list: number): string => `${issuer}/credentials/status/${list}`;
/** The credential type (`vct`) under `issuer`. */
export const vctOf = (issuer: string): string => `${issuer}/vct/employment-income/v1`;

export type CredentialService = ReturnType<typeof createCredentialService>;

/** Builds the credential service. */
export function createCredentialService(deps: CredentialServiceDeps) {
  const { store } = deps;

  const { payMonths } = deps;

  /** The claims of docs/credentials.md "Claims": only shared data points, a claim with none left out. */
  async function claimsOf(record: EmployeeRecord, access: ConnectionAccess, rowId: string, months: number): Promise<Record<string, unknown>> {
    const set = access.sharedDataPoints === EVERY_DATA_POINT ? null : new Set(access.sharedDataPoints);
    const shared = (p: string) => set === null || set.has(p);
    const pick = (pairs: [string, string, unknown][]) => Object.fromEntries(pairs.filter(([, point]) => shared(point)).map(([k, , v]) => [k, v]));
    const employer = await store.employer(access.clientOrgId);
    const claims: Record<string, unknown> = {
      employer: { name: employer.name, org_id: employer.uuid },
      employee: { employee_id: record.employeeId, ...pick([['name', 'name', record.name]]) },
    };
    const employment = pick([
      ['status', 'status', record.status],
      ['doj', 'doj', record.doj],
      ['designation', 'designation', record.designation],
      ['employment_type', 'employmentType', record.employmentType],
      ['termination_date', 'terminationDate', record.terminationDate],
    ]);
    if (Object.keys(employment).length > 0) claims.employment = employment;
    if (months > 0 && (shared('monthly_grossPay') || shared('monthly_netPay'))) {
      const recorded = await payMonths(access.clientOrgId, rowId, months);
      // A record written before pay history existed has its month only in `monthly` (docs/credentials.md "Claims").
      const current = record.salaryDetails.monthly;
      const fallback =
        current.month !== null && current.year !== null
          ? [{ year: current.year, month: current.month, grossPay: current.grossPay, netPay: current.netPay }]
          : [];
      const pay = (recorded.length > 0 ? recorded : fallback).slice(0, months).map((m) => ({
        year: m.year,
        month: m.month,
        ...pick([
          ['gross_pay', 'monthly_grossPay', m.grossPay],
          ['net_pay', 'monthly_netPay', m.netPay],
        ]),
      }));
      if (pay.length > 0) claims.pay = pay;
    }
    if (employer.lastSuccessAt) claims.as_of = employer.lastSuccessAt.toISOString();
    const product = employer.hrmsId ? hrmsProduct(employer.hrmsId) : undefined;
    if (product) claims.source = product.displayName;
    return claims;
  }

  return {
    /**
     * Issues a credential (docs/api.md "Credentials"). Throws 409 NO_REGISTERED_KEY when the vendor
     * has no active key to bind (checked first: nothing is read), then the plain read's errors.
     */
    async issue(q: { vendorOrgId: number; org: string; employeeId: string; months: number; requestId: string }) {
      const [key] = await deps.vendorKeys.forOrg(q.vendorOrgId);
      if (!key) throw new AppError('NO_REGISTERED_KEY');
      const { record, access, rowId } = await deps.employees.readWithAccess({
        vendorOrgId: q.vendorOrgId,
        clientOrgUuid: q.org,
        employeeRef: q.employeeId,
        requestId: q.requestId,
      });
      const claims = await claimsOf(record, access, rowId, q.months);
      const place = await store.nextStatusPlace();
      const signing = await deps.keyring.credentialSigningKey();
      const iat = Math.floor(Date.now() / 1000);
      const exp = iat + deps.ttlDays * 86_400;
      const cnf: JWK = { kty: 'RSA', n: key.jwk.n, e: key.jwk.e, kid: key.kid };
      const payload = {
        iss: deps.issuer,
        vct: vctOf(deps.issuer),
        iat,
        exp,
        cnf: { jwk: cnf },
        status: { status_list: { idx: place.idx, uri: statusListUri(deps.issuer, place.list) } },
        ...claims,
      };
      const sdJwt = await credentialIssuer(signing.privateKey).issue(payload, { _sd: Object.keys(claims) as never[] }, { header: { kid: signing.kid } });
      const id = randomUUID();
      await store.insert({
        id,
        vendorOrgId: q.vendorOrgId,
        clientOrgId: access.clientOrgId,
        employeeId: record.employeeId,
        connectionId: access.connectionId,
        vendorKid: key.kid,
        consentRequired: access.consentRequired,
        statusList: place.list,
        statusIdx: place.idx,
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
      });
      return { credential_id: id, sd_jwt: sdJwt, exp: new Date(exp * 1000).toISOString() };
    },

    /** The issuing vendor's view (never the claims); 404 NOT_FOUND for an unknown id or another vendor's. */
    async state(vendorOrgId: number, id: string) {
      const c = await store.find(id, vendorOrgId);
      if (!c) throw new AppError('NOT_FOUND');
      const status = c.revokedAt ? 'revoked' : c.expiresAt.getTime() <= Date.now() ? 'expired' : 'valid';
      return { status, iat: c.issuedAt.toISOString(), exp: c.expiresAt.toISOString(), revoked_reason: c.revokedReason } as const;
    },

    /** Revokes the vendor's credential; 404 NOT_FOUND as {@link state}. Revoking twice answers the state again. */
    async revoke(vendorOrgId: number, id: string) {
      await store.revoke(id, vendorOrgId, 'vendor');
      const c = await store.find(id, vendorOrgId);
      if (!c) throw new AppError('NOT_FOUND');
      return { status: 'revoked' as const, iat: c.issuedAt.toISOString(), exp: c.expiresAt.toISOString(), revoked_reason: c.revokedReason };
    },

    /**
     * The status list token of list `list` (draft-ietf-oauth-status-list §5): 1 bit per
     * credential, ZLIB-compressed, `ttl` 300, signed ES256 by the issuer key. 404 NOT_FOUND for a
     * list not started.
     */
    async statusListToken(list: number): Promise<string> {
      const { exists, revoked } = await store.revokedInList(list);
      if (!exists) throw new AppError('NOT_FOUND');
      // The bytes directly (status `i` is bit `i % 8`, least significant first, of byte `i / 8`:
      // draft-ietf-oauth-status-list §4.1): `@sd-jwt/jwt-status-list` encodes one string per
      // entry, tens of milliseconds for 131,072 entries at every request.
      const bytes = new Uint8Array(STATUS_LIST_SIZE / 8);
      for (const i of revoked) bytes[i >> 3]! |= 1 << (i & 7);
      const signing = await deps.keyring.credentialSigningKey();
      const iat = Math.floor(Date.now() / 1000);
      const payload = {
        sub: statusListUri(deps.issuer, list),
        iat,
        exp: iat + 86_400,
        ttl: STATUS_LIST_TTL_S,
        status_list: { bits: 1, lst: deflateSync(bytes, { level: 9 }).toString('base64url') },
      };
      return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: STATUS_LIST_TYP, kid: signing.kid }).sign(signing.privateKey);
    },

    /** `/.well-known/jwt-vc-issuer` (draft-ietf-oauth-sd-jwt-vc §5): the issuer and its JWKS. */
    async issuerMetadata(): Promise<{ issuer: string; jwks: { keys: AnyServicePublicJwk[] } }> {
      return { issuer: deps.issuer, jwks: await deps.keyring.jwks() };
    },

    /** The type metadata served at `vct` (draft-ietf-oauth-sd-jwt-vc §6). */
    typeMetadata() {
      const claim = (name: string, label: string) => ({ path: [name], sd: 'always', display: [{ locale: 'en', label }] });
      return {
        vct: vctOf(deps.issuer),
        name: 'Employment and income',
        description: 'An employee’s employer, employment and recent pay months as the employer’s HRMS reports them, attested by hrx.',
        display: [{ locale: 'en', name: 'Employment and income', description: 'Employment and pay, attested by hrx from the employer’s HRMS.' }],
        claims: [
          claim('employer', 'Employer'),
          claim('employee', 'Employee'),
          claim('employment', 'Employment'),
          claim('pay', 'Pay months'),
          claim('as_of', 'As of'),
          claim('source', 'Source HRMS'),
        ],
      };
    },

    /**
     * Revokes every live credential whose grounds are gone (docs/credentials.md "Revocation"):
     * by SQL (connection, key, consent, erased or removed employee), then by reading the changed
     * records of the rest (employment status no longer `Active`). Returns how many per reason.
     */
    async sweep(): Promise<Partial<Record<RevokedReason, number>>> {
      const out = await store.sweep();
      for (;;) {
        const changed = await store.changedEmployees(500);
        if (changed.length === 0) break;
        const inactive: string[] = [];
        const fine: string[] = [];
        for (const c of changed) {
          const rec = decodeEmployee({ id: c.rowId, employeeId: c.employeeId, recordEnc: c.recordEnc }, c.clientOrgId, deps.cipher);
          (rec.status === 'Active' ? fine : inactive).push(c.credentialId);
        }
        const n = await store.revokeMany(inactive, 'employee_not_active');
        if (n > 0) out.employee_not_active = (out.employee_not_active ?? 0) + n;
        await store.markChecked(fine);
        if (changed.length < 500) break;
      }
      return out;
    },
  };
}
