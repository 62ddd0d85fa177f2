/**
 * MikroORM entities (EntitySchema, no decorators) of the core tables: orgs, API keys,
 * connections, HRMS configurations, employees, sync runs, consents, audit entries. Table layout
 * is fixed by the committed migrations in `../migrations`; these schemas must match them.
 * Sensitive columns (`*_enc`) hold AES-256-GCM envelopes from `crypto/field-cipher`.
 */
import { EntitySchema } from '@mikro-orm/core';

/** How an org was made: by the operator, or by an SDK token's rule (e-mail domain, org name, `remote_org_id`). */
export type OrgCreatedVia = 'operator' | 'email_domain' | 'name' | 'remote_org_id';

/** An organization: vendor (`is_vendor`) or client (`is_client`) (docs/api.md "Vendor connections", docs/api.md "Org details"). */

export class Org {
  id!: number;
  uuid!: string;
  orgName!: string;
  /** `org_name` trimmed and lower-cased, for the SDK token's name match (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
  orgNameKey!: string;
  appName!: string;
  appKey!: string;
  /** scrypt hash of `app_secret` (docs/api.md "Credentials"). */
  appSecretHash!: string;
  /** Keyed hash of `app_secret` (crypto/secrets `keyedSecretHash`); null on orgs made before it existed. */
  appSecretKeyedHash: string | null = null;
  appSecretLast4!: string;
  orgCin: string | null = null;
  websiteUrl = '';
  logoUrl: string | null = null;
  emailDomain: string | null = null;
  inviteStatus = 'accepted';
  isClient = false;
  isVendor = false;
  brandName: string | null = null;
  remoteOrgId: string | null = null;
  /** The vendor whose SDK token first used `remoteOrgId`: that id names this org for that vendor only (docs/connect.md). */
  remoteOrgVendorId: number | null = null;
  /** How the org was made (docs/connect.md "Org resolution"): the name rule finds only its own. */
  createdVia: OrgCreatedVia = 'operator';
  hrms: string | null = null;
  /** A vendor's purpose, shown to the HR admin on the Connect page (docs/connect.md "Reference: the SDK token and the Connect endpoints"); set by `hrx org update`. */
  purpose: string | null = null;
  /** A vendor's privacy policy link (http or https), shown on the Connect page (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
  privacyUrl: string | null = null;
  invitedBy = 0;
  createdBy = 0;
  createdOn: Date = new Date();
  modifiedOn: Date = new Date();
  /** When the org became established (first HRMS configuration or employee; never cleared). */
  establishedAt: Date | null = null;
}

export const OrgSchema = new EntitySchema<Org>({
  class: Org,
  tableName: 'orgs',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    uuid: { type: 'uuid', unique: true },
    orgName: { type: 'text' },
    orgNameKey: { type: 'text' },
    appName: { type: 'text' },
    appKey: { type: 'text', unique: true },
    appSecretHash: { type: 'text' },
    appSecretKeyedHash: { type: 'text', nullable: true },
    appSecretLast4: { type: 'text' },
    orgCin: { type: 'text', nullable: true },
    websiteUrl: { type: 'text' },
    logoUrl: { type: 'text', nullable: true },
    emailDomain: { type: 'text', nullable: true },
    inviteStatus: { type: 'text' },
    isClient: { type: 'boolean' },
    isVendor: { type: 'boolean' },
    brandName: { type: 'text', nullable: true },
    remoteOrgId: { type: 'text', nullable: true },
    remoteOrgVendorId: { type: 'integer', nullable: true },
    createdVia: { type: 'text' },
    hrms: { type: 'text', nullable: true },
    purpose: { type: 'text', nullable: true },
    privacyUrl: { type: 'text', nullable: true },
    invitedBy: { type: 'integer' },
    createdBy: { type: 'integer' },
    createdOn: { type: 'Date', columnType: 'timestamptz(3)' },
    modifiedOn: { type: 'Date', columnType: 'timestamptz(3)' },
    establishedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

/** An API key: only its keyed hash is stored (docs/api.md "Credentials"). */
export class ApiKey {
  id!: string;
  orgId!: number;
  keyHash!: string;
  /** First characters of the key, to tell keys apart in listings. */
  prefix!: string;
  createdAt: Date = new Date();
  revokedAt: Date | null = null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    keyHash: { type: 'text', unique: true },
    prefix: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});

/** Connection status of docs/api.md "Vendor connections". */
export type ConnectionStatus = 'pending' | 'approved' | 'rejected' | 'terminated';

/**
 * Who made a connection's last decision (docs/connect.md "After the decision"): the client org's
 * HR admin on the Connect page, the operator through the CLI, or the vendor (terminate).
 */
export type ConnectionDecider = 'admin' | 'operator' | 'vendor';

/** One vendor org ↔ one client org (docs/api.md "Vendor connections"). */
export class Connection {
  id!: string;
  vendorOrgId!: number;
  clientOrgId!: number;
  status: ConnectionStatus = 'pending';
  /** null: every data point is shared (operator-created without a list). */
  sharedDataPoints: string[] | null = null;
  notSharedDataPoints: string[] = [];
  notRequestedDataPoints: string[] = [];
  dataModelFlags: Record<string, Record<string, number>> | null = null;
  syncFrequency = 'daily';
  liveSource = false;
  consentRequired = true;
  csmUser = '';
  createdByUser = '';
  phone = '';
  email = '';
  intType = 'API';
  isInternational = false;
  salaryDetailsFlag = true;
  statusChangedAt: Date = new Date();
  createdAt: Date = new Date();
  terminatedAt: Date | null = null;
  /** Who made the last decision (approve, reject, terminate); null while pending or when not recorded (Migration20261128060000). */
  decidedBy: ConnectionDecider | null = null;
  /**
   * The Connect session that entered the client org's HRMS configuration this approval rested on
   * (docs/connect.md "Reference: the SDK token and the Connect endpoints"; Migration20261123060000): setup-config replacing it sends the connection back
   * to pending. Null otherwise.
   */
  approvedOnConfigSession: string | null = null;
}

export const ConnectionSchema = new EntitySchema<Connection>({
  class: Connection,
  tableName: 'connections',
  properties: {
    id: { type: 'uuid', primary: true },
    vendorOrgId: { type: 'integer' },
    clientOrgId: { type: 'integer' },
    status: { type: 'text' },
    sharedDataPoints: { type: 'text[]', nullable: true },
    notSharedDataPoints: { type: 'text[]' },
    notRequestedDataPoints: { type: 'text[]' },
    dataModelFlags: { type: 'json', nullable: true },
    syncFrequency: { type: 'text' },
    liveSource: { type: 'boolean' },
    consentRequired: { type: 'boolean' },
    csmUser: { type: 'text' },
    createdByUser: { type: 'text' },
    phone: { type: 'text' },
    email: { type: 'text' },
    intType: { type: 'text' },
    isInternational: { type: 'boolean' },
    salaryDetailsFlag: { type: 'boolean' },
    statusChangedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    terminatedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    decidedBy: { type: 'text', nullable: true },
    approvedOnConfigSession: { type: 'uuid', nullable: true },
  },
});

/** A client org's HRMS configuration from setup-config (docs/api.md "Setup config"). */
export class HrmsConfig {
  orgId!: number;
  hrmsId!: string;
  /** Encrypted JSON `{ access_credentials, api_configs }`. */
  credentialsEnc!: string;
  configuredApis: string[] = [];
  valid = true;
  invalidReason: string | null = null;
  /** The Connect session that entered this configuration for a new org (docs/connect.md "The session"); null when setup-config stored it. */
  connectSessionId: string | null = null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date();
}

export const HrmsConfigSchema = new EntitySchema<HrmsConfig>({
  class: HrmsConfig,
  tableName: 'hrms_configs',
  properties: {
    orgId: { type: 'integer', primary: true },
    hrmsId: { type: 'text' },
    credentialsEnc: { type: 'text' },
    configuredApis: { type: 'text[]' },
    valid: { type: 'boolean' },
    invalidReason: { type: 'text', nullable: true },
    connectSessionId: { type: 'uuid', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/**
 * An employee of a client org (docs/data-points.md, docs/at-rest.md): ids in columns, every value in the
 * two envelopes of employees/codec (`recordEnc`, the record; `maskedEnc`, the plain endpoint's
 * masked form). `removedAt` is set when a full sync no longer sees it.
 */
export class Employee {
  id!: string;
  orgId!: number;
  employeeId!: string;
  /** Envelope of the record without `id` and `employeeId` (JSON); see employees/codec. */
  recordEnc!: string;
  /** Encrypted, serialized plain-endpoint form (masked, every data point); see employees/codec. */
  maskedEnc: string | null = null;
  lastSyncRunId: string | null = null;
  removedAt: Date | null = null;
  updatedAt: Date = new Date();
}

export const EmployeeSchema = new EntitySchema<Employee>({
  class: Employee,
  tableName: 'employees',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    employeeId: { type: 'text' },
    recordEnc: { type: 'text' },
    maskedEnc: { type: 'text', nullable: true },
    lastSyncRunId: { type: 'uuid', nullable: true },
    removedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/** One sync of a client org (docs/behaviour.md "Sync"). `status`: running | succeeded | failed. */
/** What a sync run lists (docs/hrms/connectors.md "Full and incremental syncs"). */
export type SyncKind = 'full' | 'incremental';

export class SyncRun {
  id!: string;
  orgId!: number;
  trigger!: string;
  /** `full` (every employee; finds removals) or `incremental` (changed since the previous run), docs/hrms/connectors.md "Full and incremental syncs". */
  kind: SyncKind = 'full';
  status = 'running';
  startedAt: Date = new Date();
  finishedAt: Date | null = null;
  pages = 0;
  employeesSeen = 0;
  employeesRemoved = 0;
  error: string | null = null;
  /** Per data point, how many of the run's employees have a value (src/domain/coverage.ts); null before it was recorded. */
  coverage: SyncCoverage | null = null;
}

/** `sync_runs.coverage`: employees the run saw, and per data point how many of them have a value (the shape of src/domain/coverage.ts). */
export interface SyncCoverage {
  employees: number;
  points: Record<string, number>;
}

export const SyncRunSchema = new EntitySchema<SyncRun>({
  class: SyncRun,
  tableName: 'sync_runs',
  properties: {
    id: { type: 'uuid', primary: true },
    orgId: { type: 'integer' },
    trigger: { type: 'text' },
    kind: { type: 'text' },
    status: { type: 'text' },
    startedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    finishedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    pages: { type: 'integer' },
    employeesSeen: { type: 'integer' },
    employeesRemoved: { type: 'integer' },
    error: { type: 'text', nullable: true },
    coverage: { type: 'json', nullable: true },
  },
});

/**
 * A consent given by an employee to one vendor for one client org (docs/consent.md "How consent works"). Append-only.
 * The statement the vendor showed (free text, which may name the employee) is kept only as an
 * envelope bound to the record (`consent:<id>`, consent/store.ts), or, once the employee is
 * erased, as its keyed digest (`erased:hmac-sha256:…`, crypto/tombstone.ts).
 */
export class Consent {
  id!: string;
  vendorOrgId!: number;
  clientOrgId!: number;
  employeeId!: string;
  consentLanguageEnc!: string;
  consentTimestamp!: Date;
  consentExpiry!: Date;
  revokedAt: Date | null = null;
  createdAt: Date = new Date();
  requestId!: string;
}

export const ConsentSchema = new EntitySchema<Consent>({
  class: Consent,
  tableName: 'consents',
  properties: {
    id: { type: 'uuid', primary: true },
    vendorOrgId: { type: 'integer' },
    clientOrgId: { type: 'integer' },
    employeeId: { type: 'text' },
    consentLanguageEnc: { type: 'text' },
    consentTimestamp: { type: 'Date', columnType: 'timestamptz(3)' },
    consentExpiry: { type: 'Date', columnType: 'timestamptz(3)' },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    requestId: { type: 'uuid' },
  },
});

/** One audited action (docs/api.md "Employee details": who, which employee, which data points, when, request id). */
export class AuditEntry {
  id!: string;
  at: Date = new Date();
  requestId!: string;
  actorOrgId!: number;
  action!: string;
  clientOrgId: number | null = null;
  connectionId: string | null = null;
  employeeId: string | null = null;
  dataPoints: string[] | null = null;
}

export const AuditEntrySchema = new EntitySchema<AuditEntry>({
  class: AuditEntry,
  tableName: 'audit_log',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    at: { type: 'Date', columnType: 'timestamptz(3)' },
    requestId: { type: 'uuid' },
    actorOrgId: { type: 'integer' },
    action: { type: 'text' },
    clientOrgId: { type: 'integer', nullable: true },
    connectionId: { type: 'uuid', nullable: true },
    employeeId: { type: 'text', nullable: true },
    dataPoints: { type: 'text[]', nullable: true },
  },
});

/** The core tables' entity schemas (collected with the others in `./index.ts`). */
export const CORE_ENTITIES = [OrgSchema, ApiKeySchema, ConnectionSchema, HrmsConfigSchema, EmployeeSchema, SyncRunSchema, ConsentSchema, AuditEntrySchema];
