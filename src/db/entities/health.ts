/**
 * Entities of connection health and sync on demand (docs/sync.md "Connection health"). Table
 * layout is fixed by `Migration20261127060000`; these schemas must match it.
 */
import { EntitySchema } from '@mikro-orm/core';

/** A client org's HRMS health as a sync run leaves it; `syncing` while a run goes on. */
export type OrgHealthState = 'syncing' | 'healthy' | 'needs_reauth' | 'failing';
/** The health a finished run settles on (what the `connection.*` health events compare). */
export type SettledHealth = Exclude<OrgHealthState, 'syncing'>;

/**
 * One client org's health, written in the transaction of each sync run's start and end.
 * `settled` is null until a run of the org first ends; `failures` counts the runs failed in a
 * row for reasons other than the HRMS refusing the credentials.
 */
export class OrgHealth {
  orgId!: number;
  state!: OrgHealthState;
  settled: SettledHealth | null = null;
  failures = 0;
  lastRunId: string | null = null;
  lastAttemptAt: Date | null = null;
  lastSuccessAt: Date | null = null;
  changedAt: Date = new Date();
}

export const OrgHealthSchema = new EntitySchema<OrgHealth>({
  class: OrgHealth,
  tableName: 'org_health',
  properties: {
    orgId: { type: 'integer', primary: true },
    state: { type: 'text' },
    settled: { type: 'text', nullable: true },
    failures: { type: 'integer' },
    lastRunId: { type: 'uuid', nullable: true },
    lastAttemptAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    lastSuccessAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    changedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/** A vendor's last sync on demand of one connection: when, and the run id it was answered with. */
export class SyncRequest {
  connectionId!: string;
  requestedAt!: Date;
  runId!: string;
}

export const SyncRequestSchema = new EntitySchema<SyncRequest>({
  class: SyncRequest,
  tableName: 'sync_requests',
  properties: {
    connectionId: { type: 'uuid', primary: true },
    requestedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    runId: { type: 'uuid' },
  },
});

export const HEALTH_ENTITIES = [OrgHealthSchema, SyncRequestSchema];
